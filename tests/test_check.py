"""`runscore check SUBMISSION`: the platform's discovery and checks on the zip (or folder) a participant is about to
upload, offline. Every case is also given to score.py in the worker's layout, with the same reference data: the
exit status and every error and warning line must be the same (the two share submission.examine)."""
import os
import shutil
import zipfile

import pytest

from conftest import ROOT, run_cli, run_score_py

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFERENCE = os.path.join(ROOT, "reference_data")
BAD_TQIC = "id\tclass\tgroup_id\trun_id\n001\tpast\tg\tr1\n001\tfuture\tg\tr1\n"   # line 3: a duplicate id


def _sample_files(*task_ids):
    out = {}
    for task_id in task_ids:
        folder = os.path.join(SAMPLES, task_id)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as handle:
                out[name] = handle.read()
    return out


def _zip(path, files):
    with zipfile.ZipFile(str(path), "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def _table(out):
    """{file: (task, run, verdict, errors, warnings)} from check's table."""
    lines = out.split("\n\n")[0].splitlines()
    assert lines[0].split() == ["file", "task", "run", "verdict", "errors", "warnings"]
    rows = {}
    for line in lines[1:]:
        cells = [c for c in line.split("  ") if c.strip()]
        rows[cells[0].strip()] = tuple(c.strip() for c in cells[1:])
    return rows


def _findings(text):
    return sorted(line for line in text.splitlines() if ": error: " in line or ": warning: " in line)


def _same_as_score_py(tmp_path, submission, reference, check_out, check_code):
    """score.py on the same submission (unzipped into input/res with the worker's metadata file) and the same
    reference data: same exit status, same error and warning lines."""
    input_dir = tmp_path / "score_input"
    res = input_dir / "res"
    if os.path.isdir(str(submission)):
        shutil.copytree(str(submission), str(res))
    else:
        res.mkdir(parents=True)
        with zipfile.ZipFile(str(submission)) as archive:
            archive.extractall(str(res))
    (res / "metadata").write_text("elapsedTime: null\nexitCode: null\ningestionElapsedTime: null\n"
                                  "ingestionExitCode: null\n")
    os.symlink(reference, str(input_dir / "ref"))
    code, out, err = run_score_py(input_dir, tmp_path / "score_output")
    assert code == check_code, (out, err, check_out)
    assert _findings(err) == _findings(check_out)
    return out, err


def test_a_good_multi_task_zip(tmp_path):
    files = _sample_files("ntcir1-adhoc", "temporalia-tqic", "qqa23-mrc")
    submission = _zip(tmp_path / "sub.zip", files)
    code, out, err = run_cli("check", "--ref", REFERENCE, submission)
    assert code == 0, out + err
    rows = _table(out)
    assert rows == {"ntc1": ("ntcir1-adhoc", "ntc1", "valid", "0", "0"),
                    "tqic_sample": ("temporalia-tqic", "sample_run1, sample_run2", "valid", "0", "0"),
                    "sample_run01.json": ("qqa23-mrc", "sample_run01", "valid", "0", "0")}
    assert "submission accepted: 1 run(s) of ntcir1-adhoc, 1 run(s) of qqa23-mrc, 2 run(s) of temporalia-tqic" in out
    score_out, _ = _same_as_score_py(tmp_path, submission, REFERENCE, out, code)
    for task_id in ("ntcir1-adhoc", "temporalia-tqic", "qqa23-mrc"):
        assert task_id in score_out
    # without --task or --ref: as a competition would, and each competition scores one task: every
    # file is still checked by its own task, and the message says which competition takes which file
    code, offline, err = run_cli("check", submission)
    assert code == 1 and _table(offline) == rows, offline
    assert ("submission: error: runs of 3 tasks in one submission, and a competition scores one task: the "
            "ntcir1-adhoc competition takes ntc1; the qqa23-mrc competition takes sample_run01.json; the "
            "temporalia-tqic competition takes tqic_sample; send each task's runs to its own competition") in offline


def test_a_zip_with_one_bad_file(tmp_path):
    files = _sample_files("ntcir1-adhoc")
    files["tqic_bad"] = BAD_TQIC.encode()
    submission = _zip(tmp_path / "sub.zip", files)
    code, out, err = run_cli("check", "--ref", REFERENCE, submission)
    assert code == 1, out + err
    rows = _table(out)
    assert rows["ntc1"] == ("ntcir1-adhoc", "ntc1", "valid", "0", "0")
    assert rows["tqic_bad"][0] == "temporalia-tqic" and rows["tqic_bad"][2:4] == ("invalid", "1")
    assert "tqic_bad:3: error: " in out and "submission rejected: 1 error(s)" in out
    _same_as_score_py(tmp_path, submission, REFERENCE, out, code)


def test_a_run_name_twice_marks_the_second_file_invalid_in_the_table(tmp_path):
    """The table said 'valid 0' for both files of a run sent twice, then listed the error at the second: the row
    now counts the submission's errors at its file, as the total below it does."""
    run = _sample_files("ntcir1-adhoc")["ntc1"]
    submission = _zip(tmp_path / "sub.zip", {"ntc1": run, "ntc1_again": run})
    code, out, err = run_cli("check", "--task", "ntcir1-adhoc", submission)
    assert code == 1, out + err
    rows = _table(out)
    assert rows["ntc1"][2:4] == ("valid", "0")
    assert rows["ntc1_again"][2:4] == ("invalid", "1")
    errors = sum(int(row[3]) for row in rows.values())
    assert "submission rejected: %d error(s)" % errors in out


def test_an_unreadable_companion_counts_its_error_on_its_row(tmp_path):
    """A companion (an r2c2-ac submission's PR run) that cannot be read is an error of the submission, listed at
    its file; its row said 'read beside the runs 0 0', so the rows' errors did not add up to the total below."""
    files = _sample_files("r2c2-ac")
    files["SAMPLE-PG-1.txt"] = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    code, out, err = run_cli("check", "--task", "r2c2-ac", _zip(tmp_path / "sub.zip", files))
    assert code == 1, out + err
    rows = _table(out)
    assert rows["SAMPLE-PG-1.txt"][2:4] == ("read beside the runs", "1")
    errors = sum(int(row[3]) for row in rows.values())
    warnings = sum(int(row[4]) for row in rows.values())
    assert "submission rejected: %d error(s), %d warning(s)" % (errors, warnings) in out


def test_a_folder(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, data in _sample_files("temporalia-tir").items():
        (folder / name).write_bytes(data)
    code, out, err = run_cli("check", "--ref", REFERENCE, folder)
    assert code == 0, out + err
    assert _table(out) == {"tir_sample": ("temporalia-tir", "sample_run1, sample_run2", "valid", "0", "0")}
    _same_as_score_py(tmp_path, folder, REFERENCE, out, code)


def test_a_zip_of_zips(tmp_path):
    inner_a = _zip(tmp_path / "a.zip", _sample_files("datasearch-qa"))
    inner_b = _zip(tmp_path / "b.zip", {"tqic_bad": BAD_TQIC.encode()})
    submission = _zip(tmp_path / "sub.zip", {"a.zip": inner_a.read_bytes(), "b.zip": inner_b.read_bytes()})
    code, out, err = run_cli("check", "--ref", REFERENCE, submission)
    assert code == 1, out + err
    rows = _table(out)
    assert rows["a.zip/ds2qa_sample.tsv"][:3] == ("datasearch-qa", "ds2qa_sample.tsv", "valid")
    assert rows["b.zip/tqic_bad"][:3] == ("temporalia-tqic", "-", "invalid")
    assert "b.zip/tqic_bad:3: error: " in out
    _same_as_score_py(tmp_path, submission, REFERENCE, out, code)


def test_a_run_for_no_known_task(tmp_path):
    submission = _zip(tmp_path / "sub.zip", {"notes.txt": b"these are my notes\n"})
    code, out, err = run_cli("check", "--ref", REFERENCE, submission)
    assert code == 1, out + err
    assert _table(out) == {"notes.txt": ("-", "-", "not a run", "1", "0")}
    assert "notes.txt: error: not a run of any task of this competition (expected ntcir1-adhoc: " in out
    _same_as_score_py(tmp_path, submission, REFERENCE, out, code)


def test_one_competition_with_a_companion_and_other_tasks_runs(tmp_path):
    """--task r2c2-ac checks as the r2c2-ac competition does: its PR companion file is read beside the AC run,
    a TQIC run is checked as an AC run, and the message says it is a TQIC run and names the AC file pattern."""
    files = _sample_files("r2c2-ac")
    code, out, err = run_cli("check", "--task", "r2c2-ac", _zip(tmp_path / "ac.zip", files))
    assert code == 0, out + err
    assert _table(out) == {"SAMPLE-AC-1": ("r2c2-ac", "SAMPLE-AC-1", "valid", "0", "0"),
                           "SAMPLE-PG-1.txt": ("-", "-", "read beside the runs", "0", "0")}
    files.update(_sample_files("temporalia-tqic"))
    submission = _zip(tmp_path / "mixed.zip", files)
    code, out, err = run_cli("check", "--ref", os.path.join(REFERENCE, "r2c2-ac"), submission)
    # the competition reads every file as its task's run, and says what the file looks like
    assert code == 1 and _table(out)["tqic_sample"][:3] == ("r2c2-ac", "-", "invalid")
    assert ("tqic_sample: error: the file looks like a run of task temporalia-tqic, not of r2c2-ac; a run of "
            "r2c2-ac is a file named [TeamName]-AC-[RunNumber]") in out
    _same_as_score_py(tmp_path, submission, os.path.join(REFERENCE, "r2c2-ac"), out, code)


def test_only_another_tasks_companions_is_rejected_naming_the_pattern(tmp_path):
    submission = _zip(tmp_path / "pr.zip", _sample_files("r2c2-pr"))
    code, out, err = run_cli("check", "--task", "r2c2-ac", submission)
    assert code == 1
    assert "holds no run of r2c2-ac" in err and "a file named [TeamName]-AC-[RunNumber]" in err
    _same_as_score_py(tmp_path, submission, os.path.join(REFERENCE, "r2c2-ac"), err, code)


@pytest.mark.parametrize("argv,message", [
    (("check", "{tmp}/missing.zip"), "does not exist"),
    (("check", "--task", "no-such-task", "{tmp}"), "unknown task"),
    (("check", "--ref", "{tmp}/nothing", "{tmp}"), "does not exist"),
    (("check", "--task", "r2c2-pr", "--ref", os.path.join(REFERENCE, "r2c2-ac"), "{tmp}"), "holds no reference data"),
])
def test_bad_usage_exits_2(tmp_path, argv, message):
    code, out, err = run_cli(*[a.format(tmp=tmp_path) for a in argv])
    assert code == 2 and message in err and "Traceback" not in err


def test_not_a_zip_is_the_participants_fault(tmp_path):
    (tmp_path / "sub.zip").write_text("not a zip")
    code, out, err = run_cli("check", tmp_path / "sub.zip")
    assert code == 1 and "not a zip file" in err
