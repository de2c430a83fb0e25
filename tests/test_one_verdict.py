"""One verdict from the three front doors: `runscore validate` on the files, `runscore check` on the
folder and score.py on the platform's layout give the same exit code and the same error and warning lines, for
every task's sample submission, a seeded family of variants of it (separators, line ends, BOM, blank lines and
trailing spaces, file names, companions, other tasks' files, copies) and the hostile corpus.

RUNSCORE_VERDICT_VARIANTS sets the variants per task (default 4; 60 in `make fuzz-ci`); RUNSCORE_VERDICT_HOSTILE=all gives every hostile
case to the three doors (default: every archive case and one run case in four, to keep `make test` near two
minutes; `make fuzz-ci` sets both).
"""
import io
import os
import random
import shutil
from contextlib import redirect_stderr, redirect_stdout

import pytest

from conftest import ROOT
from hostile.make_corpus import HERE as HOSTILE
from hostile.make_corpus import TABLE

from runscore import cli
from runscore.codabench import entry
from runscore.tasks import all_tasks, get_task

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFERENCES = os.path.join(ROOT, "reference_data")
VARIANTS = int(os.environ.get("RUNSCORE_VERDICT_VARIANTS", "4"))  # 60 in make fuzz-ci
EVERY_HOSTILE_CASE = os.environ.get("RUNSCORE_VERDICT_HOSTILE") == "all"
TASKS = [t.id for t in all_tasks() if os.path.isdir(os.path.join(SAMPLES, t.id))]


# ------------------------------------------------------------------------------------------ the doors ---
def _call(function, argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = function(argv)
    return code, out.getvalue() + err.getvalue()


def _findings(output):
    """The error and warning lines, in order, without the closing summaries (each door words its own)."""
    return [line for line in output.splitlines()
            if (": error: " in line or ": warning: " in line) and not line.startswith("submission rejected")]


def _files_of(folder):
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            out.append(os.path.relpath(os.path.join(dirpath, name), folder).replace(os.sep, "/"))
    return sorted(out)


def three_doors(task_id, folder, workdir, monkeypatch):
    """{door: (exit code, findings)} for the submission in `folder`, checked with task_id's sample reference."""
    reference = os.path.join(REFERENCES, task_id)
    monkeypatch.chdir(folder)
    validate = _call(cli.main, ["validate", "--task", task_id, "--ref", reference, "--team-cap"] + _files_of(folder))
    checked = _call(cli.main, ["check", "--task", task_id, "--ref", reference, "."])
    monkeypatch.chdir(workdir)
    input_dir = os.path.join(workdir, "input")
    shutil.rmtree(input_dir, ignore_errors=True)
    shutil.copytree(folder, os.path.join(input_dir, "res"), symlinks=True)
    os.symlink(reference, os.path.join(input_dir, "ref"))
    scored = _call(entry.main, ["score.py", input_dir, os.path.join(workdir, "output")])
    return {"validate": (validate[0], _findings(validate[1]), validate[1]),
            "check": (checked[0], _findings(checked[1]), checked[1]),
            "score.py": (scored[0], _findings(scored[1]), scored[1])}


def assert_one_verdict(doors, what):
    codes = {door: result[0] for door, result in doors.items()}
    assert len(set(codes.values())) == 1, (what, codes, {d: r[2][-1500:] for d, r in doors.items()})
    assert "Traceback" not in "".join(r[2] for r in doors.values())
    first = doors["validate"][1]
    for door, result in doors.items():
        assert sorted(result[1]) == sorted(first), (what, door, result[1], first)
    return codes["validate"]


# ------------------------------------------------------------------------------------------ variants ---
def _sample(task_id):
    folder = os.path.join(SAMPLES, task_id)
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}


def _runs(task_id, files):
    task = get_task(task_id)
    return [n for n in files if not task.claims_companion(os.path.basename(n)) or task.claims_name(os.path.basename(n))]


def _text_edit(edit):
    def variant(task_id, files, rng):
        name = rng.choice(_runs(task_id, files))
        files[name] = edit(files[name], rng)
        return "%s %s" % (edit.__name__, name)
    return variant


def spaces_for_tabs(data, rng):
    return data.replace(b"\t", b" ")


def commas_for_tabs(data, rng):
    return data.replace(b"\t", b",")


def crlf_line_ends(data, rng):
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def cr_line_ends(data, rng):
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def utf8_bom(data, rng):
    return b"\xef\xbb\xbf" + data


def utf16(data, rng):
    return data.decode("utf-8", errors="replace").encode("utf-16")


def blank_lines_and_trailing_spaces(data, rng):
    lines = data.split(b"\n")
    out = [b"", b"  "]
    for line in lines:
        out.append(line + (b"  " if rng.random() < 0.3 and line else b""))
        if rng.random() < 0.1:
            out.append(b"")
    return b"\n".join(out) + b"\n\n"


def as_json(data, rng):
    import json

    return json.dumps([line.split("\t") for line in data.decode("utf-8", errors="replace").splitlines()]).encode()


def first_lines_only(data, rng):
    return b"\n".join(data.split(b"\n")[:rng.randint(1, 5)]) + b"\n"


def renamed(task_id, files, rng):
    name = rng.choice(_runs(task_id, files))
    new = rng.choice(["myrun.txt", name.upper(), name + ".txt", "run 1", "sub/" + name, "a/b/" + name])
    files[new] = files.pop(name)
    return "renamed %s to %s" % (name, new)


def copied_into_a_folder(task_id, files, rng):
    name = rng.choice(_runs(task_id, files))
    files["old/" + name] = files[name]
    return "copied %s into old/" % name


def other_tasks_file(task_id, files, rng):
    other = rng.choice([t for t in TASKS if t != task_id])
    sample = _sample(other)
    name = rng.choice(sorted(sample))
    files["other/" + name] = sample[name]
    return "added %s's %s" % (other, name)


def replaced_by_other_tasks_run(task_id, files, rng):
    name = rng.choice(_runs(task_id, files))
    other = rng.choice([t for t in TASKS if t != task_id])
    sample = _sample(other)
    files[name] = sample[rng.choice(_runs(other, sample))]
    return "%s holds %s's run" % (name, other)


def companion_removed_or_added(task_id, files, rng):
    companions = [n for n in files if n not in _runs(task_id, files)]
    if companions:
        del files[companions[0]]
        return "removed companion %s" % companions[0]
    files.update(_sample("r2c2-pr"))
    return "added r2c2-pr's run"


VARIANT_KINDS = [_text_edit(f) for f in (spaces_for_tabs, commas_for_tabs, crlf_line_ends, cr_line_ends, utf8_bom,
                                         utf16, blank_lines_and_trailing_spaces, as_json, first_lines_only)] + \
    [renamed, copied_into_a_folder, other_tasks_file, replaced_by_other_tasks_run, companion_removed_or_added]


def variant(task_id, index):
    """The sample (index 0) or its index-th seeded variant: one to three edits."""
    files = _sample(task_id)
    if index == 0:
        return files, "the sample"
    rng = random.Random("%s/%d" % (task_id, index))
    done = [rng.choice(VARIANT_KINDS)(task_id, files, rng) for _ in range(rng.randint(1, 3))]
    return files, "; ".join(done)


@pytest.mark.parametrize("task_id", TASKS)
@pytest.mark.parametrize("index", range(VARIANTS + 1))
def test_validate_check_and_score_py_agree(tmp_path, monkeypatch, task_id, index):
    files, what = variant(task_id, index)
    folder = tmp_path / "submission"
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (tmp_path / "work").mkdir()
    code = assert_one_verdict(three_doors(task_id, str(folder), str(tmp_path / "work"), monkeypatch), what)
    if index == 0:
        assert code == 0


# ------------------------------------------------------------------------------ the hostile corpus ---
def _hostile_rows():
    rows = []
    with open(TABLE, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#") and line.strip():
                kind, task_id, rel = line.split("\t")[:3]
                rows.append((kind, task_id, rel))
    return [r for i, r in enumerate(rows) if EVERY_HOSTILE_CASE or r[0] == "archive" or i % 4 == 0]


@pytest.mark.parametrize("kind,task_id,rel", _hostile_rows(), ids=[r[2] for r in _hostile_rows()])
def test_the_hostile_corpus_gets_one_verdict(tmp_path, monkeypatch, kind, task_id, rel):
    """A run case is its folder (the run and the clean files beside it); an archive case is a submission holding
    only the archive, under its own name."""
    folder = tmp_path / "submission"
    source = os.path.join(HOSTILE, rel)
    if kind == "run":
        shutil.copytree(os.path.dirname(source), str(folder))
    else:
        folder.mkdir()
        shutil.copy(source, str(folder / os.path.basename(rel).split("__", 1)[-1]))
    (tmp_path / "work").mkdir()
    assert_one_verdict(three_doors(task_id, str(folder), str(tmp_path / "work"), monkeypatch), rel)


# ------------------------------------------- what once differed between the three doors, one by one ---
def _with(task_id, edit):
    def build():
        files = _sample(task_id)
        edit(files)
        return files
    return build


def _tqic_as(name):
    return lambda files: files.update({name: _sample("temporalia-tqic")["tqic_sample"]})


FINDINGS = [
    # a run validate accepted with a warning was "not a run of any task" in check and score.py
    ("ntcir1-adhoc", _with("ntcir1-adhoc", lambda f: f.update(ntc1=f["ntc1"].replace(b"\t", b" "))), 0,
     "ntc1:1: warning: line has no TAB; fields split on spaces (the format asks for TABs)"),
    # a comma-separated run got the generic message unless its name matched
    ("ntcir1-adhoc", _with("ntcir1-adhoc", lambda f: f.update({"myrun.csv": f.pop("ntc1").replace(b"\t", b",")})),
     1, "myrun.csv:1: error: the file looks comma-separated (50 of 50 lines split on ',' into 6 fields); a run of "
        "ntcir1-adhoc is a file named by its Run-ID"),
    # a TQIC run sent to the ntcir1-adhoc competition, and to the r2c2-ac one under an AC run's name
    ("ntcir1-adhoc", _with("ntcir1-adhoc", _tqic_as("run1")), 1,
     "run1:1: error: the file looks like a run of task temporalia-tqic, not of ntcir1-adhoc"),
    ("r2c2-ac", _with("r2c2-ac", _tqic_as("TEAM-AC-2")), 1,
     "TEAM-AC-2: error: the file looks like a run of task temporalia-tqic, not of r2c2-ac"),
    # a space-separated ntcir1-adhoc run (accepted by its task with a warning) sent to the TQIC competition got 150
    # field-count errors and no word of its task (found trying the kit as a participant)
    ("temporalia-tqic", _with("temporalia-tqic", lambda f: f.update(
        ntc1=_sample("ntcir1-adhoc")["ntc1"].replace(b"\t", b" "))), 1,
     "ntc1: error: the file looks like a run of task ntcir1-adhoc, not of temporalia-tqic"),
    # validate --task r2c2-ac called the companion PR file an invalid AC run
    ("r2c2-ac", _with("r2c2-ac", lambda f: None), 0, None),
    # two runs of the same name were both scored
    ("ntcir1-adhoc", _with("ntcir1-adhoc", lambda f: f.update({"old/ntc1": f["ntc1"]})), 1,
     "old/ntc1: error: run ntc1 of task ntcir1-adhoc is also in ntc1; each run is scored once: remove one file or "
     "give the runs different names"),
    # a TQIC run not named tqic_<group_id> got no warning (the seed: "name your files with the subtask name and
    # group id (e.g., tqic_roi_y)")
    ("temporalia-tqic", _with("temporalia-tqic", lambda f: f.update({"run.tsv": f.pop("tqic_sample")})), 0,
     "run.tsv: warning: the file should be named tqic_<group_id> (tqic_sample), as the task's instructions ask"),
]


@pytest.mark.parametrize("task_id,build,code,message", FINDINGS, ids=[str(i) for i in range(len(FINDINGS))])
def test_each_finding_gets_one_verdict_and_its_message(tmp_path, monkeypatch, task_id, build, code, message):
    folder = tmp_path / "submission"
    for name, data in build().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (tmp_path / "work").mkdir()
    doors = three_doors(task_id, str(folder), str(tmp_path / "work"), monkeypatch)
    assert assert_one_verdict(doors, task_id) == code, doors["check"][2]
    if message:
        assert message in "\n".join(doors["validate"][1]), doors["validate"][1]
    else:
        assert doors["validate"][1] == []
    assert "SAMPLE-PG-1.txt: read beside the r2c2-ac runs" in doors["validate"][2] or task_id != "r2c2-ac" or code


def test_check_without_a_task_rejects_runs_of_several_tasks_naming_each_competition(tmp_path):
    from conftest import run_cli

    folder = tmp_path / "mixed"
    folder.mkdir()
    for task_id in ("r2c2-pr", "ntcir1-adhoc"):
        for name, data in _sample(task_id).items():
            (folder / name).write_bytes(data)
    code, out, err = run_cli("check", folder)
    assert code == 1
    assert ("submission: error: runs of 2 tasks in one submission, and a competition scores one task: the r2c2-pr "
            "competition takes SAMPLE-PO-1.txt; the ntcir1-adhoc competition takes ntc1; send each task's runs to "
            "its own competition") in out
    # an r2c2-ac submission's PR run is its companion, not a second task
    folder = tmp_path / "ac"
    folder.mkdir()
    for name, data in _sample("r2c2-ac").items():
        (folder / name).write_bytes(data)
    code, out, err = run_cli("check", folder)
    assert code == 0 and "submission accepted: 1 run(s) of r2c2-ac" in out, out + err


def test_an_empty_submission_is_named(tmp_path):
    """A results zip that holds no file: the message names the submission (it began ': error:')."""
    from conftest import run_cli, run_score_py

    (tmp_path / "input" / "res").mkdir(parents=True)
    os.symlink(os.path.join(REFERENCES, "ntcir1-adhoc"), str(tmp_path / "input" / "ref"))
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 1 and err.startswith("submission: error: no run file found in the submission; expected "), err
    import zipfile

    zipfile.ZipFile(str(tmp_path / "empty.zip"), "w").close()
    code, out, err = run_cli("check", tmp_path / "empty.zip")
    assert code == 1 and "empty.zip: error: the zip holds no file; zip the run files themselves" in err, err
