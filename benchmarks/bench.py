"""Benchmark placeholder: times `runscore score --task ntcir1-adhoc` end to end on a generated run.

The full benchmark (5M-line runs against trec_eval and pytrec-eval-terrier) is the performance issue's job;
this one only shows the command works and how long a mid-size run takes. Speed is never a unit test.
"""
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate(folder: str, topics: int = 50, docs: int = 1000, seed: int = 1) -> str:
    rng = random.Random(seed)
    with open(os.path.join(folder, "graded.qrels"), "w") as qrels:
        for t in range(1, topics + 1):
            for d in rng.sample(range(5 * docs), 60):
                qrels.write("%04d 0 d%d %s\n" % (t, d, rng.choice("AABCCC")))
    run = os.path.join(folder, "bench1")
    with open(run, "w") as out:
        for t in range(1, topics + 1):
            sims = sorted((round(rng.random(), 3) for _ in range(docs)), reverse=True)   # with ties
            for rank, (d, sim) in enumerate(zip(rng.sample(range(5 * docs), docs), sims), 1):
                out.write("%04d\t0\td%d\t%d\t%.3f\tbench1\n" % (t, d, rank, sim))
    return run


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        run = generate(folder)
        command = [sys.executable, "-m", "runscore", "score", "--task", "ntcir1-adhoc", "--ref",
                   os.path.join(folder, "graded.qrels"), run]
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
        times = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
            times.append(time.perf_counter() - start)
        times.sort()
        print("ntcir1-adhoc score, 50 topics x 1000 lines: median %.2f s over 3 runs" % times[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
