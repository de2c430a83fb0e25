"""The Codabench / CodaLab scoring entry: `score.py INPUT OUTPUT`.

INPUT/ref holds one folder per task id (or is itself one task's folder, with a task.yaml naming the task);
INPUT/res holds the submission. Every run file is checked against its task; any error fails the whole
submission (exit 1, every error of every file on stderr, no scores written). Otherwise each task's best run
by its primary measure fills that task's leaderboard columns.
"""
import os
import shutil
import sys
import tempfile
from typing import Dict, List, Tuple

from . import __version__
from .discover import assign_tasks, list_candidates
from .errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, RunError
from .pipeline import LoadedReference, best_run, check_file, check_run_limit, load_reference, score_run
from .report import atomic_write, detailed_html, format_score, summary_table, write_scores
from .tasks import all_tasks, get_task
from .tasks.base import read_task_yaml

DETAILED = "detailed_results.html"


def task_references(ref_dir: str) -> Dict[str, LoadedReference]:
    """The tasks this competition scores: ref/<task-id>/ folders, or ref/ itself if its task.yaml names one."""
    if not os.path.isdir(ref_dir):
        raise ConfigError("reference folder %s does not exist (was reference_data uploaded?)" % ref_dir)
    own = read_task_yaml(ref_dir).get("task")
    if own:
        return {own: load_reference(get_task(own), ref_dir)}
    loaded = {}
    for task in all_tasks():
        folder = os.path.join(ref_dir, task.id)
        if os.path.isdir(folder):
            loaded[task.id] = load_reference(task, folder)
    if not loaded:
        raise ConfigError("no task folder in %s; expected one or more of %s"
                          % (ref_dir, ", ".join(t.id for t in all_tasks())))
    return loaded


def run(input_dir: str, output_dir: str) -> int:
    print("runscore %s scoring %s" % (__version__, input_dir))
    os.makedirs(output_dir, exist_ok=True)
    page = os.path.join(output_dir, DETAILED)
    atomic_write(page, detailed_html("Scoring in progress", [], "started"))
    references = task_references(os.path.join(input_dir, "ref"))
    res_dir = os.path.join(input_dir, "res")
    if not os.path.isdir(res_dir):
        raise RunError("the submission is empty (no input/res folder)")
    workdir = tempfile.mkdtemp(prefix="runscore-")
    try:
        return _score_submission(references, res_dir, workdir, output_dir, page)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _score_submission(references, res_dir, workdir, output_dir, page) -> int:
    tasks = [references[t].task for t in references]
    candidates = list_candidates(res_dir, workdir)
    if not candidates:
        expected = "; ".join("%s: %s" % (t.id, t.run_file_help) for t in tasks)
        raise RunError("no run file found in the submission; expected %s" % expected)
    pairs, problems = assign_tasks(candidates, tasks)
    messages: List[str] = [str(p) for p in problems]
    checked_by_task: Dict[str, list] = {}
    for candidate, task in pairs:
        reference = references[task.id]
        checked = check_file(task, candidate.path, candidate.display, reference, reference.options)
        checked_by_task.setdefault(task.id, []).append(checked)
        messages.extend(checked.diags.lines())
    for task_id, checked in checked_by_task.items():
        messages.extend(check_run_limit(references[task_id].task, checked))
    failed = bool(problems) or any(c.diags.has_errors for cs in checked_by_task.values() for c in cs) \
        or any(": error:" in m for m in messages)
    for message in messages:
        print(message, file=sys.stderr)
    if failed:
        errors = sum(1 for m in messages if ": error:" in m)
        print("submission rejected: %d error(s); nothing was scored" % errors, file=sys.stderr)
        atomic_write(page, detailed_html("Submission rejected", [{"title": "Errors", "diagnostics": messages}],
                                         "invalid"))
        return EXIT_INVALID_RUN

    leaderboard: Dict[str, float] = {}
    sections = []
    summary_rows = [("task", "run", "column", "value")]
    for task_id, checked in checked_by_task.items():
        reference = references[task_id]
        task = reference.task
        scored = [(r, score_run(reference, r)) for c in checked for r in c.runs]
        best, best_scores = best_run(task, scored)
        for column in task.columns:
            key = task.leaderboard_key(column)
            leaderboard[key] = best_scores.measures[column.measure]
            summary_rows.append((task_id, best.name, key, format_score(leaderboard[key])))
        sections.append(_task_section(task, scored, best, [m for c in checked for m in c.diags.lines()]))
    write_scores(output_dir, leaderboard)
    atomic_write(page, detailed_html("Detailed results", sections, "scored"))
    print(summary_table(summary_rows))
    return EXIT_OK


def _task_section(task, scored, best, diagnostics) -> Dict:
    header = ["run"] + [c.title for c in task.columns]
    rows = [[r.name + (" (leaderboard)" if r is best else "")] + ["%.4f" % s.measures[c.measure]
                                                                  for c in task.columns] for r, s in scored]
    tables = [{"caption": "Runs", "header": header, "rows": rows}]
    charts = []
    primary = task.primary.measure
    for run, scores in scored:
        if not scores.per_topic:
            continue
        shown = [k for k in task.per_topic_measures if any(k in v for v in scores.per_topic.values())]
        topic_rows = [[topic] + [_fmt(values.get(k)) for k in shown] for topic, values in scores.per_topic.items()]
        tables.append({"caption": "Per topic: %s" % run.name, "header": ["topic"] + shown, "rows": topic_rows})
        if any(primary in v for v in scores.per_topic.values()):
            charts.append({"caption": "%s per topic: %s" % (task.primary.title, run.name),
                           "labels": list(scores.per_topic),
                           "values": [float(v.get(primary, 0.0)) for v in scores.per_topic.values()]})
    tables[1:1] = [t for _, s in scored for t in s.tables]   # task tables (e.g. confusion matrices) before per-topic ones
    notes = [n for _, s in scored for n in s.notes]
    return {"title": "%s (%s)" % (task.title, task.id), "text": " ".join(notes), "diagnostics": diagnostics,
            "tables": tables, "charts": charts}


def _fmt(value) -> str:
    if value is None:
        return ""
    return "%d" % value if float(value).is_integer() and abs(value) >= 1 else "%.4f" % value


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print("usage: score.py INPUT_DIR OUTPUT_DIR", file=sys.stderr)
        return EXIT_CONFIG
    try:
        return run(argv[1], argv[2])
    except RunError as exc:
        print(str(exc), file=sys.stderr)
        print("submission rejected; nothing was scored", file=sys.stderr)
        return EXIT_INVALID_RUN
    except ConfigError as exc:
        print("%s\n(this is a problem of the competition's reference data or set-up, not of the submission)"
              % exc, file=sys.stderr)
        return EXIT_CONFIG
