"""Every numeric field of every format, on every line position, replaced by Unicode digits and huge digit strings.

Why: the mutation fuzzers (test_fuzz_runs.py) change random bytes of the first lines of a small seed, so they
missed a Topic-ID `³` on line 2 (`str.isdigit()` true, `int()` fails) and digit strings past Python's 4,300-digit
int limit. Here each run of ASCII digits of a line (a numeric field or the digits of an id) is replaced
by each hostile VARIANT, on line positions spread over the whole file (every line under `make fuzz`), and the
result must score or get FILE:LINE diagnostics (hostile/harness.py `verdict`: never a traceback). Reference files
get the same treatment and must load or raise ConfigError (exit 2). RUNSCORE_FUZZ_NUMERIC_LINES sets how many line
positions per file (default 3 in the suite, with four of the seven variants; `make fuzz-ci`: 30, `make fuzz`: 0 =
every line, all variants).
"""
import os
import random
import re
import shutil
import tempfile

import pytest

from hostile.harness import REFERENCES, subjects_of, tasks_with_samples, verdict
from runscore.errors import ConfigError
from runscore.pipeline import load_reference
from runscore.tasks import get_task

LINES_PER_FILE = int(os.environ.get("RUNSCORE_FUZZ_NUMERIC_LINES", "3"))
# in the suite (no RUNSCORE_FUZZ_NUMERIC_LINES): the four variants that broke the code; make fuzz / fuzz-ci: all
ALL_VARIANTS = "RUNSCORE_FUZZ_NUMERIC_LINES" in os.environ
DIGIT_RUNS_PER_LINE = 3
VARIANTS = ["\u00b3",                 # superscript three: isdigit() true, int() fails
            "\u0663",                 # Arabic-Indic three: \d matches, int() reads 3
            "\uff13\uff10",           # fullwidth 30
            "\U0001d7d1",             # mathematical bold three
            "9" * 4301,               # past Python's int-string limit
            "1" + "0" * 30,           # past every 64-bit field
            "-" + "9" * 5000]
if not ALL_VARIANTS:
    VARIANTS = [VARIANTS[0], VARIANTS[1], VARIANTS[4], VARIANTS[6]]
DIGITS = re.compile(rb"[0-9]+")


def _positions(n_lines: int, rng: random.Random):
    if LINES_PER_FILE <= 0 or n_lines <= LINES_PER_FILE:
        return list(range(n_lines))
    fixed = {0, 1, n_lines // 2, n_lines - 1}
    rest = [i for i in range(n_lines) if i not in fixed]
    return sorted(fixed | set(rng.sample(rest, max(0, min(len(rest), LINES_PER_FILE - len(fixed))))))


def variants_of(data: bytes, seed: int):
    """(where, variant bytes) for the chosen line positions, digit runs and VARIANTS."""
    rng = random.Random(seed)
    lines = data.split(b"\n")
    for index in _positions(len(lines), rng):
        runs = list(DIGITS.finditer(lines[index]))
        if len(runs) > DIGIT_RUNS_PER_LINE:
            runs = [runs[0], runs[-1]] + rng.sample(runs[1:-1], DIGIT_RUNS_PER_LINE - 2)
        for match in runs:
            for variant in VARIANTS:
                changed = lines[index][:match.start()] + variant.encode("utf-8") + lines[index][match.end():]
                yield ("line %d, bytes %d-%d -> %r" % (index + 1, match.start(), match.end(), variant[:8]),
                       b"\n".join(lines[:index] + [changed] + lines[index + 1:]))


@pytest.fixture(scope="module")
def workdir():
    folder = tempfile.mkdtemp(prefix="runscore-numeric-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("task_id", tasks_with_samples())
def test_numeric_fields_of_runs(task_id, workdir):
    failures = []
    tried = 0
    for subject in subjects_of(task_id, workdir):
        for where, data in variants_of(subject.clean, hash(subject.label) & 0xFFFF):
            tried += 1
            problem = verdict(subject, data)
            if problem:
                failures.append("%s %s: %s" % (subject.label, where, problem))
        with open(subject.path, "wb") as handle:
            handle.write(subject.clean)
    assert tried, "no numeric field found in the samples of %s" % task_id
    assert not failures, "%d of %d variants failed; first: %s" % (len(failures), tried, "\n".join(failures[:5]))


def _reference_files(task_id):
    folder = os.path.join(REFERENCES, task_id)
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if name != "task.yaml":
                yield os.path.relpath(os.path.join(root, name), folder)


@pytest.mark.parametrize("task_id", tasks_with_samples())
def test_numeric_fields_of_reference_files(task_id, tmp_path):
    task = get_task(task_id)
    failures = []
    tried = 0
    for relative in _reference_files(task_id):
        folder = tmp_path / ("ref-%d" % tried)
        shutil.copytree(os.path.join(REFERENCES, task_id), str(folder))
        target = folder / relative
        clean = target.read_bytes()
        for where, data in variants_of(clean, len(relative)):
            tried += 1
            target.write_bytes(data)
            try:
                load_reference(task, str(folder))
            except ConfigError:
                pass
            except Exception as exc:   # a traceback for the organiser's bad file
                failures.append("%s %s: %s: %s" % (relative, where, type(exc).__name__, str(exc)[:200]))
        target.write_bytes(clean)
    assert not failures, "%d of %d variants failed; first: %s" % (len(failures), tried, "\n".join(failures[:5]))
