"""The constant-answer baseline of the starting kit writes a valid datasearch-qa run for every question."""
import json
import os
import subprocess
import sys

from conftest import ROOT, run_cli

SCRIPT = os.path.join(ROOT, "starting_kit", "baselines", "dsqa_constant.py")
GOLD = os.path.join(ROOT, "reference_data", "datasearch-qa", "gold_sample.jsonl")


def test_constant_run_is_valid_and_scores_as_derived(tmp_path):
    proc = subprocess.run([sys.executable, SCRIPT, GOLD, "2010"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("<SYSDESC>") and lines[0].endswith("</SYSDESC>")
    assert len(lines) == 1 + 8 and lines[1] == "DS2-QA-E-0001\t2010"
    run = tmp_path / "constant.tsv"
    run.write_text(proc.stdout, encoding="utf-8")
    code, out, err = run_cli("score", "--task", "datasearch-qa", "--ref", os.path.dirname(GOLD), run, "--json")
    assert code == 0, err
    scores = json.loads(out)["constant.tsv"]
    # Only DS2-QA-E-0003 (gold '2010') matches exactly: 1 of 8 questions, 1 of 4 English ones
    assert scores["exact_match"] == 1 / 8 and scores["exact_match_e"] == 1 / 4
    assert "warning" not in err


def test_answer_with_a_tab_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, SCRIPT, GOLD, "a\tb"], capture_output=True, text=True)
    assert proc.returncode == 2 and "TAB" in proc.stderr
