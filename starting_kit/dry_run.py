"""Local dry run, laid out exactly as Codabench does: program/, input/ref, input/res (+ the worker's metadata), output/.

Usage: python3 starting_kit/dry_run.py [SUBMISSION_DIR_OR_ZIP] [--ref REFERENCE_DIR] [--bundle BUNDLE.zip]
                                       [--workdir DIR] [--docker [IMAGE]]
Without a submission it scores every sample submission of sample_submission/ against the shipped sample
reference data (reference_data/) and prints the leaderboard row of each. scoring_program/ and reference_data/
are taken next to this script (the kit downloaded from the platform) or one level up (the repository). With --bundle, the scoring
program, reference data and competition.yaml come from an upload zip built by `runscore bundle`, so what is
tested is exactly what would be uploaded. Needs Python 3.9+ with numpy, scipy, PyYAML and jsonschema.

What it mimics (shared/specs/codabench.md 1.2): the program is unzipped into program/ (the working directory),
the command of program/metadata is run with $program, $input and $output replaced and split on spaces (no
shell), input/res holds the submission's files plus the `metadata` file the worker writes, and the scores
are read as the site reads them (scores.json first, else scores.txt as YAML), then matched to the leaderboard
columns of competition.yaml: a key with no column would be dropped by Codabench, a column with no key shows n/a.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKER_METADATA = "exitCode: 0\nelapsedTime: 1.0\ningestionExitCode: 0\n"   # what the Codabench worker writes


def _yaml():
    import yaml   # PyYAML: also a dependency of the scoring program itself

    return yaml


def lay_out(workdir: str, program: str, reference: str, submission: str) -> None:
    """program/ = the scoring program, input/ref = the reference data, input/res = the submission + metadata."""
    if os.path.exists(workdir):
        shutil.rmtree(workdir)
    program_dir, ref, res, out = (os.path.join(workdir, *p) for p in
                                  (("program",), ("input", "ref"), ("input", "res"), ("output",)))
    shutil.copytree(program, program_dir, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    shutil.copytree(reference, ref)
    os.makedirs(out)
    if os.path.isdir(submission):
        shutil.copytree(submission, res)
    else:
        os.makedirs(res)
        with zipfile.ZipFile(submission) as archive:
            archive.extractall(res)
    with open(os.path.join(res, "metadata"), "w") as handle:
        handle.write(WORKER_METADATA)


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
    with open(competition_yaml, encoding="utf-8") as handle:
        data = _yaml().safe_load(handle)
    return data["leaderboards"][0]["columns"]


def leaderboard_row(scores, columns):
    """(`title: value` cells of the filled columns, keys written with no column)."""
    cells = []
    for column in columns:
        if column["key"] in scores:
            value = scores[column["key"]]
            if not isinstance(value, (int, float)):
                cells.append("%s: not a number (%r)" % (column["title"], value))
            else:
                cells.append("%s: %.*f" % (column["title"], column.get("precision", 2), value))
    known = {c["key"] for c in columns}
    return cells, [k for k in scores if k not in known]


def score_submission(workdir: str, program: str, reference: str, submission: str, columns,
                     image: str = "") -> int:
    lay_out(workdir, program, reference, submission)
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
        return 0
    cells, unknown = leaderboard_row(scores, columns)
    print("leaderboard row: " + (", ".join(cells) if cells else "(no column filled)"))
    if unknown:
        print("warning: keys with no leaderboard column in competition.yaml (Codabench would drop them; "
              "regenerate it with `make bundle-files`): %s" % ", ".join(unknown))
    if not os.path.exists(os.path.join(output, "detailed_results.html")):
        print("warning: no output/detailed_results.html")
    return 0


def _from_bundle(bundle: str, workdir: str):
    """Unzip an upload zip; its scoring_program/, reference_data/ and competition.yaml are then used."""
    target = os.path.join(workdir + "-bundle")
    if os.path.exists(target):
        shutil.rmtree(target)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(target)
    return target


def _source() -> str:
    """Where scoring_program/ and reference_data/ are: next to this script in the kit downloaded from the
    platform, one level up in the repository."""
    return HERE if os.path.isdir(os.path.join(HERE, "scoring_program")) else ROOT


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", nargs="?", help="a submission folder or zip (default: every sample)")
    parser.add_argument("--ref", help="reference data folder (default: reference_data/ of the repository or "
                        "of --bundle)")
    parser.add_argument("--bundle", help="take the program, reference data and columns from this upload zip")
    parser.add_argument("--workdir", default=os.path.join(HERE, "run"), help="where program/, input/, output/ go")
    parser.add_argument("--docker", nargs="?", const="codalab/codalab-legacy:py39", metavar="IMAGE",
                        help="run the scoring step in the platform's Docker image (default image "
                        "codalab/codalab-legacy:py39), network off, /app paths as on Codabench")
    args = parser.parse_args(argv)
    source = _from_bundle(args.bundle, args.workdir) if args.bundle else _source()
    program = os.path.join(source, "scoring_program")
    reference = args.ref or os.path.join(source, "reference_data")
    competition = os.path.join(source, "competition.yaml")
    columns = leaderboard_columns(competition) if os.path.exists(competition) else None
    samples = os.path.join(HERE, "sample_submission")
    if args.submission:
        submissions = [args.submission]
    else:
        tasks = sorted(os.listdir(reference))
        submissions = [os.path.join(samples, d) for d in sorted(os.listdir(samples)) if d in tasks]
    status = 0
    for submission in submissions:
        print("== %s" % os.path.relpath(os.path.abspath(submission), ROOT))
        sys.stdout.flush()
        status = score_submission(args.workdir, program, reference, submission, columns, args.docker or "") or status
        sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
