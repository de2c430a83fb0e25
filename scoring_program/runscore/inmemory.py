"""Qrels and runs held in memory (dicts, pandas DataFrames) evaluated with the whole-run kernels.

Why a module of its own: people who score from Python (runscore.api.trec_eval, runscore.pytrec_eval) hold
`{qid: {docno: grade}}` and `{qid: {docno: score}}` dicts, not files. Writing them out and reading them back
would cost more than the evaluation, so this module joins them by dict lookups, ranks them with one sort per
topic, and hands the grade arrays in rank order to the whole-run kernels (measures.vectorised), whose numbers are
the exact path's, bit for bit (docs/performance.md). Document ids are never copied into words, so any string
works as an id.

Checks (strict where pytrec_eval is lenient or crashes): topic and document ids must be strings, grades
integers within +-qrels.MAX_GRADE, scores numbers (infinite and NaN ones ranked as trec_eval ranks them); a
DataFrame may not list a document twice for a topic.
Bad qrels raise ConfigError (the organiser's side), a bad run RunError. pandas is never imported here: a
DataFrame is recognised by its `columns`.
"""
import operator
from itertools import chain
from numbers import Integral
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .errors import ConfigError, RunError
from .ranking.label import NOT_IN_POOL, UNJUDGED
from .measures.c_numbers import as_scores
from .measures.trec import TrecOptions
from .ranking.measure_columns import columnar_values
from .ranking.rank_columns import tie_groups
from .ranking.qrels import MAX_GRADE

def _run_error(message: str) -> RunError:
    return RunError(message, "run")


def _qrels_error(message: str) -> ConfigError:
    return ConfigError(message, "qrels")


# Column names of a DataFrame, in the order they are tried: ir_datasets / ir_measures, then PyTerrier.
QRELS_COLUMNS = (("query_id", "doc_id", "relevance"), ("qid", "docno", "label"))
RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))


def is_dataframe(obj: Any) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "itertuples") and not isinstance(obj, Mapping)


def _frame_columns(frame: Any, choices: Sequence[Tuple[str, str, str]], what: str, error) -> Tuple[list, list, list]:
    names = [str(c) for c in frame.columns]
    for choice in choices:
        if all(c in names for c in choice):
            return tuple(frame[c].tolist() for c in choice)
    raise error("a %s DataFrame needs the columns %s; it has %s"
                % (what, " or ".join("(%s)" % ", ".join(c) for c in choices), ", ".join(names) or "none"))


def qrels_dict(qrels: Any) -> Dict[str, Dict[str, int]]:
    """`{qid: {docno: grade}}` from a dict of dicts or a DataFrame, checked (ConfigError); topics without any
    judgement are left out (a qrels file cannot hold them)."""
    if is_dataframe(qrels):
        topics, docs, grades = _frame_columns(qrels, QRELS_COLUMNS, "qrels", ConfigError)
        out: Dict[str, Dict[str, int]] = {}
        for topic, doc, grade in zip(topics, docs, grades):
            judged = out.setdefault(str(topic), {})
            doc = str(doc)
            if doc in judged:
                raise _qrels_error("duplicate judgement of document %s for topic %s" % (doc, topic))
            judged[doc] = grade
        qrels = out
    if not isinstance(qrels, Mapping):
        raise ConfigError("qrels must be a dict {qid: {docno: grade}}, a pandas DataFrame or a file path, not %s"
                          % type(qrels).__name__)
    for topic, judged in qrels.items():
        if not isinstance(topic, str):
            raise _qrels_error("topic ids must be strings, got %r" % (topic,))
        if type(judged) is not dict and not isinstance(judged, Mapping):    # (an ABC's isinstance costs 1 us)
            raise _qrels_error("topic %s must map document ids to grades, not %s" % (topic, type(judged).__name__))
    # The grades checked all at once (a Python test per judgement would cost more than the evaluation): their
    # sum is an integer only if they are (a quarter of the cost of a set of their types, which is looked at only
    # when it is not); their range on the arrays MemoryQrels keeps anyway.
    try:
        integers = isinstance(sum(chain.from_iterable(judged.values() for judged in qrels.values())),
                              (int, np.integer))
    except (TypeError, ValueError):
        integers = False
    if not integers:
        types = set(map(type, chain.from_iterable(judged.values() for judged in qrels.values())))
        if not all(issubclass(t, (int, np.integer)) for t in types):
            _bad_grade(qrels)
    return {topic: judged for topic, judged in qrels.items() if judged}


def _bad_grade(qrels: Mapping[str, Mapping[str, Any]]) -> None:
    for topic, judged in qrels.items():
        for doc, grade in judged.items():
            if not isinstance(grade, Integral) or not -MAX_GRADE <= grade <= MAX_GRADE:
                raise _qrels_error("topic %s document %s: the grade must be an integer within +-%d, got %r"
                                  % (topic, doc, MAX_GRADE, grade))


def run_dict(run: Any) -> Mapping[str, Mapping[str, float]]:
    """`{qid: {docno: score}}` from a dict of dicts or a DataFrame (a repeated document is an error, as in a run
    file); the values are checked when the run is turned into columns."""
    if is_dataframe(run):
        topics, docs, scores = _frame_columns(run, RUN_COLUMNS, "run", RunError)
        out: Dict[str, Dict[str, float]] = {}
        for topic, doc, score in zip(topics, docs, scores):
            ranked = out.setdefault(str(topic), {})
            doc = str(doc)
            if doc in ranked:
                raise _run_error("duplicate document %s for topic %s" % (doc, topic))
            ranked[doc] = score
        return out
    if not isinstance(run, Mapping):
        raise RunError("the run must be a dict {qid: {docno: score}}, a pandas DataFrame or a file path, not %s"
                       % type(run).__name__)
    for topic, ranked in run.items():
        if not isinstance(topic, str):
            raise _run_error("topic ids must be strings, got %r" % (topic,))
        if type(ranked) is not dict and not isinstance(ranked, Mapping):    # (an ABC's isinstance costs 1 us)
            raise _run_error("topic %s must map document ids to scores, not %s" % (topic, type(ranked).__name__))
    return run


_NUMBER_TYPES = (int, float, np.integer, np.floating)


def check_ids(run: Mapping[str, Mapping[str, float]], docnos: Optional[List[str]] = None) -> None:
    """RunError unless every document id of `run` (listed in `docnos` when the caller has them) is a string."""
    try:
        "".join(docnos if docnos is not None else chain.from_iterable(run.values()))   # TypeError: not a str
    except TypeError:
        topic, doc = next((t, d) for t, r in run.items() for d in r if not isinstance(d, str))
        raise _run_error("topic %s: document ids must be strings, got %r" % (topic, doc))


def check_run(run: Mapping[str, Mapping[str, float]], ids: bool = True) -> None:
    """RunError unless every document id is a string and every score a number (the types of all the
    values are looked at once: a Python test per line would cost more than the evaluation). ids=False leaves
    the ids of the topics it evaluates to evaluate(), which checks them on the list of ids it makes anyway."""
    if ids:
        check_ids(run)
    # Their sum first (a quarter of the cost of a set of their types): it fails for a string, None or any
    # other object that is not a number; only then, or for a sum that is not a plain number, the types.
    try:
        if isinstance(sum(chain.from_iterable(r.values() for r in run.values())), _NUMBER_TYPES):
            return
    except (TypeError, OverflowError, ValueError):
        pass
    score_types = set(map(type, chain.from_iterable(r.values() for r in run.values())))
    if not all(issubclass(t, _NUMBER_TYPES) for t in score_types):
        topic, doc, bad = next((t, d, v) for t, r in run.items() for d, v in r.items()
                               if not isinstance(v, _NUMBER_TYPES))
        raise _run_error("topic %s document %s: the score must be a number, got %r" % (topic, doc, bad))


class MemoryQrels:
    """Checked qrels, and each topic's grades as an array (made once: an evaluator reuses them for every run)."""

    def __init__(self, qrels: Dict[str, Dict[str, int]]):
        """`qrels` as qrels_dict() returns them."""
        self.qrels = qrels
        sizes = [len(judged) for judged in qrels.values()]
        try:
            every = np.fromiter(chain.from_iterable(judged.values() for judged in qrels.values()), dtype=np.int64,
                                count=sum(sizes))
        except (OverflowError, TypeError, ValueError):
            _bad_grade(qrels)
            raise
        if every.shape[0] and (int(every.min()) < -MAX_GRADE or int(every.max()) > MAX_GRADE):
            _bad_grade(qrels)
        bounds = [0] + np.cumsum(sizes).tolist()
        self._judged = {topic: every[a:b] for topic, a, b in zip(qrels, bounds, bounds[1:])}   # (np.split: 10 x)
        # What evaluate() looks each document up in: the grade itself, UNJUDGED for a negative one (so that the
        # lookups give the labels with no pass over them); the caller's dicts when no grade is negative.
        negative = {topic for topic, grades in self._judged.items() if grades.shape[0] and int(grades.min()) < 0} \
            if every.shape[0] and int(every.min()) < 0 else set()
        self.labels = {topic: ({doc: (grade if grade >= 0 else UNJUDGED) for doc, grade in judged.items()}
                               if topic in negative else judged) for topic, judged in qrels.items()}
        self._empty = np.zeros(0, dtype=np.int64)
        # the kernels' qrels side of the last list of topics evaluated (measures.vectorised.QrelsSide): a
        # training loop evaluates the same topics again and again
        self.sides: Dict[tuple, Any] = {}

    def judged_of(self, topic: str) -> np.ndarray:
        return self._judged.get(topic, self._empty)


def _is_float(value: Any) -> bool:
    try:
        float(value)
        return isinstance(value, _NUMBER_TYPES)
    except (OverflowError, TypeError, ValueError):
        return False


def evaluate(run: Mapping[str, Mapping[str, float]], qrels: MemoryQrels, topics: Sequence[str],
             measures: Sequence[str], level: int = 1, options: TrecOptions = TrecOptions(),
             max_docs: Optional[int] = None, params: Optional[Dict[str, Sequence]] = None, score_dtype=np.float64,
             judged_only: bool = False, non_finite: Optional[Dict[str, Any]] = None) -> Dict[str, Dict[str, Any]]:
    """Per-topic values keyed by trec_eval output names for `topics` (a topic absent from the run is an empty
    ranking), as rankeval.evaluate_topic_run gives them topic by topic: trec_eval's ranking rule (score
    descending as `score_dtype`, then docno descending), -M truncation, -J (judged_only) after truncation.
    `run` must have passed check_run."""
    names, rows = evaluate_rows(run, qrels, topics, measures, level, options, max_docs, params, score_dtype,
                                judged_only, non_finite)
    return {topic: dict(zip(names, row)) for topic, row in zip(topics, rows)}


def evaluate_rows(run: Mapping[str, Mapping[str, float]], qrels: MemoryQrels, topics: Sequence[str],
                  measures: Sequence[str], level: int = 1, options: TrecOptions = TrecOptions(),
                  max_docs: Optional[int] = None, params: Optional[Dict[str, Sequence]] = None,
                  score_dtype=np.float64, judged_only: bool = False,
                  non_finite: Optional[Dict[str, Any]] = None) -> Tuple[List[str], List[list]]:
    """evaluate()'s values as (value names in output order, one list of values a topic in `topics` order)."""
    names, table, rows = evaluate_values(run, qrels, topics, measures, level, options, max_docs, params, score_dtype,
                                         judged_only, non_finite)
    if table is not None:
        return names, (table.tolist() if names else [[] for _ in topics])
    return names, rows


def evaluate_values(run: Mapping[str, Mapping[str, float]], qrels: MemoryQrels, topics: Sequence[str],
                    measures: Sequence[str], level: int = 1, options: TrecOptions = TrecOptions(),
                    max_docs: Optional[int] = None, params: Optional[Dict[str, Sequence]] = None,
                    score_dtype=np.float64, judged_only: bool = False, non_finite: Optional[Dict[str, Any]] = None
                    ) -> Tuple[List[str], Optional[np.ndarray], Optional[List[list]]]:
    """(value names in output order, the values as one array topics x names when every measure has a kernel, else
    None and one list of values a topic): a caller making its own output rows keeps the array as long as it can.

    The join with the qrels is a dict lookup per document (no document id is copied or packed); the ranking is a
    sort by score of the topics not written in rank order, and only documents whose scores tie are sorted by their
    ids. `run` must have passed check_run. Infinite and NaN scores are ranked as trec_eval ranks them (see
    _rank_non_finite); `non_finite`, when given, receives how many there were (the callers warn)."""
    params = params or {}
    counts = np.zeros(len(topics), dtype=np.int64)
    present = []
    for k, topic in enumerate(topics):
        ranked = run.get(topic)
        if ranked:
            counts[k] = len(ranked)
            present.append((topic, ranked))
    total = int(counts.sum())
    # Every topic at once: a per-topic numpy call costs more than its work on the small rankings of most users
    # (100 documents a topic in BEIR, 50 x 100 in a training loop).
    docnos: List[str] = list(chain.from_iterable(ranked for _, ranked in present))
    check_ids(dict(present), docnos)
    # The labels by one dict lookup a document: as float64, where a document the qrels do not list (None) is NaN
    # (cheaper than a default for each lookup; grades are integers within +-MAX_GRADE, exact as floats).
    labels, none = qrels.labels, {}
    looked_up = np.fromiter(chain.from_iterable(map(labels.get(topic, none).get, ranked) for topic, ranked in present),
                            dtype=np.float64, count=total)
    looked_up[np.isnan(looked_up)] = NOT_IN_POOL
    grades = looked_up.astype(np.int32)
    try:
        scores = np.fromiter(chain.from_iterable(ranked.values() for _, ranked in present), dtype=np.float64,
                             count=total)
    except (OverflowError, TypeError, ValueError):
        topic, doc, bad = next((t, d, v) for t, ranked in present for d, v in ranked.items() if not _is_float(v))
        raise _run_error("topic %s document %s: the score must be a number within a double, got %.60r"
                         % (topic, doc, bad))
    ends = np.cumsum(counts)
    ranking = as_scores(scores, score_dtype)        # (a double beyond a C float is inf in trec_eval 9 too)
    if not np.isfinite(ranking).all():
        ranking = _rank_non_finite(ranking, counts, ends, docnos, topics, non_finite)
    order = _break_ties(_by_score(ranking, counts, ends), ranking, ends, docnos)
    starts = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    if max_docs is not None:
        position = np.arange(total) - np.repeat(starts[:-1], counts)
        order = order[position < max_docs]
        counts = np.minimum(counts, max_docs)
    ranked_grades = grades[order]
    if judged_only:
        ranked_grades = ranked_grades[ranked_grades >= 0]
        counts = np.bincount(np.repeat(np.arange(len(topics)), counts)[grades[order] >= 0], minlength=len(topics))
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return columnar_values(None, qrels, topics, measures, level, options, "desc", max_docs, params, score_dtype,
                           ranking=(order, offsets), grades=ranked_grades)


# A topic's ranks stand in for its scores as float32 (trec_eval 9's type) only while they are exact integers.
_MAX_EXACT_RANKS = 2 ** 24


def _rank_non_finite(ranking: np.ndarray, counts: np.ndarray, ends: np.ndarray, docnos: List[str],
                     topics: Sequence[str], found: Optional[Dict[str, Any]]) -> np.ndarray:
    """`ranking` (scores as the version's type) with each topic that holds an infinite or NaN score replaced by
    its ranks counted down, in trec_eval's order: score descending, equal scores (inf and inf, and in 9.0.8 a
    double beyond a C float, which is inf there) by docno descending, NaN below every number. Files reach trec_eval
    with such scores (`inf`, `1e39`, `nan` read by atof) and models produce them, so every door ranks them the
    same way. (NaN has no place in trec_eval's order: its qsort comparator breaks on it; below every number is
    the order `runscore trec_eval` gives, docs/trec_eval.md.) `found` receives the counts and the first topic."""
    ranking = ranking.astype(np.float64 if ranking.dtype == np.float32 else ranking.dtype)     # a copy to write
    bad = np.flatnonzero(~np.isfinite(ranking))
    starts = ends - counts
    for k in np.unique(np.searchsorted(ends, bad, side="right")).tolist():
        start, end = int(starts[k]), int(ends[k])
        if end - start > _MAX_EXACT_RANKS:
            raise _run_error("topic %s: %d documents with an infinite or NaN score among them; at most %d are "
                             "ranked" % (topics[k], end - start, _MAX_EXACT_RANKS))
        scores = ranking[start:end]
        nan = np.isnan(scores).tolist()
        negated = (-scores).tolist()
        by_docno = sorted(range(end - start), key=docnos[start:end].__getitem__, reverse=True)
        order = sorted(by_docno, key=lambda i: (nan[i], 0.0 if nan[i] else negated[i]))
        ranks = np.empty(end - start)
        ranks[order] = np.arange(end - start, 0, -1, dtype=np.float64)
        if found is not None:
            found["NaN"] = found.get("NaN", 0) + int(np.isnan(scores).sum())
            found["infinite"] = found.get("infinite", 0) + int(np.isinf(scores).sum())
            found.setdefault("topic", topics[k])
            found["topics"] = found.get("topics", 0) + 1
        ranking[start:end] = ranks
    return ranking


def _by_score(ranking: np.ndarray, counts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Indices of the pairs by topic, then score descending (ties in any order: _break_ties orders them). A run
    written in rank order, as runs usually are, is not sorted. float32 scores (pytrec_eval's): one stable sort of
    a key packing the topic and the score, cheaper than a lexsort or a sort a topic whatever the shape (a topic
    already in order keeps it). float64: many small topics in one lexsort, a few big ones one by one (a lexsort
    of millions costs more than their sorts)."""
    total = ranking.shape[0]
    order = np.arange(total)
    if total < 2:
        return order
    rising = ranking[1:] > ranking[:-1]
    rising[ends[(ends > 0) & (ends < total)] - 1] = False          # never across two topics
    if not rising.any():
        return order
    if ranking.dtype == np.float32 and counts.shape[0] > 1 and int(counts.min()) == int(counts.max()):
        # Topics of one size (a top-k run, a training loop's batch): each topic's scores sorted as a row of a
        # matrix, half the comparisons of one sort of every pair (ties come out next to each other in any order,
        # which _break_ties sets; -0.0 and 0.0 compare equal, as C compares them)
        size = int(counts[0])
        rows = np.negative(ranking).reshape(-1, size)
        return (np.argsort(rows, axis=1) + (ends - size)[:, None]).reshape(-1)
    code = np.repeat(np.arange(counts.shape[0]), counts)
    if ranking.dtype == np.float32:
        # (ties come out next to each other in any order, which _break_ties sets; quicksort is the cheaper on
        # small runs, the stable sort on big ones, whose topics come in order)
        return np.argsort(_descending_key(ranking, code), kind="stable" if total > 100000 else "quicksort")
    unsorted = np.unique(code[1:][rising])
    starts = ends - counts
    if unsorted.shape[0] <= 64 or total // unsorted.shape[0] >= 256:
        for k in unsorted.tolist():
            start, end = int(starts[k]), int(ends[k])
            order[start:end] = np.argsort(ranking[start:end])[::-1] + start
        return order
    lines = np.flatnonzero(np.isin(code, unsorted))
    order[lines] = lines[np.lexsort((-ranking[lines], code[lines]))]
    return order


def _descending_key(scores: np.ndarray, code: np.ndarray) -> np.ndarray:
    """One int64 per pair that sorts by topic code, then float32 score descending (0.0 and -0.0 equal, as C
    compares them): the code in the high 32 bits, minus the score's bits made to sort as the numbers do."""
    bits = (scores + np.float32(0.0)).view(np.int32)        # + 0.0: -0.0 becomes 0.0
    bits = bits ^ ((bits >> 31) & np.int32(0x7FFFFFFF))     # negative numbers: the magnitude bits reversed
    key = code.astype(np.int64) << 32
    key -= bits
    return key


def _break_ties(order: np.ndarray, scores: np.ndarray, ends: np.ndarray, docnos: List[str]) -> np.ndarray:
    """Within each run of equal scores of one topic in `order`, the documents by id descending (trec_eval's strcmp:
    Python compares strings by code point, which is the byte order of their UTF-8). Scores compare as C compares
    them (0.0 == -0.0)."""
    if order.shape[0] < 2:
        return order
    ranked = scores[order]
    tied = ranked[1:] == ranked[:-1]
    tied[ends[(ends > 0) & (ends < order.shape[0])] - 1] = False        # never across two topics
    if not tied.any():
        return order
    slots, starts_group, group, size = tie_groups(tied)
    order = order.copy()
    # Most ties are two documents: put each pair in order with one comparison of their ids.
    first = slots[starts_group & (size == 2)]
    if first.shape[0]:
        upper = order[first].tolist()
        lower = order[first + 1].tolist()
        swap = np.fromiter(map(operator.lt, _pick(docnos, upper), _pick(docnos, lower)), dtype=bool,
                           count=len(upper))
        swapped = first[swap]
        order[swapped], order[swapped + 1] = order[swapped + 1], order[swapped].copy()
    slots, group = slots[size > 2], group[size > 2]
    if not slots.shape[0]:
        return order
    lines = order[slots]
    ids = _pick(docnos, lines.tolist())
    try:
        # numpy compares str arrays by code point, as Python does; an id ending in NUL characters (which numpy
        # drops) is left to Python's sort
        if "\0" in "".join(ids):
            raise TypeError
        ascending = np.argsort(np.array(ids), kind="stable")
    except (TypeError, ValueError, MemoryError):
        ascending = np.asarray(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[ascending] = np.arange(len(ids))
    regrouped = np.lexsort((-rank, group))
    order[slots] = lines[regrouped]
    return order


def _pick(items: List[str], indices: List[int]) -> List[str]:
    """[items[i] for i in indices], by operator.itemgetter's C loop (no bytecode an item)."""
    if len(indices) < 2:
        return [items[i] for i in indices]
    return list(operator.itemgetter(*indices)(items))
