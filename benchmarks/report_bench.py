"""Benchmark of `runscore report` on a campaign of 100 runs x 100 topics with B = 10,000 Tukey HSD trials.

Why: an overview of a big campaign must come in under a minute on one core (Discpower took days at B = 1000 on
big matrices, which keeps organisers from testing every pair). A seeded NTCIR-1 campaign (50 teams x 2 runs, 100 topics, 100 documents per ranking, qrels
from the depth-20 pool; tests/campaign_sim.py) is reported by `runscore report` as its own process, pinned to one
CPU where the OS allows it, with --pool-depth 20 (so judged@k and leave-one-team-out run too) and the default
B = 10,000 and 1,000 tau bootstrap samples. The wall time of the whole command and of the Tukey HSD alone (the same
100 x 100 matrix, in process) are printed. Figures: docs/performance.md.

    python benchmarks/report_bench.py                       # 100 runs x 100 topics, B = 10,000
    python benchmarks/report_bench.py --teams 10 --topics 50 --trials 1000
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))

from campaign_sim import ntcir1_campaign      # noqa: E402  (after the path is set)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import installed_env, warm_up       # noqa: E402


def timed(command):
    """(wall, user + system CPU seconds) of a command run as its own process on one CPU (the machine may be shared:
    CPU time is the figure that does not depend on other jobs)."""
    env = dict(installed_env(), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    pin = (lambda: os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})) \
        if hasattr(os, "sched_setaffinity") else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          preexec_fn=pin)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--runs-per-team", type=int, default=2)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--pool-depth", type=int, default=20)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="runscore-report-bench-")
    warm_up(installed_env())
    try:
        runs, ref, _ = ntcir1_campaign(folder, teams=args.teams, runs_per_team=args.runs_per_team,
                                       topics=args.topics, docs=300, run_length=100, judged_depth=args.pool_depth,
                                       seed=25)
        command = [sys.executable, "-m", "runscore", "report", "--task", "ntcir1-adhoc", "--ref", ref,
                   "--pool-depth", str(args.pool_depth), "--trials", str(args.trials), runs, "-o",
                   os.path.join(folder, "out")]
        runs_count = args.teams * args.runs_per_team
        files = [os.path.join(runs, name) for name in sorted(os.listdir(runs))]
        baseline = [sys.executable, "-m", "runscore", "score", "--task", "ntcir1-adhoc", "--ref", ref, "--json"] + files
        wall, cpu = timed(baseline)
        print("runscore score (the same runs, for comparison): %.1f s wall, %.1f s CPU" % (wall, cpu))
        wall, cpu = timed(command)
        print("runscore report: %d runs x %d topics, B = %d, pool depth %d: %.1f s wall, %.1f s CPU (one CPU)"
              % (runs_count, args.topics, args.trials, args.pool_depth, wall, cpu))

        import numpy as np
        from runscore import compare

        values = np.random.default_rng(25).random((args.topics, runs_count))
        start, cpu = time.perf_counter(), time.process_time()
        compare.randomised_tukey_hsd(values, args.trials, 0)
        print("randomised Tukey HSD alone (in process, %d topics x %d runs, B = %d): %.1f s wall, %.1f s CPU"
              % (args.topics, runs_count, args.trials, time.perf_counter() - start, time.process_time() - cpu))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
