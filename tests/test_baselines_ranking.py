"""starting_kit/baselines/ranking_shuffle.py: the shipped random re-ranking baselines are what the script makes,
valid runs of their task, and hold exactly the documents of the run they came from (only the order changes)."""
import contextlib
import io
import os
import sys

import pytest

from conftest import ROOT, run_cli

BASELINES = os.path.join(ROOT, "starting_kit", "baselines")
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
sys.path.insert(0, BASELINES)
import ranking_shuffle  # noqa: E402

CASES = [  # (task, source run, argv after the source, shipped file)
    ("ntcir1-adhoc", "ntcir1-adhoc/ntc1", ["--run-id", "shuf0"], "ntcir1-adhoc/shuf0"),
    ("temporalia-tir", "temporalia-tir/tir_sample", ["--run-id", "sample_shuffled"], "temporalia-tir/tir_sample"),
]


def _make(task, source, argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert ranking_shuffle.main(["--task", task, os.path.join(SAMPLES, source)] + argv) == 0
    return out.getvalue()


@pytest.mark.parametrize("task,source,argv,shipped", CASES, ids=[c[0] for c in CASES])
def test_shipped_baseline_is_reproduced(task, source, argv, shipped):
    with open(os.path.join(BASELINES, shipped), encoding="utf-8") as handle:
        assert _make(task, source, argv) == handle.read()


@pytest.mark.parametrize("task,source,argv,shipped", CASES, ids=[c[0] for c in CASES])
def test_baseline_is_valid_and_keeps_the_documents(task, source, argv, shipped):
    code, out, err = run_cli("validate", "--task", task, "--ref", os.path.join(ROOT, "reference_data", task),
                             os.path.join(BASELINES, shipped))
    assert code == 0 and ": error:" not in err, err
    if task == "ntcir1-adhoc":
        before = ranking_shuffle.read_ntcir1(os.path.join(SAMPLES, source))
        after = ranking_shuffle.read_ntcir1(os.path.join(BASELINES, shipped))
    else:
        before = ranking_shuffle.read_tir(os.path.join(SAMPLES, source))[0]
        after = ranking_shuffle.read_tir(os.path.join(BASELINES, shipped))[0]
    assert list(after) == list(before)
    assert all(sorted(after[t]) == sorted(before[t]) for t in before)
    assert any(after[t] != before[t] for t in before)          # the order did change


def test_other_seed_other_order():
    task, source, argv, _ = CASES[0]
    assert _make(task, source, argv + ["--seed", "1"]) != _make(task, source, argv)
