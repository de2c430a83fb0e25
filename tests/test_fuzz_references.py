"""Fuzzing every reference loader: a damaged reference file is the organiser's problem, so it must end in a
ConfigError (exit 2, with the file named), never another exception, a hang, or a participant's RunError.

Every file of every task's sample reference folder (task.yaml included) is mutated in a private copy by the same
engine as the run fuzzing (hostile/mutate.py), with derandomised hypothesis seeds.
"""
import os
import random
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hostile.harness import REFERENCES, Hang, time_limit
from hostile.mutate import mutate
from runscore.errors import ConfigError
from runscore.pipeline import load_reference
from runscore.tasks import all_tasks, get_task

INPUTS_PER_FILE = int(os.environ.get("RUNSCORE_FUZZ_REFERENCE_INPUTS", "150"))
PER_SEED = 10
# Defects found by this fuzzing in modules owned by other engineers, left to them (reported to the lead).
KNOWN = {
    "r2c2-ac/pr_runs/ALPHA-PO-1.txt": "a reference-pool PR run that is not UTF-8 raises RunError (exit 1, the "
                                      "participant's code) from R2C2AC.load_reference instead of ConfigError",
    "r2c2-ac/pr_runs/BETA-PG-2.txt": "same as ALPHA-PO-1.txt: parse_pr_run's RunError escapes load_reference",
    "qqa23-mrc/qrcd_synthetic_sample_preprocessed.jsonl": "a gold line with a 150,000-digit number: json.loads "
                                                          "raises ValueError (int digit limit), not caught",
    "temporalia-tir/qrels_sample.txt": "a qrels line with a 180,000-digit number: int() raises ValueError "
                                       "(int digit limit), not caught",
}


def _param(file_id):
    if file_id in KNOWN:
        return pytest.param(file_id, marks=pytest.mark.xfail(reason=KNOWN[file_id], strict=False))
    return file_id


def _reference_files():
    out = []
    for task in all_tasks():
        folder = os.path.join(REFERENCES, task.id)
        if not os.path.isdir(folder):
            continue
        for base, _, files in os.walk(folder):
            for name in sorted(files):
                out.append("%s/%s" % (task.id, os.path.relpath(os.path.join(base, name), folder)))
    return sorted(out)


@pytest.fixture(scope="module")
def workdir():
    root = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    folder = tempfile.mkdtemp(prefix="runscore-reffuzz-", dir=root)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def verdict(task, folder: str):
    try:
        with time_limit(10):
            load_reference(task, folder)
    except ConfigError as exc:
        message = str(exc)
        if "\n" in message or "Traceback" in message:
            return "unreadable ConfigError: %r" % message[:300]
        return None
    except Hang as exc:
        return "hang: %s" % exc
    except Exception as exc:
        return "%s: %s" % (type(exc).__name__, str(exc)[:300])
    return None


@pytest.mark.parametrize("file_id", [_param(f) for f in _reference_files()])
def test_damaged_reference_file_is_a_config_error(workdir, file_id):
    task_id, rel = file_id.split("/", 1)
    task = get_task(task_id)
    folder = os.path.join(workdir, task_id)
    if not os.path.isdir(folder):
        shutil.copytree(os.path.join(REFERENCES, task_id), folder)
    path = os.path.join(folder, rel)
    with open(path, "rb") as handle:
        clean = handle.read()
    assert verdict(task, folder) is None   # the clean sample loads
    failures, count = [], [0]

    @settings(max_examples=max(1, INPUTS_PER_FILE // PER_SEED), derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2 ** 32 - 1), rounds=st.integers(1, 3))
    def run(seed, rounds):
        rng = random.Random(seed)
        for _ in range(PER_SEED):
            kind, data = mutate(clean, rng, rounds)
            with open(path, "wb") as handle:
                handle.write(data)
            count[0] += 1
            problem = verdict(task, folder)
            if problem:
                failures.append((kind, data[:200], problem))

    try:
        run()
    finally:
        with open(path, "wb") as handle:
            handle.write(clean)
    assert count[0] >= INPUTS_PER_FILE
    assert not failures, "%d damaged copies of %s escaped as something else than a ConfigError:\n%s" % (
        len(failures), file_id, "\n".join("  [%s] %s\n      input: %r" % (kind, problem, data)
                                          for kind, data, problem in failures[:8]))


def test_a_missing_reference_file_is_a_config_error(tmp_path):
    for task in all_tasks():
        source = os.path.join(REFERENCES, task.id)
        if not os.path.isdir(source):
            continue
        folder = tmp_path / task.id
        shutil.copytree(source, str(folder))
        victims = [f for f in sorted(os.listdir(str(folder))) if f != "task.yaml" and (folder / f).is_file()]
        os.unlink(str(folder / victims[0]))
        with pytest.raises(ConfigError):
            load_reference(task, str(folder))
