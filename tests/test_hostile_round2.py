"""Hostile submissions, round 2: one regression test per defect found by the attack on the landed code, through
the entry points a participant or an organiser uses (score.py, the CLI), plus the per-team run cap a researcher
rescoring several teams must not be held to. The replay loophole (item 1) is in test_r2c2_replay.py; the fuzzing of every numeric field in
test_fuzz_numeric_fields.py."""
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zipfile

import pytest

from conftest import (ROOT, cpu_seconds, clear_internal_errors, codabench_input, internal_errors_logged, run_cli,
                      run_score_py)
from runscore import discover
from runscore.codabench import entry
from runscore.errors import ConfigError, RunError
from runscore.pipeline import check_file, load_reference, score_run
from runscore.tasks import get_task

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFS = os.path.join(ROOT, "reference_data")


def _sample(task_id, name):
    with open(os.path.join(SAMPLES, task_id, name), encoding="utf-8") as handle:
        return handle.read()


NTC1 = _sample("ntcir1-adhoc", "ntc1")


def _with_line(text, index, change):
    lines = text.splitlines(True)
    lines[index] = change(lines[index])
    return "".join(lines)


def _field(text, index, column, value, sep="\t"):
    def change(line):
        fields = line.rstrip("\n").split(sep)
        fields[column] = value
        return sep.join(fields) + "\n"
    return _with_line(text, index, change)


# --------------------------------------------------------------------------- 2. tracebacks ---

@pytest.mark.parametrize("task_id, name, text", ids=lambda v: v if len(str(v)) < 30 else "text", argvalues=[
    ("ntcir1-adhoc", "ntc1", _field(NTC1, 1, 0, "\u00b3")),                 # isdigit() true, int() fails
    ("ntcir1-adhoc", "ntc1", _field(NTC1, 1, 0, "9" * 4301)),               # past Python's int-string limit
    ("ntcir1-adhoc", "ntc1", _field(NTC1, 2, 3, "9" * 4301)),               # the Rank
    ("temporalia-tqic", "tqic_sample", _field(_sample("temporalia-tqic", "tqic_sample"), 2, 0, "9" * 4301)),
    ("qqa23-mrc", "sample_run01.json", _sample("qqa23-mrc", "sample_run01.json").replace(
        '"end_token_indx": 2', '"end_token_indx": ' + "9" * 4300, 1)),
])
def test_hostile_numbers_after_line_one_get_short_messages(tmp_path, task_id, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli("score", "--task", task_id, "--ref", os.path.join(REFS, task_id), path)
    assert code in (0, 1) and "Traceback" not in err and "internal error" not in err
    assert all(len(line) < 400 for line in err.splitlines()), max(err.splitlines(), key=len)[:200]


def _zip_with_raw_name(path, raw_name, utf8_flag):
    """A one-entry zip whose name is the given bytes, with or without the UTF-8 flag (0x800)."""
    placeholder = "N" * len(raw_name)
    with zipfile.ZipFile(str(path), "w") as archive:
        archive.writestr(placeholder, NTC1)
    data = bytearray(path.read_bytes())
    data = data.replace(placeholder.encode("ascii"), raw_name)
    for signature, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        flags = struct.unpack_from("<H", data, at + flag_offset)[0]
        flags = (flags | 0x800) if utf8_flag else (flags & ~0x800)
        struct.pack_into("<H", data, at + flag_offset, flags)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("raw_name, utf8_flag, readable", [
    ("ntc1".encode("utf-8"), True, True),
    ("ntc1".encode("utf-8"), False, True),
    ("r\u00e9sum\u00e9/ntc1".encode("utf-8"), True, True),
    ("r\u00e9sum\u00e9/ntc1".encode("utf-8"), False, True),      # read as cp437: another name, still a file
    ("r\u00e9sum\u00e9/ntc1".encode("latin-1"), True, False),    # flagged UTF-8, is not: the traceback
    ("r\u00e9sum\u00e9/ntc1".encode("latin-1"), False, True),
    ("\u65e5\u672c/ntc1".encode("shift_jis"), True, False),
    ("\u65e5\u672c/ntc1".encode("shift_jis"), False, True),
])
def test_zip_names_in_every_encoding_flag_combination(tmp_path, raw_name, utf8_flag, readable):
    archive = tmp_path / "sub.zip"
    _zip_with_raw_name(archive, raw_name, utf8_flag)
    target = tmp_path / "t"
    target.mkdir()
    if readable:
        discover.safe_extract(str(archive), str(target), "sub.zip")
        assert sum(len(files) for _, _, files in os.walk(str(target))) == 1
    else:
        with pytest.raises(RunError, match="an entry name is marked UTF-8 but is not valid UTF-8"):
            discover.safe_extract(str(archive), str(target), "sub.zip")


def test_scores_txt_existing_as_a_folder_is_exit_2(tmp_path):
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {"ntc1": NTC1})
    (tmp_path / "output" / "scores.txt").mkdir(parents=True)
    code, _, err = run_score_py(input_dir, tmp_path / "output")
    assert code == 2 and "scores.txt exists in the output folder and is not a file" in err
    assert "Traceback" not in err


def test_an_unexpected_exception_is_exit_2_internal_error(tmp_path, monkeypatch, capsys):
    task = get_task("ntcir1-adhoc")

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(type(task), "score_runs", broken)
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {"ntc1": NTC1})
    assert entry.main(["score.py", str(input_dir), str(tmp_path / "output")]) == 2
    err = capsys.readouterr().err
    assert "internal error, please report it" in err and "ZeroDivisionError" in err and "Traceback" not in err
    assert "ZeroDivisionError: boom" in internal_errors_logged()     # what makes any other test fail
    from runscore import cli
    assert cli.main(["score", "--task", "ntcir1-adhoc", "--ref", os.path.join(REFS, "ntcir1-adhoc"),
                     str(input_dir / "res" / "ntc1")]) == 2
    clear_internal_errors()


# --------------------------------------------------------------------------- 3. many runs ---

def _ac_run(team, answer="x"):
    return "<D0001>%s;80\n1;ALPHA-PO-1;1;a nugget\n</D0001>\n<D0004>%s;60\n</D0004>\n" % (answer, answer)


FIVE_TEAMS = ["BITEM-AC-2", "Error404-AC-3", "WaterlooClarke-AC-2", "hit-u-AC-1", "slr2c2-AC-4"]


def test_five_teams_ac_runs_in_one_cli_call_are_all_scored(tmp_path):
    """A researcher rescoring several teams' runs is not held to one team's cap."""
    paths = []
    for name in FIVE_TEAMS:
        (tmp_path / name).write_text(_ac_run(name), encoding="utf-8")
        paths.append(tmp_path / name)
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", os.path.join(REFS, "r2c2-ac"), "--option",
                             "unlabelled_runs=auto_only", "--json", *paths)
    assert code == 0, err
    import json
    assert sorted(json.loads(out)) == sorted(FIVE_TEAMS)
    # five runs of ONE team: still no cap on the command line, unless asked for
    for k in range(1, 5):
        (tmp_path / ("T-AC-%d" % k)).write_text(_ac_run("T"), encoding="utf-8")
    (tmp_path / "T-AC-1.txt").write_text(_ac_run("T"), encoding="utf-8")
    same_team = [tmp_path / ("T-AC-%d" % k) for k in range(1, 5)] + [tmp_path / "T-AC-1.txt"]
    args = ("score", "--task", "r2c2-ac", "--ref", os.path.join(REFS, "r2c2-ac"), "--option",
            "unlabelled_runs=auto_only")
    # T-AC-1 and T-AC-1.txt are two runs of one name: an error of its own, but no cap
    code, _, err = run_cli(*(args + tuple(same_team)))
    assert code == 1 and "T-AC-1.txt: error: run T-AC-1 of task r2c2-ac is also in " in err
    assert "runs of team T" not in err
    code, _, err = run_cli(*(args + ("--team-cap",) + tuple(same_team)))
    # --team-cap applies the platform's rule, so validate, check and score.py say the same
    assert code == 1 and "5 runs of task r2c2-ac in the submission" in err, err


def _ref_copy(tmp_path, task_id, options):
    ref = tmp_path / "input" / "ref"
    shutil.copytree(os.path.join(REFS, task_id), str(ref))
    text = (ref / "task.yaml").read_text(encoding="utf-8")
    for name, value in options.items():
        text = text.replace("  %s: " % name, "  %s: %s #" % (name, value), 1)
    (ref / "task.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "input" / "res").mkdir()
    return tmp_path / "input"


def test_platform_submission_is_one_teams_and_the_cap_counts_its_runs(tmp_path):
    """The cap was once counted per team as the names told it; a submission is one team's, so several
    teams' runs are an error, and the cap counts the submission's runs (test_submission_rules.py has the rest)."""
    input_dir = _ref_copy(tmp_path, "r2c2-ac", {"unlabelled_runs": "auto_only"})
    for name in FIVE_TEAMS[:2]:
        (input_dir / "res" / name).write_text(_ac_run(name), encoding="utf-8")
    code, out, err = run_score_py(input_dir, tmp_path / "out1")
    assert code == 1 and "Error404-AC-3: error: run Error404-AC-3 names team Error404, but run BITEM-AC-2 names " \
        "team BITEM (BITEM-AC-2): a submission is one team's" in err, err
    (input_dir / "res" / "Error404-AC-3").unlink()
    for k in range(1, 5):
        (input_dir / "res" / ("BITEM-AC-%d.txt" % k)).write_text(_ac_run("B"), encoding="utf-8")
    code, out, err = run_score_py(input_dir, tmp_path / "out2")
    assert code == 1 and "5 runs of task r2c2-ac in the submission" in err, err


def _ntcir_runs(folder, count):
    for k in range(count):
        name = "run%04d" % k
        (folder / name).write_text(NTC1.replace("\tntc1\n", "\t%s\n" % name), encoding="utf-8")


def test_resource_cap_of_runs_per_submission(tmp_path, monkeypatch):
    monkeypatch.setattr(get_task("ntcir1-adhoc"), "max_runs_per_submission", 3)
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {})
    _ntcir_runs(input_dir / "res", 4)
    assert entry.main(["score.py", str(input_dir), str(tmp_path / "out")]) == 1


def test_comparison_is_bounded_to_the_best_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(entry, "MAX_COMPARED_RUNS", 3)
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {})
    _ntcir_runs(input_dir / "res", 5)
    assert entry.main(["score.py", str(input_dir), str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "The 3 best of the 5 runs by" in page


@pytest.mark.parametrize("task_id", ["ntcir1-adhoc", "r2c2-ac"])
def test_a_1000_file_submission_takes_seconds_not_minutes(tmp_path, task_id):
    """Generous guard (1,000 tiny r2c2-ac files once took 6.9 s, 2,000 took 26.7 s, growing with the
    square); the measured figures are in docs/performance.md (`make bench`)."""
    if task_id == "ntcir1-adhoc":
        input_dir = codabench_input(tmp_path, task_id, {})
    else:
        input_dir = _ref_copy(tmp_path, task_id, {"unlabelled_runs": "auto_only"})
    res = input_dir / "res"
    if task_id == "ntcir1-adhoc":
        _ntcir_runs(res, 1000)
    else:
        shutil.copyfile(os.path.join(SAMPLES, "r2c2-ac", "SAMPLE-PG-1.txt"), str(res / "SAMPLE-PG-1.txt"))
        for k in range(1000):
            (res / ("T%04d-AC-1" % k)).write_text(_ac_run("T"), encoding="utf-8")
    started = cpu_seconds()
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    cpu = cpu_seconds() - started
    assert code == 1 and "at most 100 are scored in one submission" in err      # the resource cap, said once
    assert cpu < 30, "1,000 tiny files took %.1f CPU seconds" % cpu


# --------------------------------------------------------------------------- 4. decisions by text ---

def test_a_warning_quoting_error_text_does_not_reject(tmp_path):
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {"ntc1": _field(NTC1, 3, 3, "x: error: y")})
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 0, err
    assert "warning: Rank 'x: error: y' is not an integer" in err


def test_a_submission_with_only_a_companion_is_rejected(tmp_path):
    input_dir = codabench_input(tmp_path, "r2c2-ac", {"SAMPLE-PG-1.txt": _sample("r2c2-ac", "SAMPLE-PG-1.txt")})
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 1 and "the submission holds no run of r2c2-ac, only files read beside such runs" in err
    assert not (tmp_path / "out" / "scores.json").exists()


@pytest.mark.parametrize("task_id, name, text", ids=lambda v: v if len(str(v)) < 30 else "text", argvalues=[
    ("ntcir1-adhoc", "ntcir_run", "\n" * 5 + NTC1),
    ("ntcir1-adhoc", "ntcir_run", "\n \n\t\n" * 3000 + NTC1),     # past the first 4 KiB
    ("datasearch-qa", "answers.tsv", _sample("datasearch-qa", "ds2qa_sample.tsv").replace(
        "<SYSDESC>Synthetic sample run", "<SYSDESC>a\tb\tc\td\te\tf", 1)),
])
def test_content_sniffing_is_not_fooled(tmp_path, task_id, name, text):
    input_dir = codabench_input(tmp_path, task_id, {name: text})
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 0, err


def test_a_utf16_file_gets_the_utf16_message(tmp_path):
    input_dir = codabench_input(tmp_path, "datasearch-qa", {})
    text = _sample("datasearch-qa", "ds2qa_sample.tsv")
    (input_dir / "res" / "answers.tsv").write_bytes(text.encode("utf-16"))
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 1 and "answers.tsv:1: error: file is UTF-16" in err
    (input_dir / "res" / "answers.tsv").write_bytes(text.encode("utf-16-le"))      # no BOM
    code, _, err = run_score_py(input_dir, tmp_path / "out2")
    assert code == 1 and "answers.tsv:1: error: file looks like UTF-16" in err


def test_a_zip_with_fake_end_markers_is_an_unreadable_zip(tmp_path):
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {})
    archive = input_dir / "res" / "sub.zip"
    with zipfile.ZipFile(str(archive), "w") as handle:
        handle.writestr("ntc1", NTC1)
        handle.comment = b"PK\x05\x06" + b"\xff" * 18 + b"PK\x05\x06" + b"\x00" * 18
    data = archive.read_bytes()
    archive.write_bytes(data[:data.find(b"PK\x05\x06") + 4] + b"\xee" * 18 + data[data.find(b"PK\x05\x06") + 22:])
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 1 and "sub.zip: error: not a readable zip file" in err and "UTF-8" not in err


def test_an_unreadable_companion_is_its_own_error(tmp_path):
    input_dir = codabench_input(tmp_path, "r2c2-ac", {"SAMPLE-AC-1": _sample("r2c2-ac", "SAMPLE-AC-1")})
    (input_dir / "res" / "SAMPLE-PG-1.txt").write_bytes(b"0001;1;d;\xff\xfe broken\n")
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 1
    assert "SAMPLE-PG-1.txt:1: error: file is not valid UTF-8" in err
    assert "SAMPLE-AC-1: error" not in err


def test_a_big_run_with_a_bom_is_read_like_one_without(tmp_path, monkeypatch):
    """The fast reader serves runs over the exact reader's cap (143 MiB in the issue); made small here."""
    from runscore import textfile
    from runscore.ranking import fastpath

    task = get_task("ntcir1-adhoc")
    reference = load_reference(task, os.path.join(REFS, "ntcir1-adhoc"))
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1")
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(fastpath, "MAX_FILE_BYTES", 1000)
    scores = []
    for name, data in (("ntc1", NTC1.encode()), ("bom/ntc1", b"\xef\xbb\xbf" + NTC1.encode())):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        checked = check_file(task, str(path), "ntc1", reference, reference.options)
        assert not checked.diags.has_errors, checked.diags.lines()
        scores.append(score_run(reference, checked.runs[0]).measures)
    assert scores[0] == scores[1]


# --------------------------------------------------------------------------- 5. reference data ---

def _ref_with(tmp_path, task_id, edit):
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(REFS, task_id), str(ref))
    path = ref / "task.yaml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return ref


@pytest.mark.parametrize("task_id, edit, message", [
    ("ntcir1-adhoc", lambda t: t.replace("task: ntcir1-adhoc", "task: 123"), "task must be a task id"),
    ("ntcir1-adhoc", lambda t: t.replace("task: ntcir1-adhoc", "task: [a, b]"), "task must be a task id"),
    ("ntcir1-adhoc", lambda t: t + "bomb: &a [x, x, x, x, x, x, x, x, x]\nb2: &b [*a, *a, *a, *a, *a, *a, *a]\n"
                                   "b3: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n", "YAML aliases (*a) are not accepted"),
    ("ntcir1-adhoc", lambda t: t.replace("  max_docs: 1000", "  max_docs: -1", 1), "must be at least 1"),
    ("ntcir1-adhoc", lambda t: t.replace("  max_docs: 1000", "  max_docs: true", 1), "should be of type int"),
    ("ntcir1-adhoc", lambda t: t + "options:\n  max_docs: 10\n", "key 'options' is given twice"),
    ("temporalia-tir", lambda t: t.replace('  gains: "1:2"', '  gains: "1e308:1e308"', 1),
     "gains must be at most"),
    ("r2c2-ac", lambda t: t.replace("  ece_bins: 10", "  ece_bins: 1000000000"), "must be at most 1000"),
    # found by make fuzz: an option name that YAML reads as a number, an integer past Python's 4,300 digits
    ("ntcir1-adhoc", lambda t: t.replace("  max_docs: 1000", "  0x1F: 1000"), "option name 31 is not a name"),
    ("ntcir1-adhoc", lambda t: t.replace("  max_docs: 1000", "  max_docs: " + "9" * 5000),
     "cannot read task.yaml: 'Exceeds the limit"),
])
def test_reference_defects_are_exit_2_with_a_message(tmp_path, task_id, edit, message):
    ref = _ref_with(tmp_path, task_id, edit)
    input_dir = tmp_path / "input"
    (input_dir / "res").mkdir(parents=True)
    os.symlink(str(ref), str(input_dir / "ref"))
    started = cpu_seconds()
    code, _, err = run_score_py(input_dir, tmp_path / "out")
    assert code == 2 and message in err, err
    assert "Traceback" not in err and cpu_seconds() - started < 20


def test_options_given_twice_in_task_yaml_are_refused(tmp_path):
    ref = _ref_with(tmp_path, "ntcir1-adhoc", lambda t: t + "\noptions:\n  max_docs: 10\n")
    with pytest.raises(ConfigError, match="given twice"):
        load_reference(get_task("ntcir1-adhoc"), str(ref))


def test_a_nugget_label_passage_rank_of_two_minus_signs(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(REFS, "r2c2-ac"), str(ref))
    path = ref / "ac_nugget_labels_sample.tsv"
    lines = path.read_text(encoding="utf-8").splitlines(True)
    fields = lines[1].split("\t")
    fields[4] = "--1"
    lines[1] = "\t".join(fields)
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(ConfigError, match="PassageRank must be an integer, found '--1'"):
        load_reference(get_task("r2c2-ac"), str(ref))


def test_limits_doc_gives_the_documents_per_subtopic_the_code_allows():
    from runscore.tasks.temporalia.tir import MAX_DOCS

    with open(os.path.join(ROOT, "docs", "limits.md"), encoding="utf-8") as handle:
        text = handle.read()
    assert "temporalia-tir refuses more than %d documents per subtopic" % MAX_DOCS in " ".join(text.split())


def test_sigterm_removes_the_unpacked_submission(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {})
    with zipfile.ZipFile(str(input_dir / "res" / "runs.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
        for k in range(100):
            archive.writestr("runs/run%04d" % k, NTC1.replace("\tntc1\n", "\trun%04d\n" % k))
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "scoring_program", "score.py"), str(input_dir),
                             str(tmp_path / "out")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not any(n.startswith("runscore-") for n in os.listdir(str(tmp))):
        time.sleep(0.01)
    assert any(n.startswith("runscore-") for n in os.listdir(str(tmp))), "the scorer never unpacked"
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    if proc.returncode in (0, -signal.SIGTERM):
        # 0: it finished first; -SIGTERM: the signal met the default handler that score.py puts back once the
        # submission is scored and its folder removed (seen on a loaded machine): either way nothing is left behind
        assert [n for n in os.listdir(str(tmp)) if n.startswith("runscore-")] == []
        pytest.skip("the scorer finished before SIGTERM arrived (machine too fast for this test)")
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert b"stopped by SIGTERM" in err
    assert [n for n in os.listdir(str(tmp)) if n.startswith("runscore-")] == []


def test_a_sigterm_while_the_unpacked_submission_is_removed_still_removes_it(monkeypatch):
    """SIGTERM just after scoring, while the folder is being removed (a fast scorer met the test above so): the
    removal finishes, then the termination goes on."""
    import tempfile

    from runscore.codabench import entry

    folder = tempfile.mkdtemp()
    for k in range(50):
        open(os.path.join(folder, "f%02d" % k), "w").close()
    real = shutil.rmtree
    calls = []

    def interrupted(path, ignore_errors=False):
        calls.append(path)
        if len(calls) == 1:
            os.unlink(os.path.join(path, "f00"))        # part of the folder is gone when the signal arrives
            raise entry.Terminated()
        return real(path, ignore_errors=ignore_errors)

    monkeypatch.setattr(entry.shutil, "rmtree", interrupted)
    with pytest.raises(entry.Terminated):
        entry.remove_tree(folder)
    assert not os.path.exists(folder) and len(calls) == 2
