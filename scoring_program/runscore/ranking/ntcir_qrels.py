"""Graded qrels for the NTCIREVAL measures: NTCIR format `topic docid Lk`, per-topic `.rel` files `docid Lk`,
and TREC format `topic iter docid grade` with integer grades; plus NTCIREVAL's labelling step.

Why separate from ranking/qrels.py: NTCIREVAL levels are `L0`..`L15` strings, a level above the declared number of
levels is an error, and labelling keeps run order (no sorting, unjudged = L0, or removed in condensed-list
mode). A defect of a reference file is the organiser's fault: ConfigError (exit 2) naming file and line.
"""
import re
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence

from ..errors import ConfigError, ConfigErrors
from ..measures.ntcireval import MAX_LEVELS
from .qrels import read_qrels
from ..textfile import numbered_lines, read_text

GradedQrels = Dict[str, Dict[str, int]]     # topic -> docid -> level (0..k), in file order

_LEVEL = re.compile(r"L([0-9]+)")
FORMATS = ("auto", "ntcir", "trec")


def parse_level(text: str, path: str, line_no: int, max_level: Optional[int] = None) -> int:
    """`L2` -> 2; anything else, or a level above max_level (default 15), is a ConfigError."""
    match = _LEVEL.fullmatch(text)
    top = MAX_LEVELS if max_level is None else max_level
    if not match:
        raise ConfigError("relevance level %r is not of the form Lk (L0 = judged non-relevant, L1..L%d)"
                          % (text, top), path, line_no)
    level = int(match.group(1)) if len(match.group(1)) <= 4 else top + 1
    if level > top:
        raise ConfigError("relevance level %s is above the highest declared level L%d" % (text, top),
                          path, line_no)
    return level


def parse_ntcir_qrels_text(text: str, path: str, max_level: Optional[int] = None) -> GradedQrels:
    """NTCIR-format qrels: `topic docid Lk` (whitespace-separated), one judgement a line."""
    qrels: GradedQrels = OrderedDict()
    problems = ConfigErrors()
    for line_no, line in numbered_lines(text):
        if not line.strip():
            continue
        fields = line.split()
        try:
            if len(fields) != 3:
                raise ConfigError("NTCIR qrels line has %d fields, expected 3: topic docid Lk" % len(fields),
                                  path, line_no)
            _add(qrels, fields[0], fields[1], parse_level(fields[2], path, line_no, max_level), path, line_no)
        except ConfigError as exc:
            problems.add(exc)
    problems.check()       # every bad line is told at once, not the first only
    return qrels


def parse_rel_text(text: str, path: str, max_level: Optional[int] = None) -> Dict[str, int]:
    """One topic's `.rel` file (NTCIRsplitqrels output): `docid Lk` a line."""
    docs: Dict[str, int] = OrderedDict()
    for line_no, line in numbered_lines(text):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            raise ConfigError(".rel line has %d fields, expected 2: docid Lk" % len(fields), path, line_no)
        if fields[0] in docs:
            raise ConfigError("duplicate judgement of document %s" % fields[0], path, line_no)
        docs[fields[0]] = parse_level(fields[1], path, line_no, max_level)
    return docs


def _add(qrels: GradedQrels, topic: str, docid: str, level: int, path: str, line_no: int) -> None:
    docs = qrels.setdefault(topic, OrderedDict())
    if docid in docs:
        raise ConfigError("duplicate judgement of document %s for topic %s" % (docid, topic), path, line_no)
    docs[docid] = level


def read_graded_qrels(path: str, fmt: str = "auto", max_level: Optional[int] = None) -> GradedQrels:
    """Read graded qrels in NTCIR (`topic docid Lk`) or TREC (`topic iter docid grade`) format.

    `auto` decides by the first non-blank line: 3 fields ending in `Lk` = NTCIR, 4 fields = TREC. TREC grades
    must be integers 0..max_level (a negative grade, trec_eval's "unjudged", has no NTCIREVAL meaning).
    """
    if fmt not in FORMATS:
        raise ConfigError("qrels format %r is not one of %s" % (fmt, ", ".join(FORMATS)), path)
    text = read_text(path, error_class=ConfigError)
    if fmt == "auto":
        fmt = _sniff(text, path)
    if fmt == "ntcir":
        return parse_ntcir_qrels_text(text, path, max_level)
    top = MAX_LEVELS if max_level is None else max_level
    return read_qrels(path, scale=(0, top))      # a grade off the scale is told at its line, with the scale


def _sniff(text: str, path: str) -> str:
    for _, line in numbered_lines(text):
        fields = line.split()
        if not fields:
            continue
        if len(fields) == 3 and _LEVEL.fullmatch(fields[2]):
            return "ntcir"
        if len(fields) == 4:
            return "trec"
        raise ConfigError("cannot tell the qrels format: expected 'topic docid Lk' (NTCIR) or "
                          "'topic iter docid grade' (TREC)", path)
    raise ConfigError("the qrels file is empty", path)


def highest_level(qrels: GradedQrels) -> int:
    return max((level for docs in qrels.values() for level in docs.values()), default=0)


def label(docids: Sequence[str], topic_qrels: Dict[str, int], condensed: bool = False) -> List[int]:
    """NTCIREVAL `label`: the level of each document in run order; unjudged documents are L0, or removed
    (ranks close up) in condensed-list mode (`-j`)."""
    if condensed:
        return [topic_qrels[d] for d in docids if d in topic_qrels]
    return [topic_qrels.get(d, 0) for d in docids]
