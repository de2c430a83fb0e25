"""Shared test fixtures: paths to the repository and to ../shared (tests needing it skip when it is absent)."""
import io
import os
import resource
import runpy
import shutil
import signal
import subprocess
import sys
import traceback
import warnings

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


# ------------------------------------------------------------------------------ the command line, in process ---
# `runscore ...` and `score.py` are run in this process (about 260 calls a run: a new Python for each cost 0.15-0.3 s
# of CPU to start, the biggest share of the suite's time), set up as a new process would see them: the arguments, the folder, the
# environment (restored after the call, with what the command changed in it), stdin, stdout and stderr as UTF-8
# streams read back as subprocess's text mode reads them, Python's default warning filters with warnings printed
# on that stderr, exit codes from the return value or SystemExit, and an exception that escapes the entry as a
# traceback and exit 1 (what Python does). What only a process shows (start-up, imports, signals, score.py's own
# `__main__` checks, the exit status the platform's worker sees) is tested with run_cli_process and
# run_score_py_process, by the tests that say why.
RUNSCORE_MAIN = os.path.join(ROOT, "scoring_program", "runscore", "__main__.py")
SCORE_PY = os.path.join(ROOT, "scoring_program", "score.py")
# The warnings a fresh interpreter's filters let through (Python 3.9's defaults, in their order).
_DEFAULT_FILTERS = (("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                    ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                    ("ignore", ResourceWarning, ""))
# Python warnings the in-process commands printed (text, test id): a warning on a user's stderr is a defect of
# runscore (it words its own warnings as `FILE:LINE: warning: ...`), so the test that produced one fails.
_CLI_WARNINGS = []


def _stream(errors: str, data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors)


def _read_back(stream: io.TextIOWrapper) -> str:
    """What subprocess.run(text=True) gives for the bytes written: UTF-8, universal newlines."""
    stream.flush()
    return io.TextIOWrapper(io.BytesIO(stream.buffer.getvalue()), encoding="utf-8", newline=None).read()


def _in_process(entry, argv, cwd, stdin):
    """Run entry() as the main program of a process with sys.argv = argv; (exit code, stdout, stderr)."""
    saved = (sys.argv, sys.stdin, sys.stdout, sys.stderr, list(sys.path), os.getcwd(), dict(os.environ),
             signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT))
    out = _stream(getattr(sys.__stdout__, "errors", None) or "strict")
    err = _stream("backslashreplace")
    sys.argv, sys.stdout, sys.stderr = [str(a) for a in argv], out, err
    sys.stdin = _stream("strict", (stdin or "").encode("utf-8"))
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]

    def show(message, category, filename, lineno, file=None, line=None):
        text = warnings.formatwarning(message, category, filename, lineno, line)
        _CLI_WARNINGS.append((text, test))
        sys.stderr.write(text)

    try:
        os.chdir(str(cwd or ROOT))
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(_DEFAULT_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)
            warnings.showwarning = show
            try:
                code = entry()
            except SystemExit as exc:
                code = exc.code
                if code is not None and not isinstance(code, int):
                    print(code, file=sys.stderr)
                    code = 1
            except BaseException:           # what Python prints for an exception that ends the program
                traceback.print_exc(file=sys.stderr)
                code = 1
        return (0 if code is None else code), _read_back(out), _read_back(err)
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr, sys.path[:] = saved[:5]
        os.chdir(saved[5])
        os.environ.clear()
        os.environ.update(saved[6])
        signal.signal(signal.SIGTERM, saved[7])
        signal.signal(signal.SIGINT, saved[8])


def run_cli(*args, cwd=None, stdin=None):
    """`runscore ARGS` (runscore.cli.main in this process, as above); returns (exit code, stdout, stderr)."""
    from runscore.cli import main

    argv = [str(a) for a in args]
    return _in_process(lambda: main(argv), [RUNSCORE_MAIN] + argv, cwd, stdin)


def run_score_py(input_dir, output_dir):
    """`python3 score.py INPUT OUTPUT` as Codabench runs it: the file's own `__main__` code, in this process."""
    argv = [SCORE_PY, str(input_dir), str(output_dir)]
    return _in_process(lambda: runpy.run_path(SCORE_PY, run_name="__main__"), argv, None, None)


def run_cli_process(*args, cwd=None, stdin=None, env=None):
    """`python -m runscore ARGS` in a new process: for what only a process shows (start-up, imports, signals,
    the exit status as a shell sees it). (exit code, stdout, stderr)"""
    env = dict(os.environ if env is None else env, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
    proc = subprocess.run([sys.executable, "-m", "runscore"] + [str(a) for a in args], cwd=cwd or ROOT, env=env,
                          input=stdin, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def run_score_py_process(input_dir, output_dir):
    """`python3 score.py INPUT OUTPUT` in a new process, as the platform's worker runs it."""
    proc = subprocess.run([sys.executable, SCORE_PY, str(input_dir), str(output_dir)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def cpu_seconds() -> float:
    """User + system CPU time of this process and of its finished children: a guard against quadratic work that a
    loaded machine cannot fail, unlike wall time (speed itself is measured by `make bench`, never by a test)."""
    return _cpu_seconds()


# The guards' old name: the commands they time now run in this process, so their own CPU counts too.
children_cpu_seconds = cpu_seconds


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
# asserted about exit codes (a crash that a test's exit code happened to match once went unseen).
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
    del _CLI_WARNINGS[:]
    yield
    logged = internal_errors_logged()
    clear_internal_errors()
    if logged:
        pytest.fail("internal error(s) of the scoring code (exit 2 'internal error, please report'):\n%s"
                    % logged[-4000:], pytrace=False)
    if _CLI_WARNINGS:
        shown = "".join(text for text, _ in _CLI_WARNINGS)
        del _CLI_WARNINGS[:]
        pytest.fail("a Python warning reached the user's stderr (runscore words its own warnings as FILE:LINE: "
                    "warning: ...):\n%s" % shown[-4000:], pytrace=False)


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


# ------------------------------------------------------------------------------ every task's competition ---
# `runscore bundle --per-task` (what `make bundle` and `make demo` build) took 2-4 s of CPU, and two test files
# (test_competitions.py, test_bundle_newcomer.py) built it in each worker that ran one of their tests. Built once per
# run, shared by the xdist workers (a lock: the first builds, the others wait and read), and read-only for the tests.

def _run_folder(tmp_path_factory):
    """A folder every worker of this run shares (xdist's test run id names it), or this process's own."""
    base = tmp_path_factory.getbasetemp()
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return base
    folder = base.parent / ("shared-%s" % run_id)
    folder.mkdir(exist_ok=True)
    return folder


class Competitions:
    """dist/<task-id>.zip for every task as `runscore bundle --per-task DIR` wrote them (linted), and what it
    printed."""

    def __init__(self, folder):
        self.folder = folder
        self.stdout = (folder / "stdout.txt").read_text(encoding="utf-8")
        self.zips = {name[:-4]: folder / name for name in sorted(os.listdir(str(folder))) if name.endswith(".zip")}


@pytest.fixture(scope="session")
def competitions(tmp_path_factory):
    import fcntl

    shared = _run_folder(tmp_path_factory)
    folder = shared / "dist"
    with open(str(shared / "dist.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "stdout.txt").exists():
            if folder.exists():
                shutil.rmtree(str(folder))          # a build that failed half-way in another worker
            code, stdout, stderr = run_cli("bundle", "--per-task", folder)
            assert code == 0, stdout + stderr
            (folder / "stdout.txt").write_text(stdout, encoding="utf-8")
    return Competitions(folder)


# ------------------------------------------------------------------------------ headless Chromium ---

@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium a worker for the pages the tests draw (headless_chromium.py: why, and what it reads);
    skips, saying how to get it, where the binary is absent."""
    import headless_chromium

    path = headless_chromium.binary()
    if path is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    browser = headless_chromium.Chromium(path)
    yield browser
    browser.close()


# The assessment page's tests (test_campaign_assess_page.py, test_campaign_simulated.py) press keys and save
# sheets through selenium: one such browser a worker too (each module started its own), downloads allowed into a
# folder of its own; the tests' `browser` fixture empties that folder and clears the pages' storage before each test.
SELENIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run")


@pytest.fixture(scope="module")
def selenium_chromium(tmp_path_factory):
    """Headless Chromium under chromedriver, one a test module; skips without Chromium, chromedriver or selenium
    (test-only). Not one a session: in the whole suite, a page's reload once found none of the labels it had kept
    (tests/test_campaign_assess_page.py), which a browser a module never showed."""
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium_path = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (os.path.exists(chromium_path) and os.path.exists(driver_path)):
        pytest.skip("Chromium or chromedriver is not installed")
    tmp_path = tmp_path_factory.mktemp("chromium")
    downloads = str(tmp_path / "downloads")
    os.makedirs(downloads)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium_path
    for flag in SELENIUM_FLAGS + ("--user-data-dir=%s" % (tmp_path / "profile"), "--window-size=1000,900"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                              "download.prompt_for_download": False})
    try:
        driver = webdriver.Chrome(service=webdriver.ChromeService(driver_path), options=options)
    except Exception as exc:          # a driver that does not match the browser: not this test's subject
        pytest.skip("cannot start headless Chromium: %s" % str(exc).splitlines()[0])
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    driver.downloads = downloads
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><title>blank</title>", encoding="utf-8")
    driver.blank_page = blank.as_uri()          # a file: page, to clear the storage file: pages share
    yield driver
    driver.quit()


@pytest.fixture
def task_registry_restored():
    """A form's task is registered in this process by --form; the tests after it see the seven only."""
    from runscore import tasks

    tasks.all_tasks()
    kept = dict(tasks._TASKS)
    yield
    tasks._TASKS.clear()
    tasks._TASKS.update(kept)
