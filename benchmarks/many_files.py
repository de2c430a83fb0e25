"""Benchmark of submissions with many files: score.py on N = 100, 1,000 and 10,000 tiny run files.

Why: hostile testing found submissions whose cost grew with the square of their file count (every pair of runs
compared; every PR run re-parsed for every AC run beside it), so that a 200 KB submission could pass
Codabench's 600 s limit. This measures score.py as Codabench runs it, as its own process on the shipped sample
reference data, for two tasks: ntcir1-adhoc (tiny NACSIS runs) and r2c2-ac (tiny AC runs of distinct teams
beside one PR run they all cite, reference option unlabelled_runs: auto_only). Two settings:

* as shipped: the per-submission cap (tasks.base.MAX_RUNS_PER_SUBMISSION) rejects N > 100 after checking every
  file, so N = 1,000 and 10,000 measure discovery and checking;
* cap lifted: every run is checked, scored and reported (the comparison section stays bounded to the 10 best),
  which shows the cost per file an organiser raising the cap would pay.

The cost per file must stay flat from N = 100 to 10,000 (linear growth). Figures: docs/performance.md.

    python benchmarks/many_files.py                 # N = 100, 1000, 10000, both settings
    python benchmarks/many_files.py --sizes 100,1000 --tasks r2c2-ac
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")

# score.py's main with the per-submission cap lifted (the "cap lifted" setting)
LIFTED = """
import sys
sys.path.insert(0, %r)
from runscore.tasks import all_tasks
from runscore.codabench.entry import main
for task in all_tasks():
    task.max_runs_per_submission = None
sys.exit(main(["score.py"] + sys.argv[1:]))
""" % os.path.join(ROOT, "scoring_program")

NTCIR_LINES = "0031\t0\tgakkai-0005506228\t1\t9999\t%s\n0031\t0\tgakkai-0008989020\t2\t9997\t%s\n"
AC_RUN = "<D0001>Mira Okonkwo;%d\n1;SAMPLE-PG-1;1;a nugget\n</D0001>\n<D0004>Biscuit;60\n</D0004>\n"


def make_input(folder: str, task_id: str, n: int) -> str:
    input_dir = os.path.join(folder, "input-%s-%d" % (task_id, n))
    res = os.path.join(input_dir, "res")
    os.makedirs(res)
    ref = os.path.join(input_dir, "ref")
    shutil.copytree(os.path.join(ROOT, "reference_data", task_id), ref)
    if task_id == "ntcir1-adhoc":
        for k in range(n):
            name = "run%05d" % k
            with open(os.path.join(res, name), "w", encoding="utf-8") as handle:
                handle.write(NTCIR_LINES % (name, name))
    else:
        with open(os.path.join(ref, "task.yaml"), encoding="utf-8") as handle:
            text = handle.read().replace("  unlabelled_runs: error", "  unlabelled_runs: auto_only")
        with open(os.path.join(ref, "task.yaml"), "w", encoding="utf-8") as handle:
            handle.write(text)
        shutil.copyfile(os.path.join(SAMPLES, "r2c2-ac", "SAMPLE-PG-1.txt"), os.path.join(res, "SAMPLE-PG-1.txt"))
        for k in range(n - 1):       # with the PR run, n files
            with open(os.path.join(res, "T%05d-AC-1" % k), "w", encoding="utf-8") as handle:
                handle.write(AC_RUN % (k % 101))
    return input_dir


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import installed_env, warm_up   # noqa: E402

ENV = installed_env()


def run(command: Sequence[str]) -> Tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak MiB and exit code of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(list(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
    return wall, usage.ru_utime + usage.ru_stime, int(usage.ru_maxrss / 1024), code


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="numbers of files (default 100,1000,10000)")
    parser.add_argument("--tasks", default="ntcir1-adhoc,r2c2-ac", help="tasks (default ntcir1-adhoc,r2c2-ac)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    folder = tempfile.mkdtemp(prefix="runscore-many-")
    warm_up(ENV)
    print("\n== many files: score.py on N tiny run files (wall s, CPU s, peak MiB, exit code, ms per file)")
    print("%-14s %-10s %7s %8s %8s %8s %5s %9s" % ("task", "setting", "N", "wall s", "CPU s", "peak MiB", "exit",
                                                   "ms/file"))
    results: Dict[Tuple[str, str], Dict[int, float]] = {}
    try:
        for task_id in [t for t in args.tasks.split(",") if t]:
            for n in sizes:
                input_dir = make_input(folder, task_id, n)
                for setting, program in (("shipped", [os.path.join(ROOT, "scoring_program", "score.py")]),
                                         ("cap lifted", ["-c", LIFTED])):
                    out = os.path.join(folder, "out-%s-%d-%s" % (task_id, n, setting.replace(" ", "")))
                    wall, cpu, peak, code = run([sys.executable] + program + [input_dir, out])
                    results.setdefault((task_id, setting), {})[n] = wall
                    print("%-14s %-10s %7d %8.2f %8.2f %8d %5d %9.2f" % (task_id, setting, n, wall, cpu, peak, code,
                                                                      1000 * wall / n))
                    shutil.rmtree(out, ignore_errors=True)
                shutil.rmtree(input_dir, ignore_errors=True)
        print("\n== growth (x10 files each step; linear = x10)")
        for (task_id, setting), walls in results.items():
            ordered = sorted(walls)
            print("%-14s %-10s %s" % (task_id, setting, ", ".join(
                "%d -> %d: x %.1f" % (a, b, walls[b] / walls[a]) for a, b in zip(ordered, ordered[1:]))))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
