"""`runscore pool`: the depth-k pool of a campaign's formal runs, as a sheet for the assessors (docs/campaign.md).

Usage: runscore pool --task T --depth K RUN_OR_SUBMISSION... -o DIR [--runs-per-team N]
       [--order ntcirpool|random|item] [--seed S] [--ref REF] [--pr-runs PATH...] [--topics FILE] [--html]
       [--skip-invalid]

Every argument is one submission (a run file, a folder, or a zip as downloaded from Codabench, named
`{id}_{owner}_PhaseId...`), checked exactly as the formal phase checks it; an invalid one is refused with its
messages (exit 1, nothing written) unless --skip-invalid leaves it out. A run name given by two submissions is
taken from the later one (Codabench id). Writes DIR/pool.tsv (the sheet), DIR/pool_stats.json (items per topic,
unique contributions per run and team), DIR/runs.tsv and DIR/runs/ (the pooled files as they were pooled, read
again by `runscore judgements`) and with --html one assessment page per topic in DIR/assess/. DIR must not hold a
pool already: two pool files of one campaign are how NTCIR WWW-2/3/4 labels went to the wrong documents.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import OrderedDict
from typing import Dict, List, Optional

from ..campaign import pool as pooling
from ..campaign.sheet import LABEL, write_sheet
from ..campaign.submissions import read_submissions
from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, Diagnostics
from ..tasks import get_task

NAME = "pool"
HELP = "build the depth-k pool of a campaign's formal runs as an assessment sheet (pool.tsv, pages)"
POOL_FILE = "pool.tsv"
STATS_FILE = "pool_stats.json"
RUNS_FILE = "runs.tsv"


def run(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="runscore pool", description=HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example:\n  runscore pool --task temporalia-tir --depth 20 "
                                            "submissions/*.zip -o pool/ --html")
    parser.add_argument("--task", required=True, choices=pooling.POOLED_TASKS)
    parser.add_argument("--depth", type=int, help="pool depth k: ranks 1..k of each run (r2c2-ac: not used, "
                        "every answer and nugget is an assessment unit)")
    parser.add_argument("sources", nargs="+", metavar="RUN_OR_SUBMISSION")
    parser.add_argument("-o", "--output", required=True, help="output folder (must not hold a pool already)")
    parser.add_argument("--runs-per-team", type=int, help="pool only the N lowest run numbers of each team "
                        "(NTCIR pools a team's priority runs)")
    parser.add_argument("--order", choices=pooling.ORDERS, default="ntcirpool",
                        help="row order per topic (default: NTCIRPOOL's most runs, then smallest rank sum)")
    parser.add_argument("--seed", type=int, default=0, help="seed of --order random")
    parser.add_argument("--ref", help="a reference folder whose checks apply (e.g. its official topics)")
    parser.add_argument("--pr-runs", nargs="*", default=[], help="r2c2-ac: PR run files or folders the nuggets "
                        "cite (besides the PR runs inside the submissions)")
    parser.add_argument("--topics", help="TSV 'topic<TAB>text' shown on the assessment pages")
    parser.add_argument("--html", action="store_true", help="also write one assessment page per topic")
    parser.add_argument("--skip-invalid", action="store_true", help="leave invalid submissions out (their "
                        "messages are still printed) instead of refusing the pool")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_CONFIG
    if args.task != "r2c2-ac" and args.depth is None:
        raise ConfigError("--depth K is required for task %s" % args.task)
    if args.runs_per_team is not None and args.runs_per_team < 1:
        raise ConfigError("--runs-per-team must be at least 1")
    if os.path.exists(os.path.join(args.output, POOL_FILE)):
        raise ConfigError("%s already holds a pool; write a new pool to a new folder (two pool files of one "
                          "campaign are how assessments go to the wrong documents)" % args.output)
    task = get_task(args.task)
    reference = None
    if args.ref:
        from ..pipeline import load_reference
        reference = load_reference(task, args.ref)
    options = reference.options if reference else task.resolve_options({}, "defaults")
    topic_texts = read_topic_texts(args.topics) if args.topics else {}
    workdir = tempfile.mkdtemp(prefix="runscore-pool-")
    try:
        return _pool(task, args, options, reference, topic_texts, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _pool(task, args, options, reference, topic_texts, workdir) -> int:
    submissions = read_submissions(args.sources, task, workdir, reference)
    failed = [s for s in submissions if s.failed]
    for submission in submissions:
        for message in submission.messages:
            print(message, file=sys.stderr)
    if failed and not args.skip_invalid:
        print("pool refused: %d submission(s) failed the formal phase's checks (%s); nothing was written "
              "(--skip-invalid leaves them out)" % (len(failed), ", ".join(s.source for s in failed)),
              file=sys.stderr)
        return EXIT_INVALID_RUN
    chosen = select_runs(task, [s for s in submissions if not s.failed], args.runs_per_team)
    if not chosen:
        raise ConfigError("no valid run to pool")
    teams = OrderedDict((run.name, team) for run, _, team, _ in chosen)
    runs = [run for run, _, _, _ in chosen]
    unresolved: Dict[str, int] = {}
    if task.id == "r2c2-ac":
        pr_runs = read_pr_runs(args.pr_runs + [c for s in submissions if not s.failed for c in s.companions])
        pool, unresolved = pooling.assessment_units(runs, pr_runs, lambda r: teams[r.name])
        copy_pr_runs(pr_runs, args.output)
    else:
        pool = pooling.build_pool(task, runs, args.depth, options, lambda r: teams[r.name])
    os.makedirs(args.output, exist_ok=True)
    columns, rows = sheet_rows(pool, args.order, args.seed)
    copies = copy_runs(chosen, args.output)
    stats = statistics(pool, args, unresolved, copies)
    with open(os.path.join(args.output, STATS_FILE), "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    if args.html:
        from ..campaign.assess_page import write_pages
        write_pages(os.path.join(args.output, "assess"), task.id, columns, rows, topic_texts)
    write_sheet(os.path.join(args.output, POOL_FILE), columns, rows)     # last: its presence means complete
    print_summary(stats)
    return EXIT_OK


def select_runs(task, submissions, runs_per_team: Optional[int]):
    """(run, file, team, submission source) of the runs to pool: a later submission's run replaces an earlier
    one of the same name; with runs_per_team, each team's N lowest run numbers."""
    by_name: "OrderedDict[str, tuple]" = OrderedDict()
    for submission in submissions:
        for run, path in submission.runs:
            team = task.team_of(run) or submission.owner or pooling.default_team(task, run)
            if run.name in by_name:
                print("%s: note: run %s replaces the one of %s (a later submission)"
                      % (submission.source, run.name, by_name[run.name][3]), file=sys.stderr)
                del by_name[run.name]
            by_name[run.name] = (run, path, team, submission.source)
    chosen = list(by_name.values())
    if runs_per_team is None:
        return chosen
    by_team: Dict[str, List[tuple]] = OrderedDict()
    for entry in chosen:
        by_team.setdefault(entry[2], []).append(entry)
    kept = set()
    for team, entries in by_team.items():
        for entry in sorted(entries, key=lambda e: (run_number(e[0].name), e[0].name))[:runs_per_team]:
            kept.add(entry[0].name)
    return [e for e in chosen if e[0].name in kept]


def run_number(name: str) -> int:
    """The run number a team gave (its pooling priority): the trailing digits of the run name (ntc1, tir run_2,
    Team-PG-3); runs without one come last."""
    match = re.search(r"([0-9]+)$", name)
    return int(match.group(1)) if match and len(match.group(1)) < 10 else 10 ** 9


def read_pr_runs(paths: List[str]) -> Dict:
    """The PR runs AC nuggets cite, by normalised name, read by the task's own reader; an invalid one or two of
    one name is the organiser's problem (exit 2)."""
    from ..tasks.r2c2.pr_format import parse_pr_run

    files = []
    for path in paths:
        if os.path.isdir(path):
            files.extend(os.path.join(path, f) for f in sorted(os.listdir(path)) if not f.startswith("."))
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise ConfigError("PR run %r does not exist" % path)
    runs: Dict[str, object] = {}
    for path in files:
        diags = Diagnostics(path)
        pr_run = parse_pr_run(path, path, diags)
        if diags.has_errors:
            raise ConfigError("PR run is invalid: %s" % diags.first_error(), path)
        if pr_run.name in runs and runs[pr_run.name].path != path:
            continue         # the same run sent by several submissions: the first copy resolves
        runs[pr_run.name] = pr_run
    return runs


def read_topic_texts(path: str) -> Dict[str, str]:
    from ..textfile import numbered_lines, read_text

    texts = {}
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip():
            continue
        if "\t" not in line:
            raise ConfigError("expected 'topic<TAB>text'", path, line_no)
        topic, text = line.split("\t", 1)
        texts[topic.strip()] = text.strip()
    return texts


def sheet_rows(pool: pooling.Pool, order: str, seed: int):
    """The sheet's columns and rows, topic by topic in assessment order."""
    ac = pool.task_id == "r2c2-ac"
    has_text = ac or any(p.text is not None for items in pool.topics.values() for p in items.values())
    columns = ["topic", "item", "runs"]
    columns += ["unit"] if ac else ["rank_sum", "best_rank"]
    columns += ["run_names"]
    columns += ["text_sha1", "text"] if has_text else []
    columns += ["passage"] if ac else []
    columns += [LABEL]
    rows = []
    for topic in pool.topics:
        for pooled in pooling.order_items(pool.items(topic), order, seed, topic):
            row = {"topic": topic, "item": pooled.item, "runs": str(len(pooled.runs)),
                   "run_names": ",".join(pooled.runs), LABEL: ""}
            if not ac:
                row.update(rank_sum=str(pooled.rank_sum), best_rank=str(pooled.best_rank))
            if has_text:
                row.update(text_sha1=pooling.text_hash(pooled.text), text=pooled.text or "")
            row.update(pooled.extra)
            rows.append(row)
    return columns, rows


def copy_runs(chosen, output: str) -> Dict[str, str]:
    """Copy each pooled file into DIR/runs/NN/ (its own name kept: R2C2 run names are file names) and list
    run -> team -> file in DIR/runs.tsv; returns run -> copied path (relative to DIR)."""
    folder = os.path.join(output, "runs")
    copied: Dict[str, str] = OrderedDict()
    by_source: Dict[str, str] = {}
    lines = ["run\tteam\tfile\tsubmission"]
    for run, path, team, source in chosen:
        if path not in by_source:
            target_dir = os.path.join(folder, "%03d" % (len(by_source) + 1))
            os.makedirs(target_dir, exist_ok=True)
            target = os.path.join(target_dir, os.path.basename(run.path))
            shutil.copyfile(path, target)
            by_source[path] = os.path.relpath(target, output)
        copied[run.name] = by_source[path]
        lines.append("%s\t%s\t%s\t%s" % (run.name, team, copied[run.name], source))
    with open(os.path.join(output, RUNS_FILE), "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return copied


def copy_pr_runs(pr_runs: Dict, output: str) -> None:
    """r2c2-ac: the PR runs the nuggets were resolved against, in DIR/pr_runs/ (the judgements' pr_runs)."""
    folder = os.path.join(output, "pr_runs")
    os.makedirs(folder, exist_ok=True)
    for name, pr_run in pr_runs.items():
        shutil.copyfile(pr_run.path, os.path.join(folder, name))


def statistics(pool: pooling.Pool, args, unresolved: Dict[str, int], copies: Dict[str, str]) -> dict:
    return OrderedDict([
        ("task", pool.task_id), ("depth", pool.depth), ("order", args.order), ("seed", args.seed),
        ("runs_per_team", args.runs_per_team),
        ("runs", [OrderedDict([("run", r), ("team", t), ("file", copies[r])]) for r, t in pool.teams.items()]),
        ("items", pool.size()),
        ("items_per_topic", OrderedDict((t, len(items)) for t, items in pool.topics.items())),
        ("unique_per_run", pool.unique_to(lambda h: h.run)),
        ("unique_per_team", pool.unique_to(lambda h: h.team)),
        ("unresolved_nuggets_not_pooled", unresolved),
    ])


def print_summary(stats: dict) -> None:
    per_topic = list(stats["items_per_topic"].values())
    print("pooled %d run(s) of %d team(s), %s: %d item(s) over %d topic(s) (%d to %d per topic)"
          % (len(stats["runs"]), len(set(r["team"] for r in stats["runs"])),
             "depth %d" % stats["depth"] if stats["depth"] else "every answer and nugget",
             stats["items"], len(per_topic), min(per_topic), max(per_topic)))
    print("run\tteam\tunique items")
    for entry in stats["runs"]:
        print("%s\t%s\t%d" % (entry["run"], entry["team"], stats["unique_per_run"][entry["run"]]))
