"""Local dry run, laid out exactly as Codabench does: program/, input/ref, input/res (+ the worker's metadata), output/.

Usage: python3 starting_kit/dry_run.py [SUBMISSION_DIR_OR_ZIP] [--ref REFERENCE_DIR] [--bundle BUNDLE.zip ...]
                                       [--phase dry|formal] [--worker-data DIR] [--workdir DIR] [--docker [IMAGE]]
Without a submission it scores every sample submission of sample_submission/ against the shipped sample
reference data (reference_data/<task-id>/, each task as its own competition) and prints the leaderboard row of
each. scoring_program/ and reference_data/ are taken next to this script (the kit downloaded from the platform)
or one level up (the repository). With --bundle (repeatable: one competition per task), the scoring program,
the reference data of the phase told by --phase and the leaderboard columns come from an upload zip built by
`runscore bundle` (Codabench v2 or CodaLab v1.5), so what is tested is exactly what would be uploaded; without a
submission, each bundle's own sample submission is scored. Each submission's output (scores, detailed_results.html)
is kept in its own folder under --workdir. Needs Python 3.9 to 3.13 with numpy, scipy, PyYAML and jsonschema.

What it mimics (shared/specs/codabench.md 1.2): the program is unzipped into program/ (the working directory),
the command of program/metadata is run with $program, $input and $output replaced and split on spaces (no
shell), input/res holds the submission's files plus the `metadata` file the worker writes, and the scores
are read as the site reads them (scores.json first, else scores.txt as YAML), then matched to the leaderboard
columns of competition.yaml: a key with no column would be dropped by Codabench, a column with no key shows n/a,
and each value is shown as the leaderboard shows it (str(round(value, precision)), src/apps/api/views/
competitions.py). For a CodaLab v1.5 bundle, input/res is laid out as the legacy worker does: every top-level
X.zip of the submission is also unzipped into X/ (competitions-v1-compute-worker, worker.py get_bundle), and no
metadata file is added. A formal phase whose reference data stays on the organiser's compute worker (runscore
bundle --reference) reads it from the worker's data folder, which Codabench mounts read-only at /app/data beside
/app/input: --worker-data DIR (by default the BUNDLE.worker-data/ folder written beside the zip) is laid out as
data/ beside input/, read-only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import zipfile
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# What the Codabench worker writes into a results submission's prediction output (compute_worker.py push_output:
# yaml.dump of the four program statuses, all None when no program ran), which the scoring step finds in input/res.
WORKER_METADATA = "elapsedTime: null\nexitCode: null\ningestionElapsedTime: null\ningestionExitCode: null\n"
# A submission with one of these at its top is run by Codabench's worker as a program (compute_worker.py
# _run_program_directory); the scoring step then reads what the program wrote and the worker's metadata with the
# program's exit code and time (push_output), which the scoring program refuses. The program is not run here.
PROGRAM_FILES = ("metadata.yaml", "metadata")
PROGRAM_METADATA = "elapsedTime: 0.0\nexitCode: 0\ningestionElapsedTime: null\ningestionExitCode: null\n"


def _yaml():
    import yaml   # PyYAML: also a dependency of the scoring program itself

    return yaml


def _remove(folder: str) -> None:
    """rmtree that also removes a read-only data/ folder an earlier run laid out."""
    def writable(func, path, _):
        os.chmod(os.path.dirname(path), 0o755)
        os.chmod(path, 0o755)
        func(path)

    shutil.rmtree(folder, onerror=writable)


def lay_out_data(workdir: str, worker_data: str) -> None:
    """data/ beside input/: a copy of the worker's data folder, read-only as Codabench mounts it."""
    data = os.path.join(workdir, "data")
    shutil.copytree(worker_data, data)
    for dirpath, dirnames, filenames in os.walk(data, topdown=False):
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o444)
        os.chmod(dirpath, 0o555)


def lay_out(workdir: str, program: str, reference: str, submission: str, legacy: bool = False,
            worker_data: str = "") -> Optional[str]:
    """program/ = the scoring program, input/ref = the reference data, input/res = the submission + metadata
    (legacy CodaLab: the submission with every top-level X.zip also unzipped into X/, no metadata), data/ = the
    worker's data folder when one is given. A submission holding metadata(.yaml) at its top is a program to
    Codabench: input/res is then what the worker gives the scoring step after a program, and its name is returned."""
    if os.path.exists(workdir):
        _remove(workdir)
    program_dir, ref, res, out = (os.path.join(workdir, *p) for p in
                                  (("program",), ("input", "ref"), ("input", "res"), ("output",)))
    shutil.copytree(program, program_dir, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    shutil.copytree(reference, ref)
    os.makedirs(out)
    if worker_data:
        lay_out_data(workdir, worker_data)
    if os.path.isdir(submission):
        shutil.copytree(submission, res)
    else:
        os.makedirs(res)
        with zipfile.ZipFile(submission) as archive:
            archive.extractall(res)
    if legacy:
        for name in sorted(os.listdir(res)):
            if name.endswith(".zip") and zipfile.is_zipfile(os.path.join(res, name)):
                with zipfile.ZipFile(os.path.join(res, name)) as archive:
                    archive.extractall(os.path.join(res, name[:-4]))
        return
    program = next((name for name in PROGRAM_FILES if os.path.lexists(os.path.join(res, name))), None)
    if program is not None:
        _remove(res)
        os.makedirs(res)
    with open(os.path.join(res, "metadata"), "w") as handle:
        handle.write(WORKER_METADATA if program is None else PROGRAM_METADATA)
    return program


def command(workdir: str):
    """The program's metadata command as the worker runs it: variables replaced, split on spaces, no shell."""
    with open(os.path.join(workdir, "program", "metadata"), encoding="utf-8") as handle:
        text = _yaml().safe_load(handle)["command"]
    for name, path in (("$program", "program"), ("$input", "input"), ("$output", "output")):
        text = text.replace(name, os.path.join(workdir, path))
    argv = text.split(" ")
    if argv[0] in ("python3", "python"):
        argv[0] = sys.executable     # the interpreter running this script stands in for the image's python3
    return argv


CODABENCH_PATHS = (("$program", "/app/program"), ("$input", "/app/input"), ("$output", "/app/output"))


def docker_command(workdir: str, image: str):
    """The same step in the platform's image, with the worker's mounts and /app paths and no network."""
    with open(os.path.join(workdir, "program", "metadata"), encoding="utf-8") as handle:
        text = _yaml().safe_load(handle)["command"]
    for name, path in CODABENCH_PATHS:
        text = text.replace(name, path)
    mounts = []
    for name in ("program", "input", "output"):
        mounts += ["-v", "%s:/app/%s" % (os.path.abspath(os.path.join(workdir, name)), name)]
    if os.path.isdir(os.path.join(workdir, "data")):         # the worker's data folder, read-only as it mounts it
        mounts += ["-v", "%s:/app/data:ro" % os.path.abspath(os.path.join(workdir, "data"))]
    return ["docker", "run", "--rm", "--network", "none"] + mounts + ["-w", "/app/program", image] + text.split(" ")


def read_scores(output: str):
    """Scores as Codabench reads them: scores.json if present, else scores.txt parsed as YAML."""
    path = os.path.join(output, "scores.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    path = os.path.join(output, "scores.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            return _yaml().load(handle, Loader=_yaml().Loader)
    return None


def leaderboard_columns(competition_yaml: str):
    """The columns of the leaderboard attached to the phases, as Codabench reads them: a v2 file's first
    leaderboard, or a v1.5 file's columns sorted by rank (label -> title, numeric_format -> precision)."""
    with open(competition_yaml, encoding="utf-8") as handle:
        data = _yaml().safe_load(handle)
    if "leaderboards" in data:
        return data["leaderboards"][0]["columns"]
    columns = sorted(data["leaderboard"]["columns"].items(), key=lambda kv: kv[1].get("rank", 1))
    return [{"key": key, "title": c.get("label", key), "index": i, "sorting": c.get("sort") or "desc",
             "precision": int(c.get("numeric_format", 2))} for i, (key, c) in enumerate(columns)]


def shown(value, precision) -> str:
    """A score as the leaderboard shows it: stored with 10 decimals (DecimalField), then
    str(round(float(score), precision)) (src/apps/api/views/competitions.py get_leaderboard)."""
    return str(round(float("%.10f" % value), precision))


def leaderboard_row(scores, columns):
    """(`title: value` cells of the filled columns, keys written with no column)."""
    cells = []
    for column in columns:
        if column["key"] in scores:
            value = scores[column["key"]]
            if not isinstance(value, (int, float)):
                cells.append("%s: not a number (%r)" % (column["title"], value))
            else:
                cells.append("%s: %s" % (column["title"], shown(value, column.get("precision", 2))))
    known = {c["key"] for c in columns}
    return cells, [k for k in scores if k not in known]


def score_submission(workdir: str, program: str, reference: str, submission: str, columns,
                     image: str = "", legacy: bool = False, worker_data: str = "") -> int:
    ran = lay_out(workdir, program, reference, submission, legacy, worker_data)
    if ran:
        print("the submission holds %s at its top: Codabench runs it as a program (not run here), and the scoring "
              "step gets what the worker writes after a program" % ran)
    output = os.path.join(workdir, "output")
    argv = docker_command(workdir, image) if image else command(workdir)
    rc = subprocess.call(argv, cwd=os.path.join(workdir, "program"))
    if os.path.exists(os.path.join(output, "metadata")):
        print("error: the scoring program wrote output/metadata, which the Codabench worker refuses")
        return 2
    scores = read_scores(output)
    if rc != 0 or scores is None:
        print("exit status %d%s" % (rc, "" if scores is None else " (scores were written anyway)"))
        return rc or 1
    if not isinstance(scores, dict):
        print("error: the scores file is not a mapping of keys to numbers but %r (Codabench reads `key:value` "
              "without a space as text): the leaderboard would show n/a" % (scores,))
        return 1
    if columns is None:     # the kit alone has no competition.yaml: show the keys as written
        print("leaderboard row: " + ", ".join("%s: %s" % (k, "%.4f" % v if isinstance(v, (int, float)) else repr(v))
                                              for k, v in scores.items()))
    else:
        cells, unknown = leaderboard_row(scores, columns)
        if not cells and unknown and all(k.endswith("_runs_received") for k in unknown):
            # a collecting phase (docs/campaign.md): its scores file names no column on purpose
            print("leaderboard row: (none: this phase collects runs and scores nothing; the leaderboard is hidden)")
            return 0
        print("leaderboard row: " + (", ".join(cells) if cells else "(no column filled)"))
        if unknown:
            print("warning: keys with no leaderboard column in competition.yaml (Codabench would drop them; "
                  "regenerate it with `make bundle-files`): %s" % ", ".join(unknown))
    page = os.path.join(output, "detailed_results.html")
    if not os.path.exists(page):
        print("warning: no output/detailed_results.html")
    else:
        print("detailed results: %s" % _shown_path(page))
    return 0


def _shown_path(path: str) -> str:
    here = os.path.relpath(os.path.abspath(path))
    return here if not here.startswith("..") else os.path.abspath(path)


def _from_bundle(bundle: str, target: str):
    """Unzip an upload zip into target; its competition.yaml then says where the program and data are."""
    if os.path.exists(target):
        _remove(target)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(target)
    return target


class Competition:
    """What one phase of a competition runs: the scoring program, the reference data, the columns, and
    whether the platform is legacy CodaLab (v1.5 layout)."""

    def __init__(self, program, reference, columns, legacy=False, task=None, kit=None):
        self.program, self.reference, self.columns = program, reference, columns
        self.legacy, self.task, self.kit = legacy, task, kit
        self.about = ""
        self.root = None
        self.worker_data = ""      # the compute worker's data folder, laid out as data/ beside input/


def _path_in(root: str, value: str, where: str) -> str:
    """A bundle path (folder, or a zip unzipped beside itself as the platform does) as a folder on disk."""
    path = os.path.join(root, value.rstrip("/"))
    if path.endswith(".zip") and os.path.isfile(path):
        folder = path[:-4] + ".unzipped"
        if not os.path.isdir(folder):
            with zipfile.ZipFile(path) as archive:
                archive.extractall(folder)
        return folder
    if not os.path.isdir(path):
        raise SystemExit("error: %s of the bundle (%s) is not in it" % (where, value))
    return path


def competition_of(bundle_dir: str, phase: str) -> Competition:
    """The phase `dry` (the first) or `formal` (the last) of an unzipped bundle, v2 or v1.5."""
    with open(os.path.join(bundle_dir, "competition.yaml"), encoding="utf-8") as handle:
        data = _yaml().safe_load(handle)
    columns = leaderboard_columns(os.path.join(bundle_dir, "competition.yaml"))
    if "leaderboards" in data:           # Codabench v2: phase -> its task -> program + reference data
        phases = sorted(data["phases"], key=lambda p: p.get("index", 0))
        chosen = phases[0] if phase == "dry" else phases[-1]
        task = [t for t in data["tasks"] if t["index"] == chosen["tasks"][0]][0]
        program = _path_in(bundle_dir, task["scoring_program"], "scoring_program")
        reference = _path_in(bundle_dir, task["reference_data"], "reference_data")
        kit = _path_in(bundle_dir, chosen["starting_kit"], "starting_kit") if chosen.get("starting_kit") else None
        legacy = False
    else:                                # CodaLab v1.5: phases mapping, nested zips
        phases = sorted(data["phases"].values(), key=lambda p: p.get("phasenumber", 0))
        chosen = phases[0] if phase == "dry" else phases[-1]
        program = _path_in(bundle_dir, chosen["scoring_program"], "scoring_program")
        reference = _path_in(bundle_dir, chosen["reference_data"], "reference_data")
        kit = _path_in(bundle_dir, chosen["starting_kit"], "starting_kit") if chosen.get("starting_kit") else None
        legacy = True
    competition = Competition(program, reference, columns, legacy, _task_of(reference), kit)
    competition.root = bundle_dir
    competition.about = "%s, phase %r, reference data %s" % (
        data.get("title", bundle_dir), chosen.get("name") or chosen.get("label"),
        os.path.relpath(reference, bundle_dir))
    return competition


def _task_of(reference: str):
    """The task id of a reference folder: its task.yaml's `task`, or its only task folder."""
    own = os.path.join(reference, "task.yaml")
    if os.path.exists(own):
        with open(own, encoding="utf-8") as handle:
            return (_yaml().safe_load(handle) or {}).get("task")
    folders = [d for d in sorted(os.listdir(reference)) if os.path.isdir(os.path.join(reference, d))]
    return folders[0] if len(folders) == 1 else None


def _source() -> str:
    """Where scoring_program/ and reference_data/ are: next to this script in the kit downloaded from the
    platform, one level up in the repository."""
    return HERE if os.path.isdir(os.path.join(HERE, "scoring_program")) else ROOT


def _samples(kit: str, task):
    folder = os.path.join(kit, "sample_submission", task) if task else None
    return [folder] if folder and os.path.isdir(folder) else []


def _unusable(submission, bundles):
    """(exit status, message) when a path given cannot be used, else None: a message naming the file and what to
    do instead of a traceback from zipfile (a submission that is not a zip is the participant's to fix, exit 1, as
    the platform fails it; a path that does not exist, or a --bundle that is no zip, is a usage error, exit 2)."""
    for path in [submission] * bool(submission) + list(bundles):
        if not os.path.exists(path):
            return 2, "%s: error: no such file or folder" % path
    for bundle in bundles:
        if not zipfile.is_zipfile(bundle):
            return 2, "%s: error: --bundle takes a competition's upload zip (made by `make bundle`)" % bundle
    if submission and not os.path.isdir(submission) and not zipfile.is_zipfile(submission):
        return 1, ("%s: error: not a zip file; the platform unzips every submission, so it would fail this one: "
                   "zip the run files (`zip submission.zip RUN...`) or give their folder" % submission)
    return None


def _form_bundle(form: str, workdir: str):
    """The competition zip of a form, built by the scoring program beside this script (None: the build failed, its
    messages printed)."""
    if not os.path.isfile(form):
        print("%s: error: no such form (runscore new-task KIND NAME writes one)" % form, file=sys.stderr)
        return None
    os.makedirs(workdir, exist_ok=True)
    out = os.path.join(workdir, os.path.splitext(os.path.basename(form))[0] + ".zip")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, PYTHONPATH=os.path.join(_source(), "scoring_program"))
    done = subprocess.run([sys.executable, "-m", "runscore", "bundle", "--form", form, "-o", out, "--no-lint"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode:
        sys.stderr.write(done.stderr)
        return None
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", nargs="?", help="a submission folder or zip (default: every sample)")
    parser.add_argument("--ref", help="reference data folder (default: reference_data/<task-id>/ of the "
                        "repository, or the phase's data of --bundle)")
    parser.add_argument("--bundle", action="append", default=[], metavar="BUNDLE.zip",
                        help="take the program, reference data and columns from this upload zip (repeatable)")
    parser.add_argument("--form", metavar="FORM.yaml", help="an organiser's own task (docs/own-campaign.md): its "
                        "competition is built with `runscore bundle --form` into --workdir and run as --bundle (with "
                        "--ref, the formal phase scores against that folder, which the form describes)")
    parser.add_argument("--phase", choices=("dry", "formal"), default="dry",
                        help="with --bundle: the phase whose reference data is used (default: dry, the sample data)")
    parser.add_argument("--worker-data", metavar="DIR", help="the compute worker's data folder (its "
                        "$HOST_DIRECTORY/data), laid out read-only as data/ beside input/, as Codabench mounts it at "
                        "/app/data (default with --bundle X.zip: X.worker-data/ beside the zip, when it exists)")
    parser.add_argument("--workdir", default=os.path.join(HERE, "run"), help="where each submission's program/, "
                        "input/, output/ go (one folder per submission)")
    parser.add_argument("--docker", nargs="?", const="codalab/codalab-legacy:py39", metavar="IMAGE",
                        help="run the scoring step in the platform's Docker image (default image "
                        "codalab/codalab-legacy:py39), network off, /app paths as on Codabench")
    args = parser.parse_args(argv)
    if args.form:
        built = _form_bundle(args.form, args.workdir)
        if built is None:
            return 2
        args.bundle.append(built)
    problem = _unusable(args.submission, args.bundle)
    if problem:
        print(problem[1], file=sys.stderr)
        return problem[0]
    jobs = []      # (label, competition, submission)
    if args.bundle:
        for bundle in args.bundle:
            name = os.path.splitext(os.path.basename(bundle))[0]
            competition = competition_of(_from_bundle(bundle, os.path.join(args.workdir, "bundle-" + name)),
                                         args.phase)
            competition.about = "%s: %s" % (_shown_path(bundle), competition.about)
            if args.ref:
                competition.reference = args.ref
            beside = os.path.splitext(bundle)[0] + ".worker-data"
            competition.worker_data = args.worker_data or (beside if os.path.isdir(beside) else "")
            subs = [args.submission] if args.submission else _samples(competition.kit or HERE, competition.task)
            jobs += [(name, competition, s) for s in subs]
    else:
        source = _source()
        program = os.path.join(source, "scoring_program")
        samples = os.path.join(HERE, "sample_submission")
        if args.submission:     # every task's folder: the runs of any task are scored (no columns to show)
            reference = args.ref or os.path.join(source, "reference_data")
            jobs.append(("submission", Competition(program, reference, None), args.submission))
        else:
            tasks = sorted(os.listdir(args.ref or os.path.join(source, "reference_data")))
            for task in [d for d in sorted(os.listdir(samples)) if d in tasks]:
                reference = os.path.join(args.ref or os.path.join(source, "reference_data"), task)
                jobs.append((task, Competition(program, reference, None, task=task), os.path.join(samples, task)))
    status = 0
    for label, competition, submission in jobs:
        if competition.about:
            inside = competition.root and os.path.abspath(submission).startswith(os.path.abspath(competition.root))
            print("== %s\n   submission: %s" % (competition.about, os.path.relpath(submission, competition.root) +
                                              " (the zip's sample)" if inside else _shown_path(submission)))
        else:
            print("== %s" % _shown_path(submission))
        sys.stdout.flush()
        workdir = os.path.join(args.workdir, label)
        status = score_submission(workdir, competition.program, competition.reference, submission,
                                  competition.columns, args.docker or "", competition.legacy,
                                  competition.worker_data or args.worker_data or "") or status
        sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
