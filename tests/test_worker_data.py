"""The formal reference on the organiser's compute worker (codabench/worker_data.py): `runscore bundle --reference`
puts none of it in the upload zip (Codabench serves every dataset to anyone), writes it beside the zip for the
worker's data folder, and score.py, laid out as the worker runs it (/app/input beside /app/data), scores with it and
refuses a missing or changed copy (exit 2) without showing the participant anything of it."""
import contextlib
import hashlib
import io
import os
import shutil
import zipfile

import pytest
import yaml

from conftest import ROOT
from runscore import cli
from runscore.codabench import entry
from runscore.codabench.bundle_files import FORMAL_REFERENCE

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
CANARY = "CANARY0SECRET"
# What the Codabench worker writes into input/res for a results submission (no program ran) and for a code one.
RESULTS_METADATA = "elapsedTime: null\nexitCode: null\ningestionElapsedTime: null\ningestionExitCode: null\n"
PROGRAM_METADATA = "elapsedTime: 1.2\nexitCode: 0\ningestionElapsedTime: null\ningestionExitCode: null\n"


def runscore(*argv):
    """`runscore ARGV` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:        # --help
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def score_py(base):
    """score.py's entry in-process on base/input -> base/output: (exit code, stdout, stderr, page)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = entry.main(["score.py", str(base / "input"), str(base / "output")])
    page = base / "output" / "detailed_results.html"
    return code, out.getvalue(), err.getvalue(), page.read_text(encoding="utf-8") if page.exists() else ""


def secret_ntcir1(folder):
    """The ntcir1-adhoc sample reference with a canary judged document in both qrels files, and task.yaml
    marked: every file of it holds the canary."""
    shutil.copytree(os.path.join(ROOT, "reference_data", "ntcir1-adhoc"), str(folder))
    for name in ("rel1_sample_0031-0036", "rel2_sample_0031-0036"):
        with open(str(folder / name), "a", encoding="utf-8") as handle:
            handle.write("0031\tC\tgakkai-%s\t0\n" % CANARY)
    with open(str(folder / "task.yaml"), "a", encoding="utf-8") as handle:
        handle.write("# %s\n" % CANARY)
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One build with --reference: (zip path, worker-data folder, the secret reference folder, stdout)."""
    base = tmp_path_factory.mktemp("worker")
    secret = secret_ntcir1(base / "secret")
    out = base / "dist" / "ntcir1-adhoc.zip"
    code, stdout, stderr = runscore("bundle", "--tasks", "ntcir1-adhoc", "-o", out, "--reference", secret)
    assert code == 0, stdout + stderr
    return out, base / "dist" / "ntcir1-adhoc.worker-data", secret, stdout


def test_the_uploaded_zip_holds_nothing_of_the_reference(built):
    """No member of the zip holds the canary, a file of the reference, its plain SHA-256 (which a guess could be
    checked against) or the fingerprints' key."""
    out, worker, secret, _ = built
    contents = [open(os.path.join(str(secret), n), "rb").read() for n in os.listdir(str(secret))]
    key = [p for p in worker.rglob("fingerprint.key")][0].read_bytes().strip()
    with zipfile.ZipFile(str(out)) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            assert CANARY.encode() not in data, name
            assert key not in data, name
            for content in contents:
                assert hashlib.sha256(content).hexdigest().encode() not in data, name
                assert content not in data or len(content) < 40, name
        formal = [n for n in archive.namelist() if n.startswith(FORMAL_REFERENCE + "/")]
        assert formal == [FORMAL_REFERENCE + "/ntcir1-adhoc/task.yaml"]
        pointer = yaml.safe_load(archive.read(formal[0]))
        competition = yaml.safe_load(archive.read("competition.yaml"))
    assert pointer["detail"] == "aggregate" and set(pointer["worker_data"]["fingerprints"]) == \
        {"rel1_sample_0031-0036", "rel2_sample_0031-0036", "task.yaml"}
    # every phase hides every submission's logs and files from other users (docs/codabench.md)
    assert [p.get("hide_output") for p in competition["phases"]] == [True, True]


def test_the_worker_folder_holds_the_data_the_key_and_the_steps(built):
    out, worker, secret, stdout = built
    [base] = os.listdir(str(worker))
    assert base.startswith("runscore-ntcir1-adhoc-")                 # one folder per competition and task
    assert sorted(os.listdir(str(worker / base))) == ["README.md", "fingerprint.key", "ntcir1-adhoc"]
    for name in ("rel1_sample_0031-0036", "rel2_sample_0031-0036"):
        assert (worker / base / "ntcir1-adhoc" / name).read_bytes() == (secret / name).read_bytes()
    assert "detail: aggregate" in (worker / base / "ntcir1-adhoc" / "task.yaml").read_text()
    readme = (worker / base / "README.md").read_text()
    for step in ("Create a queue of your own", "HOST_DIRECTORY", "COMPETITION_CONTAINER_NETWORK_DISABLED=True",
                 "$HOST_DIRECTORY/data/", "Queue", "dry_run.py --bundle"):
        assert step in readme and step in stdout, step
    assert "NOT in the zip" in stdout


def _worker_layout(tmp_path, zip_path, worker, submission=None, metadata=RESULTS_METADATA):
    """input/ref = the zip's formal reference folder, data/ = the worker's data folder, input/res = a submission
    with the worker's metadata: the scoring container's /app as Codabench lays it out."""
    with zipfile.ZipFile(str(zip_path)) as archive:
        archive.extractall(str(tmp_path / "bundle"))
    shutil.copytree(str(tmp_path / "bundle" / FORMAL_REFERENCE / "ntcir1-adhoc"), str(tmp_path / "input" / "ref"))
    if worker is not None:
        shutil.copytree(str(worker), str(tmp_path / "data"))
    shutil.copytree(submission or os.path.join(SAMPLES, "ntcir1-adhoc"), str(tmp_path / "input" / "res"))
    (tmp_path / "input" / "res" / "metadata").write_text(metadata)
    return tmp_path


def test_score_py_on_the_worker_layout_scores_with_the_workers_data(built, tmp_path):
    out, worker, secret, _ = built
    code, stdout, stderr, page = score_py(_worker_layout(tmp_path / "w", out, worker))
    assert code == 0, stderr
    direct = tmp_path / "direct"           # the same data given directly, at the same level (detail: aggregate)
    copy = [p for p in worker.iterdir() if p.is_dir()][0] / "ntcir1-adhoc"
    shutil.copytree(str(copy), str(direct / "input" / "ref"))
    shutil.copytree(os.path.join(SAMPLES, "ntcir1-adhoc"), str(direct / "input" / "res"))
    assert score_py(direct)[0] == 0
    assert (tmp_path / "w" / "output" / "scores.json").read_text() == (direct / "output" / "scores.json").read_text()
    assert CANARY not in stdout + stderr + page


def _changed(folder, name, data):
    path = [p for p in folder.rglob(name)][0]
    os.chmod(str(path), 0o644)
    path.write_bytes(data)


@pytest.mark.parametrize("damage, told", [
    (lambda d: _changed(d, "rel1_sample_0031-0036", (lambda b: b[:-2] + (b"1\n" if b[-2:] == b"0\n" else b"0\n"))(
        [p for p in d.rglob("rel1_sample_0031-0036")][0].read_bytes())), "different from the bundle's: rel1"),
    (lambda d: [p for p in d.rglob("rel2_sample_0031-0036")][0].unlink(), "missing: rel2_sample_0031-0036"),
    (lambda d: [p for p in d.rglob("task.yaml")][0].parent.joinpath("extra.tsv").write_text("x\n"),
     "not in the bundle: extra.tsv"),
    (lambda d: _changed(d, "fingerprint.key", b"00" * 32 + b"\n"), "different from the bundle's"),
    (lambda d: shutil.rmtree(str(d)), "has no runscore-ntcir1-adhoc-"),
])
def test_a_missing_or_changed_copy_is_refused_for_the_organiser(built, tmp_path, damage, told):
    """Exit 2 and a message naming files for the organiser (the scoring log); the participant's page says only
    that the set-up failed; never a score against other data."""
    out, worker, _, _ = built
    base = _worker_layout(tmp_path, out, worker)
    damage(base / "data")
    code, stdout, stderr, page = score_py(base)
    assert code == 2 and told in stderr, stderr
    assert not (base / "output" / "scores.json").exists()
    assert "Scoring failed" in page and "rel1" not in page and CANARY not in stdout + stderr + page


def test_a_submission_run_as_a_program_is_refused_where_the_data_is_on_the_worker(built, tmp_path):
    """Codabench runs a submission holding a metadata file as a program, with /app/data mounted: what it wrote
    must not be read back (its errors would quote it)."""
    out, worker, _, _ = built
    code, stdout, stderr, page = score_py(_worker_layout(tmp_path, out, worker, metadata=PROGRAM_METADATA))
    assert code == 1 and "takes result files only" in stderr and "takes result files only" in page


def test_a_rebuild_beside_the_folder_keeps_its_name_and_key(built, tmp_path):
    """The worker needs a new copy only when the data change: the same data give the same zip."""
    out, worker, secret, _ = built
    again = tmp_path / "ntcir1-adhoc.zip"
    shutil.copytree(str(worker), str(tmp_path / "ntcir1-adhoc.worker-data"))
    code, stdout, stderr = runscore("bundle", "--tasks", "ntcir1-adhoc", "-o", again, "--reference", secret,
                                    "--no-lint")
    assert code == 0, stderr
    assert again.read_bytes() == out.read_bytes()
    assert sorted(os.listdir(str(tmp_path / "ntcir1-adhoc.worker-data"))) == sorted(os.listdir(str(worker)))


def test_the_dry_run_lays_out_the_workers_data_folder(built, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("dry_run", os.path.join(ROOT, "starting_kit", "dry_run.py"))
    dry_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dry_run)
    out, _, _, _ = built
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = dry_run.main(["--bundle", str(out), "--phase", "formal", "--workdir", str(tmp_path)])
    assert code == 0 and "leaderboard row: MAP (rigid)" in printed.getvalue(), printed.getvalue()
    assert not os.access(str(tmp_path / "ntcir1-adhoc" / "data"), os.W_OK) or os.geteuid() == 0


def test_publishing_the_reference_takes_an_option_that_says_who_can_download_it(tmp_path):
    secret = secret_ntcir1(tmp_path / "secret")
    out = tmp_path / "public.zip"
    code, stdout, stderr = runscore("bundle", "--tasks", "ntcir1-adhoc", "-o", out, "--reference", secret,
                                    "--publish-reference", "--no-lint")
    assert code == 0, stderr
    assert "IN the zip" in stdout and "ANYONE can download it" in stdout
    with zipfile.ZipFile(str(out)) as archive:
        assert CANARY.encode() in archive.read(FORMAL_REFERENCE + "/ntcir1-adhoc/rel1_sample_0031-0036")
    assert not (tmp_path / "public.worker-data").exists()
    code, stdout, stderr = runscore("bundle", "--help")
    assert "ANYONE" in stdout


@pytest.mark.parametrize("argv, message", [
    (["--v1"], "cannot keep the formal reference on a compute worker"),
    (["--publish-reference", "--reference", None], "give --reference DIR too"),
])
def test_bundle_usage_errors(tmp_path, argv, message):
    secret = secret_ntcir1(tmp_path / "secret")
    args = ["bundle", "--tasks", "ntcir1-adhoc", "-o", tmp_path / "x.zip"]
    if "--reference" not in argv:
        args += ["--reference", secret]
    args += [a for a in argv if a not in ("--reference", None)]
    code, stdout, stderr = runscore(*args)
    assert code == 2 and message in stderr, stderr


def test_the_linter_checks_the_pointer_and_with_the_workers_folder_the_data(built, tmp_path):
    out, worker, _, _ = built
    code, stdout, stderr = runscore("lint-bundle", out)
    assert code == 0 and "[reference-worker]" in stdout, stdout
    code, stdout, stderr = runscore("lint-bundle", out, "--worker-data", worker)
    assert code == 0 and "[reference-worker]" not in stdout and "reference-load" not in stdout, stdout
    changed = tmp_path / "changed"
    shutil.copytree(str(worker), str(changed))
    _changed(changed, "rel2_sample_0031-0036", b"0031\tA\tgakkai-0000000001\t1\n")
    code, stdout, stderr = runscore("lint-bundle", out, "--worker-data", changed)
    assert code == 1 and "[reference-load]" in stdout and "rel2_sample_0031-0036" in stdout, stdout


def test_the_linter_warns_of_a_hidden_phase_that_shows_its_outputs(built, tmp_path):
    """A phase scored against hidden data without hide_output lets anyone download every listed submission."""
    out, _, _, _ = built
    edited = tmp_path / "edited.zip"
    with zipfile.ZipFile(str(out)) as source, zipfile.ZipFile(str(edited), "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "competition.yaml":
                data = data.replace(b"  hide_output: true\n", b"")
            target.writestr(item, data)
    code, stdout, stderr = runscore("lint-bundle", edited)
    assert code == 0 and "[hide-output]" in stdout and "'Formal run'" in stdout, stdout
    code, stdout, stderr = runscore("lint-bundle", out)
    assert "[hide-output]" not in stdout


@pytest.mark.parametrize("pointer, told", [
    ({"folder": "../../etc", "key": "k", "fingerprints": {"a": "0" * 64}}, "must be relative"),
    ({"folder": "/etc", "key": "k", "fingerprints": {"a": "0" * 64}}, "must be relative"),
    ({"folder": "x/y", "key": "x/k", "fingerprints": {"../a": "0" * 64}}, "must be relative"),
    ({"folder": "x/y", "key": "x/k", "fingerprints": {"a": "not hex"}}, "64-digit HMAC-SHA256"),
    ({"folder": "x/y", "key": "x/k", "fingerprints": {}}, "64-digit HMAC-SHA256"),
    ({"folder": "x/y"}, "must give folder and key"),
    ("x/y", "must give folder and key"),
])
def test_a_malformed_pointer_is_the_organisers_error(tmp_path, pointer, told):
    (tmp_path / "input" / "ref").mkdir(parents=True)
    (tmp_path / "input" / "ref" / "task.yaml").write_text(yaml.safe_dump({"task": "ntcir1-adhoc",
                                                                         "worker_data": pointer}))
    shutil.copytree(os.path.join(SAMPLES, "ntcir1-adhoc"), str(tmp_path / "input" / "res"))
    (tmp_path / "data").mkdir()
    code, stdout, stderr, page = score_py(tmp_path)
    assert code == 2 and told in stderr, stderr


@pytest.mark.parametrize("metadata", [PROGRAM_METADATA, "exitCode: 1\n", "elapsedTime: 0.5\n", "not: [yaml\n",
                                      "- a list\n"])
def test_a_submission_run_as_a_program_is_refused_in_every_phase(tmp_path, metadata):
    """The dry run's reference is in the zip, but the worker mounts /app/data in every phase of the queue: a
    program sent to the dry run reads the formal reference and writes it into its 'run'. score.py refuses what a
    program wrote in every phase, wherever its own reference lies."""
    shutil.copytree(os.path.join(ROOT, "reference_data", "ntcir1-adhoc"), str(tmp_path / "input" / "ref"))
    shutil.copytree(os.path.join(SAMPLES, "ntcir1-adhoc"), str(tmp_path / "input" / "res"))
    (tmp_path / "input" / "res" / "metadata").write_text(metadata)
    code, stdout, stderr, page = score_py(tmp_path)
    assert code == 1 and "takes result files only" in stderr and "takes result files only" in page, stderr
    assert not (tmp_path / "output" / "scores.json").exists()
    (tmp_path / "input" / "res" / "metadata").write_text(RESULTS_METADATA)
    assert score_py(tmp_path)[0] == 0


def test_the_competition_holds_its_submissions_for_the_organisers_gate(built, tmp_path):
    """With the reference on the worker no participant program may run: the competition holds every submission
    (auto_run_submissions: false), the organiser's steps start `runscore admit`, the pages tell participants when
    a submission starts, and the linter refuses such a competition with auto-run on. Without --reference nothing
    lies on the worker and submissions run as they arrive."""
    from runscore.codabench.admission import ADMIT_INTERVAL

    out, worker, _, stdout = built
    with zipfile.ZipFile(str(out)) as archive:
        competition = yaml.safe_load(archive.read("competition.yaml"))
        overview = archive.read("pages/overview.md").decode("utf-8")
    assert competition["auto_run_submissions"] is False
    assert all("starts within %d seconds of upload" % ADMIT_INTERVAL in p["description"] for p in competition["phases"])
    assert "runscore admit" in stdout and "runscore admit" in (next(worker.iterdir()) / "README.md").read_text()
    assert "within %d seconds of upload" % ADMIT_INTERVAL in overview and "*Cancelled*" in overview
    edited = tmp_path / "auto-run.zip"
    with zipfile.ZipFile(str(out)) as source, zipfile.ZipFile(str(edited), "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "competition.yaml":
                data = data.replace(b"auto_run_submissions: false\n", b"")
            target.writestr(item, data)
    code, lint_out, _ = runscore("lint-bundle", edited)
    assert code == 1 and "[auto-run-worker]" in lint_out, lint_out
    sample = tmp_path / "sample.zip"
    assert runscore("bundle", "--tasks", "ntcir1-adhoc", "-o", sample, "--no-lint")[0] == 0
    with zipfile.ZipFile(str(sample)) as archive:
        assert "auto_run_submissions" not in yaml.safe_load(archive.read("competition.yaml"))
        assert "within %d seconds" % ADMIT_INTERVAL not in archive.read("pages/overview.md").decode("utf-8")
