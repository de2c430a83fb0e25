"""Task temporalia-tqic: NTCIR-11 Temporalia, Temporal Query Intent Classification.

Seed: shared/seeds/001_8f243194a2087003.txt; spec: shared/specs/temporalia.md section 1. A run file holds
TAB-separated lines `id class group_id run_id` (header optional); several run_ids in one file are several runs
(the seed: "You can append multiple runs in a single file"), at most 3 per group. Measures: accuracy over all
gold queries (Official, primary), per-class accuracy (Official "breakdown"), per-class precision/F1, macro F1
and the confusion matrix (detailed report). The Proposed rules of spec 1.4 are options or stated below.
"""
import os
import xml.etree.ElementTree as ElementTree
from typing import Any, Dict, List, Optional

from ...errors import ConfigError, ConfigErrors, Diagnostics
from ...numeric import FieldError, read_int
from ...measures.classification import ConfusionMatrix, accuracy, f1, macro_f1, precision, recall
from .format import MAX_RUNS_PER_GROUP, RunBook, records
from ...textfile import TAB_OR_SPACES, numbered_lines, read_text
from ...validate import record_schema
from ..base import (Column, public_note, Option, ParsedRun, ReferenceSize, RunScores, Task, first_line,
                    read_task_yaml, reference_file, report_duplicate)

CLASSES = ("past", "recency", "future", "atemporal")
# Spellings accepted for each class, compared lower-cased: the run format writes `recent`, the gold files
# `Recency` or `Recent`.
CLASS_SPELLINGS = {"past": "past", "recent": "recency", "recency": "recency", "future": "future",
                   "atemporal": "atemporal"}
FIELDS = ("id", "class", "group_id", "run_id")


def normalise_class(text: str) -> Optional[str]:
    """The canonical class of a spelling (case-insensitive, `recent` = `recency`), or None if unknown."""
    return CLASS_SPELLINGS.get(text.strip().lower())


def is_header(line: str) -> bool:
    """The header `id class group_id run_id`, or its first two or three names (files without run ids)."""
    names = line.lower().split()
    return 2 <= len(names) <= 4 and names == list(FIELDS[:len(names)])


class Gold:
    """Gold classes by numeric query id, and the id as the gold file writes it (for reports)."""

    def __init__(self, labels: Dict[int, str], names: Dict[int, str]):
        self.labels = labels
        self.names = names


class TqicRun:
    """One run: predicted class (None = unknown class string) and line number per numeric query id."""

    def __init__(self, run_id: str, group_id: str):
        self.run_id = run_id
        self.group_id = group_id
        self.predictions: Dict[int, Optional[str]] = {}
        self.lines: Dict[int, int] = {}


class TemporaliaTqic(Task):
    id = "temporalia-tqic"
    title = "NTCIR-11 Temporalia TQIC"
    tag = "TQIC"
    description = "NTCIR-11 Temporalia temporal query intent classification: accuracy, per-class accuracy, macro F1"
    run_file_help = ("a file named tqic_<group_id>, TAB-separated lines 'id class group_id run_id' "
                     "(class past, future, recent or atemporal)")
    name_pattern = r"(?i)tqic_.+"
    max_runs_per_team = MAX_RUNS_PER_GROUP
    formal_submissions = (MAX_RUNS_PER_GROUP, MAX_RUNS_PER_GROUP)   # up to 3 runs per group (the seed)
    options = (
        Option("unknown_class", "wrong", "A class other than past, future, recent/recency, atemporal (any case): "
               "count the query as wrong and warn (Proposed), or reject the run.", ("wrong", "error")),
        Option("missing_query", "wrong", "A gold query without a line in a run: counts as wrong with a warning, the "
               "denominator staying all gold queries (Proposed), or the run is rejected.", ("wrong", "error")),
        Option("duplicates", "error", "The same query id twice in one run: an error (Proposed; the seed asks for "
               "one line per query), or keep the first line and warn.", ("error", "keep_first")),
        Option("macro_f1_over", "gold_classes", "Classes averaged by macro F1: those with at least one gold "
               "query (Proposed), or all four.", ("gold_classes", "all_classes")),
    )
    columns = (
        Column("accuracy", "Accuracy", per_topic="correct"),
        Column("macro_f1", "Macro F1"),
        Column("acc_past", "Accuracy (past)"),
        Column("acc_recency", "Accuracy (recency)"),
        Column("acc_future", "Accuracy (future)"),
        Column("acc_atemporal", "Accuracy (atemporal)"),
    )
    per_topic_measures = ("correct",)
    count_measures = ("correct",)           # 1 or 0 per query
    per_topic_effectiveness = ("correct",)
    hidden_reference = ReferenceSize(300, 4, 300, "formal queries, each labelled past, recency, future or atemporal",
                                     "specs/temporalia.md section 1: 300 formal queries")

    def team_of(self, run: ParsedRun) -> str:
        return run.data.group_id

    def teams_named(self, run: ParsedRun) -> Dict[str, int]:
        return {group: line for group, line in getattr(run.data, "group_lines", {}).items() if group}

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        if line is None:
            return False
        if is_header(line):
            return True
        fields = line.split("\t")
        return len(fields) == 4 and normalise_class(fields[1]) is not None

    # ------------------------------------------------------------------------------ reference ---
    def public_reference(self, reference: Gold) -> Gold:
        """The query ids only: the queries are given to participants, their classes are not."""
        return Gold({query: "" for query in reference.labels}, dict(reference.names))

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> Gold:
        if os.path.isfile(ref_path):
            return read_gold(ref_path)
        config = read_task_yaml(ref_path)
        if "gold" not in config:
            raise ConfigError("task.yaml must name the gold class file (gold: FILE, TSV 'id<TAB>class' or the "
                              "official XML)", os.path.join(ref_path, "task.yaml"))
        return read_gold(reference_file(ref_path, str(config["gold"]), "gold"))

    # ------------------------------------------------------------------------------ parsing ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[Gold],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)
        if self.wrong_layout(text, diags, TAB_OR_SPACES, 2, len(FIELDS)):
            return []
        schema = record_schema("temporalia-tqic.record")
        book = RunBook(diags, TqicRun)
        for line_no, record in records(text, diags, FIELDS, 2, schema, is_header, " ".join(FIELDS)):
            run = book.run_for(line_no, record)
            run_id = run.run_id
            try:
                query = read_int(record["id"], "query id")
            except FieldError as exc:
                diags.error(line_no, str(exc))
                continue
            if query in run.lines:
                report_duplicate(diags, line_no, "duplicate query id %s in run %s (first seen at line %d)"
                                 % (record["id"], run_id, run.lines[query]), options)
                continue
            predicted = normalise_class(record["class"])
            if predicted is None:
                message = "class %r is not one of past, future, recent, atemporal" % record["class"]
                if options["unknown_class"] == "error":
                    diags.error(line_no, message)
                else:
                    diags.warning(line_no, message + "; query %s counts as wrong" % record["id"])
            run.predictions[query] = predicted
            run.lines[query] = line_no

        book.finish()
        groups = sorted(g for g in book.runs_of_group if g)
        if groups and os.path.basename(display).lower() not in ("tqic_%s" % g.lower() for g in groups):
            diags.warning_once("filename", 0, "the file should be named tqic_<group_id> (tqic_%s), as the task's "
                               "instructions ask" % groups[0])
        if reference is not None:
            for run in book.runs.values():
                self._check_against_reference(run, reference, diags, options)
        return [ParsedRun(run_id, display, run, lines=book.own_lines(run_id)) for run_id, run in book.runs.items()]

    @staticmethod
    def _check_against_reference(run: TqicRun, gold: Gold, diags: Diagnostics, options: Dict[str, Any]) -> None:
        unknown = [q for q in run.predictions if q not in gold.labels]
        if unknown:
            diags.warning(run.lines[unknown[0]], "run %s: %d query id(s) are not in the gold set and are ignored: "
                          "%s" % (run.run_id, len(unknown), _id_list(unknown, {})))
        missing = [q for q in gold.labels if q not in run.predictions]
        if len(missing) == len(gold.labels):
            diags.error(0, "run %s answers none of the %d gold queries" % (run.run_id, len(gold.labels)))
        elif missing:
            message = "run %s has no line for %d of the %d gold queries" % (run.run_id, len(missing),
                                                                           len(gold.labels))
            shown = _id_list(missing, gold.names)
            if options["missing_query"] == "error":
                diags.error(0, "%s: %s" % (message, shown))
            else:
                diags.warning(0, "%s; they count as wrong: %s" % (message, shown))

    # ------------------------------------------------------------------------------ scoring ---
    def score(self, run: ParsedRun, reference: Gold, options: Dict[str, Any]) -> RunScores:
        data: TqicRun = run.data
        queries = sorted(reference.labels)
        gold = [reference.labels[q] for q in queries]
        predicted = [data.predictions.get(q) for q in queries]
        matrix = ConfusionMatrix.from_labels(CLASSES, gold, predicted)
        measures = {"accuracy": accuracy(matrix), "macro_f1": macro_f1(matrix, options["macro_f1_over"])}
        for k in CLASSES:
            measures["acc_%s" % k] = recall(matrix, k)
        for k in CLASSES:
            measures["precision_%s" % k] = precision(matrix, k)
            measures["f1_%s" % k] = f1(matrix, k)
        missing = sum(1 for q in queries if q not in data.predictions)
        measures.update({"num_q": float(len(queries)), "num_correct": float(matrix.correct()),
                         "num_missing": float(missing),
                         "num_invalid": float(sum(1 for p in predicted if p is None) - missing)})
        per_topic = {reference.names[q]: {"correct": 1.0 if p == g else 0.0}
                     for q, g, p in zip(queries, gold, predicted)}
        notes = []
        empty = [k for k in CLASSES if not matrix.gold_count(k)]
        if empty:
            notes.append("%s: no gold query of class %s; its accuracy is reported as 0"
                         % (run.name, ", ".join(empty)))
        if missing:
            notes.append(public_note("%s: %d gold queries without a line count as wrong" % (run.name, missing)))
        tables = [{"caption": "Confusion matrix: %s (rows gold, columns predicted; %s = missing or unknown class)"
                   % (run.name, "(none)"), "header": matrix.rows()[0], "rows": matrix.rows()[1:]},
                  {"caption": "Per class: %s" % run.name, "header": ["class", "gold", "predicted", "accuracy "
                                                                     "(recall)", "precision", "F1"],
                   "rows": [[k, matrix.gold_count(k), matrix.predicted_count(k), "%.4f" % recall(matrix, k),
                             "%.4f" % precision(matrix, k), "%.4f" % f1(matrix, k)] for k in CLASSES]}]
        return RunScores(measures, per_topic, notes, tables)


def read_gold(path: str) -> Gold:
    """Gold classes from the official XML (`<query><id>…<temporal_class>…`) or a TSV `id<TAB>class` file."""
    if path.lower().endswith(".xml"):
        return _read_gold_xml(path)
    labels: Dict[int, str] = {}
    names: Dict[int, str] = {}
    lines: Dict[int, int] = {}
    with ConfigErrors() as problems:      # every bad line is told, not the first only
        for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
            if not line.strip() or line.startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")]
            if line_no == 1 and [f.lower() for f in fields[:2]] == ["id", "class"]:
                continue
            with problems.catch():
                if len(fields) != 2:
                    raise ConfigError("expected 'id<TAB>class', found %d field(s)" % len(fields), path, line_no)
                _add_gold(labels, names, lines, fields[0], fields[1], path, line_no)
    return _finish_gold(labels, names, path)


def _read_gold_xml(path: str) -> Gold:
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as exc:
        raise ConfigError("cannot read the gold XML: %s" % exc, path)
    labels: Dict[int, str] = {}
    names: Dict[int, str] = {}
    lines: Dict[int, int] = {}
    with ConfigErrors() as problems:
        for number, query in enumerate(root.iter("query"), 1):
            qid, label = query.findtext("id"), query.findtext("temporal_class")
            with problems.catch():
                if qid is None or label is None:
                    raise ConfigError("<query> number %d lacks <id> or <temporal_class>" % number, path)
                _add_gold(labels, names, lines, qid.strip(), label.strip(), path, 0)
    return _finish_gold(labels, names, path)


def _add_gold(labels, names, lines, qid: str, label: str, path: str, line_no: int) -> None:
    try:
        number = read_int(qid, "query id")
    except FieldError as exc:
        raise ConfigError(str(exc), path, line_no)
    canonical = normalise_class(label)
    if canonical is None:
        raise ConfigError("class %r is not one of past, recency/recent, future, atemporal" % label, path, line_no)
    if number in labels:
        raise ConfigError("duplicate query id %s (first at line %d)" % (qid, lines[number]) if lines[number]
                          else "duplicate query id %s" % qid, path, line_no)
    labels[number], names[number], lines[number] = canonical, qid, line_no


def _finish_gold(labels, names, path: str) -> Gold:
    if not labels:
        raise ConfigError("the gold file holds no query", path)
    return Gold(labels, names)


def _id_list(queries: List[int], names: Dict[int, str], limit: int = 10) -> str:
    shown = [names.get(q, "%03d" % q) for q in sorted(queries)[:limit]]
    return ", ".join(shown) + (" ..." if len(queries) > limit else "")


TASK = TemporaliaTqic()
