"""Prints, one a line, the exact bits (float.hex) of values computed by every kernel family of runscore on seeded
random inputs: tests/test_dispatch.py runs it under numpy's native SIMD dispatch and with the AVX-512 and AVX2
targets switched off (NPY_DISABLE_CPU_FEATURES), and the outputs must be the same, line for line.

Covered: the NTCIREVAL measures (every family) and their whole-run kernels; trec_eval's measures (all_trec,
9.0.8 and 10.0) from dicts (the in-memory kernels), from files (the columnar fast path) and line by line (the
exact path); runscore.pytrec_eval's per-topic values; the libm tables; the score parser; the suffix maximum;
R2C2's confidence measures.
"""
import os
import random
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program"))

from runscore import api  # noqa: E402
from runscore import pytrec_eval  # noqa: E402
from runscore.measures import c_numbers, confidence, vectorised  # noqa: E402
from runscore.measures.names import compute_all  # noqa: E402
from runscore.measures.ntcireval import FAMILIES, GradedRanking  # noqa: E402
from runscore.measures.vectorised_ntcir import ntcir_values  # noqa: E402
from runscore.ranking.columnar_numbers import parse_decimals  # noqa: E402


def show(label, values):
    """One line: the label and the hex of every value (nested dicts and lists flattened in their order)."""
    flat = []

    def walk(value):
        if isinstance(value, dict):
            for key in value:
                flat.append(str(key))
                walk(value[key])
        elif isinstance(value, (list, tuple, np.ndarray)):
            for item in value:
                walk(item)
        elif isinstance(value, float) or isinstance(value, np.floating):
            flat.append(float(value).hex())
        else:
            flat.append(repr(value))

    walk(values)
    print(label, " ".join(flat))


def ntcir(rng):
    names = ["%s@200" % f if m.cutoff != "none" else f for f, m in FAMILIES.items()]
    names += ["nDCG@200(logb=0)", "nDCG@200(logb=10)", "RBP@50(p=0.8)", "iRBU@50(p=0.9)"]
    for case in range(12):
        gains = (1.0, 2.0, 3.0) if case % 2 else (0.5, 1.0 / 3, 7.0)
        gains = tuple(sorted(gains))
        judged = [rng.randint(0, 3) for _ in range(rng.randint(1, 90))] + [3]
        levels = [rng.choice([0, 0, 1, 2, 3]) for _ in range(rng.randint(0, 120))]
        show("ntcireval %d" % case, compute_all(names, GradedRanking(levels, judged, gains)))
    judged = [np.array([rng.randint(0, 3) for _ in range(rng.randint(1, 60))] + [2]) for _ in range(20)]
    sizes = [rng.randint(0, 80) for _ in judged]
    grades = np.array([rng.choice([-1, 0, 1, 2, 3]) for _ in range(sum(sizes))])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    kernels = ntcir_values(grades, offsets, judged, (1.0, 2.0, 3.0),
                           ["P@10", "Hit@5", "MSnDCG@100", "nDCG@100", "nDCG@100(logb=0)", "nDCG@100(logb=10)"])
    show("vectorised_ntcir", kernels.values)


def trec(rng, folder):
    qrels, run = {}, {}
    for t in range(30):
        topic = "q%d" % t
        docs = ["d%d" % d for d in rng.sample(range(400), rng.randint(1, 120))]
        qrels[topic] = {d: rng.choice([0, 0, 1, 2, 3, -1]) for d in docs[:rng.randint(1, len(docs))]}
        pool = docs + ["u%d" % d for d in range(rng.randint(0, 60))]
        run[topic] = {d: rng.choice([1.0, 0.5, rng.random(), float(rng.randint(0, 9))]) for d in pool}
    qrels_path, run_path = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    with open(qrels_path, "w") as handle:
        handle.writelines("%s 0 %s %d\n" % (t, d, g) for t, docs in qrels.items() for d, g in docs.items())
    with open(run_path, "w") as handle:
        handle.writelines("%s Q0 %s 0 %r r\n" % (t, d, s) for t, docs in run.items() for d, s in docs.items())
    for version in ("9.0.8", "10.0"):
        show("trec_eval dicts %s" % version, api.trec_eval(qrels, run, ["all_trec"], version=version)["per_topic"])
        for fast in ("1", "0"):
            os.environ["RUNSCORE_FAST_PATH"] = fast
            found = api.trec_eval(qrels_path, run_path, ["all_trec"], version=version, complete=True)
            show("trec_eval files %s fast=%s" % (version, fast), [found["per_topic"], found["all"]])
    measures = {"map", "gm_map", "ndcg_cut", "iprec_at_recall", "bpref", "recip_rank", "P", "ndcg", "Rprec"}
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    # (not its compute_aggregated_measure: that is pytrec_eval's own np.mean and np.exp, kept so that the summaries
    # equal pytrec_eval's on the same machine; np.exp's bits depend on the CPU there as in pytrec_eval)
    show("pytrec_eval", per_topic)


def numbers(rng):
    show("log2 table", c_numbers.log2_discounts(3000))
    show("log table", c_numbers.log_table(3000))
    show("power tables", [c_numbers.power_table(p, 3000) for p in (0.5, 0.8, 0.95, 0.99)])
    texts = ["%d.%0*d" % (rng.randint(0, 10 ** 6), rng.randint(1, 8), rng.randint(0, 10 ** 7)) for _ in range(3000)]
    buf = np.frombuffer(" ".join(texts).encode(), dtype=np.uint8)
    starts = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]])
    show("decimals", parse_decimals(buf, starts, starts + np.array([len(t) for t in texts])))
    values = np.array([rng.choice([0.5, -0.0, 0.0, -1.0, float("nan"), rng.random()]) for _ in range(500)])
    segment = np.sort(np.array([rng.randint(0, 40) for _ in range(500)]))
    show("suffix max", vectorised._suffix_max(values, segment, 41))
    correct = [rng.randint(0, 1) for _ in range(700)]
    show("confidence", confidence.confidence_measures(correct, [rng.randint(0, 100) for _ in correct]))


def main():
    rng = random.Random(20261127)
    ntcir(rng)
    with tempfile.TemporaryDirectory() as folder:
        trec(rng, folder)
    numbers(rng)


if __name__ == "__main__":
    main()
