"""Task temporalia-tir: NTCIR-11 Temporalia, Temporal Information Retrieval, P@20 and nDCG@20 per subtopic.

Seed: shared/seeds/001_8f243194a2087003.txt; spec: shared/specs/temporalia.md section 2. A run file `tir_<group>`
holds TAB-separated lines `id rank doc_id group_id run_id` (header optional, no score column); `id` is a query
id plus the subtopic letter p (past), r (recent), f (future), a (atemporal); at most 100 documents per subtopic;
several run_ids in one file are several runs, at most 3 per group. Documents are ranked by rank ascending, equal
ranks in file order. Measures (NTCIREVAL conventions, gains 1:2 on L0/L1/L2): P@20 (Official, primary),
MSnDCG@20 and the original nDCG@20; means overall and per temporal class over an averaging set (option).
"""
import os
import re
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from ...ranking import fastpath
from ...errors import ConfigError, Diagnostics
from ...measures.names import compute_all
from ...measures.ntcireval import GradedRanking, NoRelevantDocuments, parse_gains
from ...ranking.measure_columns import evaluate_records
from ...ranking.ntcir_qrels import FORMATS, read_graded_qrels
from .format import MAX_RUNS_PER_GROUP, RunBook, records
from ...textfile import TAB_OR_SPACES, read_text
from ...validate import record_schema
from ..assessing import AssessmentForm, LabelScale
from ..pooling import JudgedPool, Pooling, drop_items, write_lines
from ..base import (PER_TOPIC, Column, Option, ParsedRun, RankedItem, ReferenceSize, RunScores, Task, first_line,
                    read_task_yaml, reference_file)

FIELDS = ("id", "rank", "doc_id", "group_id", "run_id")
HEADER = "id rank doc_id group_id run_id"
MAX_DOCS = 100             # the seed: "You can return up to 100 documents for each subtopic."
CLASSES = {"p": "past", "r": "recency", "f": "future", "a": "atemporal"}
MAX_LEVEL = 2              # L0 non-relevant, L1 partially, L2 highly relevant
MEASURES = {"P@20": "p20", "MSnDCG@20": "msndcg20", "nDCG@20": "ndcg20_orig"}

_SUBTOPIC = re.compile(r"([0-9]+)([praf])", re.IGNORECASE)


def normalise_subtopic(text: str) -> Optional[str]:
    """`001p`, `1P`, `0001p` -> `001p` (numeric part compared without leading zeros, shown 3 digits wide)."""
    match = _SUBTOPIC.fullmatch(text.strip())
    if not match:
        return None
    digits = match.group(1).lstrip("0") or "0"      # no int(): it refuses strings of 4300+ digits
    return "%s%s" % (digits.zfill(3), match.group(2).lower())


def rank_value(text: str, limit: int = 10 ** 9) -> int:
    """An integer rank, clamped to +-limit without converting a huge digit string (Python refuses more than
    4300 digits)."""
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    return sign * (limit if len(digits) > 9 else min(int(digits), limit))


def temporal_class(subtopic: str) -> str:
    return CLASSES[subtopic[-1]]


def is_header(line: str) -> bool:
    return " ".join(line.split()).lower() == HEADER


def topic_id(text: str) -> Optional[str]:
    """A subtopic id (`1p` -> `001p`) or a topic id (`51` -> `051`) as the topic file and the runs spell them."""
    found = normalise_subtopic(text)
    if found is None and text.strip().isdigit():
        found = (text.strip().lstrip("0") or "0").zfill(3)
    return found


def topic_of(subtopic: str) -> Tuple[str, ...]:
    """The topic a subtopic belongs to (`001p` -> `001`): its title, description and query time are shown with it."""
    return (subtopic[:-1],) if normalise_subtopic(subtopic) else ()


# The assessors' scale: three levels (specs/temporalia.md 2.1, Inferred); the loader reads TREC grades 0/1/2 too.
ASSESSMENT = AssessmentForm(
    scales={"": LabelScale(
        ("L0", "L1", "L2"), ("0", "1", "2"), ("non-relevant", "partially relevant", "highly relevant"),
        ("judged, not relevant to the subtopic",
         "partially relevant to the subtopic: relevant for P@20, gain 1 in nDCG@20",
         "highly relevant to the subtopic: relevant for P@20, gain 2 in nDCG@20"),
        numbered=True)},
    normalise_topic=topic_id, topic_parents=topic_of)


class TirReference:
    """Qrels by normalised subtopic (doc_id -> level 0..2) and the gains. public: only the subtopics a run may
    answer, every one without judgements (TemporaliaTir.public_reference)."""

    def __init__(self, qrels: Dict[str, Dict[str, int]], gains, public: bool = False):
        self.qrels = qrels
        self.gains = gains
        self.public = public

    def with_relevant(self) -> List[str]:
        return [s for s, docs in self.qrels.items() if any(level > 0 for level in docs.values())]


class TirPooling(Pooling):
    """A depth-k pool of the rankings; the labels become `qrels.txt`, NTCIREVAL `subtopic doc_id Lk`
    (specs/temporalia.md 2.5)."""

    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        write_lines(os.path.join(folder, "qrels.txt"), ["%s %s %s" % (topic, item, label)
                                                        for (topic, item), label in judged.labels.items()])
        return {"qrels": "qrels.txt", "options": {"qrels_format": "ntcir"}}

    def without(self, reference: TirReference, removed) -> TirReference:
        return TirReference(drop_items(reference.qrels, removed), reference.gains)


class TirRun:
    """One run: per subtopic the (rank, line, doc_id) entries in file order."""

    def __init__(self, run_id: str, group_id: str):
        self.run_id = run_id
        self.group_id = group_id
        self.entries: Dict[str, List[Tuple[int, int, str]]] = {}
        self.seen: Dict[Tuple[str, str], int] = {}

    def ranking(self, subtopic: str) -> List[str]:
        """doc_ids by rank ascending; equal ranks keep file order (the seed has no score to break ties)."""
        return [doc for _, _, doc in sorted(self.entries.get(subtopic, []), key=lambda e: (e[0], e[1]))]


class TemporaliaTir(Task):
    id = "temporalia-tir"
    title = "NTCIR-11 Temporalia TIR"
    tag = "TIR"
    description = "NTCIR-11 Temporalia temporal information retrieval: P@20, MSnDCG@20, nDCG@20 per subtopic"
    run_file_help = ("a file named tir_<group_id>, TAB-separated lines 'id rank doc_id group_id run_id' (id = "
                     "query id + p/r/f/a), at most 100 documents per subtopic, up to 3 run_ids")
    name_pattern = r"(?i)tir_.+"
    max_runs_per_team = MAX_RUNS_PER_GROUP
    formal_submissions = (MAX_RUNS_PER_GROUP, MAX_RUNS_PER_GROUP)   # up to 3 runs per group (the seed)
    options = (
        Option("average_over", "judged_with_relevant", "Subtopics averaged: those of the qrels with at least one "
               "relevant document (NTCIREVAL cannot score the others), or all subtopics of the qrels (those "
               "without relevant documents score 0). Open in the spec; this default is Proposed.",
               ("judged_with_relevant", "all")),
        Option("gains", "1:2", "NTCIREVAL -g gains of L1:L2 for nDCG (P@20 counts L1 and L2 as relevant)."),
        Option("qrels_format", "auto", "Qrels format: NTCIR 'subtopic doc_id Lk', TREC 'subtopic 0 doc_id grade' "
               "or auto (decided by the first line).", FORMATS),
    )
    columns = (
        Column("p20", "P@20"),
        Column("msndcg20", "MSnDCG@20"),
        Column("ndcg20_orig", "nDCG@20 (original)"),
        Column("p20_past", "P@20 (past)", per_topic="p20", topics_ending="p"),
        Column("p20_recency", "P@20 (recency)", per_topic="p20", topics_ending="r"),
        Column("p20_future", "P@20 (future)", per_topic="p20", topics_ending="f"),
        Column("p20_atemporal", "P@20 (atemporal)", per_topic="p20", topics_ending="a"),
    )
    per_topic_measures = tuple(MEASURES.values())
    hidden_reference = ReferenceSize(4578, 3, 200, "judged documents of 200 subtopics (L0, L1, L2)",
                                     "specs/temporalia.md section 2: 50 formal topics x 4 subtopics, 4,578 judged "
                                     "documents")
    assessment = ASSESSMENT
    pooling = TirPooling()

    def team_of(self, run: ParsedRun) -> str:
        return run.data.group_id

    def answered_topics(self, run: ParsedRun) -> Optional[List[str]]:
        return list(run.data.entries)

    def official_topics(self, listed) -> set:
        """Subtopic ids normalised; a query id without its letter stands for its four subtopics."""
        official = {normalise_subtopic(str(t)) or str(t) for t in listed}
        return official | {"%s%s" % (str(t).lstrip("0").zfill(3), c) for t in listed if str(t).isdigit()
                           for c in CLASSES}

    def teams_named(self, run: ParsedRun) -> Dict[str, int]:
        return {group: line for group, line in getattr(run.data, "group_lines", {}).items() if group}

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        if line is None:
            return False
        if is_header(line):
            return True
        fields = line.split("\t")
        return len(fields) in (3, 5) and normalise_subtopic(fields[0]) is not None

    # ------------------------------------------------------------------------------ reference ---
    def public_reference(self, reference: TirReference) -> TirReference:
        """Every subtopic of every query the qrels judge, none judged: each topic's four temporal subtopics are
        given to participants, while which of them the assessors judged is part of the hidden reference."""
        queries = {subtopic[:-1] for subtopic in reference.qrels}
        return TirReference({q + c: {} for q in sorted(queries) for c in CLASSES}, reference.gains, public=True)

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> TirReference:
        if os.path.isfile(ref_path):
            path = ref_path
        else:
            config = read_task_yaml(ref_path)
            if "qrels" not in config:
                raise ConfigError("task.yaml must name the qrels file (qrels: FILE)",
                                  os.path.join(ref_path, "task.yaml"))
            path = reference_file(ref_path, str(config["qrels"]), "qrels")
        try:
            gains = parse_gains(options["gains"])
        except ValueError as exc:
            raise ConfigError("option gains: %s" % exc)
        raw = read_graded_qrels(path, options["qrels_format"], max_level=len(gains))
        qrels: Dict[str, Dict[str, int]] = {}
        for subtopic, docs in raw.items():
            key = normalise_subtopic(subtopic)
            if key is None:
                raise ConfigError("subtopic id %r is not a query id followed by p, r, f or a" % subtopic, path)
            if key in qrels:
                raise ConfigError("subtopic %s appears under two spellings (%s)" % (key, subtopic), path)
            qrels[key] = dict(docs)
        if not qrels:
            raise ConfigError("the qrels file holds no judgement", path)
        return TirReference(qrels, gains)

    # ------------------------------------------------------------------------------ parsing ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[TirReference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)
        if self.wrong_layout(text, diags, TAB_OR_SPACES, 3, len(FIELDS)):
            return []
        schema = record_schema("temporalia-tir.record")
        book = RunBook(diags, TirRun)
        once = diags.warning_once
        too_many: Dict[Tuple[str, str], List[int]] = {}    # (run, subtopic) -> [first extra line, extras]
        for line_no, record in records(text, diags, FIELDS, 3, schema, is_header, HEADER):
            run = book.run_for(line_no, record)
            run_id = run.run_id
            subtopic = normalise_subtopic(record["id"])
            doc_id = record["doc_id"]
            key = (subtopic, doc_id)
            if key in run.seen:
                diags.error(line_no, "duplicate doc_id %s for subtopic %s in run %s (first seen at line %d)"
                            % (doc_id, subtopic, run_id, run.seen[key]))
                continue
            entries = run.entries.setdefault(subtopic, [])
            if len(entries) == MAX_DOCS:
                too_many.setdefault((run_id, subtopic), [line_no, 0])[1] += 1
                continue
            rank = rank_value(record["rank"])
            if rank < 1:
                once("rank", line_no, "rank %d is below 1 (documents are ranked by rank ascending)" % rank)
            run.seen[key] = line_no
            entries.append((rank, line_no, doc_id))

        for (run_id, subtopic), (line_no, extra) in too_many.items():
            diags.error(line_no, "subtopic %s of run %s has %d documents; at most %d may be returned (the first "
                        "extra one is on this line)" % (subtopic, run_id, MAX_DOCS + extra, MAX_DOCS))
        for run in book.runs.values():
            for subtopic, entries in run.entries.items():
                ranks = [rank for rank, _, _ in entries]
                if len(set(ranks)) < len(ranks):
                    once("ties", entries[0][1], "run %s subtopic %s: equal ranks; those documents keep their file "
                         "order" % (run.run_id, subtopic))
        book.finish()
        groups = sorted(g for g in book.runs_of_group if g)
        base = os.path.basename(display).lower()
        if groups and base not in ("tir_%s" % g.lower() for g in groups):
            once("filename", 0, "the file should be named tir_<group_id> (tir_%s), as the task's instructions ask" % groups[0])
        if reference is not None:
            for run in book.runs.values():
                self._check_against_reference(run, reference, diags)
        return [ParsedRun(run_id, display, run, lines=book.own_lines(run_id)) for run_id, run in book.runs.items()]

    @staticmethod
    def _check_against_reference(run: TirRun, reference: TirReference, diags: Diagnostics) -> None:
        unknown = [s for s in run.entries if s not in reference.qrels]
        where = "of the %d test topics" % (len(reference.qrels) // len(CLASSES)) if reference.public else \
            "in the qrels"
        if unknown:
            diags.warning(run.entries[unknown[0]][0][1], "run %s: %d subtopic(s) are not %s and are ignored: %s"
                          % (run.run_id, len(unknown), "subtopics " + where if reference.public else where,
                             _id_list(unknown)))
        if len(unknown) == len(run.entries):
            diags.error(0, "run %s has no line for any of the %d subtopics %s"
                        % (run.run_id, len(reference.qrels), where if reference.public else "of the qrels"))

    # ------------------------------------------------------------------------------ rankings (campaign) ---
    def ranked_lists(self, run: ParsedRun, options: Dict[str, Any],
                     depth: Optional[int] = None) -> "OrderedDict[str, List[RankedItem]]":
        """Rank ascending, equal ranks in file order (at most MAX_DOCS a subtopic: more is an error)."""
        return OrderedDict((subtopic, [RankedItem(d, None, d) for d in run.data.ranking(subtopic)[:depth]])
                           for subtopic in run.data.entries)

    # ------------------------------------------------------------------------------ scoring ---
    def score(self, run: ParsedRun, reference: TirReference, options: Dict[str, Any]) -> RunScores:
        data: TirRun = run.data
        with_relevant = set(reference.with_relevant())
        if options["average_over"] == "all":
            subtopics = sorted(reference.qrels, key=_subtopic_order)
        else:
            subtopics = sorted(with_relevant, key=_subtopic_order)
        per_topic = None
        if not fastpath.switched_off():
            per_topic = pipeline_values(data, reference, subtopics)
        if per_topic is None:
            per_topic = per_topic_values(data, reference, subtopics)
        measures = _means(per_topic, subtopics, "")
        for letter, name in CLASSES.items():
            measures.update(_means(per_topic, [s for s in subtopics if s.endswith(letter)], "_" + name))
        missing = [s for s in subtopics if s not in data.entries]
        no_relevant = sorted(set(reference.qrels) - with_relevant, key=_subtopic_order)
        measures.update({"num_subtopics": float(len(subtopics)), "num_missing": float(len(missing)),
                         "num_without_relevant": float(len(no_relevant))})
        notes = ["%s: means over %d subtopics (average_over = %s)" % (run.name, len(subtopics),
                                                                      options["average_over"])]
        if no_relevant:
            action = "scored 0 and averaged" if options["average_over"] == "all" else "left out of the means"
            notes.append("%s: %d subtopic(s) of the qrels have no relevant document, %s: %s"
                         % (run.name, len(no_relevant), action, _id_list(no_relevant)))
        if missing:
            notes.append("%s: %d subtopic(s) absent from the run score 0: %s" % (run.name, len(missing),
                                                                                 _id_list(missing)))
        return RunScores(measures, per_topic, notes, [_topic_table(run.name, per_topic)])


def pipeline_values(data: TirRun, reference: TirReference, subtopics: List[str]
                    ) -> Optional[Dict[str, Dict[str, float]]]:
    """Per-subtopic values through the shared columnar pipeline (documents by rank ascending, equal ranks in
    file order: score = -rank, ties in file order); None when a document id does not fit it (see
    ranking.measure_columns.evaluate_records). A subtopic without relevant documents scores 0, as per_topic_values."""
    scored = set(subtopics)
    topic_ids: List[str] = []
    doc_ids: List[str] = []
    scores: List[float] = []
    for subtopic, entries in data.entries.items():
        if subtopic in scored:
            topic_ids.extend([subtopic] * len(entries))
            doc_ids.extend(doc for _, _, doc in entries)
            scores.extend(-float(rank) for rank, _, _ in entries)
    found = evaluate_records(topic_ids, doc_ids, scores, reference.qrels, subtopics, reference.gains,
                             list(MEASURES), tie_order="file")
    return None if found is None else found.per_topic(subtopics, MEASURES)


def per_topic_values(data: TirRun, reference: TirReference, subtopics: List[str]) -> Dict[str, Dict[str, float]]:
    """Per-subtopic values, one GradedRanking per subtopic (measures.ntcireval): the reference the pipeline is
    tested against, and the path for document ids the pipeline's words cannot hold."""
    per_topic: Dict[str, Dict[str, float]] = {}
    for subtopic in subtopics:
        topic_qrels = reference.qrels[subtopic]
        levels = [topic_qrels.get(doc, 0) for doc in data.ranking(subtopic)]
        try:
            graded = GradedRanking(levels, list(topic_qrels.values()), reference.gains)
        except NoRelevantDocuments:
            per_topic[subtopic] = {key: 0.0 for key in MEASURES.values()}
            continue
        per_topic[subtopic] = {MEASURES[name]: value for name, value in compute_all(list(MEASURES),
                                                                                    graded).items()}
    return per_topic


def _means(per_topic: Dict[str, Dict[str, float]], subtopics: List[str], suffix: str) -> Dict[str, float]:
    n = len(subtopics)
    return {key + suffix: (sum(per_topic[s][key] for s in subtopics) / n if n else 0.0)
            for key in MEASURES.values()}


def _topic_table(name: str, per_topic: Dict[str, Dict[str, float]]) -> Dict[str, Any]:
    """Per-topic means: the average of each topic's scored subtopics (the spec's detailed results)."""
    by_topic: Dict[str, List[str]] = {}
    for subtopic in per_topic:
        by_topic.setdefault(subtopic[:-1], []).append(subtopic)
    rows = []
    for topic in sorted(by_topic, key=int):
        members = by_topic[topic]
        rows.append([topic, len(members)] + ["%.4f" % (sum(per_topic[s][k] for s in members) / len(members))
                                             for k in MEASURES.values()])
    return {"caption": "Per topic (mean of its subtopics): %s" % name,
            "header": ["topic", "subtopics"] + list(MEASURES.values()), "rows": rows, "shown_from": PER_TOPIC}


def _subtopic_order(subtopic: str):
    return (len(subtopic), subtopic[:-1], "praf".index(subtopic[-1]))   # numeric order without int()


def _id_list(ids: List[str], limit: int = 10) -> str:
    shown = sorted(ids, key=_subtopic_order)[:limit]
    return ", ".join(shown) + (" ..." if len(ids) > limit else "")


TASK = TemporaliaTir()
