"""`runscore pool`: the depth-k pool of a campaign's formal runs, as a sheet for the assessors (docs/campaign.md).

Usage: runscore pool --task T --depth K RUN_OR_SUBMISSION... -o DIR [--phase ID] [--deadline TIME]
       [--submissions LIST.csv] [--allow-same-names] [--runs-per-team N] [--order random|docid|ntcirpool] [--seed S]
       [--ref REF] [--pr-runs PATH...] [--skip-invalid]
       [--html] [--collection PATH... [--collection-format F] [--encoding E] [--id-field F] [--title-field F]
       [--text-field F...] [--min-found SHARE]] [--topics FILE] [--batch-size N] [--judged QRELS]
       [--assessors A,B|@FILE [--overlap K]] [--show-pool-stats]

The inputs are read by campaign/downloads.py, the reader `runscore report` uses too: a Codabench download
(`{id}_{owner}_PhaseId...`) is one submission, checked exactly as the formal phase checks it, and its runs are its
owner's; a run is (owner, run name). An invalid submission is refused with its messages (exit 1, nothing written)
unless --skip-invalid leaves it out; a run name sent by two owners is refused naming both (exit 1) unless
--allow-same-names keeps both; a later submission replaces only its owner's run of that name; the campaign's cap
and --runs-per-team count an owner's runs over all their submissions; --phase and --deadline leave out what was
sent elsewhere or late. Everything left out or replaced is listed on stderr and in pool_stats.json. Writes
DIR/pool.tsv (the sheet), DIR/pool_stats.json (items per topic, unique contributions per run and team),
DIR/runs.tsv and DIR/runs/ (the pooled files as they were pooled, each with the files its submission read beside
it, read again by `runscore judgements`), DIR/companions.tsv (those files' receipts) and with --html (implied by
the assessment options) the assessors' folder DIR/assess/: a blind page and sheet per topic or batch, with the
documents of --collection and the topic of --topics (campaign/assessment.py); --show-pool-stats adds the
organiser's view DIR/organiser/. A collection that yields none of the pooled documents (or less than the share
--min-found) refuses the pool (exit 2, nothing written), saying what was read. DIR must not hold a pool already: two pool files of one campaign are how
NTCIR WWW-2/3/4 labels went to the wrong documents. The TSV files are safe to open in a spreadsheet: a cell that
would run as a formula starts with a single quote (campaign/safe_output.py), which `runscore judgements` drops.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import OrderedDict
from dataclasses import replace
from typing import Dict, List, Optional

from ..campaign import pool as pooling
from ..campaign.assessment import AssessOptions, prepare, write_assessment
from ..campaign.batches import read_assessors
from ..campaign.collection import FORMATS, CollectionOptions
from ..campaign.topics import read_topics
from ..campaign.downloads import CampaignInputs, Rules, read_campaign
from ..campaign.identity import Window, parse_time
from ..campaign.safe_output import neutralise_cell
from ..campaign.sheet import LABEL, write_sheet
from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, printable
from ..tasks import get_task
from ..tasks.base import submission_scope
from ..tasks.pooling import Pooling, text_hash

NAME = "pool"
HELP = "build the depth-k pool of a campaign's formal runs as an assessment sheet (pool.tsv, pages)"
POOL_FILE = "pool.tsv"
STATS_FILE = "pool_stats.json"
RUNS_FILE = "runs.tsv"
COMPANIONS_FILE = "companions.tsv"


def add_identity_options(parser: argparse.ArgumentParser) -> None:
    """The options of the campaign reader (campaign/downloads.py), the same for `pool` and `report`."""
    parser.add_argument("--phase", type=int, metavar="ID", help="the formal phase's id (PhaseId in the download "
                        "names): downloads of other phases are left out (required when they span several)")
    parser.add_argument("--deadline", metavar="TIME", help="the formal phase's deadline, e.g. 2026-05-01T23:59 "
                        "(UTC unless an offset such as +09:00 follows): later submissions are left out, by the "
                        "creation times of --submissions (required with it)")
    parser.add_argument("--submissions", metavar="LIST.csv", help="the platform's list of submissions (\"Download "
                        "CSV\" on the competition's submissions page): creation times for --deadline, owners checked, "
                        "submissions not Finished (Failed, Cancelled) left out")
    parser.add_argument("--allow-same-names", action="store_true", help="keep runs of one name sent by several "
                        "owners, as NAME@OWNER (default: an error naming them)")
    parser.add_argument("--skip-invalid", action="store_true", help="leave invalid submissions out (their "
                        "messages are still printed) instead of refusing")


def add_assessment_options(parser: argparse.ArgumentParser) -> None:
    """What the assessors get (campaign/assessment.py; docs/campaign.md "Assess")."""
    group = parser.add_argument_group("assessment pages (DIR/assess/; any of these implies --html)")
    group.add_argument("--html", action="store_true", help="write the assessors' pages and sheets, one per topic "
                       "or batch (blind: no run, team, rank or count of runs)")
    group.add_argument("--collection", nargs="+", metavar="PATH", help="the documents: files, folders or tar "
                       "archives of TREC SGML, NTCIR-1 <REC>, LivingKnowledge <doc>, JSON lines or TSV, plain, "
                       "gzip or bzip2; read once, keeping the pooled documents only")
    group.add_argument("--collection-format", choices=FORMATS, default="auto",
                       help="the collection's format (default: told by each file's start)")
    group.add_argument("--encoding", help="insist on this encoding for the collection and the topic file "
                       "(default: decided from the bytes: UTF-8 when the text is UTF-8, else the task's, e.g. euc_jp "
                       "for ntcir1-adhoc)")
    group.add_argument("--id-field", help="JSON/TSV: the field or column holding the document id "
                       "(default: id, _id, doc_id, docid, docno or pid; TSV: column 1)")
    group.add_argument("--title-field", help="JSON/TSV: the title field (default: title)")
    group.add_argument("--text-field", action="append", default=[], metavar="FIELD",
                       help="JSON/TSV: a text field to show (repeatable; default: contents, text, body, ...)")
    group.add_argument("--topics", metavar="FILE", help="the topic file: NTCIR <TOPIC>, TREC <top>, Temporalia "
                       "<topic>, R2C2 <question>, JSON or TSV 'topic<TAB>text' (title, description, narrative "
                       "shown; query terms highlighted)")
    group.add_argument("--batch-size", type=int, metavar="N", help="split each topic's items, in assessment "
                       "order, into batches of at most N (a page and sheet each)")
    group.add_argument("--assessors", metavar="A,B,...|@FILE", help="give the batches to these assessors in "
                       "turn (a folder each in DIR/assess/, and DIR/assess/assignments.tsv)")
    group.add_argument("--overlap", type=int, default=0, metavar="K", help="give every batch to K more "
                       "assessors, for agreement (runscore judgements reports it)")
    group.add_argument("--show-pool-stats", action="store_true", help="also write the organiser's view "
                       "DIR/organiser/: each item's runs, best rank and rank sum (never for assessors)")
    group.add_argument("--judged", metavar="QRELS", help="judgements of an earlier round (a qrels file, TREC or "
                       "NTCIR format, or a filled sheet): the pooled items it judges are left out of the pages and "
                       "blind sheets (pool.tsv keeps them; give QRELS to `runscore judgements` with the new sheets)")
    group.add_argument("--min-found", type=float, metavar="SHARE", help="with --collection: refuse the pool "
                       "(exit 2, nothing written) when the collection yields less than this share of the pooled "
                       "documents, e.g. 0.9 (default: refused only when it yields none of them; 0: never)")


def assessment_options(args, task) -> Optional[AssessOptions]:
    """The assessment options asked for (None: no pages), checked before anything is read."""
    asked = (args.html or args.collection or args.topics or args.batch_size is not None or args.assessors or
             args.overlap or args.show_pool_stats or args.judged)
    if not asked:
        return None
    if task.assessment is None:
        raise ConfigError("task %s has no assessment pages" % task.id)
    if args.topics and not os.path.isfile(args.topics):
        raise ConfigError("topic file %r does not exist" % args.topics)
    for path in args.collection or ():
        if not os.path.exists(path):
            raise ConfigError("collection %r does not exist" % path)
    if args.overlap and not args.assessors:
        raise ConfigError("--overlap gives batches to more assessors: name them with --assessors")
    if args.batch_size is not None and args.batch_size < 1:
        raise ConfigError("--batch-size must be at least 1")
    if args.judged and not os.path.isfile(args.judged):
        raise ConfigError("--judged %r does not exist" % args.judged)
    if args.min_found is not None and not (0.0 <= args.min_found <= 1.0):
        raise ConfigError("--min-found is a share of the pooled documents, from 0 to 1, not %g" % args.min_found)
    if args.min_found is not None and not args.collection:
        raise ConfigError("--min-found is the share of the pooled documents --collection must yield: give it")
    collection = CollectionOptions(args.collection_format, args.encoding, task.assessment.encoding, args.id_field,
                                   args.title_field, tuple(args.text_field))
    order = args.order or task.pooling.order
    said = "%s%s: %s" % (order, " (seed %d)" % args.seed if order == "random" else "", pooling.ORDER_WHY[order])
    return AssessOptions(tuple(args.collection or ()), collection, args.topics, args.encoding, args.batch_size,
                         tuple(read_assessors(args.assessors)), args.overlap, args.show_pool_stats, said)


def identity_rules(args, runs_per_owner=None) -> Rules:
    deadline = parse_time(args.deadline, "--deadline") if args.deadline else None
    return Rules(Window(args.phase, deadline), args.submissions, args.allow_same_names, runs_per_owner)


def say(text: str, file=None) -> None:
    """print() for what holds participants' names (run names, topic ids): each line with its control characters
    escaped, so that a name cannot move the organiser's terminal cursor or erase the lines above it."""
    print("\n".join(printable(line) for line in text.split("\n")), file=file or sys.stdout)


def refusal(found: CampaignInputs, skip_invalid: bool, what: str) -> List[str]:
    """The lines that refuse the command (nothing written), or [] when it may go on."""
    if found.conflicts:
        return found.conflicts + ["%s refused: %d run name(s) are sent by more than one owner; nothing was written"
                                  % (what, len(found.conflicts))]
    if found.failed and not skip_invalid:
        return ["%s refused: %d submission(s) failed the formal phase's checks (%s); nothing was written "
                "(--skip-invalid leaves them out)" % (what, len(found.failed), ", ".join(found.failed))]
    return []


def run(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="runscore pool", description=HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example:\n  runscore pool --task temporalia-tir --depth 20 --phase 3 "
                                            "--deadline 2026-05-01T23:59 submissions/*.zip -o pool/ \\\n"
                                            "      --collection collection/ --topics NTCIR-11_TIR_Topics.xml "
                                            "--batch-size 100 --assessors ann,ben,cy --overlap 1\n"
                                            "(--collection takes every path up to the next option: give the "
                                            "submissions before it)")
    parser.add_argument("--task", required=True, choices=pooling.pooled_tasks())
    parser.add_argument("--depth", type=int, help="pool depth k: ranks 1..k of each run (r2c2-ac: not used, "
                        "every answer and nugget is an assessment unit)")
    parser.add_argument("sources", nargs="+", metavar="RUN_OR_SUBMISSION")
    parser.add_argument("-o", "--output", required=True, help="output folder (must not hold a pool already)")
    parser.add_argument("--runs-per-team", type=int, help="pool only the N lowest run numbers of each owner, over "
                        "all their submissions (NTCIR pools a team's priority runs)")
    parser.add_argument("--order", choices=pooling.ORDERS, help="item order per topic on the pages and in the "
                        "sheet: random (seeded by --seed and the topic), docid (= item), or ntcirpool (most runs, "
                        "then smallest rank sum: tells the assessor the systems' consensus); default: the task's "
                        "(random unless its form says otherwise); every page says which order it has and why")
    parser.add_argument("--seed", type=int, default=0, help="seed of --order random")
    parser.add_argument("--ref", help="a reference folder whose checks apply (e.g. its official topics)")
    parser.add_argument("--pr-runs", nargs="*", default=[], help="r2c2-ac: the official PR run files or folders "
                        "the nuggets cite; they win over a submission's own copies, as on the platform")
    add_identity_options(parser)
    add_assessment_options(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_CONFIG
    task = get_task(args.task)
    if args.order is None:
        args.order = task.pooling.order
    if task.pooling.ranked and args.depth is None:
        args.depth = task.pooling.depth          # the depth the task's form declares (tasks/forms/), if any
    if task.pooling.ranked and args.depth is None:
        raise ConfigError("--depth K is required for task %s" % args.task)
    if args.runs_per_team is not None and args.runs_per_team < 1:
        raise ConfigError("--runs-per-team must be at least 1")
    if os.path.exists(os.path.join(args.output, POOL_FILE)):
        raise ConfigError("%s already holds a pool; write a new pool to a new folder (two pool files of one "
                          "campaign are how assessments go to the wrong documents)" % args.output)
    rules = identity_rules(args, args.runs_per_team)
    reference = None
    if args.ref:
        from ..pipeline import load_reference
        reference = load_reference(task, args.ref)
    options = reference.options if reference else task.resolve_options({}, "defaults")
    assessing = assessment_options(args, task)
    topics = None
    if assessing is not None and assessing.topics:       # its errors before the runs are read
        topics = read_topics(assessing.topics, task.assessment, assessing.topics_encoding)
        for note in topics.notes:         # its encoding, and characters it could not read
            say(note, file=sys.stderr)
    assessing = (assessing, topics)
    workdir = tempfile.mkdtemp(prefix="runscore-pool-")
    try:
        with submission_scope(), pooling.few_collections():
            return _pool(task, args, rules, options, reference, assessing, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _pool(task, args, rules, options, reference, assessing, workdir) -> int:
    # each run is reduced to the top `depth` of its topics as soon as it is checked: memory of one run plus the pool
    found = read_campaign(task, args.sources, workdir, reference, rules,
                          after_check=pooling.keep_top(task, options, args.depth))
    for message in found.messages:
        say(message, file=sys.stderr)
    refused = refusal(found, args.skip_invalid, "pool")
    if refused:
        say("\n".join(refused), file=sys.stderr)
        return EXIT_INVALID_RUN
    for note in found.notes:
        say(note, file=sys.stderr)
    if not found.runs:
        raise ConfigError("no valid run to pool")
    teams = OrderedDict((taken.label, taken.owner) for taken in found.runs)
    runs = [replace(taken.run, name=taken.label) for taken in found.runs]
    unresolved: Dict[str, int] = {}
    form = task.pooling
    official: Dict = {}          # the organiser's files the units cite (r2c2-ac: PR runs), kept in the pool folder
    if form.ranked:
        pool = pooling.build_pool(task, runs, args.depth, options, lambda r: teams[r.name])
    else:
        official = form.read_official(args.pr_runs)
        files = {taken.label: taken.path for taken in found.runs}
        pool, unresolved = pooling.pool_units(task, runs, files, official, lambda r: teams[r.name])
    columns = sheet_columns(form, pool)
    # the assessment pages need the rows at once; the sheet alone makes them as it writes them (as many as the items)
    rows = list(sheet_rows(form, pool, args.order, args.seed)) if assessing[0] is not None else None
    judged_before = judged_keys(task, args.judged) if args.judged else set()
    to_assess = [row for row in rows if (row["topic"], row["item"]) not in judged_before] \
        if rows is not None and judged_before else rows
    prepared = prepare(task, columns, to_assess, assessing[0], assessing[1]) if rows is not None else None
    if prepared is not None:
        collection_verdict(prepared, args.min_found)        # before anything is written
    not_blind = task.assessment.not_blind(options) if prepared is not None else None
    if not_blind:
        where = os.path.join(args.ref, "task.yaml") if os.path.isdir(args.ref) else args.ref   # options come from it
        say("%s: warning: %s" % (where, not_blind), file=sys.stderr)
    os.makedirs(args.output, exist_ok=True)
    if form.official_folder:
        copy_official(official, os.path.join(args.output, form.official_folder))
    copies = copy_runs(found, args.output)
    stats = statistics(pool, args, unresolved, copies, found.notes)
    stats["team_rule"] = task.team_rule
    if args.judged:
        stats["judged_before"] = OrderedDict([("file", args.judged), ("items_left_out", len(rows) - len(to_assess))])
    with open(os.path.join(args.output, STATS_FILE), "w", encoding="utf-8") as handle:
        json.dump(stats, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    if prepared is not None:
        for note in prepared.collection.told() if prepared.collection else ():
            say(note, file=sys.stderr)
        write_assessment(args.output, prepared)
    # last: its presence means complete; without pages to make, its rows are made one at a time as it is written
    write_sheet(os.path.join(args.output, POOL_FILE), columns,
                rows if rows is not None else sheet_rows(form, pool, args.order, args.seed))
    print_summary(stats, form)
    found_teams = pooling.teams_found(task, [(t.label, t.owner, t.vouched) for t in found.runs])
    if found_teams:
        say(found_teams)
    if args.judged:
        say("judged before: %d pooled item(s) judged in %s are left out of the pages (%d left to judge); give %s "
            "to `runscore judgements` with the new sheets" % (len(rows) - len(to_assess), args.judged,
                                                            len(to_assess), args.judged))
    say("order of the items: %s%s: %s" % (args.order, " (seed %d)" % args.seed if args.order == "random" else "",
                                         pooling.ORDER_WHY[args.order]))
    if prepared is not None:
        say("\n".join(prepared.summary(args.output)))
    for companion in found.companions:
        receipt = companion.receipt
        say("receipt: companion %s of %s, %d line%s, sha256 %s (%s)"
            % (companion.name, companion.owner or "no known owner (a loose file)", receipt.lines,
               "" if receipt.lines == 1 else "s", receipt.sha256, companion.origin.source))
    return EXIT_OK


def judged_keys(task, path: str) -> set:
    """(topic, item) of every labelled row of an earlier round's judgements: a qrels file (TREC or NTCIR format)
    or a filled sheet, read by the sheet reader `runscore judgements` uses; topics as the task spells them."""
    from ..campaign.sheet import iter_sheet

    _, rows = iter_sheet(path, ConfigError)
    return {(task.assessment.topic_key(row.values["topic"]), row.values["item"]) for row in rows
            if row.values[LABEL].strip()}


def collection_verdict(prepared, min_found: Optional[float]) -> None:
    """ConfigError (exit 2, nothing written) when the collection yields none of the pooled documents, or less than
    the share `min_found`: pages of "document not found" cards are no assessment, and the reason (a wrong path,
    format, encoding or id field) is in the collection's warnings, repeated here."""
    collection = prepared.collection
    if collection is None:
        return
    wanted = {row["document"] for row in prepared.rows if row.get("document")}
    if not wanted:
        return
    found = len(wanted & set(collection.documents))
    share = found / len(wanted)
    if (found > 0 or min_found == 0.0) and (min_found is None or share >= min_found):
        return
    files = collection.files
    why = ["the collection yielded %d of the %d pooled document(s) (%.1f%%)%s; nothing was written"
           % (found, len(wanted), 100.0 * share, ", less than --min-found %g" % min_found
              if min_found is not None else "")]
    why.append("read: %s" % ("; ".join("%s (%s %s, %d found)" % (f.path, f.format, f.encoding, f.found)
                                       for f in files[:5]) + (" and %d more" % (len(files) - 5)
                                                              if len(files) > 5 else "") if files
                             else "no file (none is in a collection format)"))
    example = sorted(wanted - set(collection.documents))[:3]
    why.append("pooled ids not found, e.g. %s: check --collection-format, --encoding and --id-field"
               % ", ".join(example))
    for note in collection.told()[:5]:
        why.append(note)
    raise ConfigError("; ".join(why))


def _has_text(form: Pooling, pool: pooling.Pool) -> bool:
    return form.items_have_text or any(p.text is not None for items in pool.topics.values() for p in items.values())


def sheet_columns(form: Pooling, pool: pooling.Pool) -> List[str]:
    """The sheet's columns: the key, the runs' evidence the task's pool has (a ranked pool: rank sum and best
    rank), the text when items carry one, the task's own cells, the label."""
    columns = ["topic", "item", "runs"] + list(form.columns_after_runs) + ["run_names"]
    columns += ["text_sha1", "text"] if _has_text(form, pool) else []
    return columns + list(form.columns_after_text) + [LABEL]


def sheet_rows(form: Pooling, pool: pooling.Pool, order: str, seed: int):
    """The sheet's rows, made one at a time, topic by topic in assessment order."""
    ranked = form.ranked
    has_text = _has_text(form, pool)
    for topic in pool.topics:
        for pooled in pooling.order_items(pool.items(topic), order, seed, topic):
            runs, rank_sum, best_rank = pooled.summary()
            row = {"topic": topic, "item": pooled.item, "runs": str(len(runs)), "run_names": ",".join(runs),
                   LABEL: "", "document": pooled.document or ""}
            if ranked:
                row["rank_sum"], row["best_rank"] = str(rank_sum), str(best_rank)
            if has_text:
                row.update(text_sha1=text_hash(pooled.text), text=pooled.text or "")
            row.update(pooled.extra)
            yield row


def copy_runs(found: CampaignInputs, output: str) -> Dict[str, str]:
    """Copy each pooled file into DIR/runs/NN/ (its own name kept: R2C2 run names are file names), with the files
    its submission read beside it (r2c2-ac's own PR runs, so `runscore judgements` resolves its nuggets as the pool
    did); list run -> owner -> file in DIR/runs.tsv and the companions' receipts in DIR/companions.tsv; returns
    run -> copied path (relative to DIR)."""
    folder = os.path.join(output, "runs")
    copied: Dict[str, str] = OrderedDict()
    by_source: Dict[str, str] = {}
    lines = [["run", "team", "file", "submission"]]
    beside: Dict[str, List] = {}
    for companion in found.companions:
        beside.setdefault(os.path.dirname(os.path.abspath(companion.path)), []).append(companion)
    companion_lines = [["owner", "file", "lines", "sha256", "copied_to", "submission"]]
    copies: Dict[int, str] = {}
    for taken in found.runs:
        path = taken.path
        if path not in by_source:
            target_dir = os.path.join(folder, "%03d" % (len(by_source) + 1))
            os.makedirs(target_dir, exist_ok=True)
            target = os.path.join(target_dir, os.path.basename(taken.run.path))
            shutil.copyfile(path, target)
            by_source[path] = os.path.relpath(target, output)
            for companion in beside.get(os.path.dirname(os.path.abspath(path)), []):    # beside every run file
                copy = os.path.join(target_dir, companion.name)
                if not os.path.exists(copy):
                    shutil.copyfile(companion.path, copy)
                copies.setdefault(id(companion), os.path.relpath(copy, output))
        copied[taken.label] = by_source[path]
        lines.append([taken.label, taken.owner, copied[taken.label], taken.origin.source])
    for companion in found.companions:        # one receipt each; one read beside no pooled run is not copied
        companion_lines.append([companion.owner, companion.name, str(companion.receipt.lines),
                                companion.receipt.sha256, copies.get(id(companion), ""), companion.origin.source])
    write_table(os.path.join(output, RUNS_FILE), lines)
    if len(companion_lines) > 1:
        write_table(os.path.join(output, COMPANIONS_FILE), companion_lines)
    return copied


def write_table(path: str, rows: List[List[str]]) -> None:
    """A TAB-separated file of the pool folder: cells escaped as the sheet's are (so only \\n ends a row, whatever
    line separators a name holds) and safe to open in a spreadsheet; read back by read_table."""
    from ..campaign.sheet import escape

    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join("\t".join(neutralise_cell(escape(cell)) for cell in row) + "\n" for row in rows))


def copy_official(official: Dict, folder: str) -> None:
    """The organiser's files the units cite (--pr-runs: r2c2-ac's official PR runs, which its nuggets are resolved
    against first), by name in the task's folder of the pool (Pooling.official_folder), read again by the task's
    reference writer; a submission's own copies stay beside its runs in DIR/runs/NN/."""
    os.makedirs(folder, exist_ok=True)
    for name, found in official.items():
        shutil.copyfile(found.path, os.path.join(folder, name))


def statistics(pool: pooling.Pool, args, unresolved: Dict[str, int], copies: Dict[str, str],
               left_out: List[str]) -> dict:
    return OrderedDict([
        ("task", pool.task_id), ("depth", pool.depth), ("order", args.order), ("seed", args.seed),
        ("runs_per_team", args.runs_per_team), ("phase", args.phase), ("deadline", args.deadline),
        ("runs", [OrderedDict([("run", r), ("team", t), ("file", copies[r])]) for r, t in pool.teams.items()]),
        ("items", pool.size()),
        ("items_per_topic", OrderedDict((t, len(items)) for t, items in pool.topics.items())),
        ("unique_per_run", pool.unique_to(lambda h: h.run)),
        ("unique_per_team", pool.unique_to(lambda h: h.team)),
        ("unresolved_nuggets_not_pooled", unresolved),
        ("left_out_or_replaced", left_out),
    ])


def print_summary(stats: dict, form: Pooling) -> None:
    per_topic = list(stats["items_per_topic"].values())
    say("pooled %d run(s) of %d team(s), %s: %d item(s) over %d topic(s) (%d to %d per topic)"
        % (len(stats["runs"]), len(set(r["team"] for r in stats["runs"])),
           "depth %d" % stats["depth"] if form.ranked else form.units_pooled,
           stats["items"], len(per_topic), min(per_topic), max(per_topic)))
    say("run\tteam\tunique items")
    for entry in stats["runs"]:
        say("%s\t%s\t%d" % (entry["run"], entry["team"], stats["unique_per_run"][entry["run"]]))
