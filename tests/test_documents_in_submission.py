"""A team's system description, figure or program beside its runs is told for what it is, at every door (check,
validate, score.py), and never unpacked: a .docx is a zip inside, whose XML parts were read as runs (two errors, none
naming the document), and a PDF got 'not valid UTF-8 ... save it as UTF-8'."""
import io
import os
import zipfile

import pytest

from conftest import ROOT, run_cli

SAMPLE = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")


def _docx():
    """A minimal .docx; its members dated, not stamped with the clock: the bytes are part of the test ids, which
    every xdist worker must collect alike (a clock that ticked between two workers' collections failed the run)."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        # a fixed date: the bytes name the parametrised tests, which every xdist worker must collect alike
        for name, text in (("[Content_Types].xml", "<Types/>"), ("word/document.xml", '<?xml version="1.0"?><w:document/>')):
            archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), text)
    return data.getvalue()


DOCUMENTS = [
    ("description.docx", _docx(), "a Word document (.docx), not a run"),
    ("description.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "a PDF document (.pdf), not a run"),
    ("description", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document, not a run"),           # by its first bytes
    ("figure.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "an image (.png), not a run"),
    ("system", b"\x7fELF\x02\x01\x01\0", "a program, not a run"),
]


@pytest.mark.parametrize("name, data, message", DOCUMENTS)
def test_check_names_the_document_once(tmp_path, name, data, message):
    submission = tmp_path / "submission.zip"
    with zipfile.ZipFile(str(submission), "w") as archive:
        archive.write(SAMPLE, "ntc1")
        archive.writestr(name, data)
    code, out, err = run_cli("check", "--task", "ntcir1-adhoc", submission)
    errors = [line for line in (out + err).splitlines() if ": error: " in line]
    assert code == 1
    assert errors == ["%s: error: %s: every file of a submission is read as a run, so take it out of the zip (send "
                      "a system description where the competition asks for one)" % (name, message)], errors


def test_validate_says_the_same_of_a_file_given_by_name(tmp_path):
    path = tmp_path / "description.pdf"
    path.write_bytes(DOCUMENTS[1][1])
    code, out, err = run_cli("validate", "--task", "ntcir1-adhoc", path, SAMPLE)
    assert code == 1 and "description.pdf: error: a PDF document (.pdf), not a run" in out + err


def test_a_run_is_never_taken_for_a_document(tmp_path):
    """Only the exact signatures count: a run whose first id starts with GIF8 or %PDF is a run (with its own
    diagnostics), and a run named like a task's run is read as one."""
    path = tmp_path / "ntc1"
    with open(SAMPLE, encoding="utf-8") as handle:
        path.write_text(handle.read(), encoding="utf-8")
    code, _, _ = run_cli("validate", "--task", "ntcir1-adhoc", path)
    assert code == 0
    odd = tmp_path / "odd"
    odd.write_text("GIF8\t0\tgakkai-0000000001\t1\t1.0\tGIF8\n", encoding="utf-8")
    code, out, err = run_cli("validate", "--task", "ntcir1-adhoc", odd)
    assert "not a run" not in out + err


@pytest.mark.parametrize("task_id, name, data, message", [
    ("temporalia-tir", "tir_description.pdf", DOCUMENTS[1][1], "a PDF document (.pdf), not a run"),
    ("temporalia-tir", "tir_runs.docx", _docx(), "a Word document (.docx), not a run"),
    ("temporalia-tqic", "tqic_figure.png", DOCUMENTS[3][1], "an image (.png), not a run"),
], ids=["tir-pdf", "tir-docx", "tqic-png"])
def test_a_document_named_like_a_tasks_runs_is_still_a_document(tmp_path, task_id, name, data, message):
    """TIR and TQIC claim every name starting tir_ / tqic_, so 'tir_description.pdf' was read as a run ('not valid
    UTF-8 ... save it as UTF-8') and a .docx so named was neither unpacked nor told: no run ends in a document's
    extension, so the extension counts whatever the name's start."""
    sample = os.path.join(ROOT, "starting_kit", "sample_submission", task_id)
    submission = tmp_path / "submission.zip"
    with zipfile.ZipFile(str(submission), "w") as archive:
        for run in os.listdir(sample):
            archive.write(os.path.join(sample, run), run)
        archive.writestr(name, data)
    code, out, err = run_cli("check", "--task", task_id, submission)
    errors = [line for line in (out + err).splitlines() if ": error: " in line]
    assert code == 1
    assert errors == ["%s: error: %s: every file of a submission is read as a run, so take it out of the zip (send "
                      "a system description where the competition asks for one)" % (name, message)], errors


def test_a_claimed_document_makes_no_second_task_in_check_without_task(tmp_path):
    """`runscore check` without --task judges as the competition of the runs' task: 'tir_description.pdf' beside
    an NTCIR-1 run made it 'runs of 2 tasks in one submission' (the PDF counted as a TIR run)."""
    submission = tmp_path / "submission.zip"
    with zipfile.ZipFile(str(submission), "w") as archive:
        archive.write(SAMPLE, "ntc1")
        archive.writestr("tir_description.pdf", DOCUMENTS[1][1])
    code, out, err = run_cli("check", submission)
    assert code == 1
    assert "runs of 2 tasks" not in out + err
    assert "tir_description.pdf: error: a PDF document (.pdf), not a run" in out + err


def test_a_campaigns_loose_document_is_told_as_one(tmp_path):
    """An organiser's folder of runs given to `runscore pool` (loose files, not downloads) with the teams' system
    descriptions in it: the .docx was unpacked as a zip and its XML parts read as runs, the PDF got 'not valid
    UTF-8', as in a submission before documents were told."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "tir_alice").write_text("".join("%s\t1\tL1\talice\talice_run1\n" % s for s in ("001p", "001a")))
    (runs / "description.docx").write_bytes(_docx())
    (runs / "tir_alice_slides.pdf").write_bytes(DOCUMENTS[1][1])       # named like a TIR run, too
    code, out, err = run_cli("pool", "--task", "temporalia-tir", "--depth", "3", runs, "-o", tmp_path / "out")
    errors = sorted(line for line in (out + err).splitlines() if ": error: " in line)
    assert code == 1
    assert errors == ["%s: error: a Word document (.docx), not a run: every file given is read as a run; leave it "
                      "out of the folder or the command line" % (runs / "description.docx"),
                      "%s: error: a PDF document (.pdf), not a run: every file given is read as a run; leave it "
                      "out of the folder or the command line" % (runs / "tir_alice_slides.pdf")], errors


def test_a_run_named_like_an_image_is_told_to_be_renamed(tmp_path):
    """A real run named 'results.png' was told 'an image (.png), not a run ... take it out of the zip': its author
    would remove the run. Named like a document but holding text, it is told to rename it (and still not read)."""
    submission = tmp_path / "submission.zip"
    with zipfile.ZipFile(str(submission), "w") as archive:
        archive.write(SAMPLE, "ntc1")
        archive.write(SAMPLE, "results.png")
    code, out, err = run_cli("check", "--task", "ntcir1-adhoc", submission)
    errors = [line for line in (out + err).splitlines() if ": error: " in line]
    assert code == 1
    assert errors == ["results.png: error: named like an image (.png) but holds plain text: a file so named is never "
                      "read as a run; if it is a run, rename it without .png, else take it out of the zip"], errors
