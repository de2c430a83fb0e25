"""End-to-end benchmark of the ranking path: `runscore trec_eval`, `runscore score --task ntcir1-adhoc`,
pytrec-eval-terrier and trec_eval 9.0.8 (built from ../shared by ../shared/bin/build-trec-eval, default and -O2
builds, or a binary given with --trec-eval), on generated runs of 1M, 5M and 10M lines.

Each size is measured on three forms of the same run (`--variants`): `clean` (TAB-separated, short ASCII ids),
`space` (the same lines space-separated) and `long` (one document id of 300 bytes and one id in a hundred with a
non-ASCII byte). A form that sends runscore to a slower reader shows as a ratio to `clean` well above 1 (the
target: within 1.5 x in time and memory, so that odd but valid input never falls off a cliff).

Why end to end from files: what a Codabench worker pays is reading, checking and scoring a file within its
600 s limit, so each tool runs as its own process on the same files and the wall time and peak memory of that
process are measured (os.wait4 rusage). Tools run in alternating order, several times each, and the median is
printed with the ratio of runscore to each peer. The data is seeded, so every run of this script measures the
same files. Speed is never a unit test; see docs/performance.md for the figures measured on the project machine.

    python benchmarks/bench.py                      # 1M, 5M, 10M lines, 3 repeats
    python benchmarks/bench.py --sizes 100k,1M --repeats 2 --trec-eval /path/to/trec_eval
    python benchmarks/bench.py --sizes 1M,5M --variants clean,long --repeats 2
    python benchmarks/bench.py --only memory        # runscore.pytrec_eval vs pytrec_eval on in-memory dicts
"""
import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPICS = 5000
DOCS_PER_TOPIC_AT_5M = 1000
MEASURES = ("map", "P_10", "ndcg_cut_10")

PYTREC_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
per_topic = pytrec_eval.RelevanceEvaluator(qrel, {"map", "P", "ndcg_cut"}).evaluate(run)
for m in ("map", "P_10", "ndcg_cut_10"):
    values = [v[m] for v in per_topic.values()]
    print("%-22s\\tall\\t%6.4f" % (m, sum(values) / len(values)))
"""


def parse_size(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1000, "m": 1000 * 1000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * scale)


def size_name(lines: int) -> str:
    return "%gM" % (lines / 1e6) if lines >= 1000000 else "%gk" % (lines / 1e3)


def write_qrels(path: str, seed: int = 9) -> None:
    """5,000 topics with 30-70 judged documents each, grades 0-3, drawn from each topic's document range."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as out:
        for topic in range(1, TOPICS + 1):
            judged = rng.integers(30, 71)
            docs = rng.choice(2000, size=judged, replace=False)
            grades = rng.choice(4, size=judged, p=(0.5, 0.25, 0.15, 0.10))
            out.write("".join("%04d 0 d%05d %d\n" % (topic, d, g) for d, g in zip(docs.tolist(), grades.tolist())))


def write_run(path: str, lines: int, seed: int = 1) -> None:
    """`lines` TAB-separated lines over 5,000 topics (1,000 per topic at 5M), scores with ties (3 decimals),
    sorted by topic and descending score as systems write them; valid for trec_eval and ntcir1-adhoc."""
    rng = np.random.default_rng(seed)
    per_topic = max(1, lines // TOPICS)
    run_id = os.path.basename(path)
    rank_text = ["%d" % r for r in range(1, per_topic + 1)]
    with open(path, "w") as out:
        for topic in range(1, TOPICS + 1):
            docs = rng.choice(max(2000, 2 * per_topic), size=per_topic, replace=False)
            scores = np.sort(np.round(rng.random(per_topic) * 10, 3))[::-1]
            prefix = "%04d\t0\td" % topic
            suffix = "\t" + run_id + "\n"
            out.write("".join("%s%05d\t%s\t%.3f%s" % (prefix, d, r, s, suffix)
                              for d, r, s in zip(docs.tolist(), rank_text, scores.tolist())))


def write_variant(source: str, path: str, variant: str) -> None:
    """The run of `source` as another form (see the module docstring); line for line the same records."""
    with open(source, "rb") as handle:
        data = handle.read()
    if variant == "space":
        data = data.replace(b"\t", b" ")
    elif variant == "long":
        lines = data.split(b"\n")
        for i in range(7, len(lines), 100):
            if lines[i]:
                fields = lines[i].split(b"\t")
                fields[2] += b"\xc3\xa9"
                lines[i] = b"\t".join(fields)
        middle = len(lines) // 2
        fields = lines[middle].split(b"\t")
        fields[2] = b"d" + b"x" * 299
        lines[middle] = b"\t".join(fields)
        data = b"\n".join(lines)
    with open(path, "wb") as handle:
        handle.write(data)


def shared_trec_eval() -> List[Tuple[str, str]]:
    """(name, path) of trec_eval 9.0.8 built from ../shared, default and -O2, when the build script is there."""
    script = os.path.join(ROOT, "..", "shared", "bin", "build-trec-eval")
    found = []
    if os.path.isfile(script):
        for name, extra in (("trec_eval", []), ("trec_eval -O2", ["--O2"])):
            done = subprocess.run([script, "9.0.8"] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            path = done.stdout.decode().strip().splitlines()[-1] if done.stdout.strip() else ""
            if done.returncode == 0 and os.path.isfile(path):
                found.append((name, path))
    return found


def installed_env(base: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment of a benchmarked command: runscore importable from the repository, with its bytecode kept
    (in the venv's pycache) as an installed package keeps it. Where PYTHONDONTWRITEBYTECODE is set (as on the
    project's machines) every `python -m runscore` compiled its 40 modules again, 0.14 s of CPU a process that a
    pip-installed runscore never pays (trec_eval, too, is measured compiled); the caller runs one command first
    to write the bytecode."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.path.join(ROOT, "scoring_program") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", os.path.join(ROOT, ".venv", "pycache"))
    return env


def warm_up(env: Dict[str, str]) -> None:
    """Write runscore's bytecode once (installed_env), with every module a benchmark imports."""
    subprocess.run([sys.executable, "-c", "import runscore.cli, runscore.pytrec_eval, runscore.commands.pool, "
                    "runscore.commands.report, runscore.commands.trec_eval, runscore.tasks.ntcir1_adhoc, "
                    "runscore.campaign.overview, runscore.campaign.report_files"], env=env, check=True)


def measure(command: Sequence[str], env: Dict[str, str]) -> Tuple[float, float, float, str]:
    """Wall time (s), CPU time (user + system, s), peak resident memory (MiB) and stdout of one child process.

    CPU time is printed too because on a shared machine the wall time also counts waiting for a core."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status
        err = child.stderr.read().decode("utf-8", "replace")
        child.stderr.close()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if child.returncode != 0:
        raise SystemExit("command failed (exit %s): %s\n%s" % (child.returncode, " ".join(command), err[-2000:]))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, text


def summary_values(text: str) -> Dict[str, str]:
    """`name all value` lines of trec_eval-style output."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            out[parts[0]] = parts[2]
    return out


def tools(qrels: str, run: str, trec_evals: Sequence[Tuple[str, str]], variant: str = "clean",
          pytrec: bool = True) -> List[Tuple[str, List[str]]]:
    python = sys.executable
    found = [
        ("runscore trec_eval", [python, "-m", "runscore", "trec_eval", "-m", "map", "-m", "P.10",
                                "-m", "ndcg_cut.10", qrels, run]),
    ]
    if variant != "long":       # a non-ASCII id is not a NACSIS Document-ID; trec_eval's command takes it
        found.append(("runscore score", [python, "-m", "runscore", "score", "--task", "ntcir1-adhoc", "--ref", qrels,
                                         run]))
    if pytrec and importlib.util.find_spec("pytrec_eval") is not None:
        found.append(("pytrec_eval", [python, "-c", PYTREC_SCRIPT, qrels, run]))
    for name, path in trec_evals:
        found.append((name, [path, "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", qrels, run]))
    return found


EXACT_WITHOUT_CAP = ("import sys, runscore.textfile as t; t.MAX_FILE_BYTES = 1 << 30; "
                     "from runscore.cli import main; sys.exit(main(sys.argv[1:]))")


def check_exact(qrels: str, run: str, env: Dict[str, str]) -> None:
    """Every per-topic value of the fast path equals the exact path's, at full precision (both front ends)."""
    python = sys.executable
    commands = [
        ("runscore trec_eval", [python, "-m", "runscore", "trec_eval", "-q", "--full-precision", "-m", "map", "-m",
                                "P.10", "-m", "ndcg_cut.10", "-m", "official", qrels, run]),
        ("runscore score", [python, "-m", "runscore", "score", "--task", "ntcir1-adhoc", "--ref", qrels, "--json",
                            "--per-topic", run]),
    ]
    for name, command in commands:
        outputs = []
        for switch in ("1", "0"):
            if switch == "0":       # the exact path with a 1 GiB cap instead of 128 MiB (it bounds memory)
                command = [python, "-c", EXACT_WITHOUT_CAP] + command[3:]
            outputs.append(measure(command, dict(env, RUNSCORE_FAST_PATH=switch)))
        same = outputs[0][3] == outputs[1][3]
        print("%s: fast path (%.1f s) and exact path (%.1f s, %.0f MiB) outputs %s (%d lines)" % (
            name, outputs[0][0], outputs[1][0], outputs[1][2], "IDENTICAL" if same else "DIFFER",
            outputs[0][3].count("\n")), flush=True)


def bench_size(folder: str, qrels: str, lines: int, repeats: int, trec_evals: Sequence[Tuple[str, str]],
               env: Dict[str, str], exact: bool = False, variant: str = "clean",
               pytrec: bool = True) -> Dict[str, Tuple[float, float, float]]:
    run = os.path.join(folder, "bench%s" % size_name(lines).replace(".", "_"))
    started = time.perf_counter()
    write_run(run, lines)
    if variant != "clean":
        write_variant(run, run + "_" + variant, variant)
        os.remove(run)
        run += "_" + variant
    print("\n== %s lines, %s (%d MB run file, generated in %.1f s)" % (
        size_name(lines), variant, os.path.getsize(run) // 10**6, time.perf_counter() - started), flush=True)
    found = tools(qrels, run, trec_evals, variant, pytrec)
    times: Dict[str, List[float]] = {name: [] for name, _ in found}
    cpu: Dict[str, List[float]] = {name: [] for name, _ in found}
    memory: Dict[str, float] = {name: 0.0 for name, _ in found}
    outputs: Dict[str, str] = {}
    for repeat in range(repeats):
        shift = repeat % len(found)
        for name, command in found[shift:] + found[:shift]:     # alternate which tool runs first
            wall, seconds, peak, text = measure(command, env)
            times[name].append(wall)
            cpu[name].append(seconds)
            memory[name] = max(memory[name], peak)
            outputs[name] = text
    result = {}
    for name, _ in found:
        result[name] = (statistics.median(times[name]), memory[name], statistics.median(cpu[name]))
    print("%-20s %10s %10s %10s   %s" % ("tool", "median s", "cpu s", "peak MiB", "wall of each run (s)"))
    for name, (wall, peak, seconds) in result.items():
        print("%-20s %10.2f %10.2f %10.0f   %s" % (name, wall, seconds, peak,
                                                   " ".join("%.2f" % t for t in times[name])))
    peers = ["pytrec_eval"] + [name for name, _ in trec_evals]
    for ours in ("runscore trec_eval", "runscore score"):
        for peer in peers:
            if peer in result and ours in result:
                print("%s / %s: wall time %.2f x, cpu time %.2f x, memory %.2f x" % (
                    ours, peer, result[ours][0] / result[peer][0], result[ours][2] / result[peer][2],
                    result[ours][1] / result[peer][1]))
    ours = summary_values(outputs["runscore trec_eval"])
    for peer in peers:
        if peer in outputs:
            theirs = summary_values(outputs[peer])
            same = all(ours.get(m) == theirs.get(m) for m in MEASURES)
            print("summary values of runscore trec_eval and %s %s: %s" % (
                peer, "agree" if same else "DIFFER", ", ".join("%s %s/%s" % (m, ours.get(m), theirs.get(m))
                                                             for m in MEASURES)))
    if exact:
        check_exact(qrels, run, env)
    os.remove(run)
    return result


# ------------------------------------------------------------------------------- in-memory dicts ---
# The case pytrec_eval users have: qrels and run already held as dicts. Each tool runs in its own process, which
# builds the same seeded dicts, then evaluates them once; the time and memory of the evaluation alone are measured
# in the child (the dicts themselves cost the same to every tool).

MEMORY_SCRIPT = """
import json, resource, sys, time
import numpy as np
tool, pairs = sys.argv[1], int(sys.argv[2])
if tool == "runscore":
    import runscore.pytrec_eval as pytrec_eval
else:
    import pytrec_eval
topics = max(1, pairs // 1000)
rng = np.random.default_rng(5)
qrels, run = {}, {}
for t in range(topics):
    qid = "%05d" % t
    docs = rng.choice(2000, size=1000, replace=False)
    scores = np.round(rng.random(1000) * 10, 3)
    run[qid] = {"d%05d" % d: s for d, s in zip(docs.tolist(), scores.tolist())}
    judged = rng.choice(2000, size=1000, replace=False)
    grades = rng.choice(4, size=1000, p=(0.5, 0.25, 0.15, 0.10))
    qrels[qid] = {"d%05d" % d: g for d, g in zip(judged.tolist(), grades.tolist())}
def kib():
    with open("/proc/self/status") as f:
        return int([l for l in f if l.startswith("VmRSS")][0].split()[1])
before = kib()
usage = resource.getrusage(resource.RUSAGE_SELF)
start = time.perf_counter()
result = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "ndcg_cut"}).evaluate(run)
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF)
means = {m: repr(sum(v[m] for v in result.values()) / len(result)) for m in ("map", "P_10", "ndcg_cut_10")}
print(json.dumps({"wall": wall, "cpu": after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime,
                  "peak_mib": after.ru_maxrss / 1024.0, "extra_mib": (after.ru_maxrss - before) / 1024.0,
                  "means": means}))
"""


def bench_memory(pairs: int, repeats: int, env: Dict[str, str]) -> None:
    """runscore.pytrec_eval against pytrec_eval on the same in-memory dicts: `pairs` run pairs (1,000 per topic)
    and as many judged pairs."""
    print("\n== in-memory dicts: %s run pairs, %s judged pairs (%d topics), map + P + ndcg_cut"
          % (size_name(pairs), size_name(pairs), max(1, pairs // 1000)), flush=True)
    found = ["runscore"] + (["pytrec_eval"] if importlib.util.find_spec("pytrec_eval") is not None else [])
    runs: Dict[str, List[dict]] = {name: [] for name in found}
    for repeat in range(repeats):
        shift = repeat % len(found)
        for name in found[shift:] + found[:shift]:
            out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, name, str(pairs)], env=env,
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit("in-memory benchmark of %s failed:\n%s" % (name, out.stderr[-2000:]))
            runs[name].append(json.loads(out.stdout))
    label = {"runscore": "runscore.pytrec_eval", "pytrec_eval": "pytrec_eval"}
    print("%-22s %10s %10s %12s %12s" % ("evaluator", "median s", "cpu s", "extra MiB", "peak MiB"))
    medians = {}
    for name in found:
        wall = statistics.median(r["wall"] for r in runs[name])
        cpu = statistics.median(r["cpu"] for r in runs[name])
        extra = max(r["extra_mib"] for r in runs[name])
        peak = max(r["peak_mib"] for r in runs[name])
        medians[name] = (wall, cpu, extra, peak)
        print("%-22s %10.2f %10.2f %12.0f %12.0f   (%s)" % (label[name], wall, cpu, extra, peak,
                                                          " ".join("%.2f" % r["wall"] for r in runs[name])))
    if "pytrec_eval" in medians:
        ours, theirs = medians["runscore"], medians["pytrec_eval"]
        print("runscore.pytrec_eval / pytrec_eval: wall time %.2f x, cpu time %.2f x, extra memory %.2f x"
              % (ours[0] / theirs[0], ours[1] / theirs[1], ours[2] / max(theirs[2], 1.0)))
        same = runs["runscore"][0]["means"] == runs["pytrec_eval"][0]["means"]
        print("mean map, P_10, ndcg_cut_10 %s: %s" % ("IDENTICAL" if same else "DIFFER", runs["runscore"][0]["means"]))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1M,5M,10M", help="run sizes in lines, e.g. 100k,1M (default 1M,5M,10M)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each tool per size (default 3)")
    parser.add_argument("--trec-eval", default=None, help="a trec_eval binary (default: trec_eval 9.0.8 built from "
                        "../shared, default and -O2 builds, else trec_eval on PATH)")
    parser.add_argument("--variants", default="clean,space,long", help="forms of the run (default clean,space,long)")
    parser.add_argument("--pytrec-up-to", default="10M", help="run pytrec_eval for sizes up to this (default 10M)")
    parser.add_argument("--keep", help="write the generated files to this folder and keep them")
    parser.add_argument("--exact-up-to", default="1M", help="also compare every per-topic value of the fast path "
                        "with the exact path for sizes up to this (default 1M; 0 = never)")
    parser.add_argument("--memory-sizes", default="1M,5M", help="in-memory dict sizes (run pairs) for "
                        "runscore.pytrec_eval vs pytrec_eval (default 1M,5M)")
    parser.add_argument("--only", choices=("files", "memory"), help="run only the file or the in-memory benchmark")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    env = installed_env()
    warm_up(env)
    print("python %s, numpy %s, %d CPU(s)" % (sys.version.split()[0], np.__version__, os.cpu_count() or 0))
    if args.only != "files":
        for pairs in [parse_size(s) for s in args.memory_sizes.split(",") if s.strip()]:
            bench_memory(pairs, args.repeats, env)
        if args.only == "memory":
            return 0
    if args.trec_eval:
        trec_evals = [("trec_eval", args.trec_eval)]
    else:
        trec_evals = shared_trec_eval() or ([("trec_eval", shutil.which("trec_eval"))] if shutil.which("trec_eval")
                                            else [])
    for name, path in trec_evals:
        print("%s binary: %s" % (name, path))
    if not trec_evals:
        print("trec_eval binary: none (give one with --trec-eval); ratios are to pytrec-eval-terrier only")
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    folder = args.keep or tempfile.mkdtemp(prefix="runscore-bench-")
    os.makedirs(folder, exist_ok=True)
    try:
        qrels = os.path.join(folder, "bench.qrels")
        write_qrels(qrels)
        exact_limit = parse_size(args.exact_up_to)
        pytrec_limit = parse_size(args.pytrec_up_to)
        results = {}
        for lines in sizes:
            for variant in variants:
                results[lines, variant] = bench_size(folder, qrels, lines, args.repeats, trec_evals, env,
                                                     lines <= exact_limit and variant == "clean", variant,
                                                     lines <= pytrec_limit)
        print("\n== growth (clean runs)")
        ordered = sorted(lines for lines, variant in results if variant == "clean")
        for small, big in zip(ordered, ordered[1:]):
            for name in results[small, "clean"]:
                print("%-20s %s -> %s: wall time x %.2f, cpu time x %.2f (lines x %.1f)" % (
                    name, size_name(small), size_name(big), results[big, "clean"][name][0] /
                    results[small, "clean"][name][0], results[big, "clean"][name][2] /
                    results[small, "clean"][name][2], big / small))
        print("\n== cliffs: each form against the clean run of its size (target: within 1.5 x)")
        for (lines, variant), result in sorted(results.items()):
            clean = results.get((lines, "clean"))
            if variant == "clean" or clean is None:
                continue
            for name in ("runscore trec_eval", "runscore score"):
                if name in result and name in clean:
                    print("%-20s %s %-6s wall time x %.2f, cpu time x %.2f, memory x %.2f" % (
                        name, size_name(lines), variant, result[name][0] / clean[name][0],
                        result[name][2] / clean[name][2], result[name][1] / clean[name][1]))
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
