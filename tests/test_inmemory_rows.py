"""runscore.pytrec_eval on the shapes its fast paths take, against pytrec-eval-terrier bit for bit: topics of one
size (their scores sorted as the rows of a matrix), with ties of every kind (equal scores, 0.0 beside -0.0, scores
equal only as C floats, groups of two and of more), and the values made as one array (all_trec's 0.0 for relstring,
its logs for gm_map and gm_bpref, runid and num_q)."""
import random

import numpy as np
import pytest

import runscore.pytrec_eval as ours

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")


def _case(seed, topics, size):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(topics):
        qid = "q%03d" % t
        docs = ["d%d" % i for i in range(3 * size)]
        qrels[qid] = {d: rng.choice([0, 0, 1, 2, 3, -1]) for d in rng.sample(docs, size)}
        scores = {}
        for d in rng.sample(docs, size):
            roll = rng.random()
            if roll < 0.3:
                scores[d] = rng.choice([1.0, 2.0, 0.0, -0.0])                  # ties, 0.0 beside -0.0
            elif roll < 0.4:
                scores[d] = rng.choice([1.0, 2.0]) + 1e-12                     # equal only as C floats
            else:
                scores[d] = round(rng.uniform(-3, 3), 2)
        run[qid] = scores
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("measures", [{"map", "ndcg_cut.10", "P.5"}, {"all_trec"}])
def test_topics_of_one_size_give_pytrec_evals_values(seed, measures):
    qrels, run = _case(seed, topics=1 + seed % 4 * 7, size=[1, 2, 9, 40][seed % 4])
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    found = ours.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert list(found) == list(expected)
    for topic in expected:
        assert sorted(found[topic]) == sorted(expected[topic])
        assert {k: np.float64(v).tobytes() for k, v in found[topic].items()} == \
            {k: np.float64(v).tobytes() for k, v in expected[topic].items()}, topic
