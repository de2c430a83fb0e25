"""A scoring program of our own on the real Codabench, to watch what the platform does with what a program writes:
it scores each submission by the number in its value.txt ("none": no score at all), and reports what it saw of the
worker's data folder. Through the real upload, queue hand-over and run_wrapper, the tests read the rows the
leaderboard ranks and who may take a row off it."""
import os
import shutil

import pytest

import codabench_harness as harness

PROBE = """import json, os, sys
_, given, out, data = sys.argv
scores = {"data_value": float(open(os.path.join(data, "probe", "value.txt")).read())}
try:
    with open(os.path.join(data, "probe", "written.txt"), "w") as handle:
        handle.write("a scoring program wrote here")
    scores["data_writable"] = 1
except OSError:
    scores["data_writable"] = 0
scores["input_beside_data"] = int(os.path.dirname(given.rstrip("/")) == os.path.dirname(data.rstrip("/")))
submitted = open(os.path.join(given, "res", "value.txt")).read().strip()
if submitted != "none":
    scores["value"] = float(submitted)
with open(os.path.join(out, "scores.json"), "w") as handle:
    json.dump(scores, handle)
"""

PROBE_YAML = """version: 2
title: Probe
image: logo.png
terms: terms.md
pages: []
docker_image: %s
registration_auto_approve: true
tasks:
- index: 0
  name: probe
  scoring_program: program/
phases:
- index: 0
  name: Only
  start: 2020-01-01 00:00:00
  tasks: [0]
leaderboards:
- title: Probe
  key: probe
  submission_rule: Force_Latest_Multiple
  columns:
  - {title: Value, key: value, index: 0, precision: 4}
  - {title: Data value, key: data_value, index: 1, precision: 4}
  - {title: Data writable, key: data_writable, index: 2, precision: 0}
  - {title: Input beside data, key: input_beside_data, index: 3, precision: 0}
""" % harness.SCORING_IMAGE

SUBMITTED = [("submitter", "0.2"), ("submitter", "none"), ("other participant", "0.5"), ("submitter", "0.7")]


def submission(value):
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("value.txt", value + "\n")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def probe(platform, people, tmp_path_factory):
    folder = tmp_path_factory.mktemp("probe")
    bundle = folder / "bundle"
    (bundle / "program").mkdir(parents=True)
    (bundle / "program" / "metadata").write_text("command: python3 /app/program/probe.py /app/input /app/output "
                                                 "/app/data\n")
    (bundle / "program" / "probe.py").write_text(PROBE)
    (bundle / "competition.yaml").write_text(PROBE_YAML)
    (bundle / "terms.md").write_text("Probe terms.\n")
    shutil.copyfile(os.path.join(harness.ROOT, "logo.png"), str(bundle / "logo.png"))
    zipped = shutil.make_archive(str(folder / "probe"), "zip", str(bundle))
    os.makedirs(os.path.join(platform.worker_data, "probe"), exist_ok=True)
    with open(os.path.join(platform.worker_data, "probe", "value.txt"), "w") as handle:
        handle.write("0.123456")
    competition = people["organiser"].upload_bundle(zipped)
    shown = people["organiser"].call("GET", "/api/competitions/%d/" % competition).json()
    phase = shown["phases"][0]["id"]
    for role in ("submitter", "other participant"):
        people[role].join(competition, shown["secret_key"])
    ids = [people[role].submit(competition, phase, submission(value)) for role, value in SUBMITTED]
    platform.drain()
    return {"phase": phase, "ids": dict(zip((value for _, value in SUBMITTED), ids))}


def board(platform, phase):
    return platform.anonymous().call("GET", "/api/phases/%d/get_leaderboard/" % phase).json()["submissions"]


def test_the_worker_data_folder_reaches_the_scoring_program_read_only(probe, platform):
    """What the organiser puts in the worker's data folder reaches every scoring container at /app/data beside
    /app/input (where score.py looks for it): its value reaches the leaderboard, and no program can write there."""
    for row in board(platform, probe["phase"]):
        cells = {score["column_key"]: score["score"] for score in row["scores"]}
        # str(round(x, 0)) is "0.0": the board prints a float even at precision 0.
        assert {key: cells[key] for key in ("data_value", "data_writable", "input_beside_data")} == \
            {"data_value": "0.1235", "data_writable": "0.0", "input_beside_data": "1.0"}, cells
    assert not os.path.exists(os.path.join(platform.worker_data, "probe", "written.txt"))


def test_a_row_without_the_primary_score_ranks_first(probe, platform):
    """Rows go by the primary column, descending, as a SQL sum: PostgreSQL puts NULL first, so the submission
    that wrote no primary score (its cell n/a) tops the board, above 0.7, 0.5 and 0.2."""
    rows = board(platform, probe["phase"])
    ids = probe["ids"]
    assert [row["id"] for row in rows] == [ids["none"], ids["0.7"], ids["0.5"], ids["0.2"]]
    primary = {row["id"]: [s["score"] for s in row["scores"] if s["column_key"] == "value"] for row in rows}
    assert primary == {ids["none"]: [], ids["0.7"]: ["0.7"], ids["0.5"]: ["0.5"], ids["0.2"]: ["0.2"]}


def test_only_the_organiser_takes_a_row_off_an_automatic_leaderboard(probe, platform, people):
    """Under Force_Latest_Multiple the submitter can neither unlink her row nor delete her submission (403), the
    organiser cannot unlink it either (the rule is for superusers), and the organiser's delete (204) removes it."""
    row = probe["ids"]["none"]
    path = "/api/submissions/%d/" % row
    for role in ("submitter", "organiser"):
        answer = people[role].call("DELETE", path + "submission_leaderboard_connection/")
        assert answer.status_code == 403, (role, answer.text)
    assert people["submitter"].call("DELETE", path).status_code == 403
    assert people["organiser"].call("DELETE", path).status_code == 204
    assert row not in [r["id"] for r in board(platform, probe["phase"])]


def test_the_submitter_reads_every_stored_decimal_of_her_scores(probe, platform, people):
    """The board rounds each score to its column's precision (0.1235); the submission API does not: the submitter
    reads the stored value with its 10 decimals (SubmissionScoreSerializer of a DecimalField(decimal_places=10)).
    So a hidden phase writes each column already rounded to its precision (codabench/disclosure.py view): what
    the API returns is then what the board shows, and the channel bound (codabench/channel.py) holds."""
    mine = people["submitter"].call("GET", "/api/submissions/%d/" % probe["ids"]["0.7"])
    assert mine.status_code == 200, mine.text
    stored = {score["column_key"]: score["score"] for score in mine.json()["scores"]}
    assert stored["data_value"] == "0.1234560000", stored
    shown = [row for row in board(platform, probe["phase"]) if row["id"] == probe["ids"]["0.7"]][0]
    assert {s["column_key"]: s["score"] for s in shown["scores"]}["data_value"] == "0.1235"
