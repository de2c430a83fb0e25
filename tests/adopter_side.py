"""One side of tests/test_pytrec_eval_adopters.py, run in a child process: ir_measures' calc_aggregate and
iter_calc and BEIR's EvaluateRetrieval.evaluate on seeded random cases, printed as JSON.

`python adopter_side.py runscore N` calls runscore.pytrec_eval.register() first, so that `import pytrec_eval`
in ir_measures and BEIR gives runscore's module; `... terrier N` leaves pytrec-eval-terrier in place. Both can
never be `pytrec_eval` in one process, hence the two children.
"""
import json
import math
import random
import sys


def case(seed):
    """Qrels and a run as BEIR and ir_measures users hold them: graded judgements (some negative), ties,
    documents on one side only, and +-inf scores (models produce them)."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(rng.randint(1, 5)):
        qid = "q%d" % t
        docs = ["d%d" % i for i in range(rng.randint(1, 120))]
        qrels[qid] = {d: rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        if rng.random() < 0.9:
            scores = {}
            for d in rng.sample(docs + ["x%d" % i for i in range(20)], rng.randint(1, len(docs))):
                roll = rng.random()
                scores[d] = (rng.choice([math.inf, -math.inf]) if roll < 0.1 else rng.choice([0.5, 1.0, 2.0])
                             if roll < 0.4 else round(rng.uniform(-3, 3), rng.choice([1, 4, 9])))
            run[qid] = scores
    if not run:
        run["q0"] = {"d0": 1.0}
    return qrels, run


def main(side, count):
    import warnings
    warnings.simplefilter("ignore")             # runscore warns about the infinite scores
    if side == "runscore":
        import runscore.pytrec_eval
        runscore.pytrec_eval.register()
    import pytrec_eval
    import ir_measures
    from ir_measures import AP, P, RR, Judged, R, nDCG
    measures = [nDCG @ 10, P @ 10, AP, R @ 100, RR, Judged @ 10]
    out = {"module": pytrec_eval.__name__, "aggregates": [], "per_query": [], "beir": [], "beir_raw": []}
    try:
        from beir.retrieval.evaluation import EvaluateRetrieval
    except ImportError:
        EvaluateRetrieval = None
    for seed in range(count):
        qrels, run = case(seed)
        out["aggregates"].append({str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()})
        out["per_query"].append(sorted((m.query_id, str(m.measure), m.value)
                                       for m in ir_measures.pytrec_eval.iter_calc(measures[:5], qrels, run)))
        # BEIR's call pattern (EvaluateRetrieval.evaluate) unrounded: one evaluator, four parameterised measures
        ks = [1, 3, 5, 10, 100]
        strings = {"%s.%s" % (m, ",".join(map(str, ks))) for m in ("map_cut", "ndcg_cut", "recall", "P")}
        out["beir_raw"].append(pytrec_eval.RelevanceEvaluator(qrels, strings).evaluate(run))
        if EvaluateRetrieval is not None:
            out["beir"].append(EvaluateRetrieval.evaluate(qrels, {q: dict(d) for q, d in run.items()},
                                                          [1, 3, 5, 10, 100]))
    # the provider ir_measures used is the module `import pytrec_eval` gives (no silent fallback)
    out["provider_module"] = ir_measures.pytrec_eval.pytrec_eval.__name__
    out["has_beir"] = EvaluateRetrieval is not None
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
