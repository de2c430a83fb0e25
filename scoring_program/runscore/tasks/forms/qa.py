"""Kind `qa`: an organiser's short-answer QA task from a form: a run gives one answer per question (`id<TAB>answer`
lines, or JSON `{id: answer}` / `{id: [answer, ...]}`, the first answer of a list scored), the gold file gives one
or more answers per question; exact match and token F1, the best over the gold answers, averaged over every gold
question (an unanswered question scores 0), as fractions of 1.

Normalisers (measures/qa.py): `squad` is the SQuAD v1.1 script's (lower case, ASCII punctuation and English
articles removed, words as a bag; F1 is 0 when nothing is shared); `characters`, for Japanese and Chinese, folds
NFKC and case, drops every punctuation mark and space, and counts characters as SQuAD counts words.
"""
import json
import os
from typing import Any, Dict, List, Optional, Tuple

from ...errors import ConfigError, ConfigErrors, Diagnostics
from ...measures.qa import (bag_f1, mean, normalize_characters, squad11_exact_match, squad11_f1,
                            squad11_max_over_golds)
from ...textfile import numbered_lines, read_text
from ..base import (Column, Option, ParsedRun, ReferenceSize, RunScores, Task, first_line, public_note,
                    read_task_yaml)
from . import common_fields, primary_first, primary_named

TITLES = {"exact_match": "Exact match", "f1": "F1"}


def _characters_em(prediction: str, gold: str) -> float:
    return 1.0 if normalize_characters(prediction) == normalize_characters(gold) else 0.0


def _characters_f1(prediction: str, gold: str) -> float:
    return bag_f1(list(normalize_characters(prediction)), list(normalize_characters(gold)))


METRICS = {"squad": {"exact_match": squad11_exact_match, "f1": squad11_f1},
           "characters": {"exact_match": _characters_em, "f1": _characters_f1}}


class QaReference:
    def __init__(self, gold: Dict[str, List[str]]):
        self.gold = gold


class QaRun:
    def __init__(self, answers: Dict[str, str]):
        self.answers = answers


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError("question %s is given twice" % str(key)[:60])
        seen[key] = value
    return seen


def _first_wins(pairs):
    kept = {}
    for key, value in pairs:
        kept.setdefault(key, value)
    return kept


class _Number:
    """A JSON number where an answer is expected: kept unconverted (a number of a million digits costs nothing)."""


def _json(text: str, keep_first: bool):
    """JSON with every number left unconverted and, unless `keep_first`, a question given twice refused."""
    number = (lambda _text: _Number())
    return json.loads(text, object_pairs_hook=_first_wins if keep_first else _no_duplicates, parse_int=number,
                      parse_float=number, parse_constant=number)


class QaTask(Task):
    """A QA task built from a form (module docstring)."""

    topic_unit = "question"

    def __init__(self, form: Dict[str, Any], path: str, lines):
        runs = form.get("runs") or {}
        self.run_format = runs.get("format", "tsv")
        layout = "'id<TAB>answer' lines" if self.run_format == "tsv" else "JSON {\"id\": \"answer\", ...}"
        problems = ConfigErrors()          # every problem of the form at once, each at its line
        with problems.catch():
            common_fields(self, form, path, lines, "a file of %s, one answer a question" % layout)
        self.gold_name = (form.get("reference") or {}).get("gold", "gold.json")
        self.normaliser = form.get("normaliser", "squad")
        self.hidden_reference = ReferenceSize(None, 2, None, "gold answers (a run's answer is right or not)",
                                              "the form %s" % os.path.basename(path))
        columns = []
        for index, column in enumerate(form["columns"]):
            measure = column["measure"]
            if any(c.key == measure for c in columns):
                problems.add(lines.error(["columns", index, "measure"], "%s is already a column" % measure))
                continue
            columns.append(Column(measure, column.get("title") or TITLES[measure],
                                  precision=column.get("precision", form.get("precision", 4))))
        if problems.found:
            with problems.catch():
                primary_named(form, lines)
        problems.check()
        self.columns = primary_first(columns, form, lines)
        self.per_topic_measures = ("exact_match", "f1")
        self.per_topic_effectiveness = ("exact_match", "f1")
        self.options = (
            Option("duplicates", "error", "The same question twice in one run: an error, or keep the first answer "
                   "and warn.", ("error", "keep_first")),
        )

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        if line is None:
            return False
        return line.lstrip().startswith("{") if self.run_format == "json" else len(line.split("\t")) == 2

    # ---------------------------------------------------------------------------- reference ---
    def public_reference(self, reference: QaReference) -> QaReference:
        """The question ids only, every gold answer left out."""
        return QaReference({qid: [] for qid in reference.gold})

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> QaReference:
        path = ref_path
        if os.path.isdir(ref_path):
            read_task_yaml(ref_path)
            path = os.path.join(ref_path, self.gold_name)
            if not os.path.isfile(path):
                raise ConfigError("the gold file %s that the form %s names (reference: gold:) is not in the "
                                  "reference folder" % (self.gold_name, self.form_path), ref_path)
        text = read_text(path, error_class=ConfigError)
        gold: Dict[str, List[str]] = {}
        if path.endswith(".json"):
            try:
                data = _json(text, False)
            except ValueError as exc:
                raise ConfigError("not JSON {\"id\": [\"answer\", ...]}: %s" % str(exc)[:200], path,
                                  getattr(exc, "lineno", 0))
            if not isinstance(data, dict):
                raise ConfigError("expected a JSON object {\"id\": [\"answer\", ...]}", path)
            for qid, answers in data.items():
                answers = [answers] if isinstance(answers, str) else answers
                if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
                    raise ConfigError("question %s: expected an answer or a non-empty list of answers" % qid[:60],
                                      path)
                gold[qid] = answers
        else:
            problems = ConfigErrors()
            for line_no, line in numbered_lines(text):
                if not line.strip():
                    continue
                with problems.catch():
                    fields = line.split("\t")
                    if len(fields) != 2:
                        raise ConfigError("expected 'id<TAB>answer', found %d field(s)" % len(fields), path, line_no)
                    gold.setdefault(fields[0].strip(), []).append(fields[1].strip())
            problems.check()
        if not gold:
            raise ConfigError("the gold file has no question", path)
        return QaReference(gold)

    # ---------------------------------------------------------------------------- runs ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[QaReference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)
        answers: Dict[str, str] = {}
        lines: Dict[str, int] = {}
        if self.run_format == "json":
            try:
                data = _json(text, options["duplicates"] == "keep_first")
            except ValueError as exc:
                diags.error(getattr(exc, "lineno", 0), "not JSON {\"id\": \"answer\", ...}: %s" % str(exc)[:200])
                return []
            if not isinstance(data, dict):
                diags.error(1, "expected a JSON object {\"id\": \"answer\", ...}, not %s" % type(data).__name__)
                return []
            for qid, answer in data.items():
                if isinstance(answer, list) and answer and all(isinstance(a, str) for a in answer):
                    if len(answer) > 1:
                        diags.warning_once("several", 0, "question %s has %d answers; the first is scored"
                                           % (qid[:60], len(answer)))
                    answer = answer[0]
                if not isinstance(answer, str):
                    diags.error(0, "question %s: the answer must be a string (or a list of strings)" % qid[:60])
                    continue
                answers[qid], lines[qid] = answer, 0
        else:
            if self.wrong_layout(text, diags, "\t", 2, 2):
                return []
            for line_no, line in numbered_lines(text):
                if not line.strip():
                    continue
                fields = line.split("\t")
                if len(fields) != 2:
                    diags.error(line_no, "expected 'id<TAB>answer', found %d field(s)" % len(fields))
                    continue
                qid = fields[0].strip()
                if qid in answers:
                    message = "question %s is answered twice (first at line %d)" % (qid[:60], lines[qid])
                    if options["duplicates"] == "keep_first":
                        diags.warning(line_no, message + "; the first answer is kept")
                    else:
                        diags.error(line_no, message)
                    continue
                answers[qid], lines[qid] = fields[1].strip(), line_no
        if reference is not None:
            for qid in list(answers):
                if qid not in reference.gold:
                    diags.warning_once("unknown_question", lines[qid], "question %s is not a question of %s; ignored"
                                       % (qid[:60], self.id))
                    del answers[qid]
        if not answers and not diags.has_errors:
            diags.error(0, "the run answers no question")
        return [ParsedRun(os.path.basename(display.rstrip("/")), display, QaRun(answers))]

    def score(self, run: ParsedRun, reference: QaReference, options: Dict[str, Any]) -> RunScores:
        metrics = METRICS[self.normaliser]
        per_topic = {}
        for qid, golds in reference.gold.items():
            answer = run.data.answers.get(qid)
            per_topic[qid] = {name: 0.0 if answer is None else squad11_max_over_golds(metric, answer, golds)
                              for name, metric in metrics.items()}
        measures = {name: mean([values[name] for values in per_topic.values()]) for name in metrics}
        missing = sum(1 for qid in reference.gold if qid not in run.data.answers)
        notes = [public_note("%d of %d question(s) unanswered, scored 0" % (missing, len(reference.gold)))] \
            if missing else []
        return RunScores(measures, per_topic, notes)

    def sample_files(self) -> Tuple[Dict[str, str], Dict[str, str]]:
        """(sample reference, sample submission) made from the form: three questions, one answered exactly, one in
        part, one not."""
        gold = {"q1": ["Tokyo"], "q2": ["the Pacific Ocean", "Pacific"], "q3": ["1868"]}
        answers = {"q1": "Tokyo", "q2": "Pacific Ocean floor", "q3": "1900"}
        name = "sample1" if not self.name_pattern or self.claims_name("sample1") else "run1"
        run = json.dumps(answers, indent=1) + "\n" if self.run_format == "json" else \
            "".join("%s\t%s\n" % pair for pair in answers.items())
        if self.gold_name.endswith(".json"):
            gold_text = json.dumps(gold, indent=1) + "\n"
        else:
            gold_text = "".join("%s\t%s\n" % (qid, a) for qid, golds in gold.items() for a in golds)
        return {self.gold_name: gold_text, "task.yaml": "task: %s\n" % self.id}, {name: run}

    def about(self) -> str:
        rule = ("SQuAD v1.1's: lower case, ASCII punctuation and the articles a, an, the removed, F1 over the words "
                "as a bag" if self.normaliser == "squad" else "for Japanese and Chinese: full-width folded to "
                "half-width (NFKC), lower case, every punctuation mark and space removed, F1 over the characters")
        return "\n".join(["## Scoring", "", "An answer and each gold answer are normalised (%s); exact match is 1 "
                          "when they are equal, F1 counts the shared tokens, and the best gold answer counts. Every "
                          "gold question counts: one the run leaves out scores 0. Values are fractions of 1."
                          % rule, ""])


def build(form: Dict[str, Any], path: str, lines) -> Task:
    return QaTask(form, path, lines)


TEMPLATE = """\
# A short-answer QA task of your own: exact match and F1 (docs/own-campaign.md).
kind: qa
# The task's id: lower-case letters, digits and '-'. Leaderboard keys are <name>_<column> (at most 36 characters).
name: {name}
title: {title}
description: {title}, exact match and F1 of short answers

runs:
  format: tsv                         # tsv: 'id<TAB>answer' lines; json: {"id": "answer", ...}
  runs_per_submission: 1
  # A run's team when the platform does not say whose it is (pool and report of run files): name-without-number
  # (run1, run2 -> run), name (each run its own team), or a regular expression whose first group is the team.
  team: name-without-number

reference:
  gold: gold.json                     # {"id": ["answer", ...]} (or 'id<TAB>answer' lines, one a gold answer)

# squad: SQuAD v1.1's rules (English); characters: for Japanese and Chinese (characters, punctuation dropped).
normaliser: squad

columns:
  - {measure: exact_match}
  - {measure: f1}
primary: exact_match
precision: 4
"""
