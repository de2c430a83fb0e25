"""The receipt of a run (codabench/receipt.py) agrees with independent computations: hashlib over the whole
file at once and bytes.splitlines() (which ends a line at LF, CRLF or a lone CR), whatever the chunking."""
import hashlib

import pytest

from runscore.codabench import receipt as receipt_module
from runscore.codabench.receipt import Receipt, receipt_line, receipt_of, receipt_table

CASES = [b"", b"a", b"a\n", b"a\nb", b"a\r\nb\r\n", b"a\rb\r", b"\r\n\r\n", b"\n\n\n", b"x\r", b"\r",
         b"one\r\ntwo\rthree\nfour", "\u00e9t\u00e9\n\ufeffbom".encode("utf-8"), bytes(range(256)) * 3]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
@pytest.mark.parametrize("data", CASES)
def test_receipt_matches_hashlib_and_splitlines(tmp_path, monkeypatch, data, chunk):
    monkeypatch.setattr(receipt_module, "CHUNK", chunk)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    got = receipt_of(str(path), "RUN-1", "TEAM", "sub/run.txt")
    assert got == Receipt("RUN-1", "TEAM", len(data.splitlines()), hashlib.sha256(data).hexdigest(), "sub/run.txt")


def test_receipt_renderings_name_every_field(tmp_path):
    path = tmp_path / "r"
    path.write_bytes(b"1\n2\n")
    got = receipt_of(str(path), "R", "", "r")
    line = receipt_line(got)
    assert line.startswith("receipt: run R, team (not named in the run), 2 lines, sha256 ")
    assert got.sha256 in line and line.endswith("(file r)")
    table = receipt_table([got])
    assert table["rows"] == [["R", "\u2014", "r", 2, got.sha256]]


def test_a_file_of_several_runs_is_hashed_once(tmp_path, monkeypatch):
    """receipts_of reads each file once however many runs it holds; every run keeps its own name and team."""
    path = tmp_path / "tqic_g"
    path.write_bytes(b"001\tpast\tg\tr1\n001\tpast\tg\tr2\n")
    calls = []
    real = receipt_module.receipt_of
    monkeypatch.setattr(receipt_module, "receipt_of", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    got = receipt_module.receipts_of([(str(path), "r1", "g", "tqic_g"), (str(path), "r2", "g", "tqic_g")])
    assert calls == [str(path)]
    assert [(r.name, r.team, r.file) for r in got] == [("r1", "g", "tqic_g"), ("r2", "g", "tqic_g")]
    assert got[0].sha256 == got[1].sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and got[1].lines == 2


# ------------------------------------------------------------------------------------ through score.py ---
def collect(tmp_path, task_id, files):
    """score.py's entry, in process, on a collecting phase of task_id with the sample files `files`."""
    import os
    import shutil

    from conftest import ROOT
    from runscore.codabench import entry

    ref = tmp_path / "input" / "ref"
    res = tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    (ref / "task.yaml").write_text("task: %s\nmode: collect\n" % task_id)
    for name in files:
        shutil.copyfile(os.path.join(ROOT, "starting_kit", "sample_submission", task_id, name), str(res / name))
    assert entry.run(str(tmp_path / "input"), str(tmp_path / "output")) == 0
    return (tmp_path / "output" / "detailed_results.html").read_text(encoding="utf-8")


def test_an_ntcir1_receipt_names_the_team_the_pool_credits(tmp_path, capsys):
    """NTCIR-1's Run-ID is the group's id plus a number and names no team otherwise: the pool and the report
    credit a loose run to `ntc` (Task.inferred_team), and so does its receipt. Before, the receipt said
    "team (not named in the run)"."""
    page = collect(tmp_path, "ntcir1-adhoc", ["ntc1"])
    out = capsys.readouterr().out
    assert "receipt: run ntc1, team ntc (from the run name), " in out
    assert "ntc (from the run name)" in page


def test_each_run_of_a_file_of_several_runs_counts_its_own_lines(tmp_path, capsys):
    """A Temporalia file holding two run_ids: each run's receipt counts its own lines, beside the file's. Before,
    both runs were given the whole file's count."""
    collect(tmp_path, "temporalia-tir", ["tir_sample"])
    out = capsys.readouterr().out
    lines = open(str(tmp_path / "input" / "res" / "tir_sample"), "rb").read().splitlines()
    for run in ("sample_run1", "sample_run2"):
        own = sum(1 for line in lines if line.endswith(b"\t" + run.encode()))
        assert "receipt: run %s, team sample, %d lines (of %d in the file), " % (run, own, len(lines)) in out


def test_the_collecting_phase_receipts_companion_files(tmp_path, capsys):
    """The PR runs an AC submission sends beside its AC runs are stored with them: each gets a receipt in the log
    and on the page, as the pool gives one. Before, only the runs had receipts."""
    import hashlib

    page = collect(tmp_path, "r2c2-ac", ["SAMPLE-AC-1", "SAMPLE-PG-1.txt"])
    out = capsys.readouterr().out
    data = open(str(tmp_path / "input" / "res" / "SAMPLE-PG-1.txt"), "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    assert "receipt: companion SAMPLE-PG-1.txt, %d lines, sha256 %s" % (len(data.splitlines()), digest) in out
    assert digest in page and "read beside the runs" in page
