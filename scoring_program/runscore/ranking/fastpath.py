"""When and how a big run takes the columnar fast path (ranking/columnar.py, measures/vectorised.py).

Why a module of its own: the front ends (`runscore trec_eval`, the ntcir1-adhoc task) keep their exact
line-by-line code, which words every diagnostic; this module only decides whether a file is big enough to be
worth the fast path, reads it, and reproduces what the exact path would print for a clean file (the same
warnings, the same values). A file the fast reader declines goes to the exact path unchanged.

`RUNSCORE_FAST_PATH=0` turns the fast path off, `=1` uses it for every file (tests, benchmarks); by default
it serves files of FAST_PATH_MIN_BYTES or more. See docs/performance.md.
"""
import dataclasses
import os
from typing import Dict, List, NamedTuple, Optional, Sequence

import numpy as np

from .columnar import LONG_ID_BYTES, NACSIS, QRELS, TREC, read_columns
from .columnar_run import ColumnarRun
from .columnar_words import long_id_rows, pack_bytes, unpack_utf8, unpack_words, widen
from .columnar_qrels import ColumnarQrels
from .qrels import MAX_GRADE
from ..errors import Diagnostics, RunError
from ..numeric import clip
from ..measures.c_numbers import as_scores
from ..measures.trec import TrecOptions
from ..textfile import BOM, MAX_FILE_BYTES
from .label_columns import QrelsColumns, label_lines
from .measure_columns import evaluate_columnar
from .rank_columns import rank_lines
from .rankeval import TopicRun, evaluate_rankings
from .trec_eval_files import BPREF_OVERREAD_WARN, TrecEvalFailure, read_qrels

# Below this (about 500 lines) reading a run line by line and measuring it in a batch with the submission's other
# small runs (ranking/run_batch.py) costs less than the columnar reader's set-up, about 2.5 ms a file; above it the
# columns win, by 5 to 8 times at 50,000 lines (docs/performance.md, "Campaigns").
FAST_PATH_MIN_BYTES = 16 * 1024
# A task's qrels file of this size or more (about 60k judgements, 0.2 s as Python dicts) is read as columns.
FAST_QRELS_MIN_BYTES = 1024 * 1024
# The fast path holds about 40 bytes per line whatever the file's size, so it may read files above
# textfile.MAX_FILE_BYTES (which bounds the exact path's memory, a few times the file size).
COLUMNAR_MAX_FILE_BYTES = 1024 * 1024 * 1024
ENVIRONMENT = "RUNSCORE_FAST_PATH"


def switched_off() -> bool:
    """RUNSCORE_FAST_PATH=0: every run and reference takes the exact path (tests, comparisons)."""
    return os.environ.get(ENVIRONMENT, "") == "0"


def wanted(path: str, min_bytes: Optional[int] = None, max_bytes: Optional[int] = None) -> bool:
    """Should this file try the fast path? (a regular file, big enough, not switched off; the bounds default to
    FAST_PATH_MIN_BYTES and COLUMNAR_MAX_FILE_BYTES)"""
    if switched_off() or not os.path.isfile(path):
        return False
    size = os.path.getsize(path)
    if size > (COLUMNAR_MAX_FILE_BYTES if max_bytes is None else max_bytes):
        return False
    return os.environ.get(ENVIRONMENT) == "1" or size >= (FAST_PATH_MIN_BYTES if min_bytes is None else min_bytes)


_MALLOC_TUNED = []


def _keep_freed_memory() -> None:
    """Ask glibc malloc to keep freed memory for reuse instead of handing it back to the system and taking it
    again for the next chunk's arrays (page faults cost as much as the parsing). No-op without glibc. Once a
    process, and without ctypes.util.find_library (it runs ldconfig and imports subprocess: 20 ms of start-up)."""
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED.append(True)
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-1, 256 * 1024 * 1024)    # M_TRIM_THRESHOLD: keep up to 256 MiB free at the heap top
        libc.mallopt(-3, 64 * 1024 * 1024)     # M_MMAP_THRESHOLD: per-chunk arrays come from the heap
    except (OSError, AttributeError):
        pass


def read(path: str, layout: str, comments: bool = False, why: Optional[List[str]] = None,
         grade_map: Optional[Dict[str, int]] = None, c_space: bool = False) -> Optional[ColumnarRun]:
    """The run (or qrels) as columns, or None when the exact path must read it (it would say something about
    it; `why` receives where the columnar reader stopped)."""
    _keep_freed_memory()
    try:
        with open(path, "rb") as handle:
            # a task's run: a UTF-8 BOM is dropped, as the task's exact reader drops it; the trec_eval
            # command (c_space) reads bytes as trec_eval does, BOM included
            if c_space or handle.read(len(BOM)) != BOM:
                handle.seek(0)
            return read_columns(handle, layout, comments, why=why, grade_map=grade_map, c_space=c_space)
    except OSError:
        return None                 # the exact path words the error


def too_big_for_the_exact_reader(path: str, display: str, why: List[str]) -> None:
    """A run over textfile.MAX_FILE_BYTES that the columnar reader declined cannot be read line by line either:
    say so, and where the columnar reader stopped, instead of only "file too big" (a clean run of that size
    is scored)."""
    size = os.path.getsize(path)
    if size <= MAX_FILE_BYTES:
        return
    where = why[0] if why else "somewhere"
    raise RunError("file is %d bytes: a run over %d MiB is read only by the fast reader, which takes runs with "
                   "nothing to report; it stopped at %s (an error, or a warning such as a blank line, CRLF line "
                   "ends or an unpadded Topic-ID): correct that, or split the run into files of at most %d MiB "
                   "to get every message" % (size, MAX_FILE_BYTES // (1024 * 1024), where,
                                              MAX_FILE_BYTES // (1024 * 1024)), display)


def read_reference_qrels(path: str, grade_map: Optional[Dict[str, int]] = None) -> Optional[ColumnarQrels]:
    """A task's big clean qrels file as columns (a dict view, see columnar_qrels), or None: then the task's
    exact loader (qrels.read_qrels) reads it and words any defect. Reference files keep the exact path's
    size limit (textfile.MAX_FILE_BYTES)."""
    if not wanted(path, FAST_QRELS_MIN_BYTES, MAX_FILE_BYTES):
        return None
    table = read(path, QRELS, grade_map=grade_map)
    return None if table is None else ColumnarQrels(QrelsColumns.from_table(table))


# ------------------------------------------------------------------------------ shared evaluation ---

class _Cache:
    """The last qrels converted, ranking made and labels joined: a task scores two levels of one run, often
    with the same graded qrels, so the second level reuses all three."""

    qrels_source = None
    qrels_columns: Optional[QrelsColumns] = None
    ranking_key = None
    ranking = None
    grades_key = None
    grades = None


def qrels_columns(qrels: Dict[str, Dict[str, int]]) -> QrelsColumns:
    if isinstance(qrels, ColumnarQrels):
        return qrels.columns
    if _Cache.qrels_source is not qrels:
        _Cache.qrels_columns = None
        _Cache.qrels_columns = QrelsColumns(qrels)
        _Cache.qrels_source = qrels
    return _Cache.qrels_columns


def evaluate(run: ColumnarRun, qrels: Dict[str, Dict[str, int]], topics: Sequence[str], measures: Sequence[str],
             level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
             max_docs: Optional[int] = None, params: Dict[str, Sequence] = None,
             score_dtype=np.float64) -> Dict[str, Dict[str, float]]:
    """rankeval.evaluate_rankings' per-topic values for a columnar run."""
    columns = qrels_columns(qrels)
    if not columns.usable:          # a qrels document id the word packing cannot hold (a NUL byte)
        return evaluate_rankings(topic_runs(run), qrels, topics, measures, level, options, tie_order, max_docs,
                                 params, score_dtype)[0]
    # a task scores every run of a submission or a campaign against these qrels: they keep their side of the join
    return evaluate_with_columns(run, columns, topics, measures, level, options, tie_order, max_docs, params,
                                 score_dtype, keep_joins=True)


def evaluate_with_columns(run: ColumnarRun, columns: QrelsColumns, topics: Sequence[str], measures: Sequence[str],
                          level: int = 1, options: TrecOptions = TrecOptions(), tie_order: str = "desc",
                          max_docs: Optional[int] = None, params: Dict[str, Sequence] = None,
                          score_dtype=np.float64, keep_joins: bool = False) -> Dict[str, Dict[str, float]]:
    # The cache keeps the objects it was made from, so an `is` test cannot be fooled by a reused id().
    key = (tuple(topics), tie_order, max_docs, np.dtype(score_dtype).str)
    if _Cache.ranking_key is None or _Cache.ranking_key[0] is not run or _Cache.ranking_key[1] != key:
        _Cache.ranking = _Cache.grades = _Cache.grades_key = None    # free them before making the next
        _Cache.ranking = rank_lines(run, topics, tie_order, max_docs, score_dtype)
        _Cache.ranking_key = (run, key)
    if _Cache.grades_key is not columns:
        _Cache.grades = None
        _Cache.grades = label_lines(run, _Cache.ranking[0], _Cache.ranking[1], topics, columns, keep_joins)
        _Cache.grades_key = columns
    return evaluate_columnar(run, columns, topics, measures, level, options, tie_order, max_docs, params,
                             score_dtype, ranking=_Cache.ranking, grades=_Cache.grades)


def ranked_columns(run: ColumnarRun, tie_order: str = "desc", max_docs: Optional[int] = None,
                   score_dtype=np.float64) -> Optional[ColumnarRun]:
    """The run's ranking (every topic, in the run's order of topics) as a run of its own: its lines in rank order,
    truncated to max_docs, with scores that fall by 1 a rank (float32: exact below 2 ** 24), so that ranking it
    again changes nothing and it scores as the run does against any qrels, with its document ids and no more (a
    campaign keeps it to score a run again without its records). None for a run whose ranks the scores cannot
    hold (more than 2 ** 24 lines in a topic) or with long ids in a layout of their own (trec_eval's reading)."""
    if run.long_ids is not None:
        return None
    order, offsets = rank_lines(run, run.topics, tie_order, max_docs, score_dtype)
    sizes = np.diff(offsets)
    if sizes.shape[0] and int(sizes.max()) > 2 ** 24:
        return None
    position = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], sizes)
    return ColumnarRun(list(run.topics), np.repeat(np.arange(len(run.topics), dtype=np.int32), sizes),
                       run.docno[order], np.negative(position).astype(np.float32), list(run.first_line), None,
                       offsets, run.run_id, run.dummy)


def top_items(run: ColumnarRun, tie_order: str = "desc", max_docs: Optional[int] = None, score_dtype=np.float64,
              depth: Optional[int] = None) -> Optional[List[List[str]]]:
    """The document ids of each topic (in the run's order of topics) in rank order, the first `depth` of them:
    ids decoded only for the lines asked for (a pool of depth 100 of runs of 1,000 documents a topic). None with
    long ids in a layout of their own (trec_eval's reading; a task's reading has none)."""
    if run.long_ids is not None:
        return None
    order, offsets = rank_lines(run, run.topics, tie_order, max_docs, score_dtype)
    sizes = np.diff(offsets)
    if depth is not None:
        sizes = np.minimum(sizes, depth)
    bounds = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=bounds[1:])
    index = np.arange(int(bounds[-1]), dtype=np.int64) + np.repeat(offsets[:-1] - bounds[:-1], sizes)
    docnos = unpack_utf8(run.docno[order[index]])
    cut = bounds.tolist()
    return [docnos[cut[k]:cut[k + 1]] for k in range(len(run.topics))]


def topic_runs(run: ColumnarRun) -> Dict:
    """The run as the exact path's TopicRun records (document ids decoded from their words)."""
    out = {}
    for code, topic in enumerate(run.topics):
        lines = run.topic_lines(code)
        docnos = unpack_words(run.docno[lines])
        out[topic] = TopicRun(docnos, run.score[lines].tolist(), [0] * len(docnos))
    return out


# ------------------------------------------------------------------------------ runscore trec_eval ---

def _trec_eval_packer(run: ColumnarRun):
    """How the qrels ids become words comparable with this run's: their Latin-1 bytes, and (when the run has
    ids longer than columnar.LONG_ID_BYTES) the run's layout for long ids (ColumnarRun.long_ids)."""
    def pack(docnos: List[str]):
        raw = [d.encode("latin-1") for d in docnos]
        if run.long_ids is None:
            return pack_bytes(raw)
        long = [i for i, text in enumerate(raw) if len(text) > LONG_ID_BYTES]
        width = run.docno.shape[1] - 1
        keep = set(long)
        words = widen(pack_bytes([b"" if i in keep else text for i, text in enumerate(raw)]), width + 1)
        if long:
            rows = long_id_rows([raw[i] for i in long], width, run.long_ids)
            words[long] = widen(rows, words.shape[1])
        return words
    return pack


def _beyond_float(scores: np.ndarray) -> bool:
    """Whether a finite score is too big for a C float (trec_eval 9.0.8 stores scores as float and reads it as
    inf; the exact reader warns about it, so such a run is left to that reader)."""
    with np.errstate(over="ignore"):
        return bool(np.any(np.isinf(as_scores(scores)) & np.isfinite(scores)))


class TrecEvalColumns(NamedTuple):
    """What trec_eval's main loop gives for a run on the fast path: the evaluated topics (sorted, as trec_eval
    evaluates them), their values, the qrels' topic count and judgements with grade > 0 (for -c), the run id."""

    topics: List[str]
    values: Dict[str, Dict[str, float]]
    qrels_topics: int
    positive_judgements: int
    run_id: str


def trec_eval(settings, qrels_path: str, run_path: str, measures: Sequence[str], params: Dict,
              min_bytes: Optional[int] = None) -> Optional[TrecEvalColumns]:
    """commands.trec_eval's main loop for a big clean run, read as columns, or None (then
    the exact path reads both files and says what trec_eval would say). The files must be ones trec_eval reads
    without a word from us (no note, no duplicate) in a case the columns reproduce (not -J, -M 0, -l below 1,
    keep-first-duplicate, nor a 10.0 qrels topic missing from the run). `min_bytes`: the smallest run file taken
    (FAST_PATH_MIN_BYTES by default; the command takes every size: 0)."""
    if run_path == "-" or settings.judged_only or not wanted(run_path, min_bytes) or settings.max_docs == 0 \
            or settings.level < 1 or settings.keep_first_duplicate:
        return None
    if "utility" in measures and len(params.get("utility", (0,) * 4)) != 4:
        return None                 # trec_eval fails on the first topic: the exact path says so
    if "11pt_avg" in params and list(params["11pt_avg"]) != sorted(params["11pt_avg"]):
        return None                 # trec_eval's loop on unsorted recall points: the exact path runs it
    if not os.path.isfile(qrels_path) or os.path.getsize(qrels_path) > MAX_FILE_BYTES:
        return None
    found = _trec_eval_qrels(qrels_path, settings.v10)
    if found is None:
        return None
    qrels_topics, maxima, positive, table = found
    if any(not 0 <= grade <= MAX_GRADE for grade in maxima):
        return None                 # trec_eval's rel_levels array: the exact path words what it does
    if {"bpref", "gm_bpref"} & set(measures) and maxima and \
            settings.level - (max(maxima) + 1) >= BPREF_OVERREAD_WARN:
        return None                 # trec_eval's bpref may crash: the exact path warns
    run = read(run_path, TREC, comments=settings.v10, c_space=True)
    if run is None:
        return None
    if not settings.v10 and _beyond_float(run.score):
        return None                 # trec_eval 9.0.8 reads it as inf: the exact path says so in a warning
    in_run = set(run.topics)
    in_qrels = set(qrels_topics)
    if settings.v10:
        if any(qid not in in_run for qid in qrels_topics):
            return None             # an error, or trec_eval 10.0's placeholder ranking: the exact path
        topics = sorted(qrels_topics)
    else:
        topics = sorted(qid for qid in in_run if qid in in_qrels)
    if not topics:
        return None
    if table is None:
        qrels = _parsed_qrels(qrels_path, settings.v10)
        if qrels is None:
            return None
        columns = QrelsColumns(qrels, _trec_eval_packer(run))
    else:
        columns = QrelsColumns.from_table(_in_run_layout(table, run))
    options = TrecOptions(interp_cutoff="v10" if settings.v10 else "v9", num_docs_in_coll=settings.num_docs_in_coll)
    computed = [m for m in measures if m not in ("runid", "num_q")]
    per_topic = evaluate_with_columns(run, columns, topics, computed, settings.level, options, "desc",
                                      settings.max_docs, params, np.float64 if settings.v10 else np.float32)
    return TrecEvalColumns(topics, per_topic, len(qrels_topics), positive, run.run_id)


def _trec_eval_qrels(path: str, v10: bool):
    """(topics, each topic's highest grade, judgements with grade > 0, the qrels as columns or None) of a qrels
    file trec_eval reads without a word from us, or None. Read as columns when the columnar reader takes it (ids
    as raw bytes, as the run's words; `_in_run_layout` then packs long ids as the run does), else by the exact
    reader (QrelsColumns made later, packed as the run)."""
    table = read(path, QRELS, comments=v10, c_space=True)
    if table is not None:
        raw = table.score if table.grouped_order is None else table.score[table.grouped_order]
        maxima = np.maximum.reduceat(raw, table.starts[:-1]).tolist() if raw.shape[0] else []
        return list(table.topics), maxima, int(np.count_nonzero(raw > 0)), table
    qrels = _parsed_qrels(path, v10)
    if qrels is None:
        return None
    return (list(qrels), [max(grades.values()) for grades in qrels.values()],
            sum(1 for grades in qrels.values() for rel in grades.values() if rel > 0), None)


def _in_run_layout(table: ColumnarRun, run: ColumnarRun) -> ColumnarRun:
    """The qrels table with its document words comparable with the run's. The reader gives both files the long-id
    layout (ColumnarRun.long_ids), each with its own codes: a qrels long id takes the run's first words and the
    run's code of that id (or a code no run id has), the same rows _trec_eval_packer makes from the exact
    reader's strings. Short ids need nothing: rows are widened to compare, and a code word (a NUL in its
    big-endian bytes) never equals a word of an id."""
    if table.long_ids is None:
        return table
    words = table.docno
    qrels_width = words.shape[1] - 1
    width = run.docno.shape[1] - 1 if run.long_ids is not None else qrels_width
    rows = long_id_rows(table.long_ids, width, run.long_ids)     # row k: the qrels id of code k + 1
    long = np.flatnonzero(words[:, qrels_width])
    out = widen(np.ascontiguousarray(words[:, :qrels_width]), max(qrels_width, width + 1))
    out[long] = widen(rows[words[long, qrels_width].astype(np.int64) - 1], out.shape[1])
    return dataclasses.replace(table, docno=out)


def _parsed_qrels(path: str, v10: bool) -> Optional[Dict[str, Dict[str, int]]]:
    """The qrels by the exact reader (trec_eval_files), or None if it notes or refuses anything."""
    try:
        with open(path, "rb") as handle:
            parsed = read_qrels(handle.read(), path, v10)
    except (OSError, TrecEvalFailure):
        return None
    if parsed.notes or any(parsed.duplicate(qid) for qid in parsed.topics):
        return None
    return {qid: parsed.grades(qid) for qid in parsed.topics}


# ------------------------------------------------------------------------------ ntcir1-adhoc ---

def ntcir1_parse(path: str, display: str, diags: Diagnostics, reference, options) -> Optional[ColumnarRun]:
    """A clean NACSIS run as columns, with the warnings and errors the task's exact parser gives a clean file
    (more documents than max_docs, topics that are not official, no official topic, file name); or None."""
    if options.get("duplicates") not in ("error", "keep_first") or not wanted(path):
        return None
    why: List[str] = []
    run = read(path, NACSIS, why=why)
    if run is None:
        too_big_for_the_exact_reader(path, display, why)
        return None
    if run.space_separated:         # tasks/ntcir1_adhoc.py's warning for such lines, with their count
        diags.warning_once("notab", 1, "line has no TAB; fields split on spaces (the format asks for TABs)",
                           repeats=len(run) - 1)
    max_docs = options["max_docs"]
    for code, topic in enumerate(run.topics):
        count = run.count(code)
        if count > max_docs:
            diags.warning(run.first_line[code], "topic %s has %d documents; only the first %d after sorting by "
                          "Similarity are scored" % (topic, count, max_docs))
    if reference is not None:
        official = set(reference.topics)
        unknown = [t for t in run.topics if t not in official]
        if unknown:
            diags.warning(run.first_line[run.topics.index(unknown[0])], "%d Topic-ID(s) are not official topics and "
                          "are ignored: %s" % (len(unknown), ", ".join(clip(u) for u in unknown[:10]) + (" ..." if len(unknown) > 10
                                                                                         else "")))
        if not official & set(run.topics):
            topics = reference.topics
            diags.error(0, "no line answers any official topic (%s)" % ("%s ... %s" % (topics[0], topics[-1])
                                                                        if len(topics) > 1 else topics[0]))
    basename = os.path.basename(display)
    if run.run_id and basename.split(".")[0] != run.run_id:
        diags.warning(0, "the file should be named by its Run-ID %r" % run.run_id)
    return run
