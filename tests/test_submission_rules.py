"""On the platform a submission is one team's. Runs naming several teams or groups are an error,
the campaign's cap counts the runs of the submission (never the names inside the files), and the leaderboard row
of a hidden phase is the team's primary run (its lowest run number) unless the organiser chooses best-of.

score.py is run in-process (entry.main) on the shipped sample reference data, with a task.yaml edited where a
test needs another setting."""
import os
import shutil

import pytest

from conftest import ROOT
from runscore.codabench import entry
from runscore.errors import ConfigError
from runscore.pipeline import LEADERBOARD_RUNS, leaderboard_run, load_reference
from runscore.tasks import all_tasks, get_task
from runscore.tasks.base import ParsedRun, RunScores

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFS = os.path.join(ROOT, "reference_data")


def _sample(task_id, name):
    with open(os.path.join(SAMPLES, task_id, name), encoding="utf-8") as handle:
        return handle.read()


def _temporalia(task_id, sample, runs):
    """One file holding `runs` [(group_id, run_id)], each a copy of the sample run's lines."""
    lines = _sample(task_id, sample).splitlines()
    first_run = [line for line in lines[1:] if line.split("\t")[-1] == lines[1].split("\t")[-1]]
    out = [lines[0]]
    for group, run in runs:
        for line in first_run:
            fields = line.split("\t")
            out.append("\t".join(fields[:-2] + [group, run]))
    return "\n".join(out) + "\n"


AC_RUN = "<D0001>x;80\n1;ALPHA-PO-1;1;a nugget\n</D0001>\n<D0004>x;60\n</D0004>\n"


def runs_of(task_id, teams_and_numbers):
    """{file name: text}: one run per (team, run number), named as the task's runs are named."""
    if task_id in ("temporalia-tqic", "temporalia-tir"):
        prefix, sample = ("tqic", "tqic_sample") if task_id == "temporalia-tqic" else ("tir", "tir_sample")
        return {"%s_%s" % (prefix, teams_and_numbers[0][0]): _temporalia(
            task_id, sample, [(team, "%s_run%d" % (team, n)) for team, n in teams_and_numbers])}
    files = {}
    for k, (team, n) in enumerate(teams_and_numbers):
        if task_id == "r2c2-pr":     # RunNumber is 1-4: PG and PO runs are both PR runs
            files["%s-%s-%d.txt" % (team, "PO" if n <= 4 else "PG", (n - 1) % 4 + 1)] = _sample("r2c2-pr",
                                                                                               "SAMPLE-PO-1.txt")
        elif task_id == "r2c2-ac":   # RunNumber is 1-4: a fifth run repeats a number with .txt
            files["%s-AC-%d%s" % (team, (n - 1) % 4 + 1, ".txt" if n > 4 else "")] = AC_RUN
        elif task_id == "qqa23-mrc":
            files["%s_run%02d.json" % (team, n)] = _sample("qqa23-mrc", "sample_run01.json")
        elif task_id == "datasearch-qa":
            files["%s_run%d.tsv" % (team, n)] = _sample("datasearch-qa", "ds2qa_sample.tsv")
        else:
            files["%s%d" % (team, n)] = _sample("ntcir1-adhoc", "ntc1").replace("\tntc1\n", "\t%s%d\n" % (team, n))
    return files


def submission(tmp_path, task_id, files, settings=""):
    """input/ref (the sample reference, task.yaml with `settings` appended) and input/res holding `files`."""
    ref = tmp_path / "input" / "ref"
    shutil.copytree(os.path.join(REFS, task_id), str(ref))
    text = (ref / "task.yaml").read_text(encoding="utf-8")
    if task_id == "r2c2-ac":
        text = text.replace("  unlabelled_runs: error", "  unlabelled_runs: auto_only")
    (ref / "task.yaml").write_text(text + settings, encoding="utf-8")
    res = tmp_path / "input" / "res"
    res.mkdir()
    for name, content in files.items():
        (res / name).write_text(content, encoding="utf-8")
    if task_id == "r2c2-ac":
        shutil.copyfile(os.path.join(SAMPLES, "r2c2-ac", "SAMPLE-PG-1.txt"), str(res / "SAMPLE-PG-1.txt"))
    return tmp_path / "input"


def score(capsys, input_dir, out):
    code = entry.main(["score.py", str(input_dir), str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


CAPPED = [t.id for t in all_tasks() if t.max_runs_per_team is not None]
WITH_TEAMS = [t for t in CAPPED if t != "datasearch-qa"]       # whose runs name their team


def test_every_capped_task_is_tested():
    assert sorted(CAPPED) == sorted(["temporalia-tqic", "temporalia-tir", "r2c2-pr", "r2c2-ac", "qqa23-mrc",
                                     "datasearch-qa"])


def test_made_up_groups_in_one_file_are_an_error(tmp_path, capsys):
    """The attack: five runs of groups g1..g5 in one tqic file were scored with a warning."""
    text = _temporalia("temporalia-tqic", "tqic_sample", [("g%d" % k, "r%d" % k) for k in range(1, 6)])
    code, out, err = score(capsys, submission(tmp_path, "temporalia-tqic", {"tqic_g1": text}), tmp_path / "out")
    per_run = 20                   # lines of the sample's first run
    assert code == 1
    assert ("tqic_g1:%d: error: run r2 names team g2, but run r1 names team g1 (tqic_g1:2): a submission is one "
            "team's; send each team's runs in its own submission" % (2 + per_run)) in err
    assert "tqic_g1: error: 5 runs of task temporalia-tqic in the submission (r1, r2, r3, r4, r5); at most 3 " \
           "are allowed in a submission" in err
    assert not (tmp_path / "out" / "scores.json").exists()


@pytest.mark.parametrize("task_id", WITH_TEAMS)
def test_two_teams_in_one_submission_are_an_error(tmp_path, capsys, task_id):
    files = runs_of(task_id, [("alpha", 1), ("beta", 1)])
    code, _, err = score(capsys, submission(tmp_path, task_id, files), tmp_path / "out")
    assert code == 1, err
    assert "names team beta, but run" in err and "names team alpha" in err, err
    assert "a submission is one team's" in err


@pytest.mark.parametrize("task_id", CAPPED)
def test_the_cap_counts_the_runs_of_the_submission(tmp_path, capsys, task_id):
    cap = get_task(task_id).max_runs_per_team
    files = runs_of(task_id, [("alpha", n) for n in range(1, cap + 2)])
    code, _, err = score(capsys, submission(tmp_path, task_id, files), tmp_path / "over")
    assert code == 1, err
    assert "%d runs of task %s in the submission" % (cap + 1, task_id) in err
    assert "at most %d are allowed in a submission" % cap in err


@pytest.mark.parametrize("task_id", ["temporalia-tir", "r2c2-pr"])
def test_the_cap_itself_is_accepted(tmp_path, capsys, task_id):
    cap = get_task(task_id).max_runs_per_team
    files = runs_of(task_id, [("alpha", n) for n in range(1, cap + 1)])
    code, out, err = score(capsys, submission(tmp_path, task_id, files), tmp_path / "out")
    assert code == 0, err


def test_the_organiser_sets_another_cap_in_task_yaml(tmp_path, capsys):
    files = runs_of("ntcir1-adhoc", [("ntc", 1), ("ntc", 2)])
    code, _, err = score(capsys, submission(tmp_path, "ntcir1-adhoc", files, "runs_per_submission: 1\n"),
                         tmp_path / "out")
    assert code == 1 and "2 runs of task ntcir1-adhoc in the submission (ntc1, ntc2); at most 1 are allowed" in err


@pytest.mark.parametrize("setting", ["runs_per_submission: 0\n", "runs_per_submission: two\n",
                                     "leaderboard_run: newest\n"])
def test_bad_settings_are_the_organisers_fault(tmp_path, capsys, setting):
    input_dir = submission(tmp_path, "ntcir1-adhoc", runs_of("ntcir1-adhoc", [("ntc", 1)]), setting)
    code, _, err = score(capsys, input_dir, tmp_path / "out")
    assert code == 2 and setting.split(":")[0] in err
    page = (tmp_path / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "Scoring in progress" not in page and "reference data or set-up" in page


# ------------------------------------------------------------------------------- the leaderboard row ---

def _two_runs():
    """ntc1 worse than ntc2: a primary-run row and a best-of row differ."""
    full = _sample("ntcir1-adhoc", "ntc1")
    worse = "".join(line + "\n" for line in full.splitlines()[::5])
    return {"ntc1": worse, "ntc2": full.replace("\tntc1\n", "\tntc2\n")}


def _row(out):
    import json
    with open(os.path.join(str(out), "scores.json"), encoding="utf-8") as handle:
        return json.load(handle)["ntcir1_adhoc_map_rel1"]


def test_hidden_phase_row_is_the_primary_run_and_says_so(tmp_path, capsys):
    files = _two_runs()
    hidden = submission(tmp_path / "hidden", "ntcir1-adhoc", files)
    text = (hidden / "ref" / "task.yaml").read_text(encoding="utf-8")
    (hidden / "ref" / "task.yaml").write_text(text.replace("leaderboard_run: best", "# (primary: the default)"),
                                              encoding="utf-8")
    code, out, err = score(capsys, hidden, tmp_path / "hidden" / "out")
    assert code == 0, err
    said = "ntcir1-adhoc: the leaderboard row shows run ntc1, the team's primary run (the lowest run number, 1, " \
           "of the 2 runs)"
    assert said in out
    page = (tmp_path / "hidden" / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "The leaderboard row shows run ntc1, the team&#x27;s primary run" in page
    code, out, err = score(capsys, submission(tmp_path / "sample", "ntcir1-adhoc", files), tmp_path / "sample" / "out")
    assert code == 0 and "the leaderboard row shows run ntc2, the best of the 2 runs by" in out
    singles = []
    for name in ("ntc1", "ntc2"):
        code, _, err = score(capsys, submission(tmp_path / name, "ntcir1-adhoc", {name: files[name]}),
                             tmp_path / name / "out")
        assert code == 0, err
        singles.append(_row(tmp_path / name / "out"))
    assert singles[0] < singles[1]
    assert _row(tmp_path / "hidden" / "out") == singles[0]
    assert _row(tmp_path / "sample" / "out") == singles[1]


def _scored(task, names, values):
    primary = task.primary.measure
    return [(ParsedRun(name, name, None), RunScores({primary: value})) for name, value in zip(names, values)]


@pytest.mark.parametrize("task_id, names, primary", [
    ("r2c2-pr", ["T-PO-3", "T-PG-2", "T-PO-4"], "T-PG-2"),
    ("r2c2-ac", ["T-AC-4", "T-AC-1"], "T-AC-1"),
    ("ntcir1-adhoc", ["ntc3", "ntcbase", "ntc2"], "ntc2"),
    ("ntcir1-adhoc", ["baseline", "other"], "baseline"),          # no numbers: the first in the submission
    ("qqa23-mrc", ["bigIR_run10.json", "bigIR_run02.json"], "bigIR_run02.json"),
    ("temporalia-tqic", ["grp_run2", "grp_run1"], "grp_run1"),
])
def test_primary_run_is_the_lowest_run_number(task_id, names, primary):
    task = get_task(task_id)
    values = [0.1 * (k + 1) for k in range(len(names))]       # the last run is the best
    run, _, why = leaderboard_run(task, _scored(task, names, values), "primary")
    assert run.name == primary and "primary run" in why
    best, _, why = leaderboard_run(task, _scored(task, names, values), "best")
    assert best.name == names[-1] and "best of the %d runs" % len(names) in why


def test_shipped_sample_references_keep_best_of_and_organiser_data_defaults_to_primary(tmp_path):
    for task in all_tasks():
        assert load_reference(task, os.path.join(REFS, task.id)).leaderboard_run == "best"
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(REFS, "ntcir1-adhoc"), str(ref))
    text = (ref / "task.yaml").read_text(encoding="utf-8")
    (ref / "task.yaml").write_text(text.replace("leaderboard_run: best", ""), encoding="utf-8")
    assert load_reference(get_task("ntcir1-adhoc"), str(ref)).leaderboard_run == "primary"
    assert LEADERBOARD_RUNS == ("primary", "best")
    (ref / "task.yaml").write_text(text.replace("leaderboard_run: best", "leaderboard_run: [best]"), encoding="utf-8")
    with pytest.raises(ConfigError):
        load_reference(get_task("ntcir1-adhoc"), str(ref))
