"""runscore.pytrec_eval under the libraries that import pytrec_eval by name, through register(): ir_measures'
calc_aggregate([nDCG@10, P@10, AP, R@100, RR, Judged@10]) and its pytrec_eval provider's per-query values, and
BEIR's EvaluateRetrieval.evaluate, equal to the same calls on pytrec-eval-terrier, on 200 seeded random cases
with +-inf scores. Each side runs in its own process (tests/adopter_side.py): only one module can be
`pytrec_eval` in a process. Test-only dependencies (ir_measures; beir installed without its dependencies by
`make setup`, since its evaluator needs none of them); skips when they are absent.
"""
import json
import math
import os
import subprocess
import sys

import pytest

pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")

CASES = int(os.environ.get("RUNSCORE_ADOPTER_CASES", "200"))
SIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "adopter_side.py")


def side(name):
    done = subprocess.run([sys.executable, SIDE, name, str(CASES)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def both():
    return side("terrier"), side("runscore")


def same(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def test_register_makes_ir_measures_use_runscore(both):
    theirs, ours = both
    assert theirs["provider_module"] == "pytrec_eval" and ours["provider_module"] == "runscore.pytrec_eval"


def test_ir_measures_calc_aggregate_equals_pytrec_eval_terrier(both):
    theirs, ours = both
    assert len(ours["aggregates"]) == CASES
    for seed, (want, got) in enumerate(zip(theirs["aggregates"], ours["aggregates"])):
        assert sorted(got) == sorted(want) == sorted(["nDCG@10", "P@10", "AP", "R@100", "RR", "Judged@10"])
        for name in want:
            assert same(got[name], want[name]), "seed %d %s: runscore %r, terrier %r" % (seed, name, got[name],
                                                                                        want[name])


def test_ir_measures_per_query_values_equal_pytrec_eval_terrier(both):
    theirs, ours = both
    for seed, (want, got) in enumerate(zip(theirs["per_query"], ours["per_query"])):
        assert [r[:2] for r in got] == [r[:2] for r in want], "seed %d" % seed
        for (qid, name, a), (_, _, b) in zip(want, got):
            assert same(b, a), "seed %d %s %s: runscore %r, terrier %r" % (seed, qid, name, b, a)


def test_the_cases_have_infinite_scores():
    sys.path.insert(0, os.path.dirname(SIDE))
    from adopter_side import case
    assert sum(any(math.isinf(v) for docs in case(s)[1].values() for v in docs.values()) for s in range(CASES)) \
        > CASES // 2


def test_beir_evaluate_retrieval_equals_pytrec_eval_terrier(both):
    theirs, ours = both
    if not theirs["has_beir"]:
        pytest.skip("beir is not installed (make setup installs it with --no-deps)")
    assert ours["beir"] == theirs["beir"]          # BEIR rounds to 5 digits; the dicts must be equal


def test_beir_call_pattern_per_query_equals_pytrec_eval_terrier(both):
    """BEIR's evaluator call (map_cut, ndcg_cut, recall, P at 1,3,5,10,100 in one RelevanceEvaluator) per query,
    unrounded, whether or not beir itself is installed."""
    theirs, ours = both
    for seed, (want, got) in enumerate(zip(theirs["beir_raw"], ours["beir_raw"])):
        assert list(got) == list(want), "seed %d" % seed
        for qid in want:
            assert got[qid] == want[qid], "seed %d topic %s" % (seed, qid)
