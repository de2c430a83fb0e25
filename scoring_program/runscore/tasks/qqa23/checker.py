"""The official submission checker's rules (QQA23_TaskB_submission_checker.py, July 3, 2023), line-numbered,
plus what it forgot.

Why every rule is restated here: a run the official checker rejects must be rejected, and one it accepts must
be accepted (its warnings stay warnings), but each finding must point at a line of the file and say what was
expected. Rules the checker lacks (types it never looked at, pq_ids unknown to the gold file, spans outside the
passage, answer texts that are not the tokens they point at) are warnings unless the spec makes them errors.
"""
import math
import os
import re
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence

from ...numeric import MAX_DIGITS, shorten
from ...errors import Diagnostics
from ...validate import load_schema
from .gold import GoldRecord
from .pap import PositionMap, surviving_predictions
from .run_json import JsonDocument
from .segment import Segmenter

SCHEMA = "qqa23-mrc.run"
FILE_NAME = re.compile(r"[a-zA-Z0-9]{3,9}_[a-zA-Z0-9]{2,9}")
MAX_ANSWERS = 10
INDICES = ("strt_token_indx", "end_token_indx")
TYPE_NAMES = {"integer": "an integer", "number": "a number", "string": "a string", "array": "a list",
              "object": "an object"}


def check_file_name(display: str, diags: Diagnostics, strict: bool) -> None:
    """Stage 1: `TeamID_RunID.json`, TeamID 3-9 and RunID 2-9 letters or digits."""
    report = diags.error if strict else diags.warning
    base = os.path.basename(display)
    if not base.endswith(".json"):
        report(0, "the run file name %r does not end in .json (runs are named TeamID_RunID.json)" % base)
    elif not FILE_NAME.fullmatch(base[:-5]):
        report(0, "the run file name %r is not TeamID_RunID.json, with TeamID 3-9 and RunID 2-9 letters or "
                  "digits (e.g. bigIR_run01.json)" % base)


# ------------------------------------------------------------------------------------------ structure ---
@lru_cache(maxsize=None)
def _validator():
    import jsonschema

    schema = load_schema(SCHEMA)
    # JSON 1.0 is a float to the official checker (an error for ranks and indices); jsonschema would accept it.
    strict_integer = jsonschema.Draft7Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(jsonschema.Draft7Validator, type_checker=strict_integer)(schema)


def _show(text: str, limit: int = 60) -> str:
    """A participant's string fit for a one-line message: control characters escaped, long ones cut."""
    shown = text if text.isprintable() else repr(text)[1:-1]
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def _where(path: Sequence[Any]) -> str:
    """`pq_id 2:1-5_570, answer 3` for a path into the run."""
    parts = []
    if len(path) >= 1:
        parts.append("pq_id %s" % _show(str(path[0])))
    if len(path) >= 2:
        # path[1] is an answer's index, except inside an object where a list was expected (then a key).
        parts.append("answer %d" % (path[1] + 1) if isinstance(path[1], int) else "key %s" % _show(str(path[1])))
    return ", ".join(parts)


def _found(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean (%s)" % ("true" if value else "false")
    if value is None:
        return "null"
    if isinstance(value, float):
        return "%r (a float)" % value
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return _show(repr(value))


def check_structure(doc: JsonDocument, diags: Diagnostics) -> None:
    """Types and required fields, from the JSON Schema, worded as the official checker's rules."""
    for error in sorted(_validator().iter_errors(doc.value), key=lambda e: [str(p) for p in e.absolute_path]):
        path = tuple(error.absolute_path)
        line = doc.line(path)
        where = _where(path)
        if error.validator == "required":
            missing = error.message.split("'")[1]
            diags.error(line, "%s: field %r is missing" % (where, missing))
        elif error.validator == "type" and not path:
            diags.error(line, "the run must be a JSON object mapping each pq_id to a list of answers, found %s"
                        % _found(doc.value))
        elif error.validator == "type" and len(path) == 1:
            diags.error(line, "%s: the answers must be a list (an empty list abstains), found %s"
                        % (where, _found(error.instance)))
        elif error.validator == "type" and len(path) == 2:
            diags.error(line, "%s: must be an object with the fields answer, rank, score, strt_token_indx and "
                        "end_token_indx, found %s" % (where, _found(error.instance)))
        elif error.validator == "type":
            diags.error(line, "%s: %s must be %s, found %s" % (where, path[-1], TYPE_NAMES.get(
                error.validator_value, error.validator_value), _found(error.instance)))
        else:
            diags.error(line, "%s: %s" % (where or "run", error.message))


def check_duplicates(doc: JsonDocument, diags: Diagnostics) -> None:
    """Stage 6: json.loads keeps the last of two equal keys; the official checker rejects both kinds."""
    for dup in doc.duplicates:
        if not dup.path:
            diags.error(dup.line, "duplicate pq_id %s (first at line %d); only one list per pq_id is allowed"
                        % (_show(dup.key), dup.first_line))
        else:
            diags.error(dup.line, "%s: duplicate field '%s' (first at line %d)" % (_where(dup.path), _show(dup.key),
                                                                                  dup.first_line))


# ------------------------------------------------------------------------------------------ answers ---
MAX_INDEX = 10 ** MAX_DIGITS


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_answers(doc: JsonDocument, diags: Diagnostics) -> None:
    """Stages 3-5 for every pq_id whose answers have the right types."""
    if not isinstance(doc.value, dict):
        return
    for pq_id, answers in doc.value.items():
        if not isinstance(answers, list):
            continue
        for k, answer in enumerate(answers):
            if isinstance(answer, dict):
                _check_answer(doc, (pq_id, k), answer, diags)
        if len(answers) > MAX_ANSWERS:
            diags.warning(doc.line((pq_id,)), "pq_id %s has %d answers, more than %d; only the first %d that "
                          "survive normalisation are scored" % (pq_id, len(answers), MAX_ANSWERS, MAX_ANSWERS))
        _check_order(doc, pq_id, answers, diags)


def _check_answer(doc: JsonDocument, path, answer: Dict[str, Any], diags: Diagnostics) -> None:
    where, line = _where(path), doc.line(path)
    text = answer.get("answer")
    if isinstance(text, str) and not text:
        diags.warning(doc.line(path + ("answer",)), "%s: the answer text is empty" % where)
    score = answer.get("score")
    if isinstance(score, float) and not math.isfinite(score):
        diags.error(doc.line(path + ("score",)), "%s: score must be a finite number, found %r" % (where, score))
    start, end = answer.get("strt_token_indx"), answer.get("end_token_indx")
    if not (_is_int(start) and _is_int(end)):
        return
    for name, value in (("strt_token_indx", start), ("end_token_indx", end)):
        if abs(value) >= MAX_INDEX:     # a huge JSON number: no arithmetic on it, and a short message
            diags.error(doc.line(path + (name,)), "%s: %s is %s, more than any token index (at most %d)"
                        % (where, name, shorten(str(value)) if value.bit_length() < 14000 else "a number of over "
                           "4,000 digits", MAX_INDEX - 1))
            return
    if end < start:
        diags.error(doc.line(path + ("end_token_indx",)), "%s: end_token_indx %d is smaller than strt_token_indx "
                    "%d" % (where, end, start))
        return
    if isinstance(text, str):
        words = len(text.split())
        if end - start + 1 != words:
            diags.error(line, "%s: the span strt_token_indx..end_token_indx = %d..%d covers %d token(s) but the "
                        "answer has %d word(s); they must be equal" % (where, start, end, end - start + 1, words))


def _check_order(doc: JsonDocument, pq_id: str, answers: List[Any], diags: Diagnostics) -> None:
    """Stage 5: ranks 1..n-1 in list order then a larger last rank; scores non-increasing (equal: warning)."""
    if not all(isinstance(a, dict) and _is_int(a.get("rank")) and _is_number(a.get("score")) for a in answers):
        return
    n = len(answers)
    for i in range(n):
        rank, line = answers[i]["rank"], doc.line((pq_id, i, "rank"))
        where = _where((pq_id, i))
        if n == 1:
            if rank != 1:
                diags.warning(line, "%s: rank %d should be 1 (the official checker does not check a single answer)"
                              % (where, rank))
        elif i < n - 1 and rank != i + 1:
            diags.error(line, "%s: rank %d should be %d (ranks are 1, 2, 3, ... in list order)" % (where, rank, i + 1))
        elif i == n - 1 and rank <= answers[i - 1]["rank"]:
            diags.error(line, "%s: rank %d is not larger than the rank %d before it (ranks must increase down the "
                        "list)" % (where, rank, answers[i - 1]["rank"]))
        elif i == n - 1 and rank != n:
            diags.warning(line, "%s: rank %d should be %d (accepted by the official checker; the list order is the "
                          "ranking)" % (where, rank, n))
        if i == 0:
            continue
        score, before = answers[i]["score"], answers[i - 1]["score"]
        score_line = doc.line((pq_id, i, "score"))
        if score > before:
            diags.error(score_line, "%s: score %r is larger than the score %r of the answer before it (scores must "
                        "not increase down the list)" % (where, score, before))
        elif score == before:
            diags.warning(score_line, "%s: score %r equals the score of the answer before it" % (where, score))


# --------------------------------------------------------------------------- against the gold file ---
class _Once:
    """Reports the first case of each kind at its line, with how many more there were."""

    def __init__(self):
        self.first: Dict[str, List] = {}

    def add(self, kind: str, line: int, message: str, error: bool = False) -> None:
        if kind in self.first:
            self.first[kind][3] += 1
        else:
            self.first[kind] = [line, message, error, 0]

    def report(self, diags: Diagnostics) -> None:
        for line, message, error, more in self.first.values():
            suffix = " (and %d more like it)" % more if more else ""
            (diags.error if error else diags.warning)(line, message + suffix)


def check_against_gold(doc: JsonDocument, gold: Sequence[GoldRecord], diags: Diagnostics, segment: Segmenter,
                       cutoff: int, missing_is_error: bool, all_dropped_is_error: bool) -> None:
    """What the official checker cannot know without the gold file: pq_ids, spans, texts, dropped lists."""
    run = doc.value
    by_id = {record.pq_id: record for record in gold}
    unknown = [pq_id for pq_id in run if pq_id not in by_id]
    if unknown:
        diags.warning(doc.line((unknown[0],)), "%d pq_id(s) are not in the gold file and are ignored: %s"
                      % (len(unknown), _some(unknown)))
    missing = [record.pq_id for record in gold if record.pq_id not in run]
    if missing:
        message = "%d pq_id(s) of the gold file are missing from the run%s: %s" % (
            len(missing), "" if missing_is_error else " and score 0", _some(missing))
        (diags.error if missing_is_error else diags.warning)(0, message)
    once = _Once()
    for pq_id, answers in run.items():
        record = by_id.get(pq_id)
        if record is None or not isinstance(answers, list) or not answers:
            continue
        usable = all(isinstance(a, dict) and isinstance(a.get("answer"), str) and _is_int(a.get(INDICES[0]))
                     and _is_int(a.get(INDICES[1])) for a in answers)
        if not usable:
            continue
        tokens = record.tokens
        for k, answer in enumerate(answers):
            start, end = answer[INDICES[0]], answer[INDICES[1]]
            line = doc.line((pq_id, k))
            if start < 0 or end >= len(tokens):
                once.add("outside", line, "%s: the span %d..%d is outside the passage (tokens 0..%d); the scorer "
                         "reads it anyway" % (_where((pq_id, k)), start, end, len(tokens) - 1))
            elif " ".join(tokens[start:end + 1]) != answer["answer"]:
                once.add("text", line, "%s: the answer text is not the passage tokens %d..%d it points at ('%s'); "
                         "the scorer groups answers by their text and matches them by their span"
                         % (_where((pq_id, k)), start, end, _show(" ".join(tokens[start:end + 1]), 80)))
        # Said of every question, whether or not it has gold answers: which questions have them is hidden
        # (a zero-answer question scores a non-empty list 0 as well).
        positions = PositionMap(record.passage, segment)
        if not surviving_predictions(answers, positions, segment, cutoff):
            outcome = "rejects the run" if all_dropped_is_error else "scores the question 0"
            once.add("dropped", doc.line((pq_id,)), "%s: every answer is dropped by the scorer (its text is only "
                     "stop words and punctuation, or its span only removed tokens); the official scorer crashes on "
                     "such a list when the question has gold answers, runscore %s" % (_where((pq_id,)), outcome),
                     error=all_dropped_is_error)
    once.report(diags)


def _some(items: Sequence[str], limit: int = 10) -> str:
    return ", ".join(_show(item) for item in items[:limit]) + (" ..." if len(items) > limit else "")


def check_run(doc: JsonDocument, display: str, diags: Diagnostics, strict_filename: bool,
              gold: Optional[Sequence[GoldRecord]] = None, **gold_options) -> None:
    """All stages; the gold-file stage only when the structure is sound."""
    check_file_name(display, diags, strict_filename)
    check_structure(doc, diags)
    check_answers(doc, diags)
    check_duplicates(doc, diags)
    if gold is not None and not diags.has_errors:
        check_against_gold(doc, gold, diags, **gold_options)
