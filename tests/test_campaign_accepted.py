"""`runscore pool` (and report, through the same reader, campaign/downloads.py) take exactly the runs the formal
phase accepted: a deadline decided by the platform's list of submissions (a download's name gives the upload's
date), submissions the list gives as Failed or Cancelled left out, and a download that Codabench ran as a program
(a `metadata` file at its top) refused as score.py refuses it."""
import json
import os
import zipfile

from runscore.cli import main


def download(folder, number, owner, files, when="2026-05-01:10-22", phase=3):
    path = os.path.join(str(folder), "%d_%s_PhaseId%d_%s_submission.zip" % (number, owner, phase, when))
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def tir_run(group, run_id, docs):
    return "".join("%s\t%d\t%s\t%s\t%s\n" % (s, rank, doc, group, run_id)
                   for s in ("001p", "001a") for rank, doc in enumerate(docs, 1))


def listing(folder, rows):
    path = os.path.join(str(folder), "submissions.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("Submission ID,File Name,Owner,Created When,Status,Phase\n")
        for number, owner, created, status in rows:
            handle.write("%d,submission.zip,%s,%s,%s,Formal run\n" % (number, owner, created, status))
    return path


def pool(tmp_path, *argv):
    out = str(tmp_path / ("pool%d" % len(os.listdir(str(tmp_path)))))
    code = main(["pool", "--task", "temporalia-tir", "--depth", "3"] + [str(a) for a in argv] + ["-o", out])
    items = []
    if code == 0:
        with open(os.path.join(out, "pool_stats.json"), encoding="utf-8") as handle:
            items = sorted(r["run"] for r in json.load(handle)["runs"])
        with open(os.path.join(out, "pool.tsv"), encoding="utf-8") as handle:
            items = sorted({line.split("\t")[1] for line in handle.read().splitlines()[1:] if "\t" in line})
    return code, items


def test_a_zip_uploaded_before_the_deadline_but_submitted_after_it_is_left_out(tmp_path, capsys):
    """The name's date (2026-04-30) is the upload's; the submission was made after the deadline. Without the list
    the deadline is refused (it used to take the run); with it, the run is left out."""
    late = download(tmp_path, 90, "mallory", {"tir": tir_run("mallory", "mallory_run1", ["LATE1"])},
                    when="2026-04-30:10-00")
    on_time = download(tmp_path, 89, "alice", {"tir": tir_run("alice", "alice_run1", ["T1"])},
                       when="2026-04-30:09-00")
    code, _ = pool(tmp_path, on_time, late, "--deadline", "2026-05-01T23:59")
    err = capsys.readouterr().err
    assert code == 2 and "--deadline needs the platform's list of submissions" in err and "Download CSV" in err, err
    listed = listing(tmp_path, [(89, "alice", "2026-04-30T09:09:00Z", "Finished"),
                                (90, "mallory", "2026-05-02T00:10:00Z", "Finished")])
    code, items = pool(tmp_path, on_time, late, "--deadline", "2026-05-01T23:59", "--submissions", listed)
    assert code == 0 and "LATE1" not in items and "T1" in items, items
    assert "after the deadline" in capsys.readouterr().err
    unlisted = listing(tmp_path, [(89, "alice", "2026-04-30T09:09:00Z", "Finished")])
    code, _ = pool(tmp_path, on_time, late, "--deadline", "2026-05-01T23:59", "--submissions", unlisted)
    assert code == 2 and "not in the submission list" in capsys.readouterr().err


def test_failed_and_cancelled_submissions_never_replace_an_accepted_run(tmp_path, capsys):
    """A later submission of the same run name replaces the team's run only if the phase accepted it: a Cancelled
    (a program, which costs nothing) or Failed one is left out, with a note."""
    scored = download(tmp_path, 10, "alice", {"tir": tir_run("alice", "alice_run1", ["GOOD"])})
    cancelled = download(tmp_path, 11, "alice", {"tir": tir_run("alice", "alice_run1", ["CANCELLED"])})
    failed = download(tmp_path, 12, "alice", {"tir": tir_run("alice", "alice_run1", ["FAILED"])})
    listed = listing(tmp_path, [(10, "alice", "2026-05-01T10:22:00Z", "Finished"),
                                (11, "alice", "2026-05-01T11:22:00Z", "Cancelled"),
                                (12, "alice", "2026-05-01T12:22:00Z", "Failed")])
    code, items = pool(tmp_path, scored, cancelled, failed, "--submissions", listed)
    err = capsys.readouterr().err
    assert code == 0 and "GOOD" in items and "CANCELLED" not in items and "FAILED" not in items, (items, err)
    assert "submission 11 of alice left out: the platform's submission list gives its status as Cancelled" in err
    assert "status as Failed" in err


def test_a_download_that_ran_as_a_program_is_refused_as_score_py_refuses_it(tmp_path, capsys):
    """Codabench ran it as a program (metadata at the top of the zip) and score.py refused what it wrote; its zip
    holds a 'run' that no phase ever checked: it must not be pooled, nor replace the team's scored run."""
    scored = download(tmp_path, 20, "alice", {"tir": tir_run("alice", "alice_run1", ["GOOD"])})
    program = download(tmp_path, 21, "alice", {"metadata": "command: python3 /app/program/x.py\n",
                                               "tir": tir_run("alice", "alice_run1", ["PROGRAM"])})
    code, items = pool(tmp_path, scored, program)
    err = capsys.readouterr().err
    assert code != 0 and "holds metadata at its top, so Codabench ran it as a program" in err, err
    code, items = pool(tmp_path, scored, program, "--skip-invalid")
    assert code == 0 and "GOOD" in items and "PROGRAM" not in items, items
