"""`runscore r2c2-qrels`: PR qrels derived from AC nugget labels (entailed / relevant modes, binary, run_rank
keys, aliases, `.txt` run names, repeated NuggetNum lines counted per line), and a round trip into r2c2-pr."""
import os

import pytest

from runscore.cli import main
from runscore.tasks.r2c2.pr_format import key_text, passage_key


@pytest.fixture
def cli(capsys):
    """Run the CLI in-process (a subprocess per call would make these tests slow): (exit code, stdout, stderr)."""
    def call(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return call

PR_1 = "0001;1;d1;alpha passage\n0001;2;d2;beta; passage\n0002;1;d3;gamma\n"
PR_2 = "0001;1;d2;beta;  passage\n0001;2;d9;delta\n"       # its rank 1 is PR_1's rank 2 (same content)
AC_1 = ("<D0001>Answer one;90\n"
        "1;ORG-PO-1;1;nugget from alpha\n"
        "2;Organisers Team-PO-1;2;nugget from beta\n"     # display name -> ORG-PO-1 via the alias table
        "2;X-PG-2.txt;1;same nugget cited from X's rank 1\n"  # NuggetNum repeated: one more citation
        "3;X-PG-2;2;nugget from delta, not entailed\n"
        "</D0001>\n"
        "<D002>\nAnswer two;10\n1;ORG-PO-1;1;gamma nugget\n4;NOPE-PO-1;1;cites an unknown run\n</D002>\n")
LABELS = ("run_id\tqID\tNuggetNum\tentailed\trelevant\n"
          "TEAM-AC-1\t0001\t1\t1\t1\n"
          "TEAM-AC-1\t0001\t2\t1\t0\n"
          "TEAM-AC-1\t0001\t3\t0\t0\n"
          "TEAM-AC-1\t0002\t1\t1\t0\n"
          "TEAM-AC-1\t0002\t4\t1\t0\n")


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("ORG-PO-1", PR_1), ("X-PG-2.txt", PR_2), ("TEAM-AC-1", AC_1), ("labels.tsv", LABELS),
                       ("aliases.tsv", "Organisers Team-PO-1\tORG-PO-1\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths[name] = str(tmp_path / name)
    return paths


def _qrels(cli, files, *extra):
    code, out, err = cli("r2c2-qrels", "--pr", files["ORG-PO-1"], files["X-PG-2.txt"], "--ac",
                             files["TEAM-AC-1"], "--labels", files["labels.tsv"], "--aliases", files["aliases.tsv"],
                             *extra)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "qID\tpassage_key\tlevel"
    return {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in lines[1:]}, err


def _k(qid, doc, text):
    return (qid, key_text(passage_key(qid, doc, text)))


def test_entailed_mode_counts_every_entailed_citation(cli, files):
    qrels, err = _qrels(cli, files)
    assert qrels == {
        _k("0001", "d1", "alpha passage"): "L1",           # nugget 1
        _k("0001", "d2", "beta; passage"): "L2",           # nugget 2 twice (ORG rank 2, X rank 1 = same content)
        _k("0001", "d9", "delta"): "L0",                   # nugget 3 not entailed
        _k("0002", "d3", "gamma"): "L1",
    }
    assert "TEAM-AC-1:10: nugget 4 cites NOPE-PO-1;1, which no PR run has for question 0002; not counted" in err


def test_relevant_mode_and_binary(cli, files):
    qrels, _ = _qrels(cli, files, "--mode", "relevant")
    assert {k: v for k, v in qrels.items() if v != "L0"} == {_k("0001", "d1", "alpha passage"): "L1"}
    qrels, _ = _qrels(cli, files, "--binary")
    assert qrels[_k("0001", "d2", "beta; passage")] == "L1"


def test_run_rank_keys(cli, files):
    qrels, _ = _qrels(cli, files, "--key-mode", "run_rank")
    assert {k: v for k, v in qrels.items() if v != "L0"} == {
        ("0001", "ORG-PO-1::1"): "L1", ("0001", "ORG-PO-1::2"): "L1", ("0001", "X-PG-2::1"): "L1",
        ("0002", "ORG-PO-1::1"): "L1"}


def test_derived_qrels_feed_the_pr_task(cli, files, tmp_path):
    out = tmp_path / "ref"
    out.mkdir()
    code, _, err = cli("r2c2-qrels", "--pr", files["ORG-PO-1"], files["X-PG-2.txt"], "--ac", files["TEAM-AC-1"],
                           "--labels", files["labels.tsv"], "--aliases", files["aliases.tsv"], "-o",
                           str(out / "qrels.tsv"))
    assert code == 0, err
    (out / "task.yaml").write_text("task: r2c2-pr\nqrels: qrels.tsv\n", encoding="utf-8")
    code, stdout, err = cli("score", "--task", "r2c2-pr", "--ref", str(out), files["X-PG-2.txt"], "--json",
                                "--per-topic")
    assert code == 0, err
    # X-PG-2 on 0001: levels 2 (d2/beta), 0 (delta); ideal 2, 1 -> MSnDCG = 2 / (2 + 1/log2 3); 0002 missing = 0
    import json
    import math

    values = json.loads(stdout)["X-PG-2"]
    expected = 2 / (2 + 1 / math.log2(3))
    assert values["per_topic"]["0001"]["msndcg20"] == pytest.approx(expected, abs=1e-12)
    assert values["all"]["msndcg20"] == pytest.approx(expected / 2, abs=1e-12)


HEADER = "run_id\tqID\tNuggetNum\tentailed\trelevant\n"


@pytest.mark.parametrize("labels, message", [
    # The label file is the r2c2-ac task's own format (runscore.tasks.r2c2.labels), read by the same reader.
    (HEADER + "TEAM-AC-1\t0001\t1\t1\n", "4 TAB-separated fields, the header has 5"),
    (HEADER + "TEAM-AC-1\t0001\t1\t2\t0\n", "entailed must be 0 or 1, found '2'"),
    (HEADER + "TEAM-AC-1\t0001\t1\t0\t1\n", "relevant = 1 requires entailed = 1"),
    (HEADER + "TEAM-AC-1\tQ1\t1\t1\t1\n", "qID 'Q1' is not a question id"),
    (HEADER + "TEAM-AC-1\t0001\t1\t1\t1\nTEAM-AC-1\t1\t1\t1\t1\n", None),   # '1' is not a qID spelling
    ("TEAM-AC-1\t0001\t1\t1\t1\n", "the header line must name the columns"),
    (HEADER + "TEAM-AC-1\t0001\t1\t1\t1\nTEAM-AC-1\t0001\t1\t1\t0\n", "second label for the same nugget"),
])
def test_bad_label_file_is_exit_2(cli, files, tmp_path, labels, message):
    bad = tmp_path / "bad.tsv"
    bad.write_text(labels, encoding="utf-8")
    code, _, err = cli("r2c2-qrels", "--pr", files["ORG-PO-1"], "--ac", files["TEAM-AC-1"], "--labels", str(bad))
    assert code == 2
    assert "bad.tsv:" in err and (message is None or message in err)


def test_invalid_pr_run_is_exit_1(cli, files, tmp_path):
    bad = tmp_path / "BAD-PO-1"
    bad.write_text("0001;30;d;t\n", encoding="utf-8")
    code, _, err = cli("r2c2-qrels", "--pr", str(bad), "--ac", files["TEAM-AC-1"], "--labels", files["labels.tsv"])
    assert code == 1
    assert "BAD-PO-1:1: error: PassageRank 30 is outside the range [1-20]" in err


def test_invalid_ac_run_is_exit_1(cli, files, tmp_path):
    """AC runs are read by the r2c2-ac task's parser: what it rejects, the helper rejects too."""
    bad = tmp_path / "TEAM-AC-2"
    bad.write_text("<D0001>Answer;90\n1;ORG-PO-1;1;a nugget\n", encoding="utf-8")   # never closed
    code, _, err = cli("r2c2-qrels", "--pr", files["ORG-PO-1"], "--ac", str(bad), "--labels", files["labels.tsv"])
    assert code == 1 and "TEAM-AC-2:" in err and "error" in err


def test_the_ac_tasks_sample_labels_derive_qrels(cli, tmp_path):
    """The r2c2-ac sample reference (labels keyed by passage, a display-name alias) feeds the helper as it is."""
    ref = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "reference_data", "r2c2-ac")
    sample = os.path.join(os.path.dirname(ref), "..", "starting_kit", "sample_submission", "r2c2-ac")
    pool = os.path.join(ref, "pr_runs")
    pr_runs = [os.path.join(pool, f) for f in sorted(os.listdir(pool))] + \
        [os.path.join(sample, f) for f in sorted(os.listdir(sample)) if "-PG-" in f or "-PO-" in f]
    ac_runs = [os.path.join(sample, f) for f in sorted(os.listdir(sample)) if "-AC-" in f]
    aliases = tmp_path / "aliases.tsv"
    aliases.write_text("Beta University Team-PG-2\tBETA-PG-2\n", encoding="utf-8")
    code, out, err = cli("r2c2-qrels", "--pr", *pr_runs, "--ac", *ac_runs, "--labels",
                         os.path.join(ref, "ac_nugget_labels_sample.tsv"), "--aliases", str(aliases), "--binary")
    assert code == 0, err
    levels = [line.split("\t")[2] for line in out.splitlines()[1:]]
    assert "L1" in levels and set(levels) <= {"L0", "L1"}
