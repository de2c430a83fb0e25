"""runscore.pytrec_eval under the libraries that import pytrec_eval by name, through register(): ir_measures'
calc_aggregate([nDCG@10, P@10, AP, R@100, RR, Judged@10]) and its pytrec_eval provider's per-query values, and
BEIR's EvaluateRetrieval.evaluate, equal to the same calls on pytrec-eval-terrier, on seeded random cases
with +-inf scores (RUNSCORE_ADOPTER_CASES: 40 in `make test`, 200 in `make fuzz-ci`). Each side runs in its own process (tests/adopter_side.py): only one module can be
`pytrec_eval` in a process. Test-only dependencies (ir_measures; beir installed without its dependencies by
`make setup`, since its evaluator needs none of them); skips when they are absent.
"""
import importlib.util
import json
import math
import os
import subprocess
import sys

import pytest

pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")

CASES = int(os.environ.get("RUNSCORE_ADOPTER_CASES", "40"))  # 200 in make fuzz-ci
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


# ----------------------------------------------------------------- register() not taken: a warning says so ---

SCENARIO = r"""
import json, sys, warnings
warnings.simplefilter("always")
scenario = sys.argv[1]
steps = scenario.split(", ")


class NoPytrecEval:
    "pytrec-eval-terrier not installed (the --no-deps set-up)"
    def find_spec(self, name, path=None, target=None):
        if name == "pytrec_eval":
            raise ModuleNotFoundError("No module named 'pytrec_eval'", name=name)


caught = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if scenario == "ir_measures first, register late":
        import ir_measures
        ir_measures.calc_aggregate([ir_measures.RR], {"q": {"a": 1}}, {"q": {"a": 1.0}})
        import runscore.pytrec_eval
        runscore.pytrec_eval.register()
    elif scenario == "beir first, register late":
        import beir.retrieval.evaluation
        import runscore.pytrec_eval
        runscore.pytrec_eval.register()
    else:
        import runscore.pytrec_eval
        if "no pytrec_eval" in steps:
            sys.meta_path.insert(1, NoPytrecEval())
        if "register" in steps:
            runscore.pytrec_eval.register()
        if "beir" in steps:
            import beir.retrieval.evaluation
        else:
            import ir_measures
            ir_measures.calc_aggregate([ir_measures.RR], {"q": {"a": 1}}, {"q": {"a": 1.0}})
            provider = ir_measures.providers.registry["pytrec_eval"]
            caught.append(type("Provider", (), {"message": "provider available: %s, %s" % (
                provider._is_available, getattr(provider.pytrec_eval, "__name__", None)), "category": str}))
print(json.dumps([[getattr(w.category, "__name__", ""), str(w.message)] for w in caught]))
"""


def scenario(name):
    """The warnings of one scenario, run in a fresh interpreter (what is imported first is the point)."""
    code = os.path.join(os.path.dirname(os.path.dirname(SIDE)), "scoring_program")
    done = subprocess.run([sys.executable, "-c", SCENARIO, name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, env=dict(os.environ, PYTHONPATH=code))
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return [(category, message) for category, message in json.loads(done.stdout)]


def test_ir_measures_importing_pytrec_eval_before_register_is_warned_about():
    found = scenario("ir_measures, no register")
    assert ("NotRegisteredWarning", "ir_measures.providers.pytrec_eval_provider imports pytrec_eval, but "
            "runscore.pytrec_eval.register() has not been called: it gets pytrec-eval-terrier, not runscore's. Call "
            "register() first, or install the stand-in (docs/python-api.md)") in found
    assert found[-1][1] == "provider available: True, pytrec_eval"


def test_ir_measures_falling_back_silently_without_pytrec_eval_is_warned_about():
    """The --no-deps set-up without register(): ir_measures finds no pytrec_eval and silently computes with its
    other providers (other numbers); the warning is the only sign."""
    found = scenario("no pytrec_eval, ir_measures")
    assert any(c == "NotRegisteredWarning" and "no pytrec_eval is installed, so ir_measures fails or, for "
               "ir_measures, silently computes with its other providers" in m for c, m in found), found
    assert found[-1][1] == "provider available: False, None"


def test_register_in_time_leaves_nothing_to_warn_about():
    for name in ("register, ir_measures", "no pytrec_eval, register, ir_measures"):
        found = scenario(name)
        assert found == [("str", "provider available: True, runscore.pytrec_eval")], (name, found)


def test_register_after_ir_measures_computed_or_beir_imported_says_what_keeps_another():
    found = scenario("ir_measures first, register late")
    assert len(found) == 1 and found[0][0] == "NotRegisteredWarning"
    assert "register() came too late: pytrec_eval (" in found[0][1] and "ir_measures computes with pytrec_eval " \
        "from" in found[0][1]
    if importlib.util.find_spec("beir") is None:
        pytest.skip("beir is not installed (make setup installs it with --no-deps)")
    found = scenario("beir first, register late")
    assert len(found) == 1 and "beir.retrieval.evaluation holds pytrec_eval from" in found[0][1]
    found = scenario("beir, no register")
    assert len(found) == 1 and found[0][1].startswith("beir.retrieval.evaluation imports pytrec_eval, but")
