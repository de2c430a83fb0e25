"""Shared test fixtures: paths to the repository and to ../shared (tests needing it skip when it is absent)."""
import os
import resource
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# RUNSCORE_SHARED points elsewhere (a git worktree is not beside shared/).
SHARED = os.environ.get("RUNSCORE_SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))


# What each part of ../shared holds and where it comes from, for the skip message of a fresh clone (which has no
# ../shared at all, so the message must not send the reader there).
SHARED_SOURCES = {
    "data/trec_eval": "trec_eval's own test inputs and expected outputs (the test/ folder of "
                      "https://github.com/usnistgov/trec_eval, 9.0.8 and 10.0)",
    "data/ntcireval": "NTCIREVAL-format fixtures (the tests of https://github.com/mpkato/pyNTCIREVAL)",
    "data/qqa23": "the Qur'an QA 2023 Task B data, dev runs and expected scores "
                  "(https://gitlab.com/bigirqu/quran-qa-2023)",
    "peers/trec_eval": "the NIST trec_eval sources (https://github.com/usnistgov/trec_eval)",
    "specs": "the project's task specifications",
}


def shared_missing_reason(parts) -> str:
    """Why a test needing ../shared/PARTS skips: what is missing and how to get it."""
    relative = "/".join(parts)
    what = next((text for key, text in SHARED_SOURCES.items() if relative == key or relative.startswith(key + "/")),
                "peer test data")
    return ("needs %s at ../shared/%s beside the repository, which is absent; get them and put them there to run "
            "this test" % (what, relative))


def shared_path(*parts: str) -> str:
    """Path under ../shared, or skip the test saying what is missing and how to get it."""
    path = os.path.join(SHARED, *parts)
    if not os.path.exists(path):
        pytest.skip(shared_missing_reason(parts))
    return path


def run_cli(*args, cwd=None, stdin=None):
    """Run `python -m runscore ARGS`; returns (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
    proc = subprocess.run([sys.executable, "-m", "runscore"] + [str(a) for a in args], cwd=cwd or ROOT, env=env,
                          input=stdin, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def children_cpu_seconds() -> float:
    """User + system CPU time of this process's finished children: a guard against quadratic work that a loaded
    machine cannot fail, unlike wall time (speed itself is measured by `make bench`, never by a test)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


# Every unexpected exception of the scoring code (exit 2 "internal error, please report", errors.py) is logged to
# this file, also from subprocesses (the environment is inherited); a test that produced one fails, whatever it
# asserted about exit codes (issue 16: the test suite fails on any internal error).
_INTERNAL_LOG = os.path.join(os.environ.get("TMPDIR", "/tmp"), "runscore-internal-%d.log" % os.getpid())
os.environ["RUNSCORE_INTERNAL_ERROR_LOG"] = _INTERNAL_LOG


def internal_errors_logged() -> str:
    try:
        with open(_INTERNAL_LOG, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


def clear_internal_errors() -> None:
    if os.path.exists(_INTERNAL_LOG):
        os.unlink(_INTERNAL_LOG)


@pytest.fixture(autouse=True)
def no_internal_error():
    clear_internal_errors()
    yield
    logged = internal_errors_logged()
    clear_internal_errors()
    if logged:
        pytest.fail("internal error(s) of the scoring code (exit 2 'internal error, please report'):\n%s"
                    % logged[-4000:], pytrace=False)


# RUNSCORE_TEST_CPU_LOG=FILE: each test's CPU seconds (its process and the children it waited for) appended to
# FILE as "seconds<TAB>test id", to keep `make test` within its budget: CPU time is what a loaded machine cannot
# inflate, unlike --durations' wall time (`sort -rn FILE | head`; by file: `make test-cpu`).
_CPU_LOG = os.environ.get("RUNSCORE_TEST_CPU_LOG")


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


if _CPU_LOG:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        before = _cpu_seconds()
        yield
        with open(_CPU_LOG, "a", encoding="utf-8") as handle:
            handle.write("%.3f\t%s\n" % (_cpu_seconds() - before, item.nodeid))
