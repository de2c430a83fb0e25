"""starting_kit/dry_run.py: lays out program/, input/ref, input/res (+ the worker's metadata), output/ as Codabench
does, runs the metadata command without a shell, and reports what the platform would do with the scores.

The scoring programs here are tiny stand-ins, so each platform rule is checked on its own."""
import os
import sys

import pytest
import yaml

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "starting_kit"))
import dry_run  # noqa: E402

COLUMNS = [{"key": "t_map", "title": "MAP", "precision": 3}, {"key": "t_p10", "title": "P@10"}]

PROGRAMS = [
    # (score.py body, expected status, expected text in stdout)
    ("open(out + '/scores.json', 'w').write('{\"t_map\": 0.12345, \"t_p10\": 0.5}')", 0,
     "leaderboard row: MAP: 0.123, P@10: 0.5"),                  # str(round(x, precision)), as Codabench
    ("open(out + '/scores.txt', 'w').write('t_map: 0.25\\n')", 0, "leaderboard row: MAP: 0.25"),
    ("open(out + '/scores.txt', 'w').write('t_map:0.25\\n')", 1, "is not a mapping of keys to numbers but 't_map:0.25'"),
    ("open(out + '/scores.json', 'w').write('{\"x_other\": 0.5}')", 0, "leaderboard row: (no column filled)"),
    ("open(out + '/scores.json', 'w').write('{\"other\": 1.0, \"t_map\": 0.5}')", 0,
     "keys with no leaderboard column in competition.yaml (Codabench would drop them; regenerate it with "
     "`make bundle-files`): other"),
    ("open(out + '/scores.json', 'w').write('{\"t_map\": \"0.5\"}')", 0, "MAP: not a number ('0.5')"),
    ("open(out + '/metadata', 'w').write('x: 1\\n')", 2, "wrote output/metadata"),
    ("sys.exit(1)", 1, "exit status 1"),
    ("pass", 1, "exit status 0"),
]


def _program(folder, body):
    os.makedirs(folder)
    with open(os.path.join(folder, "metadata"), "w") as handle:
        handle.write("command: python3 $program/score.py $input $output\n")
    with open(os.path.join(folder, "score.py"), "w") as handle:
        handle.write("import os, sys\ninp, out = sys.argv[1], sys.argv[2]\n"
                     "assert os.path.exists(os.path.join(inp, 'res', 'metadata'))\n"
                     "assert os.path.exists(os.path.join(inp, 'res', 'run.txt'))\n"
                     "assert os.path.exists(os.path.join(inp, 'ref', 'task', 'qrels'))\n"
                     "open(os.path.join(out, 'detailed_results.html'), 'w').write('<p>x</p>')\n" + body + "\n")


def _score_one_run(tmp_path, columns):
    """dry_run.score_submission of tmp_path/program on a one-line run and a one-line reference."""
    (tmp_path / "ref" / "task").mkdir(parents=True)
    (tmp_path / "ref" / "task" / "qrels").write_text("1 0 d 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "run.txt").write_text("run\n")
    return dry_run.score_submission(str(tmp_path / "w"), str(tmp_path / "program"), str(tmp_path / "ref"),
                                    str(tmp_path / "sub"), columns)


@pytest.mark.parametrize("body,status,text", PROGRAMS, ids=[t for _, _, t in PROGRAMS])
def test_platform_rules(tmp_path, capsys, body, status, text):
    _program(str(tmp_path / "program"), body)
    got = _score_one_run(tmp_path, COLUMNS)
    assert (got, text in capsys.readouterr().out) == (status, True)


def test_command_is_split_on_spaces_without_a_shell(tmp_path):
    (tmp_path / "program").mkdir()
    (tmp_path / "program" / "metadata").write_text("command: python3 $program/score.py $input $output\n")
    argv = dry_run.command(str(tmp_path))
    assert argv == [sys.executable, str(tmp_path / "program" / "score.py"), str(tmp_path / "input"),
                    str(tmp_path / "output")]


def test_zipped_submission_is_unzipped_into_res(tmp_path):
    import zipfile

    (tmp_path / "program").mkdir()
    (tmp_path / "ref").mkdir()
    with zipfile.ZipFile(tmp_path / "sub.zip", "w") as archive:
        archive.writestr("run.txt", "run\n")
    dry_run.lay_out(str(tmp_path / "w"), str(tmp_path / "program"), str(tmp_path / "ref"), str(tmp_path / "sub.zip"))
    assert sorted(os.listdir(tmp_path / "w" / "input" / "res")) == ["metadata", "run.txt"]
    # what the Codabench worker writes for a results submission: yaml.dump of four statuses, all None
    assert yaml.safe_load((tmp_path / "w" / "input" / "res" / "metadata").read_text()) == {
        "exitCode": None, "elapsedTime": None, "ingestionExitCode": None, "ingestionElapsedTime": None}


@pytest.mark.parametrize("name", ["metadata", "metadata.yaml"])
def test_a_submission_holding_metadata_is_refused_as_on_the_platform(tmp_path, capfd, competitions, name):
    """Codabench runs a zip with metadata or metadata.yaml at its top as a program, and the scoring step then sees
    what the worker writes after a program (exitCode set), which score.py refuses; `runscore check` says so. The dry
    run wrote its result-file metadata over the participant's file and scored the runs: 'exactly what the
    platform does' said yes where the platform says no."""
    import zipfile

    with zipfile.ZipFile(tmp_path / "sub.zip", "w") as archive:
        archive.writestr("ntc1", open(os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc",
                                                   "ntc1"), encoding="utf-8").read())
        archive.writestr(name, "command: python3 run.py\n")
    bundle = str(competitions.zips["ntcir1-adhoc"])
    code = dry_run.main([str(tmp_path / "sub.zip"), "--bundle", bundle, "--workdir", str(tmp_path / "w")])
    out, err = capfd.readouterr()          # score.py runs in a process of its own: its stderr is fd 2
    assert code == 1, out + err
    assert "runs it as a program" in out and "leaderboard row" not in out
    assert "this competition takes result files only" in err, err


def test_legacy_layout_unzips_top_level_zips_beside_themselves(tmp_path):
    """CodaLab v1's worker: every top-level X.zip of the submission also unzipped into X/, no metadata file."""
    import zipfile

    (tmp_path / "program").mkdir()
    (tmp_path / "ref").mkdir()
    inner = tmp_path / "runs.zip"
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("run.txt", "run\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "runs.zip").write_bytes(inner.read_bytes())
    dry_run.lay_out(str(tmp_path / "w"), str(tmp_path / "program"), str(tmp_path / "ref"), str(tmp_path / "sub"),
                    legacy=True)
    res = tmp_path / "w" / "input" / "res"
    assert sorted(os.listdir(res)) == ["runs", "runs.zip"] and os.listdir(res / "runs") == ["run.txt"]


def test_docker_command_uses_the_worker_paths(tmp_path):
    (tmp_path / "program").mkdir()
    (tmp_path / "program" / "metadata").write_text("command: python3 $program/score.py $input $output\n")
    argv = dry_run.docker_command(str(tmp_path), "codalab/codalab-legacy:py39")
    assert argv == ["docker", "run", "--rm", "--network", "none",
                    "-v", "%s:/app/program" % (tmp_path / "program"), "-v", "%s:/app/input" % (tmp_path / "input"),
                    "-v", "%s:/app/output" % (tmp_path / "output"), "-w", "/app/program",
                    "codalab/codalab-legacy:py39", "python3", "/app/program/score.py", "/app/input", "/app/output"]


@pytest.mark.parametrize("make, argv, status, message", [
    (lambda d: (d / "empty.zip").write_bytes(b""), ["{d}/empty.zip"], 1,
     "{d}/empty.zip: error: not a zip file; the platform unzips every submission"),
    (lambda d: (d / "run.zip").write_text("0031\t0\td\t1\t1\tr\n"), ["{d}/run.zip"], 1, "{d}/run.zip: error: not a zip"),
    (lambda d: None, ["{d}/absent.zip"], 2, "{d}/absent.zip: error: no such file or folder"),
    (lambda d: (d / "b.zip").write_bytes(b"PK"), ["--bundle", "{d}/b.zip"], 2,
     "{d}/b.zip: error: --bundle takes a competition's upload zip"),
])
def test_a_path_it_cannot_use_gets_a_message_not_a_traceback(tmp_path, capsys, make, argv, status, message):
    """A participant's 'submission.zip' that is no zip (an empty file, a run renamed), a typo in the path, a
    --bundle that is no zip: one line naming the file and what to do (it was zipfile's BadZipFile traceback)."""
    make(tmp_path)
    code = dry_run.main([a.format(d=tmp_path) for a in argv] + ["--workdir", str(tmp_path / "work")])
    err = capsys.readouterr().err
    assert code == status
    assert message.format(d=tmp_path) in err and "Traceback" not in err


@pytest.mark.parametrize("columns", [COLUMNS, None], ids=["with a competition's columns", "the kit alone"])
def test_the_detailed_page_is_named_with_or_without_the_competitions_columns(tmp_path, capsys, columns):
    """The kit README says the dry run prints where detailed_results.html is; in the kit alone (no --bundle, so
    no columns) it printed the row and stopped."""
    _program(str(tmp_path / "program"), "open(out + '/scores.json', 'w').write('{\"t_map\": 0.5}')")
    got = _score_one_run(tmp_path, columns)
    out = capsys.readouterr().out
    assert got == 0 and "leaderboard row: " in out
    assert "detailed results: " in out and out.rstrip().endswith(os.path.join("output", "detailed_results.html"))
