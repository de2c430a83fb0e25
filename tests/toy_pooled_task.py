"""A toy pooled task, written as a newcomer adds one: this module is its whole room (the run format, the reference
loader, the measure, the ranking rule, and the two campaign parts of the form: assessing and pooling), and the
registry is the only other place that learns of it (tests/test_toy_pooled_task.py puts it there, as a module in
runscore/tasks/ would be found). Nothing in the campaign wing or the platform is edited for it.

Runs: `topic<TAB>doc<TAB>score` lines, a file named by its run (`alpha1`: team alpha's run 1); ranked by score
descending, ties by doc ascending. Reference: `qrels.tsv` (`topic<TAB>doc<TAB>grade`, 0 or 1) named by task.yaml.
Measure: P@2, per topic and its mean over the topics of the qrels.
"""
import os
from collections import OrderedDict
from typing import Any, Dict, List, Optional

from runscore.errors import ConfigError, Diagnostics
from runscore.tasks.assessing import AssessmentForm, LabelScale
from runscore.tasks.base import Column, ParsedRun, RankedItem, RunScores, Task, read_task_yaml, reference_file
from runscore.tasks.pooling import JudgedPool, Pooling, drop_items, write_lines

CUTOFF = 2


class ToyReference:
    def __init__(self, qrels: Dict[str, Dict[str, int]]):
        self.qrels = qrels


class ToyPooling(Pooling):
    """A depth-k pool of the rankings; the labels become qrels.tsv."""

    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        write_lines(os.path.join(folder, "qrels.tsv"), ["%s\t%s\t%s" % (topic, item, label)
                                                        for (topic, item), label in judged.labels.items()])
        return {"qrels": "qrels.tsv"}

    def without(self, reference: ToyReference, removed) -> ToyReference:
        return ToyReference(drop_items(reference.qrels, removed))


class ToyTask(Task):
    id = "toy-pooled"
    title = "A toy pooled task"
    description = "topic<TAB>doc<TAB>score runs, P@2"
    run_file_help = "a file named by its run (alpha1), lines 'topic<TAB>doc<TAB>score'"
    name_pattern = r"[a-z]+[0-9]+"
    columns = (Column("p2", "P@2"),)
    assessment = AssessmentForm(scales={"": LabelScale(("0", "1"), ("n", "r"), ("not relevant", "relevant"))})
    pooling = ToyPooling()

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> ToyReference:
        path = reference_file(ref_path, read_task_yaml(ref_path).get("qrels"), "qrels")
        qrels: Dict[str, Dict[str, int]] = {}
        with open(path, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, 1):
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 3 or fields[2] not in ("0", "1"):
                    raise ConfigError("expected topic<TAB>doc<TAB>0|1", path, line_no)
                qrels.setdefault(fields[0], {})[fields[1]] = int(fields[2])
        return ToyReference(qrels)

    def parse(self, path: str, display: str, diags: Diagnostics, reference: Any,
              options: Dict[str, Any]) -> List[ParsedRun]:
        ranking: Dict[str, Dict[str, float]] = OrderedDict()
        with open(path, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, 1):
                fields = line.rstrip("\n").split("\t")
                try:
                    score = float(fields[2]) if len(fields) == 3 else None
                except ValueError:
                    score = None
                if score is None:
                    diags.error(line_no, "expected topic<TAB>doc<TAB>score")
                    continue
                ranking.setdefault(fields[0], {})[fields[1]] = score
        return [ParsedRun(os.path.basename(display), display, ranking)]

    def ranked_lists(self, run: ParsedRun, options: Dict[str, Any],
                     depth: Optional[int] = None) -> "OrderedDict[str, List[RankedItem]]":
        return OrderedDict((topic, [RankedItem(doc, None, doc) for doc in _ranked(docs)][:depth])
                           for topic, docs in run.data.items())

    def score(self, run: ParsedRun, reference: ToyReference, options: Dict[str, Any]) -> RunScores:
        per_topic = {}
        for topic, judged in reference.qrels.items():
            top = _ranked(run.data.get(topic, {}))[:CUTOFF]
            per_topic[topic] = {"p2": sum(judged.get(doc, 0) for doc in top) / float(CUTOFF)}
        mean = sum(v["p2"] for v in per_topic.values()) / len(per_topic) if per_topic else 0.0
        return RunScores({"p2": mean}, per_topic)


def _ranked(docs: Dict[str, float]) -> List[str]:
    return [doc for doc, _ in sorted(docs.items(), key=lambda pair: (-pair[1], pair[0]))]


TASK = ToyTask()
