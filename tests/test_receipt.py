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
