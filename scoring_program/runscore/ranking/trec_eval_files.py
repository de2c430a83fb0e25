"""The qrels and run files as trec_eval 9.0.8 (and 10.0) reads them, byte for byte, for `runscore trec_eval`.

Why a reader of its own: a drop-in must accept every file trec_eval accepts and read it to the same values.
trec_eval splits lines at LF only and fields at C `isspace` (space, TAB, LF, VT, FF, CR: exactly Python's
`bytes.split()`), keeps every other byte (a UTF-8 BOM, NBSP, invalid UTF-8) inside the ids, reads scores with
`atof` (a prefix: `1.5x` -> 1.5, `abc` -> 0, `0x1A` -> 26, `nan`, `inf`) and grades with `atol` (`1.5` -> 1),
and stops at the first malformed line with "Malformed line N" (N counts the lines it parsed). Ids are kept as
`str` decoded as Latin-1, one character per byte, so comparing them compares the bytes as `strcmp` does and
printing them (encoded as Latin-1 again) gives back the bytes.

Where trec_eval silently reads something dubious, the reader records a `Note` (a warning; an error with
`--strict`), with the physical line number. Fatal problems raise `TrecEvalFailure` with trec_eval's own stderr
lines and exit code.
"""
import math
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..measures.c_numbers import c_atof as trec_c_atof, c_float
from .rankeval import TopicRun

BOM = b"\xef\xbb\xbf"
_STRICT_DECIMAL = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
_STRICT_INTEGER = re.compile(rb"[+-]?\d+\Z")
_INTEGER_PREFIX = re.compile(rb"[+-]?\d+")
LONG_MAX = 2 ** 63 - 1
LONG_MIN = -2 ** 63


# bpref and gm_bpref add up trec_eval's per-grade counts below -l, reading past the end of their array when -l
# is above a topic's highest grade + 1 (m_bpref.c). The value is unaffected (no document is relevant then), but
# once the read leaves trec_eval's memory it crashes (seen from about -l 20,000): runscore warns from this many
# counts past the array on.
BPREF_OVERREAD_WARN = 4096


class TrecEvalFailure(Exception):
    """trec_eval would stop here: `stderr` is what it prints (each line with its LF), `code` its exit code."""

    def __init__(self, stderr: str, code: int, detail: str = ""):
        super().__init__(stderr)
        self.stderr = stderr
        self.code = code
        self.detail = detail        # runscore's own diagnostic (physical line), printed after trec_eval's


@dataclass
class Note:
    """Something trec_eval reads silently that a user should know about (warning; error with --strict)."""

    line: int
    message: str


def c_atof(text: bytes) -> float:
    """glibc atof of a field's bytes (measures.c_numbers.c_atof; a field holds no white space, and Latin-1 keeps every
    byte one character)."""
    return trec_c_atof(text.decode("latin-1"))


def c_atol(text: bytes) -> int:
    """glibc atol (strtol base 10): the leading integer, 0 when there is none, clamped to the range of long."""
    match = _INTEGER_PREFIX.match(text)
    if not match:
        return 0
    digits = match.group(0).lstrip(b"+-").lstrip(b"0")
    if len(digits) > 19:                # beyond long either way (and beyond Python's int() digit limit)
        return LONG_MIN if text.startswith(b"-") else LONG_MAX
    return max(LONG_MIN, min(LONG_MAX, int(match.group(0))))


def score_note(text: bytes, value: float, v10: bool) -> Optional[str]:
    """Why a score field is dubious (trec_eval reads it anyway), or None."""
    if not _STRICT_DECIMAL.match(text):
        return "score (field 5) %r is not a decimal number; trec_eval reads it as %s" % (
            shown(text), _c_g(value, v10))
    if math.isinf(value) or (not v10 and math.isinf(c_float(value))):
        return "score (field 5) %r is out of range for a %s; trec_eval reads it as %s" % (
            shown(text), "double" if v10 else "float (trec_eval 9.0.8)", _c_g(value, v10))
    return None


def _c_g(value: float, v10: bool) -> str:
    if not v10:
        with np.errstate(over="ignore"):
            value = c_float(value)
    if value != value:
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%g" % value


def shown(text: bytes) -> str:
    """A field for a message: its bytes as Latin-1 text (printable, one character per byte)."""
    return text.decode("latin-1")


@dataclass
class Qrels:
    """Judgements by topic (ids as Latin-1 strings), in file order; duplicates are kept as trec_eval keeps them
    until it evaluates the topic."""

    topics: Dict[str, List[Tuple[str, int, int]]] = field(default_factory=OrderedDict)   # qid -> (docno, rel, line)
    notes: List[Note] = field(default_factory=list)

    def grades(self, qid: str) -> Dict[str, int]:
        return {docno: rel for docno, rel, _line in self.topics[qid]}

    def duplicate(self, qid: str) -> Optional[Tuple[str, int, int]]:
        """The first repeated docno of a topic in trec_eval's order (sorted by docno), with both lines."""
        seen: Dict[str, int] = {}
        found = None
        for docno, _rel, line in self.topics[qid]:
            if docno in seen and (found is None or docno < found[0]):
                found = (docno, seen[docno], line)
            seen.setdefault(docno, line)
        return found


@dataclass
class Run:
    """Result lines by topic (ids as Latin-1 strings) in file order."""

    topics: Dict[str, "object"] = field(default_factory=OrderedDict)     # qid -> rankeval.TopicRun
    run_id: str = ""
    notes: List[Note] = field(default_factory=list)


def _check_nul(data: bytes, path: str, what: str) -> None:
    at = data.find(b"\0")
    if at >= 0:
        line = data.count(b"\n", 0, at) + 1
        raise TrecEvalFailure("", 2, "%s:%d: error: the %s file holds a NUL byte (trec_eval cuts the field there or "
                                     "reads past its buffer); runscore refuses it" % (path, line, what))


def _line_ends_note(data: bytes, notes: List[Note]) -> None:
    if b"\r" in data and b"\n" not in data:
        notes.append(Note(1, "the file has CR line ends only: trec_eval reads it as one line"))


def _lines(data: bytes, notes: List[Note]) -> List[bytes]:
    """The file's lines as trec_eval reads them (split on LF; a final LF ends the last line), after noting what
    it keeps silently: a UTF-8 byte order mark (part of the first topic id) and CR line ends."""
    if data.startswith(BOM):
        notes.append(Note(1, "the file starts with a UTF-8 byte order mark: trec_eval keeps it as part of the first "
                             "topic id"))
    _line_ends_note(data, notes)
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def read_qrels(data: bytes, path: str, v10: bool = False) -> Qrels:
    """Parse qrels bytes as trec_eval's get_qrels (10.0: a line whose first non-space byte is `#` is a comment,
    what 10.0 means to do; see docs/trec_eval.md for its bugs)."""
    if not data:
        raise TrecEvalFailure("trec_eval.get_qrels: Cannot read qrels file '%s'\ntrec_eval: Quit in file '%s'\n"
                              % (path, path), 2, "%s: error: the qrels file is empty" % path)
    _check_nul(data, path, "qrels")
    qrels = Qrels()
    lines = _lines(data, qrels.notes)
    parsed = 0
    topics = qrels.topics
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if v10 and fields and fields[0].startswith(b"#"):
            continue
        parsed += 1
        if len(fields) != 4:
            raise TrecEvalFailure("trec_eval.get_qrels: Malformed line %d\ntrec_eval: Quit in file '%s'\n"
                                  % (parsed, path), 2,
                                  "%s:%d: error: a qrels line has exactly 4 fields (qid iter docno rel), this one "
                                  "has %d" % (path, number, len(fields)))
        rel_text = fields[3]
        rel = c_atol(rel_text)
        if not _STRICT_INTEGER.match(rel_text):
            qrels.notes.append(Note(number, "grade (field 4) %r is not an integer; trec_eval reads it as %d"
                                    % (shown(rel_text), rel)))
        qid = fields[0].decode("latin-1")
        entries = topics.get(qid)
        if entries is None:
            entries = topics[qid] = []
        entries.append((fields[2].decode("latin-1"), rel, number))
    return qrels


def read_run(data: bytes, path: str, v10: bool = False, shown_path: Optional[str] = None) -> Run:
    """Parse run bytes as trec_eval's get_trec_results: blank lines skipped, at least 6 fields, extra fields
    ignored, the run id of the last line (10.0: `#` lines are comments). Scores are C doubles here; 9.0.8's
    float rounding is the ranking's score dtype."""
    display = shown_path or path
    if not data:
        raise TrecEvalFailure("trec_eval.get_results: Cannot read results file '%s'\ntrec_eval: Quit in file '%s'\n"
                              % (path, path), 2, "%s: error: the run file is empty" % display)
    _check_nul(data, display, "run")
    run = Run()
    lines = _lines(data, run.notes)
    parsed = 0
    topics = run.topics
    last_run_id = None
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields or (v10 and fields[0].startswith(b"#")):
            continue
        parsed += 1
        if len(fields) < 6:
            raise TrecEvalFailure("trec_eval.get_results: Malformed line %d\ntrec_eval: Quit in file '%s'\n"
                                  % (parsed, path), 2,
                                  "%s:%d: error: a run line has at least 6 fields (qid iter docno rank sim "
                                  "run_id), this one has %d" % (display, number, len(fields)))
        sim_text = fields[4]
        sim = c_atof(sim_text)
        why = score_note(sim_text, sim, v10)
        if why:
            run.notes.append(Note(number, why))
        qid = fields[0].decode("latin-1")
        topic = topics.get(qid)
        if topic is None:
            topic = topics[qid] = TopicRun()
        topic.add(fields[2].decode("latin-1"), sim, number)
        last_run_id = fields[5]
    if last_run_id is None:
        # Only blank (or comment) lines: trec_eval's sort of zero lines leaves one bogus topic whose qid is "",
        # which no qrels topic matches; 9.0.8 then finds no topic to evaluate.
        run.run_id = ""
        return run
    run.run_id = last_run_id.decode("latin-1")
    return run
