"""Task qqa23-mrc: Qur'an QA 2023 Task B (reading comprehension on QRCD v1.2), pAP@10 as the official scorer.

Seed: shared/seeds/002_c4956b307f820956.txt; spec: shared/specs/qqa23-mrc.md. The run is one JSON object
`{pq_id: [answer, ...]}` named TeamID_RunID.json; the rules of the official submission checker live in
runscore/tasks/qqa23/checker.py, the official pAP@10 in runscore/tasks/qqa23/pap.py. This module only wires them together.
"""
import os
import re
from dataclasses import replace
from typing import Any, Dict, List, Optional

from ...errors import ConfigError, Diagnostics, RunError
from .checker import check_run
from .gold import GoldRecord, read_gold
from .pap import ALL_DROPPED, MISSING, score_record
from .run_json import parse_json
from .segment import SEGMENTERS, get_segmenter
from ...textfile import JSON_LAYOUT, read_text
from ..base import Column, Option, ParsedRun, ReferenceSize, RunScores, Task, read_task_yaml, reference_file

PQ_ID_START = re.compile(r'\{\s*"[0-9]+:[0-9]+(-[0-9]+)?_[0-9]+"\s*:')


class Qqa23Mrc(Task):
    id = "qqa23-mrc"
    topic_unit = "question"
    title = "Qur'an QA 2023 Task B (MRC)"
    tag = "QQA23"
    description = "Qur'an QA 2023 Task B, reading comprehension on QRCD v1.2: pAP@10 as the official scorer"
    run_file_help = ("a JSON file named TeamID_RunID.json (e.g. bigIR_run01.json) mapping each pq_id to a list "
                     "of up to 10 answers {answer, rank, score, strt_token_indx, end_token_indx}, [] to abstain")
    name_pattern = r"[a-zA-Z0-9]{3,9}_[a-zA-Z0-9]{2,9}\.json"
    max_runs_per_team = 1
    formal_submissions = (3, 3)     # "3 test runs per team" (spec 3.1): one run a submission, three submissions
    options = (
        Option("segmentation", "prefix_table", "How tokens are split into clitics before stop words are removed "
               "(the official scorer calls Farasa): prefix_table = the offline table shipped with runscore "
               "(reproduces the official dev numbers), none = no segmentation, farasapy = the real Farasa "
               "(needs farasapy and Java; offline comparisons only).", tuple(SEGMENTERS)),
        Option("cutoff", 10, "Answers scored per question, counted after dropping answers whose normalised "
               "text or span is empty (official --cutoff_rank 10)."),
        Option("strict_filename", False, "Reject a run not named TeamID_RunID.json, as the official checker "
               "does (default: a warning)."),
        Option("missing_questions", "score_zero", "A gold pq_id absent from the run: scored 0 with a warning "
               "(official scorer) or an error.", ("score_zero", "error")),
        Option("all_dropped", "score_zero", "A question whose every answer is dropped by normalisation (the "
               "official scorer crashes): scored 0 with a warning, or an error.", ("score_zero", "error")),
    )
    columns = (
        Column("pap10", "pAP@10", precision=4),
        Column("pap10_answerable", "pAP@10 answerable", precision=4),
        Column("noanswer_acc", "Zero-answer accuracy", precision=4),
    )
    # Per question: pAP, 1 if the gold has answers, answers in the run, re-ranked items that matched a gold,
    # distinct normalised gold texts (the pAP denominator; 0 for a zero-answer question).
    per_topic_measures = ("pap10", "answerable", "answers", "matched", "gold_texts")
    count_measures = ("answerable", "answers", "matched", "gold_texts")
    per_topic_effectiveness = ("pap10",)
    hidden_reference = ReferenceSize(407, 2, 407, "question-passage pairs of the test set (one judgement = whether one "
                                     "candidate answer span is a gold answer)",
                                     "shared/data/qqa23/test: QRCD v1.2 test gold, 407 records")

    def team_of(self, run: ParsedRun) -> str:
        """TeamID of `TeamID_RunID.json`."""
        return os.path.basename(run.name).split("_", 1)[0]

    def sniff(self, head: str) -> bool:
        """A JSON object whose first key looks like a pq_id (`38:41-44_105`) or whose answers carry token indices."""
        text = head.lstrip()
        return text.startswith("{") and ("_token_indx" in text or PQ_ID_START.match(text) is not None)

    def public_reference(self, reference: List[GoldRecord]) -> List[GoldRecord]:
        """The test questions with their passages and no answers: QRCD gives participants both."""
        return [replace(record, answers=[]) for record in reference]

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> List[GoldRecord]:
        """A QRCD gold file (the *_preprocessed.jsonl), or a folder whose task.yaml names it as `gold:`."""
        get_segmenter(options["segmentation"])          # fail early (exit 2) when farasapy is missing
        if options["cutoff"] < 1:
            raise ConfigError("option cutoff must be at least 1")
        if os.path.isfile(ref_path):
            return read_gold(ref_path)
        config = read_task_yaml(ref_path)
        if not isinstance(config.get("gold"), str):
            raise ConfigError("task.yaml must name the preprocessed QRCD gold file as gold: FILE",
                              os.path.join(ref_path, "task.yaml"))
        return read_gold(reference_file(ref_path, config["gold"], "gold"))

    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[List[GoldRecord]],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)
        try:
            doc = parse_json(text, display)
        except RunError:
            if self.wrong_layout(text, diags, JSON_LAYOUT, 1):    # TSV or another task's run: say that instead
                return []
            raise
        gold_options = {}
        if reference is not None:
            gold_options = dict(segment=get_segmenter(options["segmentation"]), cutoff=options["cutoff"],
                                missing_is_error=options["missing_questions"] == "error",
                                all_dropped_is_error=options["all_dropped"] == "error")
        check_run(doc, display, diags, options["strict_filename"], reference, **gold_options)
        base = os.path.basename(display)
        name = base[:-5] if base.endswith(".json") else base
        return [ParsedRun(name, display, doc.value)]

    def score(self, run: ParsedRun, reference: List[GoldRecord], options: Dict[str, Any]) -> RunScores:
        segment = get_segmenter(options["segmentation"])
        per_topic: Dict[str, Dict[str, float]] = {}
        outcomes: Dict[str, List[str]] = {}
        rows = []
        for record in reference:
            result = score_record(record.passage, record.answers, run.data.get(record.pq_id), segment,
                                  options["cutoff"])
            answers = run.data.get(record.pq_id)
            per_topic[record.pq_id] = {"pap10": result.pap, "answerable": 1.0 if record.answers else 0.0,
                                       "answers": float(len(answers or ())),
                                       "matched": float(sum(1 for m in result.matches if m)),
                                       "gold_texts": float(result.distinct_gold_texts)}
            outcomes.setdefault(result.outcome, []).append(record.pq_id)
            rows.append([record.pq_id, " | ".join(result.gold_texts) or "(zero-answer)",
                         " | ".join(result.predicted_texts) or "(none)",
                         " ".join("%.4g" % m for m in result.matches), result.outcome, "%.6f" % result.pap])
        answerable = [v["pap10"] for v in per_topic.values() if v["answerable"]]
        zero_answer = [v["pap10"] for v in per_topic.values() if not v["answerable"]]
        measures = {
            "pap10": _mean(list(v["pap10"] for v in per_topic.values())),
            "pap10_answerable": _mean(answerable),
            "noanswer_acc": _mean(zero_answer),
            "num_questions": float(len(per_topic)),
            "num_answerable": float(len(answerable)),
            "num_zero_answer": float(len(zero_answer)),
        }
        notes = []
        for outcome in (MISSING, ALL_DROPPED):
            if outcome in outcomes:
                notes.append("%s: %d pq_id(s) %s, scored 0 (%s)" % (run.name, len(outcomes[outcome]), outcome,
                                                                   ", ".join(outcomes[outcome][:10])))
        if not zero_answer:
            notes.append("the gold file has no zero-answer question; noanswer_acc is shown as 0")
        if not answerable:
            notes.append("the gold file has no answerable question; pap10_answerable is shown as 0")
        table = {"caption": "Per question: %s (normalised texts; match value of each re-ranked item)" % run.name,
                 "header": ["pq_id", "gold texts", "scored predictions", "matches", "outcome", "pAP"], "rows": rows}
        return RunScores(measures, per_topic, notes, [table])


def _mean(values: List[float]) -> float:
    return sum(values) / len(values) if values else 0.0


TASK = Qqa23Mrc()
