"""`make test`'s time, measured: run the suite as `make test` does, record its figures, write them into the docs.

Why: docs/development.md and docs/performance.md once printed "about 90 s" while a fresh clone took 122-158 s:
the figures were written by hand. `make test-cpu` runs this script, which times the whole run (wall, and the CPU
of every process: pytest, its workers, the commands and peers they start), notes the load average before and
after and the CPUs, prints each test file's CPU seconds, and keeps the figures in tests/suite_figures.json;
`make test-cpu-docs` writes them into the two pages (between the `suite-figures` markers), and
tests/test_docs_suite_figures.py fails when a page says other figures than the file.

    python3 tests/suite_figures.py run [PYTEST ARGS]     # (make test-cpu) the suite, timed; writes the JSON
    python3 tests/suite_figures.py docs                  # (make test-cpu-docs) the JSON's figures into the docs
"""
import json
import os
import re
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = os.path.join(ROOT, "tests", "suite_figures.json")
CPU_LOG = os.path.join(ROOT, ".test-cpu.log")
PAGES = [os.path.join(ROOT, "docs", "development.md"), os.path.join(ROOT, "docs", "performance.md")]
BEGIN, END = "<!-- suite-figures: written by make test-cpu-docs -->", "<!-- /suite-figures -->"
# A machine is quiet when its load average before the run was below this (the figure then holds the budget).
QUIET_LOAD = 1.0
BUDGET_S = 120


def run(pytest_args):
    """The suite as `make test` runs it, timed; its figures written to FIGURES; pytest's exit code."""
    if os.path.exists(CPU_LOG):
        os.remove(CPU_LOG)
    load_before = os.getloadavg()[0]
    env = dict(os.environ, RUNSCORE_TEST_CPU_LOG=CPU_LOG)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "auto", "-q"] + pytest_args, cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_after = os.getloadavg()[0]
    output = done.stdout.decode("utf-8", "replace")
    sys.stdout.write(output)
    counts = {kind: int(number) for number, kind in re.findall(r"(\d+) (passed|failed|skipped|errors?)",
                                                                 output.strip().splitlines()[-1])}
    figures = {"wall_s": round(wall), "cpu_s": round(usage.ru_utime + usage.ru_stime),
               "passed": counts.get("passed", 0), "skipped": counts.get("skipped", 0),
               "failed": counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0),
               "cpus": os.cpu_count(), "load_before": round(load_before, 2), "load_after": round(load_after, 2),
               "shared": os.path.isdir(os.environ.get("RUNSCORE_SHARED") or os.path.join(os.path.dirname(ROOT),
                                                                                          "shared")),
               "date": datetime.now(timezone.utc).strftime("%d %b %Y %H:%M UTC")}
    by_file = {}
    if os.path.exists(CPU_LOG):
        for line in open(CPU_LOG, encoding="utf-8"):
            seconds, test = line.rstrip("\n").split("\t", 1)
            by_file[test.split("::")[0]] = by_file.get(test.split("::")[0], 0.0) + float(seconds)
    for name, seconds in sorted(by_file.items(), key=lambda item: -item[1])[:30]:
        print("%7.1f  %s" % (seconds, name))
    print("%7.1f  total of the tests" % sum(by_file.values()))
    print("test-cpu: %s" % sentence(figures))
    with open(FIGURES, "w", encoding="utf-8") as handle:
        json.dump(figures, handle, indent=1, sort_keys=True)
        handle.write("\n")
    print("test-cpu: figures kept in tests/suite_figures.json; `make test-cpu-docs` writes them into the docs")
    return done.returncode


def sentence(figures):
    """The figures as the docs print them."""
    quiet = figures["load_before"] < QUIET_LOAD
    return ("%s tests passed (%d skipped%s) in %d s of wall and %d s of CPU (every process) on %d CPUs, %s "
            "machine (load average %.2f before, %.2f after), %s, %s ../shared" % (
                "{:,}".format(figures["passed"]), figures["skipped"],
                ", %d failed" % figures["failed"] if figures["failed"] else "", figures["wall_s"],
                figures["cpu_s"], figures["cpus"], "a quiet" if quiet else "a loaded", figures["load_before"],
                figures["load_after"], figures["date"], "with" if figures["shared"] else "without"))


def block(figures):
    """The text between the markers of each page."""
    quiet = figures["load_before"] < QUIET_LOAD
    verdict = ("within the two minutes" if figures["wall_s"] <= BUDGET_S else "OVER the two minutes") if quiet else \
        ("the wall time of a loaded machine, which says nothing of the budget: measure again on a quiet one "
         "(`make test-cpu` when the load average is below %.0f, then `make test-cpu-docs`)" % QUIET_LOAD)
    return "%s\n`make test`, as last measured by `make test-cpu`: %s; %s.\n%s" % (BEGIN, sentence(figures), verdict, END)


def load():
    with open(FIGURES, encoding="utf-8") as handle:
        return json.load(handle)


def write_docs():
    text_block = block(load())
    for page in PAGES:
        text = open(page, encoding="utf-8").read()
        if BEGIN not in text:
            raise SystemExit("%s has no %s marker" % (page, BEGIN))
        start, end = text.index(BEGIN), text.index(END) + len(END)
        with open(page, "w", encoding="utf-8") as handle:
            handle.write(text[:start] + text_block + text[end:])
        print("wrote the figures into %s" % os.path.relpath(page, ROOT))


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        sys.exit(run(sys.argv[2:]))
    if sys.argv[1:2] == ["docs"]:
        write_docs()
        sys.exit(0)
    raise SystemExit(__doc__)
