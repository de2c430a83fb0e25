"""Local dry run, laid out exactly as Codabench does: input/ref, input/res (+ the worker's metadata), output/.

Usage: python3 starting_kit/dry_run.py [SUBMISSION_DIR_OR_ZIP] [--ref REFERENCE_DIR] [--workdir DIR]
Without arguments it scores every sample submission of starting_kit/sample_submission/ against the shipped
sample reference data (reference_data/) and prints the leaderboard row of each.
"""
import argparse
import os
import shutil
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCORE_PY = os.path.join(ROOT, "scoring_program", "score.py")


def lay_out(workdir: str, reference: str, submission: str) -> None:
    """input/ref = the reference data, input/res = the unzipped submission plus Codabench's metadata file."""
    if os.path.exists(workdir):
        shutil.rmtree(workdir)
    ref, res, out = (os.path.join(workdir, *p) for p in (("input", "ref"), ("input", "res"), ("output",)))
    shutil.copytree(reference, ref)
    os.makedirs(out)
    if os.path.isdir(submission):
        shutil.copytree(submission, res)
    else:
        os.makedirs(res)
        with zipfile.ZipFile(submission) as archive:
            archive.extractall(res)
    with open(os.path.join(res, "metadata"), "w") as handle:
        handle.write("exitCode: 0\nelapsedTime: 1.0\n")   # what the Codabench worker writes


def score(workdir: str) -> int:
    command = [sys.executable, SCORE_PY, os.path.join(workdir, "input"), os.path.join(workdir, "output")]
    return subprocess.call(command)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", nargs="?", help="a submission folder or zip (default: every sample)")
    parser.add_argument("--ref", default=os.path.join(ROOT, "reference_data"), help="reference data folder")
    parser.add_argument("--workdir", default=os.path.join(HERE, "run"), help="where input/ and output/ go")
    args = parser.parse_args()
    samples = os.path.join(HERE, "sample_submission")
    submissions = [args.submission] if args.submission else \
        [os.path.join(samples, d) for d in sorted(os.listdir(samples))]
    status = 0
    for submission in submissions:
        print("== %s" % os.path.relpath(submission, ROOT))
        lay_out(args.workdir, args.ref, submission)
        rc = score(args.workdir)
        scores = os.path.join(args.workdir, "output", "scores.txt")
        if rc == 0 and os.path.exists(scores):
            with open(scores) as handle:
                print("leaderboard row: " + ", ".join(line.strip() for line in handle))
        else:
            print("exit status %d" % rc)
            status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main())
