"""The majority-class baseline of the starting kit: its choice of class, and that its output is a valid run."""
import importlib.util
import os
import subprocess
import sys

from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "starting_kit", "baselines", "tqic_majority.py")


def load():
    spec = importlib.util.spec_from_file_location("tqic_majority", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_majority_class_and_ties():
    baseline = load()
    # 'Recent' and 'recency' are one class: recency 3, past 2 -> recency
    assert baseline.majority_class(["Recent", "recency", "past", "Past", "RECENT"]) == "recency"
    # tie past 1 / future 1: the first of past, recency, future, atemporal wins
    assert baseline.majority_class(["future", "past"]) == "past"
    # unlabelled and unknown labels are not counted
    assert baseline.majority_class([None, "present", "atemporal"]) == "atemporal"


def test_output_is_a_valid_run_scoring_the_majority_share(tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("id\tclass\n1\tFuture\n2\tfuture\n3\tpast\n", encoding="utf-8")
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tclass\n101\tfuture\n102\tpast\n103\tRecent\n104\tfuture\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, SCRIPT, str(train), str(gold), "grp"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["id\tclass\tgroup_id\trun_id", "101\tfuture\tgrp\tgrp_majority"]
    run = tmp_path / "tqic_grp"
    run.write_text(proc.stdout, encoding="utf-8")
    code, out, err = run_cli("score", "--task", "temporalia-tqic", "--ref", gold, run, "--json")
    assert code == 0, err
    assert '"accuracy": 0.5' in out          # future is the gold class of 2 of the 4 test queries


def test_bad_usage_exits_2(tmp_path):
    proc = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
    assert proc.returncode == 2 and "Usage" in proc.stderr
    empty = tmp_path / "empty.tsv"
    empty.write_text("id\tclass\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, SCRIPT, str(empty), str(empty), "g"], capture_output=True, text=True)
    assert proc.returncode == 2 and "no labelled query" in proc.stderr
