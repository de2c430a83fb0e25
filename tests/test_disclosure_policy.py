"""The disclosure policy (codabench/disclosure.py): where a phase's level comes from, what each level shows, the
receipt, r2c2-ac's replay verdict, `runscore check --ref`, and the bundle's formal phase."""
import contextlib
import hashlib
import io
import os
import shutil
import zipfile

import pytest

from conftest import ROOT, run_cli
from runscore.codabench import entry
from runscore.codabench.bundle_files import with_detail
from runscore.codabench.disclosure import level_of
from runscore.errors import ConfigError
from runscore.submission import HIDDEN_VERDICT

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")


def run_score_py(input_dir, output_dir):
    """score.py's entry in-process (the suite's time budget), with its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = entry.main(["score.py", str(input_dir), str(output_dir)])
    return code, out.getvalue(), err.getvalue()


def _phase(tmp_path, task_id, detail, submission=None, edit=None):
    """input/ref = the task's sample reference with `detail:` set (None: the line removed), input/res = its
    sample submission (or `submission`); returns (exit, stdout, stderr, page)."""
    ref = tmp_path / "input" / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", task_id), str(ref))
    text = (ref / "task.yaml").read_bytes()
    if detail is None:
        (ref / "task.yaml").write_bytes(b"".join(l for l in text.splitlines(True) if not l.startswith(b"detail:")))
    else:
        (ref / "task.yaml").write_bytes(with_detail(text, detail))
    shutil.copytree(submission or os.path.join(SAMPLES, task_id), str(tmp_path / "input" / "res"))
    if edit:
        edit(tmp_path / "input" / "res")
    code, out, err = run_score_py(tmp_path / "input", tmp_path / "output")
    page = (tmp_path / "output" / "detailed_results.html").read_text(encoding="utf-8")
    return code, out, err, page


def test_a_reference_that_does_not_say_is_hidden():
    assert level_of({}, "task.yaml") == "aggregate"
    assert level_of({"detail": "full"}, "task.yaml") == "full"
    with pytest.raises(ConfigError, match="detail must be one of aggregate, per_topic, full"):
        level_of({"detail": "everything"}, "task.yaml")


def test_a_bad_detail_is_the_organisers_fault(tmp_path):
    ref = tmp_path / "input" / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", "temporalia-tqic"), str(ref))
    (ref / "task.yaml").write_bytes(with_detail((ref / "task.yaml").read_bytes(), "full").replace(b"full", b"all"))
    shutil.copytree(os.path.join(SAMPLES, "temporalia-tqic"), str(tmp_path / "input" / "res"))
    code, _, err = run_score_py(tmp_path / "input", tmp_path / "output")
    assert code == 2 and "detail must be one of" in err


def test_the_shipped_samples_are_public_and_say_so():
    for task_id in os.listdir(os.path.join(ROOT, "reference_data")):
        text = open(os.path.join(ROOT, "reference_data", task_id, "task.yaml"), encoding="utf-8").read()
        assert "\ndetail: full " in text, task_id


def test_with_detail_replaces_the_line():
    assert with_detail(b"task: x\ndetail: full\nqrels: q\n", "aggregate").startswith(b"task: x\nqrels: q\ndetail: "
                                                                                      b"aggregate ")
    assert with_detail(b"task: x", "per_topic").count(b"\n") == 2


@pytest.mark.parametrize("detail", [None, "aggregate", "per_topic", "full"])
def test_what_each_level_shows_ntcir1(tmp_path, detail):
    code, out, err, page = _phase(tmp_path, "ntcir1-adhoc", detail)
    assert code == 0, err
    assert "MAP (rigid)" in page and "Receipt" in page                  # aggregates and the receipt, always
    per_topic = "Per-topic values" in page
    assert per_topic == (detail in ("per_topic", "full"))
    assert ("<th>num_rel_rel1</th>" in page) == (detail == "full")     # relevant counts: full only
    assert ("<th>map_rel1</th>" in page) == (detail in ("per_topic", "full"))
    assert ("receipt: run ntc1" in out) == (detail != "full")           # the log of a hidden phase
    # a hidden phase shows the leaderboard columns and no other measure (P@5 at two levels decoded grades)
    assert ("P_5_rel1" in page) == (detail in ("per_topic", "full"))
    assert ("gm_map_rel1" in page) == (detail in ("per_topic", "full"))


def test_the_receipt_is_the_files_hash_and_lines(tmp_path):
    code, out, err, page = _phase(tmp_path, "temporalia-tqic", None)
    data = open(os.path.join(SAMPLES, "temporalia-tqic", "tqic_sample"), "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    assert code == 0, err
    lines = data.splitlines()
    own = sum(1 for line in lines if line.endswith(b"\tsample_run1"))        # the file holds several runs
    assert "<td>%d of %d</td><td>%s</td>" % (own, len(lines), digest) in page.replace('<td class="text">', "<td>")
    assert "receipt: run sample_run1, team sample, %d lines (of %d in the file), sha256 %s" % (own, len(lines),
                                                                                              digest) in out


def _change_the_first_confidence(res):
    path = res / "SAMPLE-AC-1"
    text = path.read_text(encoding="utf-8").replace(";90\n", ";80\n", 1)       # two parts differ: a Confidence, a nugget
    path.write_text(text.replace("co-wrote the screenplay; it premiered", "co-wrote it", 1), encoding="utf-8")


def test_r2c2_ac_replay_is_no_equality_oracle_in_a_hidden_phase(tmp_path):
    code, out, err, page = _phase(tmp_path / "hidden", "r2c2-ac", None, edit=_change_the_first_confidence)
    assert code == 1 and HIDDEN_VERDICT in err and "differs from run" not in err + page
    assert "SAMPLE-AC-1:" in err and ":2: error" not in err                       # no line named either
    assert "submission rejected: 1 error(s)" in err                              # nor how many parts differ
    code, out, err, page = _phase(tmp_path / "full", "r2c2-ac", "full", edit=_change_the_first_confidence)
    assert code == 1 and "differs from run SAMPLE-AC-1 as it was assessed" in err   # the sample phase says all


def test_check_with_ref_follows_the_references_policy(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", "r2c2-ac"), str(ref))
    (ref / "task.yaml").write_bytes(with_detail((ref / "task.yaml").read_bytes(), "aggregate"))
    res = tmp_path / "res"
    shutil.copytree(os.path.join(SAMPLES, "r2c2-ac"), str(res))
    _change_the_first_confidence(res)
    code, out, err = run_cli("check", "--ref", str(ref), str(res), cwd=os.path.join(ROOT, "scoring_program"))
    assert code == 1 and HIDDEN_VERDICT in out + err
    assert "differs from run" not in out + err
    assert "rejected: 1 error(s)" in out and "invalid               1 " in out


def test_the_command_line_score_shows_everything(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", "ntcir1-adhoc"), str(ref))
    (ref / "task.yaml").write_bytes(with_detail((ref / "task.yaml").read_bytes(), "aggregate"))
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", str(ref),
                             os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), "--json", "--per-topic",
                             cwd=os.path.join(ROOT, "scoring_program"))
    assert code == 0, err
    assert '"num_rel_rel1"' in out and '"per_topic"' in out


def _formal_task_yaml(zip_path, task_id):
    with zipfile.ZipFile(str(zip_path)) as archive:
        return archive.read("reference_data_formal/%s/task.yaml" % task_id).decode("utf-8"), \
            archive.read("reference_data/%s/task.yaml" % task_id).decode("utf-8"), \
            archive.read("pages/overview.md").decode("utf-8")


@pytest.mark.parametrize("option, expected", [([], "aggregate"), (["--formal-detail", "per_topic"], "per_topic")])
def test_the_bundles_formal_phase_is_hidden_unless_the_organiser_says(tmp_path, option, expected):
    secret = tmp_path / "secret"
    shutil.copytree(os.path.join(ROOT, "reference_data", "temporalia-tqic"), str(secret))   # says detail: full
    out = tmp_path / "t.zip"
    code, _, err = run_cli(*["bundle", "--tasks", "temporalia-tqic", "-o", str(out), "--reference", str(secret),
                             "--no-lint"] + option, cwd=os.path.join(ROOT, "scoring_program"))
    assert code == 0, err
    formal, sample, overview = _formal_task_yaml(out, "temporalia-tqic")
    assert [l.split("#")[0].strip() for l in formal.splitlines() if l.startswith("detail:")] == ["detail: " + expected]
    assert "\ndetail: full " in sample                                   # the dry run stays public
    assert ("says detail: full" in err) == (not option)
    shown = {"aggregate": "leaderboard columns", "per_topic": "aggregate measures"}[expected]
    assert "Formal run**: scored against the campaign's hidden reference data. Its detailed results and logs " \
           "show each run's %s" % shown in overview


def test_the_note_on_a_formal_detail_names_the_task_yaml_the_organiser_would_edit(tmp_path):
    """With REFERENCE holding a folder per task id (as `make bundle REFERENCE=` takes it), the note names
    REFERENCE/<task-id>/task.yaml, the file that says it; REFERENCE itself has no task.yaml."""
    secret = tmp_path / "secret"
    shutil.copytree(os.path.join(ROOT, "reference_data", "temporalia-tqic"), str(secret / "temporalia-tqic"))
    code, _, err = run_cli("bundle", "--tasks", "temporalia-tqic", "-o", str(tmp_path / "t.zip"), "--reference",
                           str(secret), "--no-lint", cwd=os.path.join(ROOT, "scoring_program"))
    assert code == 0, err
    assert "note: %s says detail: full;" % os.path.join(str(secret), "temporalia-tqic", "task.yaml") in err


def test_the_second_pass_of_a_hidden_phase_costs_no_read_budget(tmp_path, monkeypatch):
    """r2c2-ac files are parsed again against the whole reference; that reading is not counted a second time
    against the submission's byte budget (a valid submission just under it would otherwise be rejected)."""
    from runscore import textfile

    folder = os.path.join(SAMPLES, "r2c2-ac")
    size = sum(os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder))
    monkeypatch.setattr(textfile, "MAX_SUBMISSION_TEXT_BYTES", size + 16)
    code, out, err, page = _phase(tmp_path, "r2c2-ac", "aggregate")
    assert code == 0, err


@pytest.mark.parametrize("task_id", sorted(os.listdir(os.path.join(ROOT, "reference_data"))))
@pytest.mark.parametrize("detail", [None, "per_topic"])
def test_a_hidden_phase_stores_each_column_as_the_leaderboard_shows_it(tmp_path, task_id, detail):
    """Codabench stores a score with 10 decimals and returns it so to the submitter (`/api/submissions/`): a hidden
    phase writes each column rounded to its precision, the value the board shows, and no digit more than the
    channel counts (codabench/channel.py). Every sample run but datasearch-qa's has a column value that is not
    round at its precision, so the test fails where the scores files carry 10 decimals."""
    import json

    from runscore.tasks import get_task

    task = get_task(task_id)
    code, out, err, page = _phase(tmp_path, task_id, detail)
    assert code == 0, err
    stored = json.loads((tmp_path / "output" / "scores.json").read_text(encoding="utf-8"))
    lines = (tmp_path / "output" / "scores.txt").read_text(encoding="utf-8")
    for column in task.columns:
        value = stored[task.leaderboard_key(column)]
        assert value == float("%.*f" % (column.precision, value)), (column.measure, value)
        assert "%s: %.10f\n" % (task.leaderboard_key(column), value) in lines
