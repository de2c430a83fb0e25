"""`runscore pool`: submissions in, the sheet and statistics out; invalid runs refused with the task's messages."""
import json
import os
import zipfile

import pytest

from conftest import ROOT
from runscore.campaign.sheet import read_sheet
from runscore.cli import main

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")


def tir_file(folder, group, runs, subtopics=("001p", "001a"), docs=6, shift=0):
    lines = []
    for n in runs:
        for s in subtopics:
            for rank in range(1, docs + 1):
                lines.append("%s\t%d\tD%d\t%s\t%s_run%d" % (s, rank, (rank + n + shift) % 9, group, group, n))
    path = os.path.join(folder, "tir_%s" % group)
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def test_pool_sheet_columns_order_and_stats(tmp_path, capsys):
    a = tir_file(str(tmp_path), "ga", [1, 2, 3])
    b = tir_file(str(tmp_path), "gb", [1], shift=1)
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "3", a, b, "-o", out, "--order", "ntcirpool"]) == 0
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert columns == ["topic", "item", "runs", "rank_sum", "best_rank", "run_names", "label"]
    assert all(r.values["label"] == "" for r in rows)
    for topic in ("001p", "001a"):
        mine = [r.values for r in rows if r.values["topic"] == topic]
        keys = [(-int(v["runs"]), int(v["rank_sum"]), v["item"]) for v in mine]
        assert keys == sorted(keys)          # NTCIRPOOL order
    stats = json.load(open(os.path.join(out, "pool_stats.json")))
    assert stats["depth"] == 3 and [r["run"] for r in stats["runs"]] == ["ga_run1", "ga_run2", "ga_run3", "gb_run1"]
    assert sum(stats["items_per_topic"].values()) == len(rows)
    assert set(stats["unique_per_team"]) == {"ga", "gb"}
    assert "pooled 4 run(s) of 2 team(s)" in capsys.readouterr().out


def test_runs_per_team_keeps_the_lowest_run_numbers(tmp_path):
    a = tir_file(str(tmp_path), "ga", [3, 1, 2])
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "2", "--runs-per-team", "2", a, "-o", out]) == 0
    stats = json.load(open(os.path.join(out, "pool_stats.json")))
    assert [r["run"] for r in stats["runs"]] == ["ga_run1", "ga_run2"]


def test_codabench_download_zips_later_submission_wins_and_owner_is_the_team(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    run = "0031\t0\tgakkai-1\t1\t9\tntc1\n0031\t0\tgakkai-2\t2\t8\tntc1\n"
    newer = "0031\t0\tgakkai-3\t1\t9\tntc1\n"
    for number, text in ((12, run), (15, newer)):
        with zipfile.ZipFile(str(tmp_path / ("%d_alice_PhaseId3_2026-05-01:10-22_sub.zip" % number)), "w") as z:
            z.writestr("ntc1", text)
    out = str(tmp_path / "pool")
    zips = sorted(str(p) for p in tmp_path.glob("*.zip"))[::-1]     # order of arguments does not matter
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "5"] + zips + ["-o", out]) == 0
    _, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert [r.values["item"] for r in rows] == ["gakkai-3"]
    assert "replaces" in capsys.readouterr().err
    stats = json.load(open(os.path.join(out, "pool_stats.json")))
    assert stats["runs"][0]["team"] == "alice"     # a submission is one team's: its Codabench owner


def test_invalid_run_is_refused_with_its_message_and_nothing_written(tmp_path, capsys):
    bad = tmp_path / "ntc2"
    bad.write_text("0031\t0\tgakkai-1\t1\tabc\tntc2\n")
    good = os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "5", good, str(bad), "-o", out]) == 1
    err = capsys.readouterr().err
    assert "%s:1: error: Similarity-value" % bad in err
    assert not os.path.exists(out)
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "5", good, str(bad), "-o", out,
                 "--skip-invalid"]) == 0
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "5", good, "-o", out]) == 2   # no second pool


def test_team_cap_of_the_task_applies(tmp_path, capsys):
    a = tir_file(str(tmp_path), "ga", [1, 2, 3, 4])      # Temporalia allows 3 runs per group
    assert main(["pool", "--task", "temporalia-tir", "--depth", "2", a, "-o", str(tmp_path / "p")]) == 0
    assert "run ga_run4 of ga left out: ga (the team its runs name) sent 4 runs of temporalia-tir and at most 3 " \
           "are taken (kept: ga_run1, ga_run2, ga_run3" in capsys.readouterr().err
    stats = json.load(open(str(tmp_path / "p" / "pool_stats.json")))
    assert [r["run"] for r in stats["runs"]] == ["ga_run1", "ga_run2", "ga_run3"]
    assert any("ga_run4" in line for line in stats["left_out_or_replaced"])


@pytest.mark.parametrize("argv", [["--task", "temporalia-tir", "x", "-o", "y"],
                                  ["--task", "nope", "--depth", "2", "x", "-o", "y"],
                                  ["--task", "temporalia-tir", "--depth", "0", "missing", "-o", "y"]])
def test_bad_usage_is_exit_2(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(str(tmp_path))
    assert main(["pool"] + argv) == 2


def test_r2c2_ac_units_and_pr_text(tmp_path):
    out = str(tmp_path / "ac")
    assert main(["pool", "--task", "r2c2-ac", os.path.join(SAMPLES, "r2c2-ac"), "-o", out]) == 0
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert columns == ["topic", "item", "runs", "unit", "run_names", "text_sha1", "text", "passage", "label"]
    units = {r.values["unit"] for r in rows}
    assert units == {"answer", "nugget"}
    # no official PR runs given: the submission's own PR run stays beside its AC run, with its receipt
    assert os.listdir(os.path.join(out, "pr_runs")) == []
    assert sorted(os.listdir(os.path.join(out, "runs", "001"))) == ["SAMPLE-AC-1", "SAMPLE-PG-1.txt"]
    companions = open(os.path.join(out, "companions.tsv"), encoding="utf-8").read().split("\n")
    assert companions[1].split("\t")[1:5:3] == ["SAMPLE-PG-1.txt", "runs/001/SAMPLE-PG-1.txt"]
    out = str(tmp_path / "pr")
    assert main(["pool", "--task", "r2c2-pr", "--depth", "20", os.path.join(SAMPLES, "r2c2-pr"), "-o", out]) == 0
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert "text" in columns and all(r.values["text"] for r in rows)
