"""The collection phase: a formal phase built without judgements checks every run as a scored phase
does, gives a receipt naming each run's SHA-256 instead of scores, and finishes as Codabench requires."""
import copy
import hashlib
import json
import os
import shutil
import subprocess
import zipfile

import yaml

from conftest import ROOT, run_score_py
from runscore.cli import main

SCORE_PY = os.path.join(ROOT, "scoring_program", "score.py")
SAMPLE_RUN = os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tir", "tir_sample")
SAMPLE_REF = os.path.join(ROOT, "reference_data", "temporalia-tir")


def score_py(tmp_path, ref_folder, run_text=None, name="tir_sample"):
    work = tmp_path / ("work-%d" % len(os.listdir(str(tmp_path))))
    shutil.copytree(ref_folder, str(work / "input" / "ref"))
    os.makedirs(str(work / "input" / "res"))
    run = work / "input" / "res" / name
    if run_text is None:
        shutil.copyfile(SAMPLE_RUN, str(run))
    else:
        run.write_text(run_text)
    code, out, err = run_score_py(work / "input", work / "output")
    return subprocess.CompletedProcess([SCORE_PY], code, out, err), work / "output", run


def collect_folder(tmp_path, extra=""):
    folder = tmp_path / "collect"
    folder.mkdir(exist_ok=True)
    (folder / "task.yaml").write_text("task: temporalia-tir\nmode: collect\n" + extra)
    return str(folder)


def test_a_valid_run_gets_a_receipt_with_its_sha256_and_no_score(tmp_path):
    proc, output, run = score_py(tmp_path, collect_folder(tmp_path))
    assert proc.returncode == 0, proc.stderr
    digest = hashlib.sha256(run.read_bytes()).hexdigest()
    lines = run.read_bytes().splitlines()
    own = sum(1 for line in lines if line.endswith(b"\tsample_run1"))        # the file holds two runs
    assert "receipt: run sample_run1, team sample, %d lines (of %d in the file), sha256 %s (file tir_sample)" \
        % (own, len(lines), digest) in proc.stdout
    scores = json.loads((output / "scores.json").read_text())
    assert scores == {"temporalia_tir_runs_received": 2.0}      # no leaderboard column: the row stays empty
    page = (output / "detailed_results.html").read_text()
    assert digest in page and "Runs received" in page and "p20" not in scores


def test_an_invalid_run_is_rejected_exactly_as_the_scored_phase_rejects_it(tmp_path):
    bad = open(SAMPLE_RUN).read().replace("\t1\t", "\tone\t", 1) + "001p\t5\tX\tsample\tsample_run1\n" * 2
    collected, _, _ = score_py(tmp_path, collect_folder(tmp_path), bad)
    scored, _, _ = score_py(tmp_path, SAMPLE_REF, bad)
    assert collected.returncode == scored.returncode == 1

    def errors(text):
        return [line for line in text.splitlines() if ": error:" in line or "rejected" in line]
    assert errors(collected.stderr) and errors(collected.stderr) == errors(scored.stderr)
    assert "receipt" not in collected.stdout


def test_the_team_cap_and_the_listed_topics_are_checked(tmp_path):
    lines = ["001p\t1\tD1\tg\tg_run%d" % n for n in range(1, 5)]          # 4 runs of one group: at most 3
    proc, _, _ = score_py(tmp_path, collect_folder(tmp_path), "\n".join(lines) + "\n", "tir_g")
    assert proc.returncode == 1 and "at most 3 are allowed in a submission" in proc.stderr
    proc, _, _ = score_py(tmp_path, collect_folder(tmp_path, "topics: ['002']\n"), "001p\t1\tD1\tg\tg_1\n", "tir_g")
    assert proc.returncode == 1 and "answers none of the 1 official topics" in proc.stderr


def test_score_refuses_a_collecting_reference(tmp_path, capsys):
    assert main(["score", "--task", "temporalia-tir", "--ref", collect_folder(tmp_path), SAMPLE_RUN]) == 2
    assert "collects runs (mode: collect)" in capsys.readouterr().err


def test_bundle_without_reference_collects_hides_and_ends(tmp_path, capsys):
    out = str(tmp_path / "tir.zip")
    assert main(["bundle", "--tasks", "temporalia-tir", "-o", out, "--formal-end", "2027-02-01 00:00:00",
                 "--no-lint"]) == 0
    printed = capsys.readouterr().out
    assert "phases: Dry run scores against the sample data; Formal run collects runs" in printed
    with zipfile.ZipFile(out) as archive:
        competition = yaml.safe_load(archive.read("competition.yaml"))
    assert competition["leaderboards"][0]["hidden"] is True
    assert competition["phases"][1]["end"] == "2027-02-01 00:00:00"
    # with the judgements, the formal phase scores and the leaderboard is shown
    ref = tmp_path / "ref"
    shutil.copytree(SAMPLE_REF, str(ref / "temporalia-tir"))
    assert main(["bundle", "--tasks", "temporalia-tir", "-o", out, "--reference", str(ref), "--no-lint"]) == 0
    assert "Formal run scores against" in capsys.readouterr().out
    with zipfile.ZipFile(out) as archive:
        competition = yaml.safe_load(archive.read("competition.yaml"))
    assert "hidden" not in competition["leaderboards"][0]


def test_lint_warns_about_a_collecting_phase_with_a_visible_leaderboard():
    from runscore.codabench.bundle import bundle_members
    from runscore.codabench.bundle_plan import BundlePlan
    from runscore.codabench.competition_yaml import competition_v2
    from runscore.codabench.lint import lint_bundle
    from runscore.codabench.lint.archive import BundleView
    from runscore.tasks import get_task

    plan = BundlePlan(ROOT, [get_task("temporalia-tir")])
    members = bundle_members(plan)
    assert "collect-visible" not in {d.code for d in lint_bundle(BundleView.from_members(members, "b.zip"))}
    competition = copy.deepcopy(competition_v2(plan))
    del competition["leaderboards"][0]["hidden"]
    members["competition.yaml"] = yaml.safe_dump(competition).encode("utf-8")
    found = [d for d in lint_bundle(BundleView.from_members(members, "b.zip")) if d.code == "collect-visible"]
    assert len(found) == 1 and found[0].severity == "warning" and "Formal run" in found[0].message
