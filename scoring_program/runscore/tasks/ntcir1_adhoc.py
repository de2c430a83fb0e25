"""Task ntcir1-adhoc: NTCIR-1 ad hoc retrieval, NACSIS result format, trec_eval measures at two levels.

Seed: shared/seeds/004_c537320b854ab482.txt; spec: shared/specs/ntcir1-adhoc.md. Every rule of the seed is a
check below (TAB-separated 6 fields, sorted by Topic-ID, one Run-ID, numeric similarity, rank ignored), plus
the Proposed checks of the spec (duplicates, padding of topic ids, more than max_docs documents).
"""
import math
import os
import re
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

import numpy as np

from ..ranking import fastpath
from ..ranking.columnar_qrels import max_grade
from ..errors import ConfigError, Diagnostics
from ..measures.trec_measure import INTERP_RULES, TrecOptions
from ..ranking.qrels import outside_scale, read_qrels
from ..ranking.columnar_run import ColumnarRun, columns_from_records
from ..ranking.rankeval import TopicRun, evaluate_rankings, ranked_docnos, summarise_table, summarise_topics
from ..ranking.run_batch import RunBatch, usable_qrels
from ..textfile import TAB_OR_SPACES, numbered_lines, read_text
from ..numeric import MAX_DIGITS, clip, int_or_none, is_int, numeric_sort_key, shorten
from ..validate import record_schema
from .assessing import AssessmentForm, LabelScale
from .pooling import JudgedPool, Pooling, as_dicts, drop_items, write_lines
from .base import (DUPLICATES_SAYS, INTERP_SAYS, MAX_DOCS_SAYS, PRECISION_SAYS, TIE_ORDER_SAYS, Column, Option,
                   ParsedRun, RankedItem, ReferenceSize, RunScores, Task, first_line, read_task_yaml, reference_file, report_duplicate)

LEVELS = ("rel1", "rel2")
# A graded qrels file holds letters (or integers); rigid (rel1) = A and above, relaxed (rel2) = B and above.
GRADE_LETTERS = {"S": 3, "A": 2, "B": 1, "C": 0}
GRADED_LEVEL = {"rel1": 2, "rel2": 1}
# The grades each kind of qrels file may hold (lowest, highest): a graded file S/A/B/C or 3..0, a file of one level
# (rel1, rel2) 0 or 1. Anything else is refused at its line: a collection's own 1-4 qrels (1 best) read as these
# grades would invert the levels and still give a plausible MAP.
GRADED_SCALE = (0, 3)
BINARY_SCALE = (0, 1)

MEASURES = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "11pt_avg", "P")
# The fields of a line, in file order, as the record schema (schemas/ntcir1-adhoc.record.json) names them.
FIELDS = ("topic", "dummy", "docno", "rank", "similarity", "run_id")
PER_TOPIC_SHOWN = ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "P_10", "P_20")
# Lines of the runs measured as one batch (ranking/run_batch.py); a longer run is a batch of its own.
BATCH_LINES = 200000


def normalise_topic(topic: str) -> str:
    """Numeric topic ids are zero-padded to 4 digits (`31` -> `0031`), as NTCIR numbers its topics."""
    return topic.zfill(4) if is_int(topic) and len(topic) < 4 else topic


# The assessors' scale (specs/ntcir1-adhoc.md 1, campaign.md 2.1): the graded qrels file and the reference writer
# use these letters, and the loader reads them as 3/2/1/0 too (GRADE_LETTERS), so a sheet may write numbers.
ASSESSMENT = AssessmentForm(
    scales={"": LabelScale(
        ("C", "B", "A", "S"), ("c", "b", "a", "s"),
        ("non-relevant", "partially relevant", "relevant", "highly relevant"),
        ("judged, not relevant to the topic: not relevant at either level",
         "partially relevant: relevant at the relaxed level (rel2) only",
         "relevant: relevant at the rigid (rel1) and the relaxed (rel2) level",
         "highly relevant (a grade of NTCIR-2 on; NTCIR-1 judged A, B, C): relevant at both levels, as A"),
        numbered=True)},
    encoding="euc_jp",                 # "Japanese data is in EUC code" (specs/collections.md 1.1)
    normalise_topic=normalise_topic)


class Reference:
    """Qrels per level (topic -> docno -> grade), the grade threshold per level, and the official topics."""

    def __init__(self, qrels: Dict[str, Dict], thresholds: Dict[str, int], topics: List[str]):
        self.qrels = qrels
        self.thresholds = thresholds
        self.topics = topics


# The labels each level counts as relevant when judgements become qrels (S, A, B, C: the assessment scale above).
RELEVANT_LABELS = {"rel1": ("S", "A"), "rel2": ("S", "A", "B")}


class NtcirPooling(Pooling):
    """A depth-k pool of the rankings; the labels become `rel1` (S, A relevant) and `rel2` (S, A, B relevant),
    `topic<TAB>grade<TAB>doc<TAB>0|1` as the NII files write them (specs/ntcir1-adhoc.md 1)."""

    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        for level, relevant in RELEVANT_LABELS.items():
            write_lines(os.path.join(folder, level), ["%s\t%s\t%s\t%d" % (topic, label, item, label in relevant)
                                                      for (topic, item), label in judged.labels.items()])
        return {"qrels": {"rel1": "rel1", "rel2": "rel2"}, "topics": judged.topics}

    def judged(self, reference: "Reference") -> Dict[str, Dict[str, int]]:
        """The relaxed level's qrels with the rigid level's items added: an item judged at either level is judged."""
        out: Dict[str, Dict[str, int]] = {}
        for level in LEVELS:
            for topic, docs in as_dicts(reference.qrels[level]).items():
                row = out.setdefault(topic, {})
                for doc, grade in docs.items():
                    row[doc] = max(row.get(doc, grade), grade)
        return out

    def relevant(self, reference: "Reference") -> Dict[str, Set[str]]:
        """Relevant at the relaxed level (rel2)."""
        threshold = reference.thresholds["rel2"]
        return {topic: {doc for doc, grade in docs.items() if grade >= threshold}
                for topic, docs in as_dicts(reference.qrels["rel2"]).items()}

    def without(self, reference: "Reference", removed) -> "Reference":
        if reference.qrels["rel1"] is reference.qrels["rel2"]:
            shared = drop_items(reference.qrels["rel1"], removed)
            qrels = {"rel1": shared, "rel2": shared}
        else:
            qrels = {level: drop_items(reference.qrels[level], removed) for level in LEVELS}
        return Reference(qrels, dict(reference.thresholds), list(reference.topics))


class NacsisRun:
    """topics: TopicRun per topic, or a columnar.ColumnarRun for a big run read by the fast path."""

    def __init__(self, run_id: str, topics: Dict[str, TopicRun]):
        self.run_id = run_id
        self.topics = topics


class Ntcir1Adhoc(Task):
    id = "ntcir1-adhoc"
    title = "NTCIR-1 ad hoc retrieval"
    tag = "NTCIR-1"
    description = "NTCIR-1 ad hoc retrieval (NACSIS result format), trec_eval measures for rel1 and rel2"
    run_file_help = ("a file named by its Run-ID (e.g. ntc1), TAB-separated lines "
                     "'Topic-ID Dummy Document-ID Rank Similarity Run-ID'")
    options = (
        Option("tie_order", "desc", "Order of documents with equal Similarity: Document-ID descending (trec_eval) "
               "or ascending. The seed does not say which.", ("desc", "asc"), says=TIE_ORDER_SAYS),
        Option("similarity_precision", "double", "Precision at which Similarity values are compared when ranking: "
               "double (the values as written, about 16 significant digits) or single (a C float, as trec_eval "
               "9.0.8 and the 1999 trec_eval store scores: values within about 1 part in 10^7 tie and are ordered "
               "by Document-ID).", ("double", "single"), says=PRECISION_SAYS),
        Option("interp_cutoff", "ceil", "Recall-point rule for interpolated precision: ceil (trec_eval 7.2, "
               "the 1999 tool), v9 or v10 (trec_eval 9.x / 10.0).", INTERP_RULES, says=INTERP_SAYS),
        Option("max_docs", 1000, "Documents kept per topic, after sorting (trec_eval -M).", minimum=1,
               maximum=10 ** 9, says=MAX_DOCS_SAYS),
        Option("exclude_topics_without_relevant", False, "Leave out of a level's means the topics that have no "
               "relevant document at that level (trec_eval counts them with every measure 0).",
               says={False: "topics without relevant documents count 0",
                     True: "topics without relevant documents left out of the means"}),
        Option("duplicates", "error", "A repeated (Topic-ID, Document-ID): an error, or keep the first line "
               "and warn.", ("error", "keep_first"), says=DUPLICATES_SAYS),
    )
    rules_presets = (("NTCIR-1's (1999)", {"interp_cutoff": "ceil", "similarity_precision": "double",
                                           "tie_order": "desc", "max_docs": 1000}),
                     ("trec_eval 9.0.8", {"interp_cutoff": "v9", "similarity_precision": "single",
                                          "tie_order": "desc", "max_docs": 1000}))
    assessment = ASSESSMENT
    pooling = NtcirPooling()
    measure_variants = ("rel1", "rel2")     # rigid, then relaxed relevance: `map` means map_rel1
    # The seed sets no cap on a group's runs; a hidden phase scores at most three of a submission, as the seed's
    # own example of one group's submission has three result files (ntc1, ntc2, ntc3) and NTCIR's Temporalia
    # capped runs at three per group (docs/codabench.md). An organiser sets another: task.yaml runs_per_submission.
    hidden_phase_runs = 3
    hidden_reference = ReferenceSize(None, 3, 53, "judged documents of the 53 formal topics (grades A, B, C)",
                                     "specs/ntcir1-adhoc.md section 1: topics 0031-0083; the number of judged "
                                     "documents is not in the sources")
    per_topic_measures = tuple("%s_%s" % (m, level) for level in LEVELS for m in PER_TOPIC_SHOWN)
    columns = (
        Column("map_rel1", "MAP (rigid)"),
        Column("map_rel2", "MAP (relaxed)"),
        Column("rprec_rel1", "R-prec (rigid)", "Rprec_rel1"),
        Column("rprec_rel2", "R-prec (relaxed)", "Rprec_rel2"),
        Column("p_10_rel1", "P@10 (rigid)", "P_10_rel1"),
        Column("p_10_rel2", "P@10 (relaxed)", "P_10_rel2"),
        Column("11pt_avg_rel1", "11-pt average (rigid)"),
        Column("11pt_avg_rel2", "11-pt average (relaxed)"),
    )

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        # not a tag line: a datasearch-qa <SYSDESC> may hold TABs too
        return line is not None and not line.lstrip().startswith("<") and len(line.split("\t")) == 6

    def answered_topics(self, run: ParsedRun) -> Optional[List[str]]:
        topics = run.data.topics
        return list(topics.topics) if isinstance(topics, ColumnarRun) else list(topics)

    def official_topics(self, listed) -> set:
        return {normalise_topic(str(t)) for t in listed}

    # ------------------------------------------------------------------------------ reference ---
    def public_reference(self, reference: Reference) -> Reference:
        """The official topics only: the topics are given to participants, the judgements are not."""
        return Reference({level: {} for level in LEVELS}, dict(reference.thresholds), list(reference.topics))

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> Reference:
        if os.path.isfile(ref_path):
            return self._graded_reference(ref_path, None)
        config = read_task_yaml(ref_path)
        where = os.path.join(ref_path, "task.yaml")
        topics = config.get("topics")
        if topics is not None and not (isinstance(topics, list) and topics):
            raise ConfigError("topics must be a non-empty list of topic ids", where)
        if "qrels" in config:
            files = config["qrels"]
            if not isinstance(files, dict) or set(files) != set(LEVELS):
                raise ConfigError("qrels must map rel1 and rel2 to a qrels file each", where)
            qrels = {level: _read_qrels(reference_file(ref_path, files[level], level), scale=BINARY_SCALE)
                     for level in LEVELS}
            all_topics = sorted(set(qrels["rel1"]) | set(qrels["rel2"]))
            return Reference(qrels, {"rel1": 1, "rel2": 1}, self._topic_list(topics, all_topics))
        if "graded_qrels" in config:
            return self._graded_reference(reference_file(ref_path, config["graded_qrels"], "graded qrels"),
                                          topics)
        raise ConfigError("task.yaml must name either qrels (rel1, rel2) or graded_qrels", where)

    def _graded_reference(self, path: str, topics: Optional[List]) -> Reference:
        qrels = _read_qrels(path, GRADE_LETTERS, GRADED_SCALE)
        return Reference({level: qrels for level in LEVELS}, dict(GRADED_LEVEL),
                         self._topic_list(topics, sorted(qrels)))

    @staticmethod
    def _topic_list(topics: Optional[List], default: List[str]) -> List[str]:
        return [normalise_topic(str(t)) for t in topics] if topics else default

    # ------------------------------------------------------------------------------ parsing ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[Reference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        columns = fastpath.ntcir1_parse(path, display, diags, reference, options)   # a big clean run
        if columns is not None:
            return [ParsedRun(columns.run_id, display, NacsisRun(columns.run_id, columns))]
        text = read_text(path, display)
        clean = None if fastpath.switched_off() else _clean_topics(text)
        if clean is not None:                  # a small run with nothing to report: read in bulk, not line by line
            run_id, topics = clean
            return self._finish(run_id, {run_id: 1}, topics, display, diags, reference, options)
        if self.wrong_layout(text, diags, TAB_OR_SPACES, 6):
            return []
        schema = record_schema("ntcir1-adhoc.record")
        # The schema's own patterns tried on the six fields first (the record and jsonschema only for a line they
        # refuse, to word the message), and what depends on the Topic-ID alone worked out once a topic.
        searches = schema.searches(FIELDS)
        search_topic, search_dummy, search_docno, search_rank, search_sim, search_run = searches or [None] * 6
        topics: Dict[str, TopicRun] = {}
        seen: Dict[tuple, int] = {}
        run_ids: Dict[str, int] = {}
        dummies = set()
        once = diags.warning_once   # a warning repeated on many lines is reported once, with a count
        previous_topic = None
        last_rank: Dict[str, tuple] = {}   # topic -> (Rank, Similarity) of its previous line
        padded: Dict[str, str] = {}        # Topic-ID as written -> as read
        order_keys: Dict[str, tuple] = {}  # Topic-ID as read -> its key in the order of topics

        for line_no, line in numbered_lines(text):
            if not line.strip():
                once("blank", line_no, "blank line ignored")
                continue
            fields = line.split("\t")
            no_tab = len(fields) == 1
            if no_tab:
                fields = line.split()
            if len(fields) < 6:
                # One message for the line: a warning that it was split on spaces would contradict this error.
                diags.error(line_no, "expected 6 TAB-separated fields 'Topic-ID Dummy Document-ID Rank "
                            "Similarity Run-ID', found %s" % ("no TAB (%d field%s split on spaces)"
                                                              % (len(fields), "" if len(fields) == 1 else "s")
                                                              if no_tab else len(fields)))
                continue
            values = [f.strip() for f in fields[:6]]
            topic_raw, dummy, docno, rank, sim_text, run_id = values
            if searches is None or not (search_topic(topic_raw) and search_dummy(dummy) and search_docno(docno)
                                        and search_rank(rank) and search_sim(sim_text) and search_run(run_id)):
                problems = schema.errors(dict(zip(FIELDS, values)))
                if problems:
                    diags.error(line_no, "; ".join(problems))
                    continue
            # Warnings about how a line was read come only for lines that were read.
            if no_tab:
                once("notab", line_no, "line has no TAB; fields split on spaces (the format asks for TABs)")
            if len(fields) > 6:
                once("extra", line_no, "more than 6 fields; fields after Run-ID are ignored")
            sim = float(sim_text)
            if not math.isfinite(sim):
                diags.error(line_no, "Similarity-value %r is not a finite number" % sim_text)
                continue
            topic = padded.get(topic_raw)
            if topic is None:
                topic = padded[topic_raw] = normalise_topic(topic_raw)
            if topic != topic_raw:
                once("padding", line_no, "Topic-ID %r is not zero-padded to 4 digits; read as %r"
                     % (topic_raw, topic))
            if previous_topic is not None and topic != previous_topic:
                if _order_key(order_keys, topic) < _order_key(order_keys, previous_topic):
                    once("order", line_no, "lines are not sorted by Topic-ID: %s comes after %s"
                         % (clip(topic), clip(previous_topic)))
            previous_topic = topic
            # an unsigned ASCII Rank of at most MAX_DIGITS digits (the usual one) is read without the regex
            rank_value = int(rank) if len(rank) <= MAX_DIGITS and rank.isascii() and rank.isdigit() else \
                int_or_none(rank, signed=True)
            if rank_value is None:
                once("rank", line_no, "Rank %s is not an integer of at most %d digits (Rank is ignored)"
                     % (shorten(rank), MAX_DIGITS))
            run_ids.setdefault(run_id, line_no)
            dummies.add(dummy)
            key = (topic, docno)
            if key in seen:
                report_duplicate(diags, line_no, "duplicate Document-ID %s in topic %s (first seen at line %d)"
                                 % (docno, topic, seen[key]), options)
                continue
            seen[key] = line_no
            topic_run = topics.get(topic)
            if topic_run is None:
                topic_run = topics[topic] = TopicRun()
            topic_run.docnos.append(docno)
            topic_run.scores.append(sim)
            topic_run.lines.append(line_no)
            # Rank is ignored, but a Rank that grows while Similarity grows too usually means a sign error.
            before = last_rank.get(topic)
            if before and rank_value is not None and before[0] is not None:
                if rank_value > before[0] and sim > before[1]:
                    once("rankorder", line_no, "Rank and Similarity disagree: Rank grows from %d to %d while "
                         "Similarity grows too (documents are ranked by Similarity; Rank is ignored)"
                         % (before[0], rank_value))
            last_rank[topic] = (rank_value, sim)

        if not seen and not diags.has_errors:
            diags.error(0, "the file holds no result lines")
        if len(run_ids) > 1:
            (first_id, _), (other_id, other_line) = sorted(run_ids.items(), key=lambda kv: kv[1])[:2]
            diags.error(other_line, "Run-ID %r differs from %r of the first line; the Run-ID must be the same "
                        "on every line (%d different Run-IDs in the file)" % (other_id, first_id, len(run_ids)))
        if len(dummies) > 1:
            once("dummy", 0, "the Dummy field is not constant (%d different values); it is ignored"
                 % len(dummies))
        if not topics:
            return [ParsedRun(next(iter(run_ids), os.path.basename(display)), display,
                              NacsisRun(next(iter(run_ids), os.path.basename(display)), topics))]
        return self._finish(next(iter(run_ids)), run_ids, topics, display, diags, reference, options)

    def _finish(self, run_id: str, run_ids: Dict[str, int], topics: Dict[str, TopicRun], display: str,
                diags: Diagnostics, reference: Optional[Reference], options: Dict[str, Any]) -> List[ParsedRun]:
        """What a read run gets whichever way it was read: the document cap, the official topics, the file name."""
        max_docs = options["max_docs"]
        for topic, topic_run in topics.items():
            if len(topic_run.docnos) > max_docs:
                diags.warning(topic_run.lines[0], "topic %s has %d documents; only the first %d after sorting "
                              "by Similarity are scored" % (topic, len(topic_run.docnos), max_docs))
        if reference is not None:
            self._check_against_reference(topics, reference, diags)
        basename = os.path.basename(display)
        if run_id and basename.split(".")[0] != run_id and len(run_ids) == 1:
            diags.warning(0, "the file should be named by its Run-ID %r" % run_id)
        return [ParsedRun(run_id, display, NacsisRun(run_id, topics))]

    @staticmethod
    def _check_against_reference(topics: Dict[str, TopicRun], reference: Reference, diags: Diagnostics) -> None:
        official = set(reference.topics)
        unknown = [t for t in topics if t not in official]
        if unknown:
            diags.warning(topics[unknown[0]].lines[0], "%d Topic-ID(s) are not official topics and are ignored: %s"
                          % (len(unknown), ", ".join(clip(u) for u in unknown[:10]) + (" ..." if len(unknown) > 10
                                                                                       else "")))
        if not official & set(topics):
            diags.error(0, "no line answers any official topic (%s)" % _topic_range(reference.topics))

    # ------------------------------------------------------------------------------ rankings (campaign) ---
    def ranked_lists(self, run: ParsedRun, options: Dict[str, Any],
                     depth: Optional[int] = None) -> "OrderedDict[str, List[RankedItem]]":
        """Similarity descending, ties by Document-ID in the tie_order direction, at most max_docs a topic: the
        ranking the measures read (the same sorted columns for a run read as columns)."""
        topics = run.data.topics
        settings = (options["tie_order"], options["max_docs"], _score_dtype(options))
        if isinstance(topics, ColumnarRun):
            found = fastpath.top_items(topics, *settings, depth=depth)
            if found is not None:
                return OrderedDict((topic, [RankedItem(d, None, d) for d in docnos])
                                   for topic, docnos in zip(topics.topics, found))
            topics = fastpath.topic_runs(topics)
        cut = settings[1] if depth is None else min(depth, settings[1])
        return OrderedDict((topic, [RankedItem(d, None, d) for d in ranked_docnos(topic_run, settings[0], cut,
                                                                                  settings[2])])
                           for topic, topic_run in topics.items())

    def ranked_run(self, run: ParsedRun, options: Dict[str, Any]) -> ParsedRun:
        """The ranking as columns (ids as words, about 30 bytes a ranked line instead of a record of Python
        objects), scored by the same kernels; the run itself when its ids cannot be packed as words."""
        topics = run.data.topics
        settings = (options["tie_order"], options["max_docs"], _score_dtype(options))
        if isinstance(topics, ColumnarRun):
            ranked = fastpath.ranked_columns(topics, *settings)
        else:                       # read line by line: its ranking as columns, scores falling by 1 a rank
            topic_ids: List[str] = []
            docnos: List[str] = []
            falling: List[float] = []
            for topic, topic_run in topics.items():
                ranked_ids = ranked_docnos(topic_run, *settings)
                topic_ids.extend([topic] * len(ranked_ids))
                docnos.extend(ranked_ids)
                falling.extend(range(0, -len(ranked_ids), -1))
            # ASCII ids only: a fallback of the kernels (qrels ids the words cannot hold) decodes words as Latin-1
            ranked = columns_from_records(topic_ids, docnos, falling, run.data.run_id) \
                if docnos and "".join(docnos).isascii() else None
            if ranked is not None:
                ranked.score = ranked.score.astype(np.float32)      # as fastpath.ranked_columns keeps them
        if ranked is None:
            return run
        return replace(run, data=NacsisRun(run.data.run_id, ranked))

    # ------------------------------------------------------------------------------ scoring ---
    def score(self, run: ParsedRun, reference: Reference, options: Dict[str, Any]) -> RunScores:
        return self.score_runs([run], reference, options)[0]

    def score_runs(self, runs: List[ParsedRun], reference: Reference, options: Dict[str, Any]) -> List[RunScores]:
        """Runs read line by line are measured a batch at a time (ranking/run_batch.py: the exact path costs its
        set-up once a topic of every run); a big run read as columns, alone; a batch whose document ids the
        columns cannot hold, or every run when the fast path is switched off (RUNSCORE_FAST_PATH=0), on the exact
        path. The numbers are the same on every path."""
        trec_options = TrecOptions(interp_cutoff=options["interp_cutoff"])
        score_dtype = _score_dtype(options)
        settings = (trec_options, options["tie_order"], options["max_docs"])
        levels = [(level,) + _level_topics(reference, level, options) for level in LEVELS]
        out: List[RunScores] = []
        for chunk in _batches(runs):
            columnar = isinstance(chunk[0].data.topics, ColumnarRun)     # a big run read by the fast path
            batch = None if columnar or fastpath.switched_off() else RunBatch([run.data.topics for run in chunk])
            scores = [RunScores({}, {}, []) for _ in chunk]
            for level, topics, note in levels:
                qrels, threshold = reference.qrels[level], reference.thresholds[level]
                if columnar:
                    values = fastpath.evaluate(chunk[0].data.topics, qrels, topics, MEASURES, threshold, *settings,
                                               score_dtype=score_dtype)
                    found = [(values, summarise_topics(values, MEASURES))]
                elif batch is not None and batch.usable and usable_qrels(qrels):
                    names, table = batch.table(qrels, topics, MEASURES, threshold, *settings, score_dtype=score_dtype)
                    found = [((names, rows), summary) for rows, summary in
                             zip(table.tolist(), summarise_table(table, names, MEASURES))]
                else:
                    found = [evaluate_rankings(run.data.topics, qrels, topics, MEASURES, threshold, *settings,
                                               score_dtype=score_dtype) for run in chunk]
                for one, (values, summary) in zip(scores, found):
                    _add_level(one, level, topics, values, summary, note)
            for run, one in zip(chunk, scores):
                one.notes.extend(_absent_topics_note(reference.topics, self.answered_topics(run)))
            out.extend(scores)
        return out


# A line of a run with nothing to report (_clean_topics): six TAB-separated fields, none empty but the Dummy, a Rank
# of at most MAX_DIGITS ASCII digits, a Similarity-value in the record schema's grammar; at the start of a line.
_CLEAN_LINE = re.compile(r"^(\S+)\t([^\t\n]*)\t(\S+)\t([0-9]{1,%d})\t([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
                         r"\t(\S+)\n" % MAX_DIGITS, re.MULTILINE)
_OTHER_WHITESPACE = re.compile(r"[^\S\t\n]")      # anything str.strip() or a line split would treat differently


def _clean_topics(text: str) -> Optional[Tuple[str, Dict[str, TopicRun]]]:
    """(Run-ID, records by topic) of a run the line-by-line reader would read without a word (no blank line, no
    space or CR, six TAB-separated fields a line, padded Topic-IDs in order, one Run-ID, one Dummy, no duplicate,
    no Rank rising with the Similarity-value, every value finite), read by one regular expression and checks over
    whole columns; else None, and that reader reads the file and words what it finds. Why: a submission of many
    small runs spent most of its time in that reader's Python loop (about 8 us a line; here about 1 us)."""
    if not text.endswith("\n") or _OTHER_WHITESPACE.search(text) is not None:
        return None
    rows = _CLEAN_LINE.findall(text)
    if not rows or len(rows) != text.count("\n"):
        return None                     # some line is not clean, or blank
    topic_ids, dummies, docnos, ranks, similarities, run_ids = zip(*rows)
    if len(set(run_ids)) != 1 or len(set(dummies)) != 1 or len(set(zip(topic_ids, docnos))) != len(rows):
        return None                     # two Run-IDs (an error), a varying Dummy (a warning), a duplicate
    scores = list(map(float, similarities))
    if not all(map(math.isfinite, scores)):
        return None
    starts = [0] + [k for k, (a, b) in enumerate(zip(topic_ids, topic_ids[1:]), 1) if a != b]
    segments = [topic_ids[k] for k in starts]
    keys = [numeric_sort_key(topic) for topic in segments]
    if any(normalise_topic(topic) != topic for topic in segments) or any(b <= a for a, b in zip(keys, keys[1:])):
        return None                     # a Topic-ID not padded, out of order or coming back
    rising = [k for k, (a, b) in enumerate(zip(scores, scores[1:]), 1) if b > a]     # few in a run by score
    if rising:
        rank_values = list(map(int, ranks))
        if any(topic_ids[k] == topic_ids[k - 1] and rank_values[k] > rank_values[k - 1] for k in rising):
            return None                 # Rank and Similarity disagree (a warning)
    topics: Dict[str, TopicRun] = {}
    for start, end, topic in zip(starts, starts[1:] + [len(rows)], segments):
        topics[topic] = TopicRun(list(docnos[start:end]), scores[start:end], list(range(start + 1, end + 1)))
    return run_ids[0], topics


def _score_dtype(options: Dict[str, Any]):
    return np.float32 if options["similarity_precision"] == "single" else np.float64


def _batches(runs: List[ParsedRun]) -> List[List[ParsedRun]]:
    """The runs in order, cut into batches: a run read as columns alone, the others together up to BATCH_LINES
    lines (the batch's columns and ranking are a few arrays as long as its lines)."""
    out: List[List[ParsedRun]] = []
    lines = 0
    for run in runs:
        if isinstance(run.data.topics, ColumnarRun):
            out.append([run])
            lines = BATCH_LINES
            continue
        size = sum(len(topic_run.docnos) for topic_run in run.data.topics.values())
        if not out or lines + size > BATCH_LINES:
            out.append([])
            lines = 0
        out[-1].append(run)
        lines += size
    return out


def _absent_topics_note(official: List[str], answered: List[str]) -> List[str]:
    """The note on official topics the run leaves out (each scores 0), worded as r2c2-pr's and temporalia-tir's:
    a participant who dropped a topic by mistake sees it in the scores rather than only in a lower mean."""
    answered_set = set(answered)
    missing = [t for t in official if t not in answered_set]
    if not missing:
        return []
    return ["%d official topic(s) absent from the run score 0: %s"
            % (len(missing), ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else ""))]


def _level_topics(reference: Reference, level: str, options: Dict[str, Any]) -> Tuple[List[str], Optional[str]]:
    """The topics averaged at a level, and the note on its topics without a relevant document (or None)."""
    qrels = reference.qrels[level]
    threshold = reference.thresholds[level]
    no_relevant = [t for t in reference.topics if (max_grade(qrels, t) or 0) < threshold]
    topics = reference.topics
    if not no_relevant:
        return topics, None
    action = "left out of the means" if options["exclude_topics_without_relevant"] else \
        "counted with every measure 0"
    note = "%s: %d topic(s) without relevant documents, %s: %s" % (level, len(no_relevant), action,
                                                                   ", ".join(no_relevant))
    if options["exclude_topics_without_relevant"]:
        topics = [t for t in topics if t not in set(no_relevant)]
    return topics, note


def _add_level(scores: RunScores, level: str, topics: List[str], values, summary: Dict[str, float],
               note: Optional[str]) -> None:
    """One level's values into a run's scores: `map` becomes `map_rel1`, overall and per topic. values: {topic:
    {name: value}}, or (names, one list of values a topic in `topics` order) from a batch."""
    if note is not None:
        scores.notes.append(note)
    measures, per_topic = scores.measures, scores.per_topic
    renamed = _RENAMED[level]
    measures.update(zip(map(renamed.__getitem__, summary), summary.values()))
    measures["num_q_%s" % level] = float(len(topics))
    if isinstance(values, tuple):
        names = [renamed[name] for name in values[0]]
        pairs = zip(topics, (zip(names, row) for row in values[1]))
    else:
        pairs = ((topic, zip(map(renamed.__getitem__, topic_values), topic_values.values()))
                 for topic, topic_values in values.items())
    for topic, named in pairs:
        row = per_topic.get(topic)
        if row is None:
            row = per_topic[topic] = {}
        row.update(named)


class _Renamed(dict):
    """name -> name_level (`map` -> `map_rel1`), each made once (thousands of topics, thousands of runs)."""

    def __init__(self, level: str):
        super().__init__()
        self.level = level

    def __missing__(self, name: str) -> str:
        key = self[name] = "%s_%s" % (name, self.level)
        return key


_RENAMED = {level: _Renamed(level) for level in LEVELS}


def _read_qrels(path: str, grade_map: Optional[Dict[str, int]] = None,
                scale: Optional[Tuple[int, int]] = None) -> Mapping:
    """topic -> docno -> grade with topic ids zero-padded, every grade on `scale`; a big clean file is read as
    columns (fastpath), and read again by the exact reader to name the lines when a grade is off the scale."""
    fast = fastpath.read_reference_qrels(path, grade_map)
    if fast is not None and not (scale is not None and outside_scale(fast, scale)):
        renamed = fast.renamed(normalise_topic)
        if renamed is not None:
            return renamed
    qrels: Dict[str, Dict[str, int]] = {}
    spelled: Dict[str, str] = {}
    for topic, docs in read_qrels(path, grade_map=grade_map, scale=scale).items():
        padded = normalise_topic(topic)
        if padded in qrels:
            raise ConfigError("topics %s and %s are the same topic once zero-padded to 4 digits (%s)"
                              % (spelled[padded], topic, padded), path)
        qrels[padded], spelled[padded] = docs, topic
    return qrels


def _order_key(known: Dict[str, tuple], topic: str) -> tuple:
    """numeric_sort_key of a Topic-ID, made once a topic (`known` keeps them)."""
    key = known.get(topic)
    if key is None:
        key = known[topic] = numeric_sort_key(topic)
    return key


def _topic_range(topics: List[str]) -> str:
    return "%s ... %s" % (topics[0], topics[-1]) if len(topics) > 1 else topics[0]


TASK = Ntcir1Adhoc()
