"""One competition per task, ranked as Codabench ranks it.

Codabench orders a leaderboard's rows by the primary column, then every other column in index order (each a SQL
Sum annotation), then submission time (src/apps/api/serializers/leaderboards.py, get_submissions). Its database
is PostgreSQL, where NULL sorts above every value: first on a descending sort, last on an ascending one. Every
zip `runscore bundle --per-task` builds is unzipped; a mixed set of submissions (each task's sample and a
variant of it, a resubmission, another task's runs, an empty one) is scored by score.py in the worker's layout
against the zip's own reference data; the rows Codabench would post (exit 0; score keys that are columns)
are ordered by that rule; and the order must follow the task's primary measure with no empty cell.
"""
import io
import json
import os
import re
import shutil
import zipfile

import pytest
import yaml

from conftest import ROOT, run_cli
from runscore.codabench.bundle_plan import select_tasks
from runscore.codabench.entry import main as score_main

TASKS = select_tasks(ROOT)
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
WORKER_METADATA = "elapsedTime: null\nexitCode: null\ningestionElapsedTime: null\ningestionExitCode: null\n"


@pytest.fixture
def zips(competitions):
    """What `make bundle` builds: dist/<task-id>.zip for every task (built once a run, conftest.competitions)."""
    return competitions.zips


def test_make_bundle_builds_one_competition_per_task(zips):
    assert sorted(zips) == sorted(t.id for t in TASKS)
    for task in TASKS:
        with zipfile.ZipFile(zips[task.id]) as archive:
            competition = yaml.safe_load(archive.read("competition.yaml"))
            names = archive.namelist()
        assert task.title in competition["title"]
        keys = [c["key"] for c in competition["leaderboards"][0]["columns"]]
        assert keys == [task.leaderboard_key(c) for c in task.columns]          # this task's columns only
        assert competition["leaderboards"][0]["submission_rule"] == "Force_Latest_Multiple"
        assert [p["name"] for p in competition["phases"]] == ["Dry run", "Formal run"]
        assert {n.split("/")[2] for n in names if n.startswith("starting_kit/sample_submission/")} == {task.id}
        assert [n for n in names if n.startswith("pages/task-")] == ["pages/task-%s.md" % task.id]


# ------------------------------------------------------------------------ Codabench's order, simulated ---

def codabench_order(rows, columns, primary_index=0):
    """rows: [(created_when, {column key: value})]; the leaderboard order of get_submissions (NULLs as
    PostgreSQL sorts them: above every value, so first on DESC and last on ASC)."""
    primary = [c for c in columns if c["index"] == primary_index][0]
    order = [primary] + sorted((c for c in columns if c is not primary), key=lambda c: c["index"])

    def key(row):
        created, scores = row
        out = []
        for column in order:
            value = scores.get(column["key"])
            if column.get("sorting", "desc") == "desc":
                out.append((0, 0.0) if value is None else (1, -value))
            else:
                out.append((1, 0.0) if value is None else (0, value))
        return out + [created]

    return sorted(rows, key=key)


def test_the_simulation_ranks_an_empty_primary_cell_first():
    """The withdrawn layout (two tasks' columns on one leaderboard): a TQIC-only row, with no NTCIR-1 value,
    is ranked above every NTCIR-1 row, as Codabench's own code ranks it."""
    columns = [{"key": "ntcir1_adhoc_map_rel1", "index": 0}, {"key": "temporalia_tqic_accuracy", "index": 1}]
    rows = [(0, {"ntcir1_adhoc_map_rel1": 0.4}), (1, {"temporalia_tqic_accuracy": 0.1}),
            (2, {"ntcir1_adhoc_map_rel1": 0.2})]
    assert [r[0] for r in codabench_order(rows, columns)] == [1, 0, 2]
    ascending = [{"key": "a", "index": 0, "sorting": "asc"}]
    assert [r[0] for r in codabench_order([(0, {}), (1, {"a": 0.5})], ascending)] == [1, 0]


def _read_sample(task_id):
    folder = os.path.join(SAMPLES, task_id)
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            out[name] = handle.read()
    return out


def _split_by_run(files, name, column):
    """Two submissions from a file holding two runs (the run id in field `column`, header kept)."""
    lines = files[name].splitlines(True)
    runs = sorted({line.rstrip("\n").split("\t")[column] for line in lines[1:] if line.strip()})
    return [{name: lines[0] + "".join(line for line in lines[1:] if line.rstrip("\n").split("\t")[column] == run)}
            for run in runs]


def _reversed_ranks(files):
    """r2c2-pr: every question's passages in the reverse order (ranks renumbered): a worse run, still valid."""
    name = [n for n in files if "-PO-" in n][0]
    by_topic = {}
    for line in files[name].splitlines():
        fields = line.split(";", 3)
        by_topic.setdefault(fields[0], []).append(fields)
    text = ""
    for topic, rows in by_topic.items():
        for rank, fields in enumerate(reversed(rows), 1):
            text += "%s;%d;%s;%s\n" % (topic, rank, fields[2], fields[3])
    return {"OTHER-PO-2.txt": text}


def _low_confidence(files):
    """r2c2-ac: every answer's confidence set to 50 (HMR changes)."""
    out = dict(files)
    out["SAMPLE-AC-1"] = re.sub(r"^(<D\d+>[^\n]*;)\d+$", r"\g<1>50", files["SAMPLE-AC-1"], flags=re.M)
    return out


def _abstain_all_but_first(files):
    """qqa23-mrc: every question but the first abstains (`[]`)."""
    run = json.loads(files["sample_run01.json"])
    first = sorted(run)[0]
    return {"sample_run02.json": json.dumps({q: (answers if q == first else []) for q, answers in run.items()},
                                            ensure_ascii=False)}


def _wrong_answers(files):
    """datasearch-qa: every other answer replaced by a wrong one."""
    lines = files["ds2qa_sample.tsv"].splitlines(True)
    body = ["%s\tnothing\n" % line.split("\t")[0] if i % 2 == 0 else line for i, line in enumerate(lines[1:])]
    return {"ds2qa_other.tsv": lines[0] + "".join(body)}


def _ntcir_baseline(files):
    with open(os.path.join(ROOT, "starting_kit", "baselines", "ntcir1-adhoc", "shuf0"), encoding="utf-8") as h:
        return {"shuf0": h.read()}


VARIANTS = {
    "ntcir1-adhoc": lambda f: [_ntcir_baseline(f)],
    "temporalia-tqic": lambda f: _split_by_run(f, "tqic_sample", 3),
    "temporalia-tir": lambda f: _split_by_run(f, "tir_sample", 4),
    "r2c2-pr": lambda f: [_reversed_ranks(f)],
    "r2c2-ac": lambda f: [_low_confidence(f)],
    "qqa23-mrc": lambda f: [_abstain_all_but_first(f)],
    "datasearch-qa": lambda f: [_wrong_answers(f)],
}


def _unzip(path, target):
    with zipfile.ZipFile(path) as archive:
        archive.extractall(target)
    with open(os.path.join(target, "competition.yaml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _score(tmp_path, reference, files, label, capsys):
    """score.py's entry in the Codabench worker's layout: (exit status, scores.json or None, stderr)."""
    base = tmp_path / label
    res = base / "input" / "res"
    res.mkdir(parents=True)
    shutil.copytree(reference, str(base / "input" / "ref"))
    for name, text in files.items():
        (res / name).write_text(text, encoding="utf-8")
    (res / "metadata").write_text(WORKER_METADATA)
    capsys.readouterr()
    status = score_main(["score.py", str(base / "input"), str(base / "output")])
    err = capsys.readouterr().err
    scores_file = base / "output" / "scores.json"
    return status, (json.loads(scores_file.read_text()) if scores_file.exists() else None), err


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_leaderboard_ranks_by_the_tasks_primary_measure(zips, tmp_path, capsys, task):
    competition = _unzip(zips[task.id], tmp_path / "bundle")
    board = competition["leaderboards"][0]
    columns = [c for c in board["columns"] if "computation" not in c]
    phase = sorted(competition["phases"], key=lambda p: p["index"])[0]
    reference = str(tmp_path / "bundle" / [t for t in competition["tasks"]
                                           if t["index"] == phase["tasks"][0]][0]["reference_data"])
    if task.id == "r2c2-ac":
        # a replay leaderboard rejects any change to the assessed sample (changed_parts: error); the
        # variant is scored as what it keeps of the labels instead
        yaml_path = os.path.join(reference, "task.yaml")
        with open(yaml_path, encoding="utf-8") as handle:
            text = handle.read()
        assert "  changed_parts: error" in text
        with open(yaml_path, "w", encoding="utf-8") as handle:
            handle.write(text.replace("  changed_parts: error", "  changed_parts: unjudged"))
    own = _read_sample(task.id)
    submissions = [("sample", own)] + [("variant%d" % i, v) for i, v in enumerate(VARIANTS[task.id](own))] + \
        [("sample again", own)]
    submissions += [("%s sample" % other.id, _read_sample(other.id)) for other in TASKS if other is not task]
    submissions += [("empty", {})]
    rows, posted = [], []
    for created, (label, files) in enumerate(submissions):
        status, scores, err = _score(tmp_path, reference, files, "s%d" % created, capsys)
        if label.endswith(" sample") or label == "empty":
            # another task's runs, or nothing: rejected (never posted), naming the expected file pattern
            assert status == 1 and scores is None, (label, err)
            assert task.run_file_help in err, (label, err)
            continue
        assert status == 0, (label, err)
        row = {k: v for k, v in scores.items() if k in {c["key"] for c in columns}}   # upload_submission_scores
        assert sorted(row) == sorted(c["key"] for c in columns), "%s leaves a column empty" % label
        assert all(isinstance(v, (int, float)) for v in row.values())
        rows.append((created, row))
        posted.append(label)
    assert len(rows) >= 3
    primary = [c for c in columns if c["index"] == 0][0]
    assert primary["key"] == task.leaderboard_key(task.primary)
    ordered = codabench_order(rows, columns)
    values = [r[1][primary["key"]] for r in ordered]
    assert values == sorted(values, reverse=primary.get("sorting", "desc") == "desc")
    assert len(set(values)) >= 2, "the variants should rank differently: %s" % values
    # the sample and its resubmission tie on every column: the earlier one ranks first
    times = [r[0] for r in ordered if r[1] == rows[0][1]]
    assert times == sorted(times) and len(times) >= 2


# ------------------------------------------------------------------------ the dry run on the zips ---

def test_dry_run_formal_phase_scores_the_formal_data(tmp_path, capsys):
    """--phase formal takes the reference data of the zip's formal phase: a formal qrels that judges no
    document of the sample run relevant gives 0 where the sample data gives the sample's values."""
    import sys

    sys.path.insert(0, os.path.join(ROOT, "starting_kit"))
    import dry_run

    task = [t for t in TASKS if t.id == "ntcir1-adhoc"][0]
    formal = tmp_path / "formal" / task.id
    shutil.copytree(os.path.join(ROOT, "reference_data", task.id), str(formal))
    for name in os.listdir(formal):
        if name.startswith("rel"):
            path = formal / name
            path.write_text(path.read_text().replace("gakkai-", "gakkai-X"))   # judged ids the run never has
    out = tmp_path / "formal.zip"
    code, stdout, stderr = run_cli("bundle", "--tasks", task.id, "--reference", tmp_path / "formal", "-o", out)
    assert code == 0, stdout + stderr
    rows = {}
    for phase in ("dry", "formal"):
        capsys.readouterr()
        assert dry_run.main(["--bundle", str(out), "--phase", phase, "--workdir", str(tmp_path / phase)]) == 0
        printed = capsys.readouterr().out
        rows[phase] = [line for line in printed.splitlines() if line.startswith("leaderboard row: ")]
        assert "reference data reference_data%s/%s" % ("_formal" if phase == "formal" else "", task.id) in printed
    assert rows["dry"] == ["leaderboard row: MAP (rigid): 0.1635, MAP (relaxed): 0.2603, R-prec (rigid): 0.164, "
                           "R-prec (relaxed): 0.2332, P@10 (rigid): 0.1, P@10 (relaxed): 0.2833, 11-pt average "
                           "(rigid): 0.1781, 11-pt average (relaxed): 0.2786"]
    assert rows["formal"] == ["leaderboard row: MAP (rigid): 0.0, MAP (relaxed): 0.0, R-prec (rigid): 0.0, "
                              "R-prec (relaxed): 0.0, P@10 (rigid): 0.0, P@10 (relaxed): 0.0, 11-pt average "
                              "(rigid): 0.0, 11-pt average (relaxed): 0.0"]


def test_values_are_shown_as_codabench_shows_them():
    import sys

    sys.path.insert(0, os.path.join(ROOT, "starting_kit"))
    import dry_run

    # str(round(float(score), precision)) of the 10-decimal stored value (src/apps/api/views/competitions.py)
    assert [dry_run.shown(v, p) for v, p in ((0.1, 4), (0.16345343, 4), (1.0, 4), (4.0, 0), (0.999996, 4),
                                             (-0.0875, 4), (0.123456789049, 10))] == \
        ["0.1", "0.1635", "1.0", "4.0", "1.0", "-0.0875", "0.123456789"]


def test_dry_run_on_a_v1_zip_uses_the_legacy_layout(tmp_path, capsys):
    """A CodaLab v1.5 zip: nested program and reference zips, the v1 leaderboard, and input/res as the legacy
    worker leaves it (runs.zip kept beside its unzipped copy runs/, no metadata): the runs are counted once."""
    import sys

    sys.path.insert(0, os.path.join(ROOT, "starting_kit"))
    import dry_run

    out = tmp_path / "v1.zip"
    code, stdout, stderr = run_cli("bundle", "--v1", "--tasks", "temporalia-tqic", "-o", out)
    assert code == 0, stdout + stderr
    submission = tmp_path / "sub.zip"
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as archive:
        archive.write(os.path.join(SAMPLES, "temporalia-tqic", "tqic_sample"), "tqic_sample")
    with zipfile.ZipFile(submission, "w") as archive:
        archive.writestr("runs.zip", inner.getvalue())
    capsys.readouterr()
    assert dry_run.main(["--bundle", str(out), "--workdir", str(tmp_path / "w"), str(submission)]) == 0
    printed = capsys.readouterr().out
    res = tmp_path / "w" / "v1" / "input" / "res"
    assert sorted(os.listdir(res)) == ["runs", "runs.zip"]
    assert "leaderboard row: Accuracy: 0.8, Macro F1: 0.7958" in printed


def test_every_zip_scores_its_sample_with_its_own_score_py(zips, tmp_path):
    """The zip's own scoring program (not the repository's), run as the worker runs it, on the sample of its
    task: what `make demo` does for every task."""
    for task in TASKS:
        target = tmp_path / task.id
        competition = _unzip(zips[task.id], target)
        columns = [c["key"] for c in competition["leaderboards"][0]["columns"]]
        layout = tmp_path / ("in-" + task.id)
        shutil.copytree(str(target / competition["tasks"][0]["reference_data"]), str(layout / "ref"))
        shutil.copytree(os.path.join(SAMPLES, task.id), str(layout / "res"))
        (layout / "res" / "metadata").write_text(WORKER_METADATA)
        proc_code, out, err = _run_zip_program(target, layout, tmp_path / ("out-" + task.id))
        assert proc_code == 0, err
        assert "warning" not in err, err                # the demo shows no unexplained warning
        written = json.loads((tmp_path / ("out-" + task.id) / "scores.json").read_text())
        assert sorted(written) == sorted(columns)


def _run_zip_program(bundle_dir, input_dir, output_dir):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(bundle_dir / "scoring_program" / "score.py"), str(input_dir),
                           str(output_dir)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_root_competition_is_one_tasks_competition():
    with open(os.path.join(ROOT, "competition.yaml"), encoding="utf-8") as handle:
        competition = yaml.safe_load(handle)
    task = TASKS[0]
    assert [c["key"] for c in competition["leaderboards"][0]["columns"]] == \
        [task.leaderboard_key(c) for c in task.columns]
    assert [t["reference_data"] for t in competition["tasks"]] == ["reference_data/%s/" % task.id,
                                                                   "reference_data_formal/%s/" % task.id]
    assert competition["leaderboards"][0]["hidden"] is True       # the formal phase collects
    assert os.path.isfile(os.path.join(ROOT, "reference_data_formal", task.id, "task.yaml"))


def test_the_demo_keeps_every_tasks_detailed_page_and_prints_its_path(zips, tmp_path, capsys):
    """What `make demo` runs: dry_run.py --bundle for every zip, each zip's own sample; every task's page is kept
    in its own folder (none overwritten) and its path printed, and no warning is printed."""
    import sys

    sys.path.insert(0, os.path.join(ROOT, "starting_kit"))
    import dry_run

    chosen = ["r2c2-ac", "temporalia-tqic"]
    argv = [a for t in chosen for a in ("--bundle", str(zips[t]))] + ["--workdir", str(tmp_path)]
    capsys.readouterr()
    assert dry_run.main(argv) == 0
    printed = capsys.readouterr().out
    for task_id in chosen:
        page = tmp_path / task_id / "output" / "detailed_results.html"
        assert page.exists() and "detailed results: %s" % page in printed
        assert "== %s: " % dry_run._shown_path(str(zips[task_id])) in printed
    assert printed.count("leaderboard row: ") == 2 and "warning" not in printed.lower()
