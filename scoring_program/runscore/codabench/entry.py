"""The Codabench / CodaLab scoring entry: `score.py INPUT OUTPUT`.

INPUT/ref holds one folder per task id (or is itself one task's folder, with a task.yaml naming the task);
INPUT/res holds the submission. Every run file is checked against its task; any error fails the whole
submission (exit 1, every error of every file on stderr, no scores written). Otherwise each task's best run
by its primary measure fills that task's leaderboard columns.
"""
import os
import shutil
import signal
import sys
import tempfile
from typing import Dict, List, Sequence

from .. import __version__
from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, RunError, report_internal_error
from ..pipeline import CheckedFile, RunQueue, leaderboard_run
from ..pipes import readers_may_leave
from ..report import atomic_write, detailed_html, summary_table, write_scores
from ..submission import examine
from ..tasks.base import FULL, Task, submission_scope
from . import disclosure, worker_data
from .receipt import receipt_line, receipt_table, receipts_of, team_of_run
from .references import phase_references

DETAILED = "detailed_results.html"
OUTPUT_FILES = ("scores.json", "scores.txt", DETAILED)
# The comparison section tests every pair of the runs it shows: only the best runs by the primary measure are
# compared, so its cost and size stay bounded whatever the number of runs (docs/limits.md).
MAX_COMPARED_RUNS = 10


def refuse_programs(res_dir: str) -> None:
    """Every phase takes result files only. Codabench runs a submission holding a `metadata` file as a program, in
    a container that mounts the worker's data folder (/app/data) in every phase of the queue, the dry run's
    included; what such a program wrote is this step's input, and checking it would print it back (a dry run's
    page quotes unknown labels). The worker's own input/res/metadata says whether a program ran (exitCode and
    elapsedTime are null for result files, compute_worker.py push_output); a res folder without one is a local
    run. The first lock is `runscore admit`, which never starts a program where the data lie (docs/codabench.md)."""
    import yaml

    path = os.path.join(res_dir, "metadata")
    if not os.path.lexists(path):
        return
    try:
        with open(path, encoding="utf-8") as handle:
            status = yaml.safe_load(handle.read(4096))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        status = None
    if not isinstance(status, dict) or status.get("exitCode") is not None or status.get("elapsedTime") is not None:
        raise RunError("this competition takes result files only: the submission held a file named metadata (or "
                       "metadata.yaml), so the platform ran it as a program; upload a zip of run files with no such "
                       "file", "submission")


def check_output_dir(output_dir: str) -> None:
    """The output folder must be a writable folder whose result names are free for files (exit 2 otherwise)."""
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as exc:
        raise ConfigError("cannot create the output folder: %s" % (exc.strerror or exc), output_dir)
    if not os.path.isdir(output_dir):
        raise ConfigError("the output path is not a folder", output_dir)
    for name in OUTPUT_FILES:
        path = os.path.join(output_dir, name)
        if os.path.lexists(path) and (os.path.islink(path) or not os.path.isfile(path)):
            raise ConfigError("%s exists in the output folder and is not a file; the scores cannot be written"
                              % name, output_dir)
    if not os.access(output_dir, os.W_OK):
        raise ConfigError("the output folder is not writable", output_dir)


def run(input_dir: str, output_dir: str) -> int:
    print("runscore %s scoring %s" % (__version__, input_dir))
    check_output_dir(output_dir)
    remove_old_scores(output_dir)
    page = os.path.join(output_dir, DETAILED)
    atomic_write(page, detailed_html("Scoring in progress", [], "started"))
    references, _ = phase_references(os.path.join(input_dir, "ref"), worker_data.data_folder_of(input_dir))
    res_dir = os.path.join(input_dir, "res")
    if not os.path.isdir(res_dir):
        raise RunError("the submission is empty (no input/res folder)")
    refuse_programs(res_dir)
    workdir = tempfile.mkdtemp(prefix="runscore-")
    try:
        with submission_scope():
            return _score_submission(references, res_dir, workdir, output_dir, page)
    finally:
        remove_tree(workdir)


def remove_tree(folder: str) -> None:
    """Remove the unpacked submission even when SIGTERM arrives while it is being removed (a submission scored just
    before the platform's time limit), then let the termination go on: a half-removed folder would be left behind."""
    stopped = None
    while True:
        try:
            shutil.rmtree(folder, ignore_errors=True)
            break
        except Terminated as exc:
            stopped = exc
    if stopped is not None:
        raise stopped


def remove_old_scores(output_dir: str) -> None:
    """A reused output folder may hold an earlier submission's scores: removed before anything is checked, so a
    rejected submission never leaves scores behind."""
    for name in ("scores.json", "scores.txt"):
        path = os.path.join(output_dir, name)
        if os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)


def rewrite_page_after_failure(output_dir: str, title: str, status: str, diagnostics: Sequence[str] = (),
                               text: str = "") -> None:
    """Every exit path ends the detailed page with its reason (a rejection raised before the per-file
    checks left "Scoring in progress"). Written only over the page this run started (a regular file), and never
    fatal: the exit code and stderr already tell the outcome."""
    page = os.path.join(output_dir, DETAILED)
    try:
        if os.path.isfile(page) and not os.path.islink(page):
            section = {"title": "Why", "diagnostics": list(diagnostics)} if diagnostics else {"title": "Why",
                                                                                              "text": text}
            atomic_write(page, detailed_html(title, [section], status))
    except OSError:
        pass


def _score_submission(references, res_dir, workdir, output_dir, page) -> int:
    tasks = [references[t].task for t in references]
    scores_of: Dict[int, object] = {}        # id(ParsedRun) -> its scores, made as soon as its file is checked
    teams_of: Dict[int, object] = {}         # id(ParsedRun) -> (team, inferred), for the receipt (read before freed)

    queues: Dict[str, RunQueue] = {}         # task id -> the runs checked and not yet scored

    def keep(run, scores, reference) -> None:
        """Only what the phase shows of the scores goes on to the report (disclosure.view: in a hidden phase the
        leaderboard columns and nothing else), and the run's records are freed."""
        scores_of[id(run)] = disclosure.view(reference.task, scores, reference.detail)
        run.data = None

    def score_file(task: Task, checked: CheckedFile) -> None:
        if references[task.id].collect:       # a collecting phase checks and receipts, never scores
            return
        for one_run in checked.runs:
            teams_of[id(one_run)] = team_of_run(task, one_run)
        reference = references[task.id]
        queues.setdefault(task.id, RunQueue(reference, lambda run, scores: keep(run, scores, reference))).add(checked)

    found = examine(res_dir, workdir, tasks, references, score_file)
    if not found.failed:
        for queue in queues.values():
            queue.flush()
    for companion in found.companions:
        owners = [t.id for t in tasks if t.claims_companion(os.path.basename(companion.display))]
        print("%s: note: read beside the %s runs that cite it, not scored as a run"
              % (companion.display, " or ".join(owners)))
    messages, checked_by_task, failed = found.messages, found.checked_by_task, found.failed
    if failed and any(r.hidden for r in references.values()):
        messages = found.reasons      # a rejected submission of a hidden phase shows its errors, nothing else
    for message in messages:
        print(message, file=sys.stderr)
    if failed:
        print("submission rejected: %d error(s); nothing was scored" % found.errors, file=sys.stderr)
        atomic_write(page, detailed_html("Submission rejected", [{"title": "Errors", "diagnostics": messages}],
                                         "invalid", tasks[0].id if len(tasks) == 1 else ""))
        return EXIT_INVALID_RUN

    if any(r.collect for r in references.values()):
        from .collect import collect_submission
        return collect_submission(references, checked_by_task, found.candidates, output_dir, page, found.companions)

    leaderboard: Dict[str, float] = {}
    rows_run: List[str] = []
    sections = []
    summary_rows = [("task", "run", "column", "value")]
    paths = {candidate.display: candidate.path for candidate, _ in found.pairs}
    receipts_logged = []
    for task_id, checked in checked_by_task.items():
        reference = references[task_id]
        task = reference.task
        scored = [(r, scores_of[id(r)]) for c in checked for r in c.runs]
        best, best_scores, why = leaderboard_run(task, scored, reference.leaderboard_run)
        for column in task.columns:
            key = task.leaderboard_key(column)
            leaderboard[key] = task.leaderboard_value(best_scores, column)
            summary_rows.append((task_id, best.name, key, task.format_value(column.measure, leaderboard[key])))
        receipts = receipts_of((paths[r.path], r.name, teams_of.get(id(r), ""), r.path, r.lines) for r, _ in scored
                               if r.path in paths)
        if reference.detail != FULL:
            receipts_logged.extend(receipt_line(r) for r in receipts)
        diagnostics = [m for c in checked for m in c.diags.lines()]
        rows_run.append("%s: the leaderboard row shows run %s, %s" % (task_id, best.name, why))
        sections.append(_task_section(task, scored, best, diagnostics, why, reference.detail, receipts,
                                      task.rules_sentence(reference.options)))
    write_scores(output_dir, leaderboard)
    atomic_write(page, detailed_html("Detailed results", sections, "scored"))
    print(summary_table(summary_rows))
    for line in rows_run + [s["title"] + ": " + s["rules"] for s in sections if s.get("rules")] + receipts_logged:
        print(line)
    return EXIT_OK


def _task_section(task, scored, best, diagnostics, why: str = "", detail: str = FULL, receipts=(),
                  rules: str = "") -> Dict:
    """The detailed-results section of one task: the rules its scores were made with, every run's leaderboard
    columns, then a subsection per run (per-topic chart and table, every measure, the task's extra tables, its
    file's warnings), then the comparison of the runs when there are several."""
    columns = list(task.columns)
    # The scores beside the run's name and its file last, so that a phone shows them without scrolling sideways.
    missing = "n/a (see the run's notes)" if detail == FULL else "n/a: not computed for this run%s" % (
        "" if task.leaderboard_placeholder is None else " (the leaderboard shows %g)" % task.leaderboard_placeholder)
    rows = [[run.name] + [task.format_value(c.measure, scores.measures.get(c.measure)) or missing
                          for c in columns] + [run.path] for run, scores in scored]
    highlight = [i for i, (run, _) in enumerate(scored) if run is best]
    best_scores = scored[highlight[0]][1] if highlight else scored[0][1]
    first_run_of_file: Dict[str, object] = {}
    for run, _ in scored:
        first_run_of_file.setdefault(run.path, run)
    shown = set()
    subsections = []
    for run, scores in scored:
        own = [d for d in diagnostics if first_run_of_file.get(run.path) is run and d.startswith(run.path + ":")]
        shown.update(own)
        subsections.append(_run_section(task, run, scores, run is best, own, detail))
    if disclosure.comparison_shown(detail):
        subsections.extend(_comparison(task, scored))
    leaderboard = {"run": best.name, "cells": [(c.title, task.leaderboard_key(c),
                                                task.format_value(c.measure, task.leaderboard_value(best_scores, c)))
                                               for c in columns]}
    text = "%s. %s" % (task.description, disclosure.phase_sentence(detail, task.topic_unit))
    if why:
        text += " The leaderboard row shows run %s, %s." % (best.name, why)
    return {"title": "%s (%s)" % (task.title, task.id), "text": text, "rules": rules, "leaderboard": leaderboard,
            "diagnostics": [d for d in diagnostics if d not in shown],
            "tables": [{"caption": "Leaderboard columns of every run", "header": ["run"] +
                        [c.title for c in columns] + ["file"], "rows": rows, "highlight": highlight}] +
                      ([receipt_table(receipts)] if receipts else []),
            "subsections": subsections}


def _run_section(task, run, scores, is_best, diagnostics, detail: str = FULL) -> Dict:
    charts, tables = [], []
    topics = list(scores.per_topic)
    unit = task.topic_unit         # what a participant calls a topic of this task: item, question
    present = [k for k in task.per_topic_measures if any(k in v for v in scores.per_topic.values())]
    if not present:
        present = sorted({k for v in scores.per_topic.values() for k in v})
    charted = task.primary.measure if any(task.primary.measure in v for v in scores.per_topic.values()) else \
        (present[0] if present else None)
    if charted is not None:
        present = [charted] + [k for k in present if k != charted]     # the charted measure first in the table
        values = [float(scores.per_topic[t].get(charted, 0.0)) for t in topics]
        title = task.primary.title if charted == task.primary.measure else charted
        charts.append({"caption": "%s per %s (%d %ss; dashed line: their mean)" % (title, unit, len(topics), unit),
                       "labels": topics, "values": values, "mean": sum(values) / len(values), "unit": unit})
    if topics:
        tables.append({"caption": "Per-%s values" % unit, "header": [unit] + present,
                       "rows": [[t] + [task.format_value(k, scores.per_topic[t].get(k)) for k in present]
                                for t in topics],
                       "collapsed": len(topics) > 30})
    if detail != disclosure.AGGREGATE:      # a hidden phase keeps the columns only, shown in the task's table
        tables.append({"caption": "Every measure", "header": ["measure", "value"],
                       "rows": [[name, task.format_value(name, value)] for name, value in scores.measures.items()],
                       "collapsed": True})
    tables.extend(getattr(scores, "tables", None) or [])
    text = "File %s." % run.path
    if scores.notes:        # each note a sentence of its own: notes are written without a final full stop
        text += " " + " ".join(note if note.endswith(".") else note + "." for note in scores.notes)
    return {"title": "Run %s%s" % (run.name, " \u2014 shown on the leaderboard" if is_best else ""), "text": text,
            "best": is_best, "diagnostics": diagnostics, "charts": charts, "tables": tables}


def _comparison(task, scored) -> List[Dict]:
    """The runs compared with significance tests (runscore.compare), when there are several and it exists."""
    if len(scored) < 2:
        return []
    try:
        from ..compare import comparison_section
    except ImportError:
        return []
    shown = scored
    if len(scored) > MAX_COMPARED_RUNS:
        sign = 1 if task.primary.sorting == "desc" else -1

        def primary(i):
            value = scored[i][1].measures.get(task.primary.measure)
            return -sign * value if isinstance(value, (int, float)) else float("inf")

        ranked = sorted(range(len(scored)), key=lambda i: (primary(i), i))
        shown = [scored[i] for i in sorted(ranked[:MAX_COMPARED_RUNS])]
    try:
        section = comparison_section(task, shown)
        if section and len(shown) < len(scored):
            section["text"] = ("The %d best of the %d runs by %s are compared (at most %d, docs/limits.md). "
                               % (len(shown), len(scored), task.primary.title, MAX_COMPARED_RUNS)) + section["text"]
    except Exception as exc:   # a report extra must never fail a valid submission; say why it is missing
        print("warning: comparison of the %s runs not drawn: %s" % (task.id, exc), file=sys.stderr)
        return [{"title": "Comparison of the runs", "text": "Not available: %s" % exc}]
    return [section] if section else []


def main(argv: List[str]) -> int:
    with readers_may_leave():       # `score.py IN OUT | head`: scored all the same, the same exit code
        return _main(argv)


def _main(argv: List[str]) -> int:
    if len(argv) != 3:
        print("usage: score.py INPUT_DIR OUTPUT_DIR", file=sys.stderr)
        return EXIT_CONFIG
    previous = _terminate_cleanly()
    output = argv[2]
    try:
        return run(argv[1], output)
    except RunError as exc:
        print(str(exc), file=sys.stderr)
        print("submission rejected; nothing was scored", file=sys.stderr)
        rewrite_page_after_failure(output, "Submission rejected", "invalid", diagnostics=[str(exc)])
        return EXIT_INVALID_RUN
    except ConfigError as exc:
        print("%s\n(this is a problem of the competition's reference data or set-up, not of the submission)"
              % exc, file=sys.stderr)
        # the message may name the hidden reference files: the page gives the kind of failure only
        rewrite_page_after_failure(output, "Scoring failed", "error", text=(
            "A problem of the competition's reference data or set-up, not of the submission; nothing was scored "
            "(the organisers see the details in the scoring log)."))
        return EXIT_CONFIG
    except Terminated:
        print("error: scoring stopped by SIGTERM (the platform's time limit?); nothing was scored", file=sys.stderr)
        rewrite_page_after_failure(output, "Scoring stopped", "error", text=(
            "Scoring stopped by SIGTERM (the platform's time limit?); nothing was scored."))
        return 128 + signal.SIGTERM
    except MemoryError:
        print("error: out of memory while scoring (docs/limits.md gives the sizes runscore is built for)",
              file=sys.stderr)
        rewrite_page_after_failure(output, "Scoring failed", "error", text=(
            "Out of memory while scoring; nothing was scored (docs/limits.md gives the sizes runscore is built "
            "for)."))
        return EXIT_CONFIG
    except Exception as exc:     # a defect of runscore: exit 2, never 1 (the participant is not at fault)
        code = report_internal_error(exc, __version__)
        rewrite_page_after_failure(output, "Scoring failed", "error", text=(
            "An internal error of runscore, not a problem of the submission; nothing was scored (the organisers "
            "see the report in the scoring log)."))
        return code
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class Terminated(BaseException):
    """SIGTERM arrived: raised in the main thread so that every `finally` (the unpacked submission's temporary
    folder is removed in one) runs before the process ends."""


def _terminate_cleanly():
    def handler(signum, frame):
        raise Terminated()

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:        # not the main thread (an embedding caller): leave signals alone
        return None
