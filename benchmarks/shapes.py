"""The shape table: runscore against trec_eval 9.0.8 -O2 and pytrec-eval-terrier on every shape of input users
really have, each shape paired in one run.

Why: `bench.py` measures one shape (clean, sorted, short ids). A promise of speed must hold for 300-byte ids,
non-ASCII ids, CRLF, space-separated fields, lines in random order, a big qrels file with a small run, many small
topics, many tiny files, and for the in-memory API on the sizes and call patterns of its users. Each shape is
generated from a fixed seed, every tool runs as its own process on the same files in alternating order, and the
median of the repeats is kept: wall time, CPU time (user + system of the process and its children, os.wait4) and
peak resident memory. The machine is shared, so CPU time is printed beside wall time and the load average is
recorded with the table.

    python benchmarks/shapes.py                       # every shape, full size, 3 repeats (about 25 minutes)
    python benchmarks/shapes.py --quick               # a tenth of every size, for development
    python benchmarks/shapes.py --only long-ids-1M,crlf-1M --repeats 5
    python benchmarks/shapes.py --sweep               # the id-length sweep alone (8 to 512 bytes, URL-like)
    python benchmarks/shapes.py --markdown table.md   # also write the table as Markdown
    python benchmarks/shapes.py --update-docs         # also put it into docs/performance.md

Targets, wall time of the pair: every file shape <= 1.0 x trec_eval -O2, clean 1M <= 0.8 x, clean 5M
<= 0.35 x, peak memory <= trec_eval's from 1M lines up, every shape within 1.5 x of the clean run of its size;
in memory <= 0.7 x pytrec_eval at 1M and 5M pairs, <= 1.0 x at 5,000 x 100, on tiny inputs and with all_trec.
Ids of 300 bytes come in three layouts (a constant prefix, a constant suffix, random bytes), so that no path is
tuned to one; long ids of every layout and 1,000 tiny files <= 1.0 x trec_eval -O2. The campaign rows (100 runs of
50 topics x 1,000 documents): `runscore pool` <= 1.2 x the CPU of `runscore score` on the same runs, `runscore
report` at B = 10,000 <= 60 s of CPU and <= 500 MiB.
"""
import argparse
import datetime
import functools
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import PYTREC_SCRIPT, installed_env, measure, size_name, warm_up  # noqa: E402

MEASURE_ARGS = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]
BEGIN, END = "<!-- shape-table:begin -->", "<!-- shape-table:end -->"
DOCS = os.path.join(ROOT, "docs", "performance.md")         # where the table lives (README.md links to it)


# ------------------------------------------------------------------------------------------ data ---

def _topic_name(t: int, topics: int) -> str:
    return "%04d" % t if topics < 10000 else "%07d" % t


def write_pair(folder: str, name: str, topics: int, per_topic: int, judged: Tuple[int, int] = (30, 71),
               doc_id: Callable[[int], str] = "d%05d".__mod__, sep: str = "\t", eol: str = "\n",
               shuffle: bool = False, run_every: int = 1, seed: int = 1, spread: int = 0) -> Tuple[str, str]:
    """(qrels, run) files: `topics` judged topics with judged[0]..judged[1]-1 judgements each (grades 0-3), a run
    of `per_topic` documents for every `run_every`-th topic, scores with ties (3 decimals), sorted as systems
    write them unless `shuffle`. The run's lines are valid NACSIS lines when sep is TAB and eol LF. Topic t draws
    its documents from numbers (t - 1) * spread and up: with a spread near the documents a topic, about one
    distinct id a line, some shared with the next topic, as a web collection's runs have."""
    rng = np.random.default_rng(seed)
    doc_range = max(2000, 2 * per_topic) if per_topic > 20 else 4 * per_topic
    qrels, run = os.path.join(folder, name + ".qrels"), os.path.join(folder, name)
    run_id = os.path.basename(run)
    lines: List[str] = []
    ranks = ["%d" % r for r in range(1, per_topic + 1)]
    with open(qrels, "w", encoding="utf-8", newline="") as out_q, \
            open(run, "w", encoding="utf-8", newline="") as out_r:
        for t in range(1, topics + 1):
            qid = _topic_name(t, topics)
            count = min(int(rng.integers(*judged)), doc_range)
            docs = (rng.choice(doc_range, size=count, replace=False) + (t - 1) * spread).tolist()
            grades = rng.choice(4, size=count, p=(0.5, 0.25, 0.15, 0.10)).tolist()
            out_q.write("".join("%s 0 %s %d\n" % (qid, doc_id(d), g) for d, g in zip(docs, grades)))
            if (t - 1) % run_every:
                continue
            docs = (rng.choice(doc_range, size=per_topic, replace=False) + (t - 1) * spread).tolist()
            scores = np.sort(np.round(rng.random(per_topic) * 10, 3))[::-1].tolist()
            topic_lines = ["%s%s0%s%s%s%s%s%.3f%s%s%s" % (qid, sep, sep, doc_id(d), sep, r, sep, s, sep, run_id, eol)
                           for d, r, s in zip(docs, ranks, scores)]
            if shuffle:
                lines.extend(topic_lines)
            else:
                out_r.write("".join(topic_lines))
        if shuffle:
            order = rng.permutation(len(lines))
            out_r.write("".join(lines[i] for i in order.tolist()))
    return qrels, run


def long_id(d: int) -> str:
    """A 300-byte document id (a URL or a path): a constant prefix, the distinguishing bytes last."""
    tail = "/d%05d" % d
    return "https://collection.example.org/" + "p" * (300 - 31 - len(tail)) + tail


def long_id_constant_suffix(d: int) -> str:
    """A 300-byte id whose distinguishing bytes come first and a constant tail follows (`doc00123_xxx...`)."""
    head = "doc%05d_" % d
    return head + "x" * (300 - len(head))


@functools.lru_cache(maxsize=None)
def long_id_random(d: int) -> str:
    """A 300-byte id of random letters and digits (a hash or a token): no byte is shared by design."""
    rng = np.random.default_rng(d)
    return "".join(ID_LETTERS[i] for i in rng.integers(0, len(ID_LETTERS), 300).tolist())


ID_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"


def sweep_id(length: int) -> Callable[[int], str]:
    """Ids of `length` bytes for the id-length sweep: a constant prefix, the distinguishing digits last (the
    layout whose bytes strcmp and a word-by-word sort must read furthest)."""
    if length <= 9:
        return ("%%0%dd" % length).__mod__
    prefix = ("doc/" + "p" * length)[:length - 9]
    return lambda d: prefix + "%09d" % d


def url_id(d: int) -> str:
    """A URL-like id of 40-200 bytes (ClueWeb, Common Crawl): a host of a thousand, a path, the number."""
    length = 40 + (d * 2654435761) % 161
    head = "http://www.site%d.example.com/" % (d % 997)
    tail = "/%d.html" % d
    return head + ("articles/" * 23)[:max(0, length - len(head) - len(tail))] + tail


SWEEP_LENGTHS = (8, 32, 64, 80, 128, 300, 512)


def non_ascii_id(d: int) -> str:
    return "dök-ü-%05d" % d


# ----------------------------------------------------------------------------------------- shapes ---

class Shape:
    def __init__(self, key: str, label: str, make, kind: str = "file", size: int = 0, clean: str = "",
                 target: float = 1.0, without_trec_eval: str = ""):
        self.key, self.label, self.make, self.kind, self.size, self.clean, self.target = \
            key, label, make, kind, size, clean, target
        self.without_trec_eval = without_trec_eval      # why trec_eval is not run on this shape, if it is not


def file_shapes(scale: float) -> List[Shape]:
    """Every file shape at `scale` (1 = the issue's sizes, 0.1 = --quick)."""
    def n(x):
        return max(1, int(x * scale))

    def pair(**kw):
        return lambda folder, key: write_pair(folder, key.replace(".", "_"), **kw)

    per_1m = n(1_000_000) // 5000
    shapes = [
        Shape("clean-1M", "clean, %s lines" % size_name(n(1e6)), pair(topics=5000, per_topic=per_1m),
              size=n(1e6), target=0.8),
        Shape("clean-5M", "clean, %s lines" % size_name(n(5e6)), pair(topics=5000, per_topic=n(5e6) // 5000),
              size=n(5e6), target=0.35),
        Shape("clean-10M", "clean, %s lines" % size_name(n(1e7)), pair(topics=5000, per_topic=n(1e7) // 5000),
              size=n(1e7)),
        Shape("long-ids-1M", "300-byte ids, constant prefix, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, doc_id=long_id), size=n(1e6), clean="clean-1M"),
        Shape("long-ids-suffix-1M", "300-byte ids, constant suffix, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, doc_id=long_id_constant_suffix), size=n(1e6), clean="clean-1M"),
        Shape("long-ids-random-1M", "300-byte ids, random bytes, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, doc_id=long_id_random), size=n(1e6), clean="clean-1M"),
        Shape("non-ascii-1M", "non-ASCII ids, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, doc_id=non_ascii_id), size=n(1e6), clean="clean-1M"),
        Shape("crlf-1M", "CRLF line ends, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, eol="\r\n"), size=n(1e6), clean="clean-1M"),
        Shape("space-1M", "space-separated, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, sep=" "), size=n(1e6), clean="clean-1M"),
        Shape("shuffled-1M", "lines in random order, %s lines" % size_name(n(1e6)),
              pair(topics=5000, per_topic=per_1m, shuffle=True), size=n(1e6), clean="clean-1M"),
        Shape("big-qrels", "%s-line qrels, %s-line run" % (size_name(n(5e6)), size_name(n(1e5))),
              pair(topics=n(50000), per_topic=100, judged=(100, 101), run_every=50), size=n(1e5)),
        Shape("topics-100k", "%s topics of 5 documents" % size_name(n(1e5)),
              pair(topics=n(100000), per_topic=5, judged=(5, 6)), size=n(5e5)),
        Shape("topics-1M", "%s topics of 5 documents" % size_name(n(1e6)),
              pair(topics=n(1000000), per_topic=5, judged=(5, 6)), size=n(5e6),
              without_trec_eval="not run: its time grows with the square of the topics (24.7 s of CPU at 100k "
                                "topics), about 40 minutes a run at 1M"),
    ] + [
        Shape("ids-%d" % length, "%d-byte ids, one distinct id a line, %s lines" % (length, size_name(n(1e6))),
              pair(topics=1000, per_topic=n(1000), doc_id=sweep_id(length), spread=n(1000) * 9 // 10),
              size=n(1e6), clean="ids-8") for length in SWEEP_LENGTHS
    ] + [
        Shape("ids-url", "URL-like ids of 40-200 bytes, one distinct id a line, %s lines" % size_name(n(1e6)),
              pair(topics=1000, per_topic=n(1000), doc_id=url_id, spread=n(1000) * 9 // 10), size=n(1e6),
              clean="ids-8"),
        Shape("tiny-files", "%d tiny files in one submission (50 lines each)" % n(1000), make_tiny_files(n(1000)),
              kind="files", size=n(1000) * 50),
    ]
    # measured in this order: the shapes of 1M lines and the small ones first (a long run cut short keeps them)
    later = ("clean-5M", "clean-10M", "topics-1M")
    return [s for s in shapes if s.key not in later] + [s for s in shapes if s.key in later]


def make_tiny_files(count: int):
    def make(folder: str, key: str):
        sub = os.path.join(folder, key)
        os.makedirs(sub, exist_ok=True)
        qrels = None
        for i in range(count):
            q, _ = write_pair(sub, "run%04d" % i, topics=5, per_topic=10, judged=(20, 21), seed=100 + i)
            if qrels is None:
                qrels = os.path.join(folder, key + ".qrels")
                shutil.move(q, qrels)
            else:
                os.remove(q)
        return qrels, sub
    return make


MEMORY_SHAPES = [
    # key, label, topics, documents a topic, judged a topic, measures, calls
    ("memory-1M", "in memory: 1M pairs (1,000 x 1,000)", 1000, 1000, 1000, ["map", "P", "ndcg_cut"], 1, 0.7),
    ("memory-5M", "in memory: 5M pairs (5,000 x 1,000)", 5000, 1000, 1000, ["map", "P", "ndcg_cut"], 1, 0.7),
    ("memory-beir", "in memory: 5,000 x 100 (BEIR)", 5000, 100, 3, ["map_cut.1,10,100", "ndcg_cut.1,10,100",
                                                                    "recall.1,10,100", "P.1,10,100"], 1, 1.0),
    ("memory-loop", "in memory: 50 x 100, 1,000 calls (a training loop)", 50, 100, 20, ["map", "ndcg_cut.10"],
     1000, 1.0),
    ("memory-all-trec", "in memory: all_trec, 1,000 x 100", 1000, 100, 50, ["all_trec"], 1, 1.0),
]

# A campaign's commands on its formal runs: the runs are NTCIR-1 runs of 1,000 documents a topic written by
# tests/campaign_sim.py (teams of 2 runs, qrels from the depth-100 pool). Targets: `runscore pool` at most 1.2 x the
# CPU of `runscore score` on the same runs; `runscore report` at most 60 s of CPU and 500 MiB (B = 10,000).
CAMPAIGN_TOPICS, CAMPAIGN_DOCS, CAMPAIGN_DEPTH = 50, 1000, 100
CAMPAIGN_SHAPES = [
    # key, label (%d: runs), target
    ("campaign-score", "campaign: `runscore score` of %d runs x 50 topics x 1,000 documents", None),
    ("campaign-pool", "campaign: `runscore pool --depth 100` of the same runs", 1.2),
    ("campaign-report", "campaign: `runscore report --pool-depth 100` of the same runs, B = 10,000", (60.0, 500.0)),
]


MEMORY_SCRIPT = r"""
import json, resource, sys, time
import numpy as np
tool, topics, docs, judged, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
measures = set(sys.argv[6].split(";"))
start_import = time.perf_counter()
usage0 = resource.getrusage(resource.RUSAGE_SELF)
if tool == "runscore":
    import runscore.pytrec_eval as pytrec_eval
else:
    import pytrec_eval
import_cpu = resource.getrusage(resource.RUSAGE_SELF)
import_cpu = import_cpu.ru_utime + import_cpu.ru_stime - usage0.ru_utime - usage0.ru_stime
rng = np.random.default_rng(5)
span = max(2 * docs, 2000) if docs > 100 else 4 * docs
qrels, runs = {}, []
for t in range(topics):
    qid = "%05d" % t
    chosen = rng.choice(span, size=judged, replace=False)
    grades = rng.choice(4, size=judged, p=(0.5, 0.25, 0.15, 0.10)) if judged > 10 else np.ones(judged, dtype=int)
    qrels[qid] = {"d%05d" % d: g for d, g in zip(chosen.tolist(), grades.tolist())}
for r in range(min(calls, 10)):
    run = {}
    for t in range(topics):
        qid = "%05d" % t
        chosen = rng.choice(span, size=docs, replace=False)
        scores = np.round(rng.random(docs) * 10, 3)
        run[qid] = {"d%05d" % d: s for d, s in zip(chosen.tolist(), scores.tolist())}
    runs.append(run)
def kib():
    with open("/proc/self/status") as f:
        return int([l for l in f if l.startswith("VmRSS")][0].split()[1])
before = kib()
usage = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures)
for i in range(calls):
    result = evaluator.evaluate(runs[i % len(runs)])
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF)
names = sorted(next(iter(result.values())))
means = {m: repr(sum(v[m] for v in result.values()) / len(result)) for m in names}
print(json.dumps({"wall": wall, "cpu": after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime,
                  "peak_mib": after.ru_maxrss / 1024.0, "extra_mib": (after.ru_maxrss - before) / 1024.0,
                  "import_cpu": import_cpu, "means": means}))
"""


# ------------------------------------------------------------------------------------- measuring ---

def trec_eval_o2() -> Optional[str]:
    """trec_eval 9.0.8 -O2, built from ../shared (or the shared machine's build script)."""
    for script in (os.path.join(ROOT, "..", "shared", "bin", "build-trec-eval"), "/work/shared/bin/build-trec-eval"):
        if os.path.isfile(script):
            done = subprocess.run([script, "9.0.8", "--O2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            path = done.stdout.decode().strip().splitlines()[-1] if done.stdout.strip() else ""
            if done.returncode == 0 and os.path.isfile(path):
                return path
    return None


PYTREC_FILES = PYTREC_SCRIPT.replace("with open(sys.argv[2]) as f:\n    run = pytrec_eval.parse_run(f)\n"
                                     "per_topic = pytrec_eval.RelevanceEvaluator(qrel, {\"map\", \"P\", \"ndcg_cut\"})"
                                     ".evaluate(run)\n",
                                     "import os\nevaluator = pytrec_eval.RelevanceEvaluator(qrel, {\"map\", \"P\", "
                                     "\"ndcg_cut\"})\nfor name in sorted(os.listdir(sys.argv[2])):\n"
                                     "    with open(os.path.join(sys.argv[2], name)) as f:\n"
                                     "        per_topic = evaluator.evaluate(pytrec_eval.parse_run(f))\n")


def commands(shape: Shape, qrels: str, run: str, trec_eval: Optional[str]) -> List[Tuple[str, List[str]]]:
    python = sys.executable
    if shape.kind == "files":
        files = sorted(os.path.join(run, f) for f in os.listdir(run))
        found = [("runscore", [python, "-m", "runscore", "score", "--task", "ntcir1-adhoc", "--ref", qrels] + files)]
        if trec_eval:
            loop = 'for f in "$@"; do "%s" %s "%s" "$f" || exit 1; done >/dev/null' % (
                trec_eval, " ".join(MEASURE_ARGS), qrels)
            found.append(("trec_eval", ["/bin/sh", "-c", loop, "sh"] + files))
        if importlib.util.find_spec("pytrec_eval") is not None:
            found.append(("pytrec_eval", [python, "-c", PYTREC_FILES, qrels, run]))
        return found
    found = [("runscore", [python, "-m", "runscore", "trec_eval"] + MEASURE_ARGS + [qrels, run])]
    if trec_eval and not shape.without_trec_eval:
        found.append(("trec_eval", [trec_eval] + MEASURE_ARGS + [qrels, run]))
    if importlib.util.find_spec("pytrec_eval") is not None:
        found.append(("pytrec_eval", [python, "-c", PYTREC_SCRIPT, qrels, run]))
    return found


def summary(text: str) -> Dict[str, str]:
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            out[parts[0]] = parts[2]
    return out


def paired(found: List[Tuple[str, List[str]]], repeats: int, env: Dict[str, str]) -> Dict[str, Dict]:
    """Every tool `repeats` times, in alternating order; medians of wall and CPU, the highest peak."""
    runs: Dict[str, List[Tuple[float, float, float, str]]] = {name: [] for name, _ in found}
    for repeat in range(repeats):
        shift = repeat % len(found)
        for name, command in found[shift:] + found[:shift]:
            runs[name].append(measure(command, env))
    return {name: {"wall": statistics.median(r[0] for r in rs), "cpu": statistics.median(r[1] for r in rs),
                   "peak": max(r[2] for r in rs), "walls": [round(r[0], 3) for r in rs], "output": rs[-1][3]}
            for name, rs in runs.items()}


def bench_file_shape(shape: Shape, folder: str, repeats: int, env: Dict[str, str], trec_eval: Optional[str]) -> Dict:
    started = time.perf_counter()
    qrels, run = shape.make(folder, shape.key)
    size = sum(os.path.getsize(os.path.join(run, f)) for f in os.listdir(run)) if os.path.isdir(run) \
        else os.path.getsize(run)
    print("\n== %s: %s (%d MB, qrels %d MB, made in %.0f s)" % (shape.key, shape.label, size // 10**6,
                                                              os.path.getsize(qrels) // 10**6,
                                                              time.perf_counter() - started), flush=True)
    result = paired(commands(shape, qrels, run, trec_eval), repeats, env)
    input_bytes = size + os.path.getsize(qrels)
    for r in result.values():
        r["bytes"] = input_bytes                # the table's time per input byte
    if shape.kind == "file":
        ours = summary(result["runscore"]["output"])
        for peer in ("trec_eval", "pytrec_eval"):
            if peer in result:
                theirs = summary(result[peer]["output"])
                same = all(ours.get(m) == theirs.get(m) for m in ("map", "P_10", "ndcg_cut_10"))
                result[peer]["agrees"] = same
                if not same:
                    print("  summary values DIFFER from %s: %s / %s" % (peer, ours, theirs))
    for name, r in result.items():
        r.pop("output")
        print("  %-12s wall %6.2f s  cpu %6.2f s  peak %6.0f MiB   (walls %s)" % (name, r["wall"], r["cpu"], r["peak"],
                                                                                r["walls"]), flush=True)
    if os.path.isdir(run):
        shutil.rmtree(run)
    else:
        os.remove(run)
    os.remove(qrels)
    return result


def bench_memory_shape(spec, repeats: int, env: Dict[str, str], scale: float) -> Dict:
    key, label, topics, docs, judged, measures, calls, _target = spec
    topics = max(1, int(topics * scale)) if key in ("memory-1M", "memory-5M", "memory-beir") else topics
    print("\n== %s: %s" % (key, label), flush=True)
    found = ["runscore"] + (["pytrec_eval"] if importlib.util.find_spec("pytrec_eval") is not None else [])
    runs: Dict[str, List[dict]] = {name: [] for name in found}
    for repeat in range(repeats):
        shift = repeat % len(found)
        for name in found[shift:] + found[:shift]:
            out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, name, str(topics), str(docs), str(judged),
                                  str(calls), ";".join(measures)], env=env, capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit("in-memory benchmark of %s failed:\n%s" % (name, out.stderr[-2000:]))
            runs[name].append(json.loads(out.stdout))
    result = {}
    for name in found:
        rs = runs[name]
        result[name] = {"wall": statistics.median(r["wall"] for r in rs), "cpu": statistics.median(r["cpu"] for r in rs),
                        "peak": max(r["extra_mib"] for r in rs), "walls": [round(r["wall"], 3) for r in rs],
                        "import_cpu": statistics.median(r["import_cpu"] for r in rs)}
        print("  %-12s wall %6.2f s  cpu %6.2f s  memory added %6.0f MiB  import %.2f s CPU  (walls %s)" % (
            name, result[name]["wall"], result[name]["cpu"], result[name]["peak"], result[name]["import_cpu"],
            result[name]["walls"]), flush=True)
    if "pytrec_eval" in runs:
        ours, theirs = runs["runscore"][0]["means"], runs["pytrec_eval"][0]["means"]
        common = sorted(set(ours) & set(theirs))
        same = all(ours[m] == theirs[m] for m in common)
        result["pytrec_eval"]["agrees"] = same
        print("  mean of %d values %s" % (len(common), "IDENTICAL to pytrec_eval" if same else
                                          "DIFFER: %s" % [(m, ours[m], theirs[m]) for m in common
                                                          if ours[m] != theirs[m]][:5]))
    return result


def bench_campaign(folder: str, repeats: int, env: Dict[str, str], scale: float, keys: Sequence[str]) -> Dict[str, Dict]:
    """The chosen campaign rows, measured in alternating order on one generated campaign (score is always
    measured: the pool's target is a ratio to it)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from campaign_sim import ntcir1_campaign

    teams = max(1, int(50 * scale))
    started = time.perf_counter()
    runs, ref, _ = ntcir1_campaign(os.path.join(folder, "campaign"), teams=teams, runs_per_team=2,
                                   topics=CAMPAIGN_TOPICS, docs=3 * CAMPAIGN_DOCS, run_length=CAMPAIGN_DOCS,
                                   judged_depth=CAMPAIGN_DEPTH, seed=38)
    files = sorted(os.path.join(runs, f) for f in os.listdir(runs))
    print("\n== campaign: %d runs x %d topics x %d documents (%d MB, made in %.0f s)"
          % (len(files), CAMPAIGN_TOPICS, CAMPAIGN_DOCS, sum(os.path.getsize(f) for f in files) // 10 ** 6,
             time.perf_counter() - started), flush=True)
    python = sys.executable
    outputs = iter(range(10 ** 6))

    def fresh() -> str:
        return os.path.join(folder, "out%d" % next(outputs))

    commands = {
        "campaign-score": lambda: [python, "-m", "runscore", "score", "--task", "ntcir1-adhoc", "--ref", ref, "--json"]
        + files,
        "campaign-pool": lambda: [python, "-m", "runscore", "pool", "--task", "ntcir1-adhoc", "--depth",
                                  str(CAMPAIGN_DEPTH), runs, "-o", fresh()],
        "campaign-report": lambda: [python, "-m", "runscore", "report", "--task", "ntcir1-adhoc", "--ref", ref,
                                    "--pool-depth", str(CAMPAIGN_DEPTH), runs, "-o", fresh()],
    }
    chosen = [key for key, _, _ in CAMPAIGN_SHAPES if key in keys or key == "campaign-score"]
    measured: Dict[str, List[Tuple[float, float, float, str]]] = {key: [] for key in chosen}
    for repeat in range(repeats):
        shift = repeat % len(chosen)
        for key in chosen[shift:] + chosen[:shift]:
            measured[key].append(measure(commands[key](), env))
    out = {}
    for key, rs in measured.items():
        result = {"wall": statistics.median(r[0] for r in rs), "cpu": statistics.median(r[1] for r in rs),
                  "peak": max(r[2] for r in rs), "walls": [round(r[0], 3) for r in rs], "runs": len(files)}
        print("  %-16s wall %6.2f s  cpu %6.2f s  peak %6.0f MiB   (walls %s)" % (
            key, result["wall"], result["cpu"], result["peak"], result["walls"]), flush=True)
        out[key] = {"runscore": result}
    shutil.rmtree(os.path.join(folder, "campaign"), ignore_errors=True)
    return out


def _campaign_verdict(key: str, result: Dict, results: Dict[str, Dict]) -> Tuple[str, str]:
    """(ratio cell, target cell) of a campaign row: CPU seconds decide (the issue's measure for these rows)."""
    ours = result["runscore"]
    target = [t for k, _, t in CAMPAIGN_SHAPES if k == key][0]
    if key == "campaign-pool" and "campaign-score" in results:
        ratio = ours["cpu"] / results["campaign-score"]["runscore"]["cpu"]
        return ("%.2f x `runscore score`'s CPU" % ratio,
                "<= %.1f x score's CPU: %s (CPU)" % (target, "met" if ratio <= target else "**not met**"))
    if key == "campaign-report":
        seconds, mib = target
        met = ours["cpu"] <= seconds and ours["peak"] <= mib
        return "-", "<= %.0f s CPU, <= %.0f MiB: %s (CPU)" % (seconds, mib, "met" if met else "**not met**")
    return "-", "-"


# ----------------------------------------------------------------------------------------- table ---

def _cell(r: Optional[Dict], memory_added: bool = False) -> str:
    if not r:
        return "-"
    return "%.2f / %.2f s, %.0f MiB%s" % (r["wall"], r["cpu"], r["peak"], " added" if memory_added else "")


def table(rows: List[Tuple[str, str, str, Dict, float]], header: Dict[str, str]) -> str:
    """The Markdown table: one row a shape, ratios against their targets."""
    lines = ["Measured %(date)s on %(machine)s; load average %(load)s (%(note)s). Cells: wall / CPU seconds "
             "(median of %(repeats)s alternating runs), peak memory. Ratio = runscore / peer, wall (CPU). A target "
             "is judged on the wall ratio, the issue's measure, where the row was measured on a quiet machine (load "
             "average at most the number of CPUs before and after the row: no process waited for a core), and "
             "otherwise on the CPU ratio, which other work leaves steady; the target cell says which." % header,
             "",
             "| shape | runscore | trec_eval 9.0.8 -O2 | pytrec-eval-terrier | ratio to trec_eval | target | "
             "ratio to pytrec_eval | target | memory vs peer | vs clean of its size | reproduce |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    results = {key: result for key, _l, _k, result, _t in rows}
    canonical = ["clean-1M", "clean-5M", "clean-10M"] + [s.key for s in SHAPE_INDEX] + [m[0] for m in MEMORY_SHAPES] \
        + [c[0] for c in CAMPAIGN_SHAPES]
    rows = sorted(rows, key=lambda row: canonical.index(row[0]) if row[0] in canonical else len(canonical))
    for key, label, kind, result, target in rows:
        ours = result.get("runscore")
        if kind == "campaign":
            ratio, verdict = _campaign_verdict(key, result, results)
            lines.append("| %s | %s | - | - | %s | %s | - | - | - | - | `%s` |" % (
                label, _cell(ours), ratio, verdict, "benchmarks/shapes.py --only %s%s" % (key, header["quick_flag"])))
            continue
        judged_on = _judged_on(result)
        te, py = result.get("trec_eval"), result.get("pytrec_eval")
        memory = kind == "memory"
        ratio_te = ratio_py = memory_ratio = "-"
        target_te = target_py = "-"
        spec = [s for s in SHAPE_INDEX if s.key == key]
        if not te and spec and spec[0].without_trec_eval:
            target_te = "trec_eval " + spec[0].without_trec_eval
        if te and not memory:
            wall, cpu = ours["wall"] / te["wall"], ours["cpu"] / te["cpu"]
            ratio_te = "%.2f x (%.2f x)%s" % (wall, cpu, _per_byte(ours, te))
            target_te = _verdict(target, wall, cpu, judged_on, "%.2f")
            memory_ratio = "%.2f x trec_eval%s" % (ours["peak"] / te["peak"],
                                                   "" if ours["peak"] <= te["peak"] else " (**more**)")
        if py:
            wall, cpu = ours["wall"] / py["wall"], ours["cpu"] / py["cpu"]
            ratio_py = "%.2f x (%.2f x)" % (wall, cpu)
            if memory:
                target_py = _verdict(target, wall, cpu, judged_on, "%.1f")
                memory_ratio = "%.2f x pytrec_eval" % (ours["peak"] / max(py["peak"], 1.0))
        clean = "-"
        if spec and spec[0].clean and spec[0].clean in results:
            base = results[spec[0].clean]["runscore"]
            clean = "%.2f x (%.2f x CPU)" % (ours["wall"] / base["wall"], ours["cpu"] / base["cpu"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | `%s` |" % (
            label, _cell(ours, memory), _cell(te), _cell(py, memory), ratio_te, target_te, ratio_py, target_py,
            memory_ratio, clean, "benchmarks/shapes.py --only %s%s" % (key, header["quick_flag"])))
    return "\n".join(lines) + "\n"


def _per_byte(ours: Dict, peer: Dict) -> str:
    """'; runscore / peer CPU nanoseconds an input byte' (qrels and run), where the row knows its bytes."""
    if not ours.get("bytes"):
        return ""
    return "; %.1f / %.1f ns CPU a byte" % (1e9 * ours["cpu"] / ours["bytes"], 1e9 * peer["cpu"] / ours["bytes"])


def _judged_on(result: Dict) -> str:
    """"wall" for a row measured on a quiet machine, else "CPU" (rows saved before loads were recorded: CPU)."""
    loads, cpus = result.get("loads"), result.get("cpus")
    return "wall" if loads and cpus and max(loads) <= cpus else "CPU"


def _verdict(target: float, wall: float, cpu: float, judged_on: str, digits: str) -> str:
    ratio = wall if judged_on == "wall" else cpu
    return ("<= " + digits + " x: %s (%s)") % (target, "met" if ratio <= target else "**not met**", judged_on)


SHAPE_INDEX: List[Shape] = []


def update_docs(text: str, paths: Sequence[str]) -> None:
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            content = handle.read()
        if BEGIN not in content or END not in content:
            print("%s has no %s ... %s markers: not updated" % (path, BEGIN, END))
            continue
        head, rest = content.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(head + BEGIN + "\n" + text + END + tail)
        print("updated %s" % path)


def _with_load(result: Dict, load_before: float) -> Dict:
    """The row's load averages (before, after) and CPUs, which decide whether its wall ratio can be judged."""
    result["loads"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    result["cpus"] = os.cpu_count() or 1
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of every size (development)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each tool per shape (default 3)")
    parser.add_argument("--only", help="comma-separated shape keys (default: every shape)")
    parser.add_argument("--sweep", action="store_true", help="only the id-length sweep (ids of %s bytes and "
                        "URL-like ids, one distinct id a line), e.g. on a quiet machine"
                        % ", ".join(str(n) for n in SWEEP_LENGTHS))
    parser.add_argument("--markdown", help="write the table to this file")
    parser.add_argument("--json", help="write the raw results to this file")
    parser.add_argument("--update-docs", action="store_true", help="put the table into "
                        "docs/performance.md (between %s and %s)" % (BEGIN, END))
    parser.add_argument("--from-json", help="print (and --update-docs) the table of a --json file instead of "
                        "measuring; with --only, measure those shapes and replace their rows in that file")
    parser.add_argument("--note", default="the machine is shared: compare CPU seconds where wall times disagree",
                        help="what was running beside the benchmark")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    shapes = file_shapes(scale)
    SHAPE_INDEX[:] = shapes
    chosen = set(k.strip() for k in args.only.split(",")) if args.only else None
    if args.sweep:
        chosen = (chosen or set()) | {"ids-%d" % n for n in SWEEP_LENGTHS} | {"ids-url"}
    env = installed_env()
    warm_up(env)
    trec_eval = trec_eval_o2()
    print("python %s, numpy %s, %d CPU(s); trec_eval -O2: %s" % (sys.version.split()[0], np.__version__,
                                                                os.cpu_count() or 0, trec_eval))
    load_before = os.getloadavg()
    SHAPE_INDEX[:] = shapes
    started = datetime.datetime.utcnow()
    rows: List = []
    loads = [load_before[0]]
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as handle:
            saved = json.load(handle)
        rows = [tuple(row) for row in saved["rows"] if not chosen or row[0] not in chosen]
        if not chosen:
            text = table(rows, saved["header"])
            print(text)
            if args.update_docs:
                update_docs(text, [DOCS])
            return 0
    folder = tempfile.mkdtemp(prefix="runscore-shapes-")

    def header() -> Dict:
        finished = datetime.datetime.utcnow()
        return {"date": "%s-%s UTC" % (started.strftime("%d %b %Y %H:%M"), finished.strftime("%H:%M")),
                "machine": "the project machine (%d CPUs, Python %s, numpy %s)" % (
                    os.cpu_count() or 0, sys.version.split()[0], np.__version__),
                "load": "%.0f-%.0f on 2 cores while it ran" % (min(loads), max(loads)),
                "note": args.note, "repeats": args.repeats, "quick_flag": " --quick" if args.quick else ""}

    def save() -> None:
        """The rows so far, after every shape (a long run interrupted keeps what it measured)."""
        loads.append(os.getloadavg()[0])
        if args.json:
            with open(args.json, "w", encoding="utf-8") as handle:
                json.dump({"header": header(), "rows": rows}, handle, indent=1)
        if args.markdown:
            with open(args.markdown, "w", encoding="utf-8") as handle:
                handle.write(table(rows, header()))

    try:
        for shape in shapes:
            if chosen and shape.key not in chosen:
                continue
            load = os.getloadavg()[0]
            result = bench_file_shape(shape, folder, args.repeats, env, trec_eval)
            rows.append((shape.key, shape.label, shape.kind, _with_load(result, load), shape.target))
            save()
        campaign = [key for key, _, _ in CAMPAIGN_SHAPES if not chosen or key in chosen]
        if campaign:
            load = os.getloadavg()[0]
            found = bench_campaign(folder, args.repeats, env, scale, campaign)
            for key, label, target in CAMPAIGN_SHAPES:
                if key in found:
                    shown = label % found[key]["runscore"]["runs"] if "%d" in label else label
                    rows.append((key, shown, "campaign", _with_load(found[key], load), target))
            save()
        for spec in sorted(MEMORY_SHAPES, key=lambda m: m[0] == "memory-5M"):
            if chosen and spec[0] not in chosen:
                continue
            load = os.getloadavg()[0]
            result = bench_memory_shape(spec, args.repeats, env, scale)
            rows.append((spec[0], spec[1], "memory", _with_load(result, load), spec[7]))
            save()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    text = table(rows, header())
    print("\n" + text)
    save()
    if args.update_docs:
        update_docs(text, [DOCS])
    return 0


if __name__ == "__main__":
    sys.exit(main())
