"""Shared test fixtures: paths to the repository and to ../shared (tests needing it skip when it is absent)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))


def shared_path(*parts: str) -> str:
    """Path under ../shared, or skip the test with the reason when it is not there."""
    path = os.path.join(SHARED, *parts)
    if not os.path.exists(path):
        pytest.skip("../shared/%s is absent (peer test data; see shared/README.md)" % "/".join(parts))
    return path


def run_cli(*args, cwd=None, stdin=None):
    """Run `python -m runscore ARGS`; returns (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
    proc = subprocess.run([sys.executable, "-m", "runscore"] + [str(a) for a in args], cwd=cwd or ROOT, env=env,
                          input=stdin, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def run_score_py(input_dir, output_dir):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scoring_program", "score.py"), str(input_dir),
                           str(output_dir)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def codabench_input(tmp_path, task_id, files):
    """tmp_path/input as Codabench lays it out: ref = the shipped reference_data/<task_id>, res = `files`
    (name -> text)."""
    input_dir = tmp_path / "input"
    (input_dir / "res").mkdir(parents=True)
    os.symlink(os.path.join(ROOT, "reference_data", task_id), str(input_dir / "ref"))
    for name, text in files.items():
        (input_dir / "res" / name).write_text(text, encoding="utf-8")
    return input_dir
