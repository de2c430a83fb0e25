"""Archives and folders from strangers: nothing is written outside the working folder, and every limit of
runscore.discover (sizes, counts, depths) answers with a clear message naming the archive.

The named hostile archives (zip slip, links, bombs, encryption ...) and their messages are in the corpus
(test_hostile_corpus.py); this file checks what the corpus cannot: where bytes land, the limits at their edges
(made small with monkeypatch so the test stays fast), and a zip whose headers lie.
"""
import io
import os
import stat
import struct
import zipfile

import pytest

from runscore import discover
from runscore.discover import list_candidates, safe_extract
from runscore.errors import RunError

RUN = b"0031\t0\tgakkai-0000000001\t1\t1.0\tntc1\n"


def _zip(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(str(path), "w", compression) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return str(path)


def _files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)


SLIPS = ["../evil.txt", "a/../../evil.txt", "/tmp/evil.txt", "C:/evil.txt", "C:\\evil.txt", "..\\evil.txt",
         "a\\..\\..\\evil.txt", "//server/share/evil.txt"]


@pytest.mark.parametrize("name", SLIPS)
def test_zip_slip_is_refused_and_writes_nothing(tmp_path, name):
    archive = _zip(tmp_path / "sub.zip", [("ok.txt", b"fine\n"), (name, b"pwned\n")])
    target = tmp_path / "work" / "target"
    target.mkdir(parents=True)
    with pytest.raises(RunError) as caught:
        safe_extract(archive, str(target), "sub.zip")
    assert "points outside the archive" in str(caught.value)
    assert str(caught.value).startswith("sub.zip: error: zip entry ")
    assert _files_under(str(tmp_path)) == ["sub.zip"]
    assert not os.path.exists("/tmp/evil.txt")


@pytest.mark.parametrize("name", ["../evil.txt", "a/../../evil.txt", "..\\evil.txt"])
def test_the_second_line_of_defence_holds_without_the_name_check(tmp_path, monkeypatch, name):
    """Even if the name check missed a trick, the resolved destination is checked before a byte is written."""
    monkeypatch.setattr(discover, "_bad_name", lambda _: None)
    archive = _zip(tmp_path / "sub.zip", [(name, b"pwned\n")])
    target = tmp_path / "work" / "target"
    target.mkdir(parents=True)
    try:
        safe_extract(archive, str(target), "sub.zip")
    except RunError as exc:
        assert "points outside the archive" in str(exc)
    # Either refused, or (a backslash is an ordinary character on POSIX) written inside the target.
    assert all(not f.startswith("..") for f in _files_under(str(tmp_path / "work")))
    assert _files_under(str(tmp_path)) in (["sub.zip"], ["sub.zip", os.path.join("work", "target", name)])


def test_a_valid_nested_zip_is_unpacked_inside_the_workdir_only(tmp_path):
    inner = _zip(tmp_path / "inner.zip", [("runs/ntc1", RUN)])
    res = tmp_path / "res"
    res.mkdir()
    _zip(res / "outer.zip", [("inner.zip", open(inner, "rb").read())])
    os.unlink(inner)
    work = tmp_path / "work"
    work.mkdir()
    found = list_candidates(str(res), str(work))
    assert [c.display for c in found] == ["outer.zip/inner.zip/runs/ntc1"]
    assert found[0].path.startswith(str(work) + os.sep)
    assert open(found[0].path, "rb").read() == RUN
    assert _files_under(str(res)) == ["outer.zip"]


def test_symbolic_link_in_the_submission_folder_is_refused(tmp_path):
    res = tmp_path / "res"
    res.mkdir()
    (res / "ntc1").write_bytes(RUN)
    os.symlink("/etc/passwd", str(res / "passwd"))
    with pytest.raises(RunError, match="passwd: error: symbolic links are not accepted"):
        list_candidates(str(res), str(tmp_path))


def test_symlink_member_is_refused_before_anything_is_written(tmp_path):
    info = zipfile.ZipInfo("link")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = _zip(tmp_path / "sub.zip", [("a.txt", b"a"), (info, b"/etc/passwd")])
    (tmp_path / "t").mkdir()
    with pytest.raises(RunError, match="'link' is a symbolic link"):
        safe_extract(archive, str(tmp_path / "t"), "sub.zip")
    assert _files_under(str(tmp_path / "t")) == []


def test_total_size_budget_is_shared_by_every_zip_of_the_submission(tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_ZIP_TOTAL_BYTES", 3000)
    res = tmp_path / "res"
    res.mkdir()
    _zip(res / "a.zip", [("a/ntc1", b"x" * 2000)], zipfile.ZIP_STORED)
    _zip(res / "b.zip", [("b/ntc1", b"y" * 2000)], zipfile.ZIP_STORED)
    with pytest.raises(RunError) as caught:
        list_candidates(str(res), str(tmp_path))
    assert str(caught.value) == ("b.zip: error: zip unpacks to 2000 bytes; the submission may unpack at most "
                                 "3000 bytes in all")


def test_a_zip_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_ZIP_TOTAL_BYTES", 1000)
    archive = _zip(tmp_path / "sub.zip", [("ntc1", b"x" * 1001)], zipfile.ZIP_STORED)
    with pytest.raises(RunError, match="zip unpacks to 1001 bytes; the submission may unpack at most 1000"):
        safe_extract(archive, str(tmp_path), "sub.zip")


def test_too_many_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_ZIP_MEMBERS", 50)
    archive = _zip(tmp_path / "sub.zip", [("f%d" % i, b"") for i in range(51)])
    # refused by the end record's count, before zipfile reads the directory
    with pytest.raises(RunError, match=r"zip holds 51 entries \(as its end record declares\), more than the "
                                       r"limit of 50"):
        safe_extract(archive, str(tmp_path), "sub.zip")


def test_thousands_of_files_in_a_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_FILES", 30)
    res = tmp_path / "res"
    (res / "runs").mkdir(parents=True)
    (res / "other").mkdir()
    for i in range(31):
        (res / "runs" / ("r%02d" % i)).write_bytes(RUN)
    with pytest.raises(RunError, match="more than 30 files; send only the run files"):
        list_candidates(str(res), str(tmp_path))


def test_the_real_file_limit_lets_a_thousand_files_through(tmp_path):
    res = tmp_path / "res"
    res.mkdir()
    for i in range(1000):
        (res / ("r%04d" % i)).write_bytes(b"")
    assert len(list_candidates(str(res), str(tmp_path))) == 1000 <= discover.MAX_FILES


def test_folders_nested_too_deep_in_the_submission(tmp_path):
    folder = tmp_path / "res"
    for _ in range(discover.MAX_FOLDER_DEPTH + 2):
        folder = folder / "d"
    folder.mkdir(parents=True)
    (folder / "ntc1").write_bytes(RUN)
    (tmp_path / "res" / "other").write_bytes(RUN)
    with pytest.raises(RunError, match="folders nested more than 32 deep are not accepted"):
        list_candidates(str(tmp_path / "res"), str(tmp_path))


def test_a_zip_whose_header_understates_the_size_is_refused_cleanly(tmp_path):
    """Headers say 10 bytes, the data holds 5000: zipfile stops at the header's size and the CRC fails."""
    archive = _zip(tmp_path / "sub.zip", [("ntc1", b"z" * 5000)], zipfile.ZIP_STORED)
    data = bytearray(open(archive, "rb").read())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        struct.pack_into("<I", data, at + offset, 10)
    open(archive, "wb").write(bytes(data))
    with pytest.raises(RunError) as caught:
        safe_extract(archive, str(tmp_path / "t"), "sub.zip")
    assert str(caught.value).startswith("sub.zip: error: ")


def test_extraction_stops_at_the_byte_budget_even_if_the_check_before_it_is_fooled(tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "_check_archive", lambda *args: None)
    monkeypatch.setattr(discover, "MAX_ZIP_TOTAL_BYTES", 3 * discover.CHUNK)
    archive = _zip(tmp_path / "sub.zip", [("big", b"\0" * (4 * discover.CHUNK))])
    (tmp_path / "t").mkdir()
    with pytest.raises(RunError, match="more than its headers say"):
        safe_extract(archive, str(tmp_path / "t"), "sub.zip")
    assert os.path.getsize(str(tmp_path / "t" / "big")) <= 3 * discover.CHUNK


def test_names_that_are_not_file_names(tmp_path):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("bad\x07name", RUN)
    path = tmp_path / "sub.zip"
    path.write_bytes(archive.getvalue())
    with pytest.raises(RunError, match="has a control character in its name"):
        safe_extract(str(path), str(tmp_path), "sub.zip")


def test_a_file_name_with_a_line_break_is_refused_without_breaking_the_message(tmp_path):
    res = tmp_path / "res"
    (res / "runs").mkdir(parents=True)
    (res / "runs" / "ntc1\n.txt").write_bytes(RUN)
    (res / "other").write_bytes(RUN)
    with pytest.raises(RunError) as caught:
        list_candidates(str(res), str(tmp_path))
    assert str(caught.value) == "runs: error: file name 'ntc1\\n.txt' has a control character; rename it"


# ------------------------------------------------------------------------ the legacy CodaLab worker's layout ---

def _mkdir(path):
    path.mkdir()
    return str(path)


def _legacy_worker_res(res, submission_zip):
    """input/res exactly as competitions-v1-compute-worker's get_bundle leaves it: the submission unzipped, then
    every top-level *.zip unzipped into a folder of its name without .zip, the zip kept beside it."""
    import glob

    with zipfile.ZipFile(str(submission_zip)) as archive:
        archive.extractall(str(res))
    for zip_file in glob.glob(os.path.join(str(res), "*.zip")):
        with zipfile.ZipFile(zip_file) as archive:
            archive.extractall(os.path.splitext(zip_file)[0])


def test_legacy_worker_copy_of_a_zip_is_read_once(tmp_path):
    """A TQIC submission of 2 runs in runs.zip: the legacy worker leaves runs.zip and runs/ side by side. Read
    twice it would be 4 runs ("at most 3 are allowed") and rejected; read once it scores."""
    from conftest import ROOT, run_score_py

    with open(os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tqic", "tqic_sample"), "rb") as h:
        sample = h.read()
    inner = tmp_path / "runs.zip"
    _zip(inner, [("tqic_sample", sample)])
    submission = tmp_path / "submission.zip"
    with zipfile.ZipFile(str(submission), "w") as archive:
        archive.write(str(inner), "runs.zip")
    input_dir = tmp_path / "input"
    res = input_dir / "res"
    _legacy_worker_res(res, submission)
    assert sorted(os.listdir(res)) == ["runs", "runs.zip"] and os.listdir(res / "runs") == ["tqic_sample"]
    assert [c.display for c in list_candidates(str(res), _mkdir(tmp_path / "w"))] == ["runs.zip/tqic_sample"]
    os.symlink(os.path.join(ROOT, "reference_data", "temporalia-tqic"), str(input_dir / "ref"))
    code, out, err = run_score_py(input_dir, tmp_path / "output")
    assert code == 0, err
    assert "temporalia_tqic_accuracy" in out and "at most 3" not in err


@pytest.mark.parametrize("change", ["another file", "different size", "missing file"])
def test_a_folder_beside_a_zip_that_is_not_its_copy_is_read(tmp_path, change):
    """Only the worker's exact copy is skipped; a participant's own folder named like a zip is read too."""
    res = tmp_path / "res"
    res.mkdir()
    _zip(res / "runs.zip", [("a", RUN), ("b/c", RUN)])
    (res / "runs" / "b").mkdir(parents=True)
    (res / "runs" / "a").write_bytes(RUN)
    (res / "runs" / "b" / "c").write_bytes(RUN)
    assert [c.display for c in list_candidates(str(res), _mkdir(tmp_path / "w0"))] == ["runs.zip/a", "runs.zip/b/c"]
    if change == "another file":
        (res / "runs" / "d").write_bytes(RUN)
    elif change == "different size":
        (res / "runs" / "a").write_bytes(RUN + RUN)
    else:
        (res / "runs" / "b" / "c").unlink()
    shown = [c.display for c in list_candidates(str(res), _mkdir(tmp_path / "w1"))]
    assert "runs.zip/a" in shown and any(s.startswith("runs/") for s in shown)
