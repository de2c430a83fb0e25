"""What every hostile input must get, checked the same way for every task of the registry.

Why generic: tasks land one module at a time; a task that ships a sample submission and sample reference data is
fuzzed with no line of test code written for it. The rule checked here is the project's promise for a run file:
either it scores (every value finite and storable by the platform) or it gets diagnostics that name the file and
a line and mark it invalid (exit 1) - never another exception, a hang, a ConfigError (the organiser's fault
code) or an unreadable message.
"""
import math
import os
import pickle
import random
import shutil
import signal
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from hypothesis import HealthCheck, given, settings, strategies as st

from hostile.mutate import mutate

from runscore.discover import Candidate, assign_tasks, list_candidates
from runscore.errors import ERROR, ConfigError
from runscore.pipeline import LoadedReference, check_file, load_reference, score_run
from runscore.report import MAX_ABS_SCORE
from runscore.tasks import all_tasks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFERENCES = os.path.join(ROOT, "reference_data")
# A diagnostic longer than this is not a readable message (it echoes a huge field).
MAX_MESSAGE_CHARS = 2100
SECONDS_PER_INPUT = 10


def trec_run_from_sample(max_lines: int) -> bytes:
    """The first lines of the ntcir1-adhoc sample rewritten as a TREC run (`qid Q0 docno rank sim run_id`)."""
    with open(os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), "rb") as handle:
        lines = handle.read().split(b"\n")
    return b"\n".join(b" ".join([f[0], b"Q0", f[2], f[3], f[4], f[5]]) for f in
                      (line.split(b"\t") for line in lines[:max_lines] if line.strip())) + b"\n"


def for_each_distinct_mutation(bases: Sequence[bytes], wanted: int, visit: Callable[[str, bytes], None],
                               first_base_one_in: int = 1, per_seed: int = 10) -> Set[bytes]:
    """Call visit(kind, data) on `wanted` distinct hostile variants of `bases`; returns the variants seen.

    Hypothesis draws the seeds (derandomised, so CI is reproducible); each seed yields up to `per_seed` variants
    of one base: the first base one time in `first_base_one_in`, the second otherwise (a small prefix is
    cheaper to fuzz).
    """
    seen: Set[bytes] = set()

    @settings(max_examples=wanted // per_seed * 3 // 2 + 20, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2 ** 32 - 1), rounds=st.integers(1, 3), pick=st.integers(0, first_base_one_in - 1))
    def check(seed, rounds, pick):
        rng = random.Random(seed)
        base = bases[0] if pick == 0 else bases[1]
        for _ in range(per_seed):
            if len(seen) >= wanted:
                return
            kind, data = mutate(base, rng, rounds)
            if data in seen:
                continue
            seen.add(data)
            visit(kind, data)

    check()
    return seen


class Hang(Exception):
    """An input took more than SECONDS_PER_INPUT of CPU time."""


@contextmanager
def time_limit(seconds: float):
    """Raise Hang after `seconds` of this process's CPU time (ITIMER_PROF), not of wall time: a hang spins the
    CPU, while wall time also counts the other jobs of a loaded machine (a suite run beside seven others took
    24 minutes and failed wall-clock guards that the same code passes in seconds alone)."""
    def expire(signum, frame):
        raise Hang("no answer after %s CPU seconds" % seconds)

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def tasks_with_samples() -> List[str]:
    """Ids of the tasks that ship both a sample submission and sample reference data."""
    return [t.id for t in all_tasks()
            if os.path.isdir(os.path.join(SAMPLES, t.id)) and os.path.isdir(os.path.join(REFERENCES, t.id))]


_REFERENCES: Dict[str, LoadedReference] = {}


def references() -> Dict[str, LoadedReference]:
    """Every task's sample reference, loaded once per test session."""
    if not _REFERENCES:
        for task in all_tasks():
            folder = os.path.join(REFERENCES, task.id)
            if os.path.isdir(folder):
                _REFERENCES[task.id] = load_reference(task, folder)
    return _REFERENCES


@dataclass
class Subject:
    """One sample run file to mutate, in a private copy of its sample folder (its siblings may be read too)."""

    task_id: str
    name: str                  # file name inside the sample folder
    folder: str                # the private copy
    clean: bytes
    pairs: List[Tuple[Candidate, object]] = field(default_factory=list)

    @property
    def path(self) -> str:
        return os.path.join(self.folder, self.name)

    @property
    def label(self) -> str:
        return "%s/%s" % (self.task_id, self.name)


def subjects_of(task_id: str, workdir: str) -> List[Subject]:
    """Every file of a task's sample folder, each paired (as score.py pairs them) with the task that checks it."""
    source = os.path.join(SAMPLES, task_id)
    folder = os.path.join(workdir, task_id)
    if not os.path.isdir(folder):
        shutil.copytree(source, folder)
    refs = references()
    tasks = [refs[t].task for t in refs]
    pairs, _ = assign_tasks(list_candidates(folder, workdir), tasks)
    out = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            out.append(Subject(task_id, name, folder, handle.read(), pairs))
    return out


def write(subject: Subject, data: bytes) -> None:
    with open(subject.path, "wb") as handle:
        handle.write(data)


def physical_lines(data: bytes) -> int:
    return max(data.count(b"\n"), data.count(b"\r")) + 1


def verdict(subject: Subject, data: bytes, seconds: float = SECONDS_PER_INPUT) -> Optional[str]:
    """None when `data` in place of the subject's file gets what it must; else what went wrong."""
    write(subject, data)
    refs = references()
    try:
        with time_limit(seconds):
            assign_tasks([Candidate(subject.name, subject.path)], [refs[t].task for t in refs])
            for candidate, task in subject.pairs:
                reference = refs[task.id]
                checked = check_file(task, candidate.path, candidate.display, reference, reference.options)
                problem = _bad_diagnostics(checked.diags, data if candidate.path == subject.path else None)
                if problem:
                    return "%s: %s" % (candidate.display, problem)
                if checked.diags.has_errors:
                    continue
                if not checked.runs:
                    return "%s: no error but no run either" % candidate.display
                for run in checked.runs:
                    key = _fingerprint(task.id, run)
                    if key is None or key not in _SCORED:
                        problem = _bad_scores(score_run(reference, run))
                        if key is not None:
                            _SCORED[key] = problem
                    else:
                        problem = _SCORED[key]
                    if problem:
                        return "%s run %s: %s" % (candidate.display, run.name, problem)
    except Hang as exc:
        return "hang: %s" % exc
    except ConfigError as exc:
        return "ConfigError (exit 2, the organiser's code) for a bad run: %s" % str(exc)[:300]
    except Exception as exc:   # the point of the harness: any other exception is a crash
        return "crash: %s: %s" % (type(exc).__name__, str(exc)[:300])
    return None


# Scores are a pure function of the parsed run and the reference: a variant that parses to a run already scored
# (the same run with a BOM, CRLF, a blank line ...) is not scored again.
_SCORED: Dict[bytes, Optional[str]] = {}


def _fingerprint(task_id: str, run) -> Optional[bytes]:
    try:
        return pickle.dumps((task_id, run.name, run.data), protocol=4)
    except Exception:   # not picklable: always score
        return None


def _bad_diagnostics(diags, data: Optional[bytes]) -> Optional[str]:
    limit = physical_lines(data) + 1 if data is not None else None
    for item in diags.items:
        if not item.path or not isinstance(item.line, int) or item.line < 0:
            return "diagnostic without a file or with a bad line: %r" % (item,)
        if limit is not None and item.line > limit:
            return "diagnostic names line %d of a %d-line file" % (item.line, limit - 1)
        if not item.message or "\n" in item.message or "\r" in item.message:
            return "empty or multi-line message: %r" % item.message[:200]
        if len(item.message) > MAX_MESSAGE_CHARS:
            return "message of %d characters: %r..." % (len(item.message), item.message[:120])
    if diags.has_errors and not any(i.severity == ERROR for i in diags.items):
        return "errors counted but none kept"
    return None


def _bad_scores(scores) -> Optional[str]:
    for name, value in scores.measures.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or abs(value) >= MAX_ABS_SCORE:
            return "measure %s = %r is not a finite storable number" % (name, value)
    for topic, values in scores.per_topic.items():
        for name, value in values.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isfinite(value):
                return "per-topic %s of %s = %r" % (name, topic, value)
    return None


def clean_scores(subject: Subject) -> Dict[str, Dict[str, float]]:
    """{file display: measures of its first run} for the subject's folder as it is on disk now."""
    refs = references()
    out = {}
    for candidate, task in subject.pairs:
        reference = refs[task.id]
        checked = check_file(task, candidate.path, candidate.display, reference, reference.options)
        if checked.diags.has_errors:
            out[candidate.display] = {"errors": [str(d) for d in checked.diags.items if d.severity == ERROR]}
        else:
            out[candidate.display] = [score_run(reference, run).measures for run in checked.runs]
    return out


def small_seed(subject: Subject, max_lines: int = 6) -> bytes:
    """The longest prefix of at most max_lines lines that is still a valid run (cheap to fuzz); else the file."""
    lines = subject.clean.split(b"\n")
    for count in range(min(max_lines, len(lines)), 0, -1):
        data = b"\n".join(lines[:count]) + b"\n"
        write(subject, data)
        if verdict(subject, data) is None and _valid(subject):
            write(subject, subject.clean)
            return data
    write(subject, subject.clean)
    return subject.clean


def _valid(subject: Subject) -> bool:
    refs = references()
    for candidate, task in subject.pairs:
        if candidate.path == subject.path:
            reference = refs[task.id]
            return not check_file(task, candidate.path, candidate.display, reference,
                                  reference.options).diags.has_errors
    return False
