"""Task r2c2-pr: NTCIR-19 R2C2 passage retrieval, MSnDCG@20 per question over the official topic list.

Seed: shared/seeds/000_13a97d0348fb03bd.txt; spec: shared/specs/r2c2.md sections 1.1, 4 and 8. The run format
is read by runscore.tasks.r2c2.pr_format (shared with r2c2-ac). The PR qrels are an input file, `qID<TAB>passage
key<TAB>Lk`, so official qrels can be dropped in; `runscore r2c2-qrels` derives them from AC labels.
"""
import os
import re
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from ...ranking import fastpath
from ...errors import ConfigError, ConfigErrors, Diagnostics
from ...measures.names import compute_all
from ...measures.ntcireval import (MAX_LEVELS, GradedRanking, NoRelevantDocuments, linear_gains,
                                    parse_gains)
from ...ranking.measure_columns import evaluate_records
from ...ranking.ntcir_qrels import parse_level
from .pr_format import (KEY_MODES, MAX_PASSAGES, RUN_NAME_PATTERN, PRRun, key_text, normalise_qid, parse_pr_run,
                        parse_run_name,
                        qid_tsv_rows)
from ...textfile import numbered_lines, read_text
from .assessed import CHANGED_PARTS, UNCHECKED_LABELS, read_assessed_pr_runs
from ..assessing import RUN, AssessmentForm, LabelScale
from ..pooling import JudgedPool, Pooling, drop_items, write_lines
from ..base import (Column, Option, ParsedRun, RankedItem, ReferenceSize, RunScores, Task, first_line, read_task_yaml,
                    reference_file)

# canonical measure name -> output key (spec 4.3: msndcg20 primary; the others for diagnosis)
MEASURES = {"MSnDCG@20": "msndcg20", "nDCG@20": "ndcg20_orig", "P@20": "p20", "Hit@1": "hit1"}


# The assessors' scale: NTCIREVAL levels (specs/r2c2.md 4.3); the PR qrels loader reads Lk only. The judged text is
# the passage the run returned (PG passages exist only in the runs: specs/collections.md 3.2).
def _not_blind(options) -> Optional[str]:
    if options.get("passage_key_mode") == "run_rank":
        return ("passage_key_mode run_rank keys each passage by its run and PassageRank, so every item names the run "
                "that returned it: the assessors' pages cannot be blind (passage_key_mode content keys it by docID "
                "and text)")
    return None


ASSESSMENT = AssessmentForm(
    scales={"": LabelScale(
        ("L0", "L1", "L2"), ("0", "1", "2"), ("non-relevant", "partially relevant", "highly relevant"),
        ("judged, the passage does not help answer the question",
         "partially relevant: gain 1 in MSnDCG@20",
         "highly relevant: gain 2 in MSnDCG@20"))},
    text_source=RUN, normalise_topic=normalise_qid, not_blind=_not_blind)


class PRReference:
    """qID -> passage key text -> level; the official topics (scored); the gains; topics left out (no rel)."""

    def __init__(self, qrels: Dict[str, Dict[str, int]], topics: List[str], gains, excluded: List[str],
                 assessed: Optional[Dict[str, Dict[tuple, str]]] = None):
        self.qrels = qrels
        self.topics = topics
        self.gains = gains
        self.excluded = excluded
        # run_rank mode: run name -> (qID, PassageRank) -> content key of the passage as it was assessed
        self.assessed = assessed


class PRPooling(Pooling):
    """A depth-k pool of the rankings (passages keyed as the qrels key them); the labels become `pr_qrels.tsv`,
    `qID<TAB>passage_key<TAB>Lk` with a header (specs/r2c2.md 4.3)."""

    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        write_lines(os.path.join(folder, "pr_qrels.tsv"), ["qID\tpassage_key\tLk"] +
                    ["%s\t%s\t%s" % (topic, item, label) for (topic, item), label in judged.labels.items()])
        return {"qrels": "pr_qrels.tsv", "topics": judged.topics}

    def without(self, reference: PRReference, removed) -> PRReference:
        """A question left without a relevant passage is left out, as the loader leaves it out."""
        qrels = drop_items(reference.qrels, removed)
        topics = [t for t in reference.topics if any(grade > 0 for grade in qrels.get(t, {}).values())]
        excluded = list(reference.excluded) + [t for t in reference.topics if t not in topics]
        return PRReference(qrels, topics, reference.gains, excluded, reference.assessed)


def read_pr_qrels(path: str, gains: str = "linear") -> Dict[str, Dict[str, int]]:
    """`qID<TAB>passage_key<TAB>Lk` lines (a header line starting with `qID` is skipped); ConfigError on defects.
    The scale is L0..L15 (NTCIREVAL's levels, specs/r2c2.md 4.3) or, with explicit gains, L0 and one level a gain:
    a level off it is refused at its line, the scale named (gains '1:2' leave L3 without a gain)."""
    top, why = _scale(gains)
    qrels: Dict[str, Dict[str, int]] = {}
    with ConfigErrors() as problems:      # every bad line is told at once, not the first only
        for line_no, qid, fields in qid_tsv_rows(path, "PR qrels", ("qID", "passage_key", "Lk")):
            with problems.catch():
                key = fields[1].strip()
                if not key:
                    raise ConfigError("empty passage key", path, line_no)
                docs = qrels.setdefault(qid, {})
                if key in docs:
                    raise ConfigError("duplicate passage key %s for question %s" % (key, qid), path, line_no)
                text = fields[2].strip()
                if re.fullmatch(r"L[0-9]+", text) and (len(text) > 5 or int(text[1:]) > top):
                    raise ConfigError("relevance level %s is outside the task's scale L0..L%d (%s)"
                                      % (text, top, why), path, line_no)
                docs[key] = parse_level(text, path, line_no, top)
    return qrels


def _scale(gains: str) -> Tuple[int, str]:
    """The highest level of the scale and why: linear gains give every NTCIREVAL level one; explicit gains declare
    as many levels as they list. ConfigError when the option is not gains."""
    if gains == "linear":
        return MAX_LEVELS, "NTCIREVAL's levels; gains linear, Lk -> k"
    try:
        declared = parse_gains(gains)
    except ValueError as exc:
        raise ConfigError("option gains: %s" % exc)
    return len(declared), "option gains %r declares %d level%s" % (gains, len(declared),
                                                                    "" if len(declared) == 1 else "s")


def read_topic_list(path: str) -> List[str]:
    """One qID a line (the official list: R2C2 scores 64 of its 65 questions)."""
    topics = []
    problems = ConfigErrors()
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip():
            continue
        qid = normalise_qid(line)
        if qid is None:
            problems.add(ConfigError("%r is not a question id" % line.strip(), path, line_no))
            continue
        topics.append(qid)
    problems.check()
    return topics


class R2C2PR(Task):
    id = "r2c2-pr"
    title = "NTCIR-19 R2C2 passage retrieval (PR)"
    tag = "R2C2-PR"
    description = "NTCIR-19 R2C2 passage retrieval runs [Team]-{PG|PO}-[1-4], MSnDCG@20 (NTCIREVAL)"
    run_file_help = ("a file named [TeamName]-{PG|PO}-[RunNumber] (RunNumber 1-4, optional .txt), UTF-8 lines "
                     "'qID;PassageRank;docID;PassageText', at most 20 passages per question, ranks 1-20")
    name_pattern = RUN_NAME_PATTERN + r"(\.txt)?"
    max_runs_per_team = 4
    formal_submissions = (4, 4)     # up to 4 PR runs per team (the seed)
    options = (
        Option("passage_key_mode", "content", "How a run's passage is found in the qrels: content = docID + "
               "SHA-1 of the whitespace-normalised text (organiser passages recur across PO runs), run_rank = "
               "(run name, PassageRank), the seed's PassageKey. Proposed (spec 4.3).", KEY_MODES),
        Option("changed_parts", "error", "passage_key_mode run_rank (labels keyed by run name and rank): a "
               "passage that differs (docID or text) from the one at that rank of the run as it was assessed "
               "(task.yaml assessed_runs): an error per line (default), or unjudged: a warning per line and the "
               "passage gets no label (gain 0).", CHANGED_PARTS),
        Option("unchecked_labels", "error", "run_rank mode without assessed_runs: a reference error (default), or "
               "trust: labels by run name and rank alone (any file named like an assessed run then earns its "
               "labels; never on a leaderboard).", UNCHECKED_LABELS),
        Option("gains", "linear", "NTCIREVAL -g gains of L1..Lk: 'linear' (Lk -> k, up to the highest level "
               "in the qrels, NTCIR practice) or explicit, e.g. '1:2:3'."),
    )
    columns = (Column("msndcg20", "MSnDCG@20"),)
    per_topic_measures = tuple(MEASURES.values())
    # run_rank mode replays the assessed runs while parsing (run.unjudged): a hidden phase parses twice.
    runs_need_reference = True
    hidden_reference = ReferenceSize(None, 2, 64, "judged passages of the 64 scored questions",
                                     "specs/r2c2.md: 65 questions, 64 scored; every PR run pooled to depth 20; the "
                                     "number of judged passages and the grade scale are not in the sources")
    assessment = ASSESSMENT
    pooling = PRPooling()

    def team_of(self, run: ParsedRun) -> str:
        parsed = parse_run_name(run.name)
        return parsed.team if parsed is not None else run.name

    def run_number(self, run: ParsedRun) -> Optional[int]:
        """RunNumber of `[TeamName]-{PG|PO}-[RunNumber]`."""
        parsed = parse_run_name(run.name)
        return parsed.number if parsed is not None else None

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        return line is not None and re.match(r"[Dd]?[0-9]{3,4}[;:][0-9]+;", line) is not None

    def answered_topics(self, run: ParsedRun) -> Optional[List[str]]:
        return list(run.data.topics)

    def official_topics(self, listed) -> set:
        return {normalise_qid(str(t)) or str(t) for t in listed}

    # ------------------------------------------------------------------------------ reference ---
    def public_reference(self, reference: PRReference) -> PRReference:
        """The official questions, those without a relevant passage among them (which ones have none is hidden)."""
        return PRReference({}, sorted(set(reference.topics) | set(reference.excluded)), reference.gains, [])

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> PRReference:
        topics: Optional[List[str]] = None
        if os.path.isfile(ref_path):
            qrels = read_pr_qrels(ref_path, options["gains"])
        else:
            config = read_task_yaml(ref_path)
            where = os.path.join(ref_path, "task.yaml")
            if "qrels" not in config:
                raise ConfigError("task.yaml must name the PR qrels file (qrels: pr_qrels.tsv)", where)
            qrels = read_pr_qrels(reference_file(ref_path, str(config["qrels"]), "PR qrels"), options["gains"])
            if "topics" in config:
                listed = config["topics"]
                if isinstance(listed, list):
                    topics = [normalise_qid(str(t)) or str(t) for t in listed]
                else:
                    topics = read_topic_list(reference_file(ref_path, str(listed), "topics"))
                if not topics:
                    raise ConfigError("the official topic list is empty", where)
        top = max((lvl for docs in qrels.values() for lvl in docs.values()), default=0)
        if options["gains"] == "linear":
            gains = linear_gains(max(top, 1))
        else:
            gains = parse_gains(options["gains"])      # read_pr_qrels checked it, and every level against it
        assessed = None
        if not os.path.isfile(ref_path) and "assessed_runs" in config:
            folder = config["assessed_runs"]
            if not isinstance(folder, str) or not folder:
                raise ConfigError("assessed_runs must name a folder of the assessed PR run files", where)
            assessed = read_assessed_pr_runs(os.path.join(ref_path, folder))
        if options["passage_key_mode"] == "run_rank" and assessed is None and options["unchecked_labels"] == "error":
            raise ConfigError("passage_key_mode run_rank keys the qrels by run name and rank, which any file named "
                              "like an assessed run would earn: add assessed_runs (the PR runs as they were "
                              "assessed), or set unchecked_labels: trust", ref_path)
        if topics is None:
            topics = sorted(qrels)
        excluded = [t for t in topics if not any(level > 0 for level in qrels.get(t, {}).values())]
        return PRReference(qrels, [t for t in topics if t not in excluded], gains, excluded, assessed)

    # ------------------------------------------------------------------------------ parsing ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[PRReference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        run = parse_pr_run(path, display, diags, task=self)
        if reference is not None and run.topics:
            official = set(reference.topics) | set(reference.excluded)
            unknown = [t for t in run.topics if t not in official]
            if unknown:
                first_line = next(iter(run.topics[unknown[0]].values())).line
                diags.warning(first_line, "%d qID(s) are not official questions and are ignored: %s"
                              % (len(unknown), ", ".join(unknown[:10]) + (" ..." if len(unknown) > 10 else "")))
            if not official & set(run.topics):
                diags.error(0, "no line answers any official question (%s ... %s)"
                            % (min(official), max(official)) if official else "the reference has no questions")
            if options["passage_key_mode"] == "run_rank" and reference.assessed is not None and not diags.has_errors:
                assessed = reference.assessed.get(run.name, {})
                run.unjudged = _changed_passages(run, assessed, options, diags)
                _missing_passages(run, assessed, official, options, diags)
        return [ParsedRun(run.name, display, run)]

    # ------------------------------------------------------------------------------ rankings (campaign) ---
    def ranked_lists(self, run: ParsedRun, options: Dict[str, Any],
                     depth: Optional[int] = None) -> "OrderedDict[str, List[RankedItem]]":
        """PassageRank ascending, at most MAX_PASSAGES a question; passages keyed as the qrels key them
        (passage_key_mode), with their text for the assessors."""
        pr_run = run.data
        mode = options["passage_key_mode"]
        cut = MAX_PASSAGES if depth is None else min(depth, MAX_PASSAGES)
        return OrderedDict((qid, [RankedItem(key_text(pr_run.key(qid, rank, mode)), passage.text, passage.doc_id)
                                  for rank, passage in pr_run.passages(qid)][:cut])
                           for qid in pr_run.topics)

    # ------------------------------------------------------------------------------ scoring ---
    def score(self, run: ParsedRun, reference: PRReference, options: Dict[str, Any]) -> RunScores:
        pr_run: PRRun = run.data
        mode = options["passage_key_mode"]
        per_topic = None
        if not fastpath.switched_off():
            per_topic = pipeline_values(pr_run, reference, mode)
        if per_topic is None:
            per_topic = per_topic_values(pr_run, reference, mode)
        n = len(reference.topics)
        measures = {key: (sum(row[key] for row in per_topic.values()) / n if n else 0.0)
                    for key in MEASURES.values()}
        missing = [t for t in reference.topics if t not in pr_run.topics]
        measures["num_topics"] = float(n)
        measures["num_topics_missing"] = float(len(missing))
        notes = []
        if reference.excluded:
            notes.append("%d official question(s) without any relevant passage left out of the means "
                         "(NTCIREVAL cannot score them): %s" % (len(reference.excluded), ", ".join(reference.excluded)))
        if missing:
            notes.append("%d official question(s) absent from the run score 0: %s"
                         % (len(missing), ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else "")))
        return RunScores(measures, per_topic, notes)


def _changed_passages(run: PRRun, assessed: Dict[tuple, str], options: Dict[str, Any], diags: Diagnostics) -> set:
    """(qID, PassageRank) of the passages that differ from the run as it was assessed; each told on its line.
    The message names only what the participant sent (never the assessed passage); a hidden phase shows none of
    them, only whether the run was rejected (submission.py: each would be an equality oracle on the assessed run)."""
    changed = set()
    for qid in run.topics:
        for rank, passage in run.passages(qid):
            if assessed.get((qid, rank)) == key_text(run.key(qid, rank, "content")):
                continue
            changed.add((qid, rank))
            message = ("question %s: the passage at PassageRank %d differs from run %s as it was assessed (docID or "
                       "text), so its label does not apply" % (qid, rank, run.name))
            if options["changed_parts"] == "error":
                diags.error(passage.line, message + "; a replay leaderboard scores only the runs as they were "
                            "assessed (docs/r2c2-pr.md)")
            else:
                diags.warning(passage.line, message + "; it counts as not relevant")
    return changed


def _missing_passages(run: PRRun, assessed: Dict[tuple, str], official: set, options: Dict[str, Any],
                      diags: Diagnostics) -> None:
    """Passages of the run as it was assessed (of official questions) that this run leaves out: counted, not
    named. A replay scores the run as it was assessed, as r2c2-ac's does (its missing questions and nugget lines);
    were a part of it enough, a one-line file would be accepted exactly when its passage is the assessed one, an
    oracle on another team's run (one guess per file of a free rejected submission)."""
    held = {(qid, rank) for qid in run.topics for rank, _ in run.passages(qid)}
    missing = sum(1 for qid, rank in assessed if qid in official and (qid, rank) not in held)
    if not missing:
        return
    message = "%d passage(s) of run %s as it was assessed are missing here" % (missing, run.name)
    if options["changed_parts"] == "error":
        diags.error(0, message + "; a replay leaderboard scores only the runs as they were assessed (docs/r2c2-pr.md)")
    else:
        diags.warning(0, message + "; they count as not retrieved")


def _key(pr_run: PRRun, topic: str, rank: int, mode: str) -> str:
    """The qrels key text of a passage; a passage that differs from the assessed run (run_rank mode) gets a key
    no qrels line can hold (its label does not apply)."""
    if (topic, rank) in getattr(pr_run, "unjudged", ()):
        return "\x00unjudged"
    return key_text(pr_run.key(topic, rank, mode))


def pipeline_values(pr_run: PRRun, reference: PRReference, mode: str) -> Optional[Dict[str, Dict[str, float]]]:
    """Per-question values through the shared columnar pipeline: passages by PassageRank ascending (score =
    -PassageRank), the passage key text of `mode` as the document id; None when a key does not fit it (see
    ranking.measure_columns.evaluate_records). Questions without relevant passages are left out, as per_topic_values."""
    scored = set(reference.topics)
    topic_ids: List[str] = []
    doc_ids: List[str] = []
    scores: List[float] = []
    for topic in pr_run.topics:
        if topic in scored:
            for rank, _ in pr_run.passages(topic):
                topic_ids.append(topic)
                doc_ids.append(_key(pr_run, topic, rank, mode))
                scores.append(-float(rank))
    found = evaluate_records(topic_ids, doc_ids, scores, reference.qrels, reference.topics, reference.gains,
                             list(MEASURES), tie_order="file", max_docs=MAX_PASSAGES)
    return None if found is None else found.per_topic(reference.topics, MEASURES, scorable_only=True)


def per_topic_values(pr_run: PRRun, reference: PRReference, mode: str) -> Dict[str, Dict[str, float]]:
    """Per-question values, one GradedRanking per question (measures.ntcireval): the reference the pipeline is
    tested against, and the path for passage keys the pipeline's words cannot hold."""
    per_topic: Dict[str, Dict[str, float]] = {}
    for topic in reference.topics:
        topic_qrels = reference.qrels[topic]
        levels = [topic_qrels.get(_key(pr_run, topic, rank, mode), 0)
                  for rank, _ in pr_run.passages(topic)][:MAX_PASSAGES]
        try:
            graded = GradedRanking(levels, list(topic_qrels.values()), reference.gains)
        except NoRelevantDocuments:     # excluded at load time; kept here as a guard
            continue
        values = compute_all(list(MEASURES), graded)
        per_topic[topic] = {MEASURES[name]: value for name, value in values.items()}
    return per_topic


TASK = R2C2PR()
