"""The three stand-ins hold what they replace to its word: a signed URL opens one file for one use until it
expires; a container sees /app/data read-only whoever runs in it; and through Codabench's own worker, what the
organiser puts in the worker's data folder reaches the scoring program, read-only, and its value the leaderboard."""
import json
import os
import shutil
import urllib.parse

import requests

import codabench_harness as harness

PROBE = """import json, os, sys
_, given, out, data = sys.argv
value = float(open(os.path.join(data, "probe", "value.txt")).read())
try:
    with open(os.path.join(data, "probe", "written.txt"), "w") as handle:
        handle.write("a scoring program wrote here")
    writable = 1
except OSError:
    writable = 0
with open(os.path.join(out, "scores.json"), "w") as handle:
    json.dump({"value": value, "data_writable": writable, "input_is_sibling": int(
        os.path.dirname(given.rstrip("/")) == os.path.dirname(data.rstrip("/")))}, handle)
"""

PROBE_YAML = """version: 2
title: Worker data probe
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
  - {title: Data writable, key: data_writable, index: 1, precision: 0}
  - {title: Input beside data, key: input_is_sibling, index: 2, precision: 0}
""" % harness.SCORING_IMAGE


def test_a_signed_url_opens_one_file_for_one_use_until_it_expires(platform):
    from utils.data import make_url_sassy
    name = "dataset/probe/signed.txt"
    path = os.path.join(platform.root, "storage", "private", name)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as handle:
        handle.write("private")
    read = make_url_sassy(name)
    assert requests.get(read).content == b"private"
    assert requests.put(read, data=b"changed").status_code == 403                # a read URL cannot write
    assert requests.get(read.split("?")[0]).status_code == 403                     # unsigned
    other = read.replace(urllib.parse.quote(name), urllib.parse.quote("dataset/probe/other.txt"))
    assert requests.get(other).status_code == 403                                  # signed for another file
    stale = make_url_sassy(name, duration=-1)
    assert requests.get(stale).status_code == 403                                  # expired
    assert requests.put(make_url_sassy(name, "w"), data=b"changed").status_code == 200
    with open(path) as handle:
        assert handle.read() == "changed"


def run_container(platform, data_mode):
    engine = harness.DockerEngine()
    base = os.path.join(platform.root, "worker", "probe-" + data_mode)
    for folder in ("data", "output"):
        os.makedirs(os.path.join(base, folder), exist_ok=True)
    with open(os.path.join(base, "data", "secret.txt"), "w") as handle:
        handle.write("organiser's")
    script = ("import os; print(open('/app/data/secret.txt').read()); open('/app/output/ok', 'w').write('1'); "
              "open('/app/data/x', 'w').write('2')")
    binds = {os.path.join(base, "data"): {"bind": "/app/data", "mode": data_mode},
             os.path.join(base, "output"): {"bind": "/app/output", "mode": "z"}}
    container = engine.create_container(harness.SCORING_IMAGE, name="probe-" + data_mode,
                                        host_config=engine.create_host_config(binds=binds),
                                        command='python3 -c "%s"' % script, working_dir="/app/output")
    engine.start(container)
    out, err = engine.attach(container, logs=True, demux=True)
    code = engine.wait(container)["StatusCode"]
    engine.remove_container(container, force=True)
    return code, out or b"", err or b"", base


def test_app_data_is_read_only_in_a_container_even_for_root(platform):
    code, out, err, base = run_container(platform, "ro")
    assert out == b"organiser's\n" and os.path.exists(os.path.join(base, "output", "ok"))
    assert code == 1 and b"Read-only file system" in err, err
    assert not os.path.exists(os.path.join(base, "data", "x"))
    # The same container with a writable bind writes there: the refusal above is the mount's.
    code, _, err, base = run_container(platform, "rw")
    assert code == 0 and os.path.exists(os.path.join(base, "data", "x")), err


def test_the_worker_data_folder_reaches_the_scoring_program_read_only(platform, people, tmp_path):
    """A scoring program of our own, through the real upload, queue hand-over and run_wrapper: it reads the
    organiser's file in the worker's data folder (its value reaches the leaderboard), cannot write there, and finds
    /app/data beside its input folder (where score.py looks for it)."""
    bundle = tmp_path / "bundle"
    (bundle / "program").mkdir(parents=True)
    (bundle / "program" / "metadata").write_text("command: python3 /app/program/probe.py /app/input /app/output "
                                                 "/app/data\n")
    (bundle / "program" / "probe.py").write_text(PROBE)
    (bundle / "competition.yaml").write_text(PROBE_YAML)
    (bundle / "terms.md").write_text("Probe terms.\n")
    with open(os.path.join(harness.ROOT, "logo.png"), "rb") as handle:
        (bundle / "logo.png").write_bytes(handle.read())
    zipped = shutil.make_archive(str(tmp_path / "probe"), "zip", str(bundle))
    os.makedirs(os.path.join(platform.worker_data, "probe"), exist_ok=True)
    with open(os.path.join(platform.worker_data, "probe", "value.txt"), "w") as handle:
        handle.write("0.123456")
    organiser, submitter = people["organiser"], people["submitter"]
    competition = organiser.upload_bundle(zipped)
    shown = organiser.call("GET", "/api/competitions/%d/" % competition).json()
    submitter.join(competition, shown["secret_key"])
    phase = shown["phases"][0]["id"]
    submission = submitter.submit(competition, phase, harness.submission_zip("temporalia-tqic"))
    platform.drain()
    board = platform.anonymous().call("GET", "/api/phases/%d/get_leaderboard/" % phase).json()
    cells = {score["column_key"]: score["score"] for score in board["submissions"][0]["scores"]}
    assert board["submissions"][0]["id"] == submission, json.dumps(board)[:500]
    # str(round(x, 0)) is "0.0": the board prints a float even at precision 0.
    assert cells == {"value": "0.1235", "data_writable": "0.0", "input_is_sibling": "1.0"}, cells
    assert not os.path.exists(os.path.join(platform.worker_data, "probe", "written.txt"))
