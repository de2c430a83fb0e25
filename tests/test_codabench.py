"""score.py on Codabench-shaped folders: discovery, the all-or-nothing rule, scores files, exit codes."""
import json
import os
import shutil
import zipfile

import pytest
import yaml

from conftest import ROOT, run_score_py

SAMPLE_REF = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
SAMPLE_RUN = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")


def layout(tmp_path, files=None, ref=True):
    """input/ref/ntcir1-adhoc (the sample), input/res with the worker's metadata file, output/."""
    inp = tmp_path / "input"
    if ref:
        shutil.copytree(SAMPLE_REF, str(inp / "ref" / "ntcir1-adhoc"))
    res = inp / "res"
    res.mkdir(parents=True)
    (res / "metadata").write_text("exitCode: null\nelapsedTime: null\n")
    for name, content in (files or {}).items():
        path = res / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return inp, tmp_path / "output"


def sample_text():
    with open(SAMPLE_RUN) as handle:
        return handle.read()


def read_scores(out):
    with open(os.path.join(out, "scores.json")) as handle:
        as_json = json.load(handle)
    with open(os.path.join(out, "scores.txt")) as handle:
        text = handle.read()
    return as_json, text


def test_valid_submission_writes_both_scores_files(tmp_path):
    inp, out = layout(tmp_path, {"ntc1": sample_text()})
    code, stdout, stderr = run_score_py(inp, out)
    assert code == 0, stderr
    as_json, text = read_scores(out)
    keys = ["ntcir1_adhoc_map_rel1", "ntcir1_adhoc_map_rel2", "ntcir1_adhoc_rprec_rel1", "ntcir1_adhoc_rprec_rel2",
            "ntcir1_adhoc_p_10_rel1", "ntcir1_adhoc_p_10_rel2", "ntcir1_adhoc_11pt_avg_rel1",
            "ntcir1_adhoc_11pt_avg_rel2"]
    assert list(as_json) == keys
    # scores.txt is read as YAML by Codabench and with split(':') + float() by CodaLab v1: both must give numbers.
    assert yaml.load(text, Loader=yaml.Loader) == as_json
    for line in text.splitlines():
        key, value = line.split(":")
        assert float(value) == as_json[key] and value.startswith(" ") and "e" not in value
    assert all(len(k) <= 36 for k in as_json)
    assert "ntcir1_adhoc_map_rel1" in stdout
    assert not os.path.exists(os.path.join(out, "metadata"))
    html = (out / "detailed_results.html").read_text()
    assert "<table" in html and "ntc1" in html and "<svg" in html


def test_scores_match_the_cli(tmp_path):
    from conftest import run_cli

    inp, out = layout(tmp_path, {"ntc1": sample_text()})
    assert run_score_py(inp, out)[0] == 0
    code, stdout, _ = run_cli("score", "--task", "ntcir1-adhoc", "--ref", SAMPLE_REF, SAMPLE_RUN, "--json")
    cli = json.loads(stdout)["ntc1"]
    as_json, _ = read_scores(out)
    assert as_json["ntcir1_adhoc_map_rel1"] == pytest.approx(cli["map_rel1"], abs=5e-11)
    assert as_json["ntcir1_adhoc_11pt_avg_rel2"] == pytest.approx(cli["11pt_avg_rel2"], abs=5e-11)


def test_invalid_run_exits_1_lists_every_error_and_writes_no_scores(tmp_path):
    bad = sample_text().splitlines()
    bad[2] = bad[2].replace("\t9997\t", "\tabc\t")
    bad[5] = "0031\t0\tonly-five-fields\t1\t3"
    inp, out = layout(tmp_path, {"ntc1": "\n".join(bad) + "\n"})
    code, stdout, stderr = run_score_py(inp, out)
    assert code == 1
    assert "ntc1:3: error: Similarity-value: 'abc'" in stderr
    assert "ntc1:6: error: expected 6 TAB-separated fields" in stderr
    assert "Traceback" not in stderr
    assert not os.path.exists(os.path.join(out, "scores.json"))
    assert not os.path.exists(os.path.join(out, "scores.txt"))


def test_one_bad_file_fails_the_whole_submission(tmp_path):
    inp, out = layout(tmp_path, {"ntc1": sample_text(), "ntc2": "0031\t0\td\t1\tx\tntc2\n"})
    code, _, stderr = run_score_py(inp, out)
    assert code == 1 and "ntc2:1: error" in stderr
    assert not os.path.exists(os.path.join(out, "scores.txt"))


def test_several_runs_best_one_on_the_leaderboard(tmp_path):
    text = sample_text()
    worse = "".join(line.replace("ntc1", "ntc2") + "\n" for line in text.splitlines()[::3])
    inp, out = layout(tmp_path, {"ntc1": text, "ntc2": worse})
    code, stdout, stderr = run_score_py(inp, out)
    assert code == 0, stderr
    solo_inp, solo_out = layout(tmp_path / "solo", {"ntc2": worse})
    run_score_py(solo_inp, solo_out)
    both, _ = read_scores(out)
    alone, _ = read_scores(solo_out)
    solo1_inp, solo1_out = layout(tmp_path / "solo1", {"ntc1": text})
    run_score_py(solo1_inp, solo1_out)
    scores_ntc1 = read_scores(solo1_out)[0]["ntcir1_adhoc_map_rel1"]
    assert scores_ntc1 != alone["ntcir1_adhoc_map_rel1"]
    best_name = "ntc1" if scores_ntc1 > alone["ntcir1_adhoc_map_rel1"] else "ntc2"
    assert both["ntcir1_adhoc_map_rel1"] == max(scores_ntc1, alone["ntcir1_adhoc_map_rel1"])
    page = (out / "detailed_results.html").read_text()
    assert "Run %s \u2014 shown on the leaderboard" % best_name in page
    assert "Comparison of the ntcir1-adhoc runs" in page


@pytest.mark.parametrize("files", [
    {"__MACOSX/._ntc1": b"\x00\x05\x16\x07junk", ".DS_Store": b"\x00\x00", "ntc1": None},
    {"myrun/ntc1": None},                                   # a zipped folder: stepped into
])
def test_discovery_ignores_platform_files_and_steps_into_a_folder(tmp_path, files):
    files = {k: (sample_text() if v is None else v) for k, v in files.items()}
    inp, out = layout(tmp_path, files)
    code, _, stderr = run_score_py(inp, out)
    assert code == 0, stderr


def test_nested_zip_is_opened(tmp_path):
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(str(archive), "w") as z:
        z.writestr("ntc1", sample_text())
    inp, out = layout(tmp_path, {"sub.zip": archive.read_bytes()})
    code, stdout, stderr = run_score_py(inp, out)
    assert code == 0, stderr


@pytest.mark.parametrize("member, fragment", [
    ("../evil", "points outside the archive"),
    ("/etc/evil", "points outside the archive"),
    ("a/../../evil", "points outside the archive"),
])
def test_zip_slip_is_refused(tmp_path, member, fragment):
    archive = tmp_path / "x.zip"
    with zipfile.ZipFile(str(archive), "w") as z:
        z.writestr(member, "0031\t0\td\t1\t1\tr\n")
    inp, out = layout(tmp_path, {"x.zip": archive.read_bytes()})
    code, _, stderr = run_score_py(inp, out)
    assert code == 1 and fragment in stderr and "Traceback" not in stderr
    assert not (tmp_path / "evil").exists() and not (tmp_path / "input" / "evil").exists()


def test_empty_submission_names_what_was_expected(tmp_path):
    inp, out = layout(tmp_path, {})
    code, _, stderr = run_score_py(inp, out)
    assert code == 1 and "no run file found" in stderr and "ntcir1-adhoc" in stderr


def test_unrecognised_file_is_named(tmp_path):
    inp, out = layout(tmp_path, {"notes.txt": "hello world\n"})
    code, _, stderr = run_score_py(inp, out)
    # a competition scores one task: every file is read as its run, and the task says what is wrong
    assert code == 1 and "notes.txt:1: error: expected 6 TAB-separated fields" in stderr


def test_missing_reference_is_the_organisers_fault(tmp_path):
    inp, out = layout(tmp_path, {"ntc1": sample_text()}, ref=False)
    code, _, stderr = run_score_py(inp, out)
    assert code == 2 and "reference folder" in stderr and "Traceback" not in stderr


def test_reference_folder_of_a_single_task(tmp_path):
    """input/ref may itself be one task's folder (its task.yaml names the task)."""
    inp, out = layout(tmp_path, {"ntc1": sample_text()}, ref=False)
    shutil.copytree(SAMPLE_REF, str(inp / "ref"))
    code, _, stderr = run_score_py(inp, out)
    assert code == 0, stderr


def test_usage_error_is_exit_2():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scoring_program", "score.py")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "usage: score.py INPUT_DIR OUTPUT_DIR" in proc.stderr


def test_scores_are_deterministic(tmp_path):
    outputs = []
    for i in range(2):
        inp, out = layout(tmp_path / str(i), {"ntc1": sample_text()})
        assert run_score_py(inp, out)[0] == 0
        outputs.append((out / "scores.txt").read_bytes() + (out / "scores.json").read_bytes())
    assert outputs[0] == outputs[1]


def test_companion_files_are_read_not_rejected(tmp_path):
    """A competition with r2c2-ac but not r2c2-pr: the submission's PR run, cited by its AC run, is a companion."""
    inp = tmp_path / "input"
    shutil.copytree(os.path.join(ROOT, "reference_data", "r2c2-ac"), str(inp / "ref" / "r2c2-ac"))
    shutil.copytree(os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-ac"), str(inp / "res"))
    assert any("-PG-" in name or "-PO-" in name for name in os.listdir(str(inp / "res")))
    (inp / "res" / "metadata").write_text("exitCode: null\n")
    code, stdout, stderr = run_score_py(inp, tmp_path / "output")
    assert code == 0, stderr
    assert "not scored as a run" in stdout
    assert all(k.startswith("r2c2_ac_") for k in json.loads((tmp_path / "output" / "scores.json").read_text()))
