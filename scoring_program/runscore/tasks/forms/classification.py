"""Kind `classification`: an organiser's single-label classification task from a form: a run gives one label per
item (`id<TAB>label` lines, or CSV with the header `id,label`), the gold file gives the true one; accuracy, macro-
and micro-F1, and per-class accuracy (recall) and F1 from one confusion matrix (measures/classification.py).

Rules, stated because the peers differ: every gold item counts, a run that leaves an item out is wrong on it (a
warning says how many); a label outside the form's list is an error at its line; a ratio with an empty denominator
is 0 (scikit-learn's zero_division=0); macro-F1 is the mean of the F1 of every label of the form (scikit-learn's
`f1_score(..., labels=LABELS, average="macro")`), micro-F1 pools the counts over those labels (`average="micro"`),
so that a missing prediction lowers recall but not precision.
"""
import csv
import io
import os
from typing import Any, Dict, List, Optional, Tuple

from ...errors import ConfigError, ConfigErrors, Diagnostics
from ...measures.classification import ConfusionMatrix, accuracy, f1, macro_f1, precision, recall
from ...textfile import numbered_lines, read_text
from ..base import (Column, Option, ParsedRun, ReferenceSize, RunScores, Task, first_line, public_note,
                    read_task_yaml)
from . import common_fields, primary_first, primary_named

MAX_KEY = 36
MEASURES = ("accuracy", "macro_f1", "micro_f1")
PER_CLASS = ("accuracy", "f1")          # accuracy_<key> (the class's recall) and f1_<key>


class ClassificationReference:
    """Gold label by item id, in the gold file's order, and the line that gives it."""

    def __init__(self, gold: Dict[str, str]):
        self.gold = gold


class ClassificationRun:
    def __init__(self, predictions: Dict[str, str], lines: Dict[str, int]):
        self.predictions = predictions
        self.lines = lines


def micro_f1(matrix: ConfusionMatrix) -> float:
    """F1 of the counts pooled over the classes: P = correct / predicted as some class, R = correct / gold items."""
    predicted = sum(matrix.predicted_count(k) for k in matrix.classes)
    correct, total = matrix.correct(), matrix.total()
    p = correct / predicted if predicted else 0.0
    r = correct / total if total else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


class ClassificationTask(Task):
    """A classification task built from a form (module docstring)."""

    topic_unit = "item"

    def __init__(self, form: Dict[str, Any], path: str, lines):
        runs = form.get("runs") or {}
        self.run_format = runs.get("format", "tsv")
        self.labels = [label["label"] for label in form["labels"]]
        layout = "'id<TAB>label' lines" if self.run_format == "tsv" else "CSV with the header 'id,label'"
        problems = ConfigErrors()          # every problem of the form at once, each at its line
        with problems.catch():
            common_fields(self, form, path, lines, "a file of %s, one line an item, the label one of %s"
                          % (layout, ", ".join(self.labels)))
        self.gold_name = (form.get("reference") or {}).get("gold", "gold.tsv")
        self.keys = {label["label"]: label["key"] for label in form["labels"]}
        with problems.catch():
            self._check_labels(form, lines)
        self.hidden_reference = ReferenceSize(None, len(self.labels), None, "labelled items (a label of %d)"
                                              % len(self.labels), "the form %s" % os.path.basename(path))
        available = {"accuracy": "Accuracy", "macro_f1": "Macro-F1", "micro_f1": "Micro-F1"}
        for label, key in self.keys.items():
            available["accuracy_%s" % key] = "Accuracy (%s)" % label
            available["f1_%s" % key] = "F1 (%s)" % label
        columns = []
        for index, column in enumerate(form["columns"]):
            with problems.catch():
                measure = column["measure"]
                if measure not in available:
                    import difflib

                    close = difflib.get_close_matches(measure, list(available), n=3)
                    raise lines.error(["columns", index, "measure"], "unknown measure %r%s; measures: %s" % (
                        measure, " (did you mean %s?)" % ", ".join(close) if close else "", ", ".join(available)))
                if any(c.key == measure for c in columns):
                    raise lines.error(["columns", index, "measure"], "%s is already a column" % measure)
                if len(self.id.replace("-", "_")) + 1 + len(measure) > MAX_KEY:
                    raise lines.error(["columns", index, "measure"], "leaderboard key %s_%s is longer than %d "
                                      "characters" % (self.id.replace("-", "_"), measure, MAX_KEY))
                columns.append(Column(measure, column.get("title") or available[measure][:36],
                                      precision=column.get("precision", form.get("precision", 4)),
                                      per_topic="correct" if measure == "accuracy" else ""))
        if problems.found:
            with problems.catch():
                primary_named(form, lines)
        problems.check()
        self.columns = primary_first(columns, form, lines)
        self.per_topic_measures = ("correct",)
        self.per_topic_effectiveness = ("correct",)
        self.options = (
            Option("duplicates", "error", "The same item id twice in one run: an error, or keep the first line and "
                   "warn.", ("error", "keep_first")),
        )

    def _check_labels(self, form, lines) -> None:
        problems = ConfigErrors()
        for what in ("label", "key"):
            seen: Dict[str, int] = {}
            for index, label in enumerate(form["labels"]):
                value = label[what].strip().lower()
                if value in seen:
                    problems.add(lines.error(["labels", index, what], "%s %r is also label %d's; each label has "
                                             "its own" % (what, label[what], seen[value])))
                seen.setdefault(value, index)
        problems.check()

    # ---------------------------------------------------------------------------- discovery ---
    def sniff(self, head: str) -> bool:
        line = first_line(head)
        if line is None:
            return False
        fields = line.split("\t") if self.run_format == "tsv" else line.split(",")
        return len(fields) == 2 and fields[1].strip() in self.labels + ["label"]

    # ---------------------------------------------------------------------------- reference ---
    def public_reference(self, reference: ClassificationReference) -> ClassificationReference:
        """The item ids only, every label left out (a hidden phase checks runs against them)."""
        return ClassificationReference({item: "" for item in reference.gold})

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> ClassificationReference:
        path = ref_path
        if os.path.isdir(ref_path):
            read_task_yaml(ref_path)            # a task.yaml there is checked (its task, its options)
            path = os.path.join(ref_path, self.gold_name)
            if not os.path.isfile(path):
                raise ConfigError("the gold file %s that the form %s names (reference: gold:) is not in the "
                                  "reference folder" % (self.gold_name, self.form_path), ref_path)
        gold: Dict[str, str] = {}
        problems = ConfigErrors()
        for line_no, fields in self._rows(read_text(path, error_class=ConfigError)):
            with problems.catch():
                if len(fields) != 2:
                    raise ConfigError("expected 2 fields 'id<TAB>label', found %d" % len(fields), path, line_no)
                item, label = fields[0].strip(), fields[1].strip()
                if label not in self.keys:
                    raise ConfigError("label %r is not one of the form's: %s" % (label[:60], ", ".join(self.labels)),
                                      path, line_no)
                if item in gold:
                    raise ConfigError("item %s has a gold label already" % item[:60], path, line_no)
                gold[item] = label
        problems.check()
        if not gold:
            raise ConfigError("the gold file has no item", path)
        return ClassificationReference(gold)

    def _rows(self, text: str, csv_header: bool = False):
        """(line number, fields) of each non-blank line: TAB-separated, or CSV (its header skipped)."""
        if self.run_format == "csv" and csv_header:
            rows = csv.reader(io.StringIO(text, newline=""))
            for index, row in enumerate(rows, 1):
                if index == 1 and [f.strip().lower() for f in row] == ["id", "label"]:
                    continue
                if row:
                    yield rows.line_num, row
            return
        for line_no, line in numbered_lines(text):
            if line.strip():
                yield line_no, line.split("\t")

    # ---------------------------------------------------------------------------- runs ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[ClassificationReference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)
        if self.run_format == "csv" and not text.lstrip().lower().startswith(("id,label", "\ufeffid,label")):
            diags.error(1, "the first line must be the header 'id,label'")
            return []
        if self.run_format == "tsv" and self.wrong_layout(text, diags, "\t", 2, 2):
            return []
        predictions: Dict[str, str] = {}
        lines: Dict[str, int] = {}
        try:
            rows = list(self._rows(text, csv_header=True))
        except csv.Error as exc:
            diags.error(0, "not CSV: %s" % exc)
            return []
        for line_no, fields in rows:
            if len(fields) != 2:
                diags.error(line_no, "expected 2 fields 'id%slabel', found %d"
                            % ("<TAB>" if self.run_format == "tsv" else ",", len(fields)))
                continue
            item, label = fields[0].strip(), fields[1].strip()
            if label not in self.keys:
                diags.error(line_no, "label %r is not one of %s" % (label[:60], ", ".join(self.labels)))
                continue
            if item in predictions:
                message = "item %s is labelled twice (first at line %d)" % (item[:60], lines[item])
                if options["duplicates"] == "keep_first":
                    diags.warning(line_no, message + "; the first line is kept")
                else:
                    diags.error(line_no, message)
                continue
            if reference is not None and item not in reference.gold:
                diags.warning_once("unknown_item", line_no, "item %s is not an item of %s; ignored"
                                   % (item[:60], self.id))
                continue
            predictions[item], lines[item] = label, line_no
        if not predictions and not diags.has_errors:
            diags.error(0, "the run labels no item")
        if reference is not None and not diags.has_errors:
            missing = [item for item in reference.gold if item not in predictions]
            if missing:
                diags.warning(0, "%d of %d item(s) have no label in the run (e.g. %s); each counts as wrong"
                              % (len(missing), len(reference.gold), missing[0][:60]))
        return [ParsedRun(os.path.basename(display.rstrip("/")), display, ClassificationRun(predictions, lines))]

    def score(self, run: ParsedRun, reference: ClassificationReference, options: Dict[str, Any]) -> RunScores:
        items = list(reference.gold)
        gold = [reference.gold[item] for item in items]
        predicted = [run.data.predictions.get(item) for item in items]
        matrix = ConfusionMatrix.from_labels(self.labels, gold, predicted)
        measures = {"accuracy": accuracy(matrix), "macro_f1": macro_f1(matrix, "all_classes"),
                    "micro_f1": micro_f1(matrix)}
        for label, key in self.keys.items():
            measures["accuracy_%s" % key] = recall(matrix, label)
            measures["f1_%s" % key] = f1(matrix, label)
            measures["precision_%s" % key] = precision(matrix, label)
        per_topic = {item: {"correct": 1.0 if p == g else 0.0} for item, g, p in zip(items, gold, predicted)}
        missing = sum(1 for p in predicted if p is None)
        notes = [public_note("%d of %d item(s) unlabelled by the run, counted as wrong" % (missing, len(items)))] \
            if missing else []
        tables = [{"caption": "Confusion matrix (rows gold, columns predicted; (none) = no label)",
                   "header": matrix.rows()[0], "rows": matrix.rows()[1:]}]
        return RunScores(measures, per_topic, notes, tables)

    def sample_files(self) -> Tuple[Dict[str, str], Dict[str, str]]:
        """(sample reference, sample submission) made from the form: two items a label, and a run that gets some right."""
        gold = [("item%d" % (i + 1), label) for i, label in enumerate(self.labels * 2)]
        run = [(item, self.labels[(i // 2) % len(self.labels)]) for i, (item, _) in enumerate(gold)]
        sep = "\t" if self.run_format == "tsv" else ","
        header = "id,label\n" if self.run_format == "csv" else ""
        name = "sample1" if not self.name_pattern or self.claims_name("sample1") else "run1"
        return ({self.gold_name: "".join("%s\t%s\n" % pair for pair in gold), "task.yaml": "task: %s\n" % self.id},
                {name: header + "".join("%s%s%s\n" % (item, sep, label) for item, label in run)})

    def about(self) -> str:
        lines = ["## Labels", "", "| label | meaning |", "|---|---|"]
        lines += ["| %s | %s |" % (label["label"], " ".join(label.get("meaning", "").split()))
                  for label in self.form["labels"]]
        lines += ["", "## Scoring", "", "Every item of the gold file counts: an item the run leaves out is wrong. "
                  "Accuracy is the share of items labelled right; per-class accuracy is a label's recall; macro-F1 "
                  "is the mean F1 of every label; micro-F1 pools the counts over the labels. A ratio with nothing "
                  "to divide by is 0.", ""]
        return "\n".join(lines)


def build(form: Dict[str, Any], path: str, lines) -> Task:
    return ClassificationTask(form, path, lines)


TEMPLATE = """\
# A classification task of your own: one label per item (docs/own-campaign.md).
kind: classification
# The task's id: lower-case letters, digits and '-'. Leaderboard keys are <name>_<column> (at most 36 characters).
name: {name}
title: {title}
description: {title}, single-label classification

runs:
  format: tsv                         # tsv: 'id<TAB>label' lines; csv: the header 'id,label', then one line an item
  runs_per_submission: 1
  # A run's team when the platform does not say whose it is (pool and report of run files): name-without-number
  # (run1, run2 -> run), name (each run its own team), or a regular expression whose first group is the team.
  team: name-without-number

reference:
  gold: gold.tsv                      # 'id<TAB>label' lines in the reference folder

# The labels; `key` names a label's own measures (accuracy_<key>, f1_<key>): lower-case letters, digits, '_'.
labels:
  - {label: positive, key: pos, meaning: "the text is in favour"}
  - {label: negative, key: neg, meaning: "the text is against"}
  - {label: neutral, key: neu, meaning: "neither"}

# Columns: accuracy, macro_f1, micro_f1, accuracy_<key> (a label's recall), f1_<key>.
columns:
  - {measure: accuracy}
  - {measure: macro_f1}
  - {measure: micro_f1}
primary: accuracy
precision: 4
"""
