"""Reference loader for TREC-format qrels: `topic iter docno grade`, whitespace-separated.

Why strict: trec_eval reads a grade `abc` as 0 and lets duplicate lines abort mid-run; a reference file is the
organiser's responsibility, so every defect is a ConfigError (exit 2) naming the line.
"""
from collections import OrderedDict
from typing import Dict, Mapping, Optional, Tuple

from ..errors import ConfigError, ConfigErrors
from ..measures.judged import MAX_GRADE     # the largest grade a measure counts (imported from here too)
from ..textfile import numbered_lines, read_text

Qrels = Dict[str, Dict[str, int]]   # topic -> docno -> grade, in file order


def parse_qrels_text(text: str, path: str, allow_comments: bool = False,
                     grade_map: Dict[str, int] = None, scale: Optional[Tuple[int, int]] = None) -> Qrels:
    """Parse qrels text. `grade_map` lets a grade column hold letters (e.g. NTCIR's A/B/C); `scale` (lowest,
    highest) is the task's grade scale: a grade outside it is an error naming the line and the scale (a
    collection's own qrels graded 1-4, 1 best, read as 0-3 would invert the levels and still give a plausible
    MAP)."""
    qrels: Qrels = OrderedDict()
    problems = ConfigErrors()
    for line_no, line in numbered_lines(text):
        if not line.strip() or (allow_comments and line.lstrip().startswith("#")):
            continue
        try:
            fields = line.split()
            if len(fields) < 4:
                raise ConfigError("qrels line has %d fields, expected 4: topic iter docno grade" % len(fields),
                                  path, line_no)
            topic, docno, grade_text = fields[0], fields[2], fields[3]
            grade = _parse_grade(grade_text, grade_map, path, line_no)
            if scale is not None and not scale[0] <= grade <= scale[1]:
                raise ConfigError("grade %s is outside the task's scale %s" % (grade_text, scale_words(scale,
                                                                                                 grade_map)),
                                  path, line_no)
            docs = qrels.setdefault(topic, OrderedDict())
            if docno in docs:
                raise ConfigError("duplicate judgement of document %s for topic %s" % (docno, topic), path,
                                  line_no)
            docs[docno] = grade
        except ConfigError as exc:
            problems.add(exc)
    problems.check()       # every bad line is told at once, not the first only
    return qrels


def _parse_grade(text: str, grade_map, path: str, line_no: int) -> int:
    if grade_map is not None and text in grade_map:
        return grade_map[text]
    expected = "an integer" if grade_map is None else "an integer or one of %s" % ", ".join(grade_map)
    if len(text) > 20:
        raise ConfigError("grade %r... is not %s" % (text[:20], expected), path, line_no)
    try:
        grade = int(text)
    except ValueError:
        raise ConfigError("grade %r is not %s" % (text, expected), path, line_no)
    if abs(grade) > MAX_GRADE:
        raise ConfigError("grade %d is outside -%d..%d; grades are small integers (levels of relevance)"
                          % (grade, MAX_GRADE, MAX_GRADE), path, line_no)
    return grade


def scale_words(scale: Tuple[int, int], grade_map: Optional[Dict[str, int]] = None) -> str:
    """`0..3 (or C, B, A, S)`: the grades a task reads, for messages."""
    shown = "%d..%d" % scale
    if grade_map:
        shown += " (or %s)" % ", ".join(sorted(grade_map, key=grade_map.get))
    return shown


def outside_scale(qrels: Mapping, scale: Tuple[int, int]) -> bool:
    """Whether some grade of read qrels lies outside the scale (a columnar read is checked on its arrays)."""
    columns = getattr(qrels, "columns", None)
    if columns is not None:
        grades = [judged for judged in columns.judged.values() if judged.shape[0]]
        return any(int(g.min()) < scale[0] or int(g.max()) > scale[1] for g in grades)
    return any(not scale[0] <= grade <= scale[1] for docs in qrels.values() for grade in docs.values())


def read_qrels(path: str, allow_comments: bool = False, grade_map: Dict[str, int] = None,
               scale: Optional[Tuple[int, int]] = None) -> Qrels:
    return parse_qrels_text(read_text(path, error_class=ConfigError), path, allow_comments, grade_map, scale)
