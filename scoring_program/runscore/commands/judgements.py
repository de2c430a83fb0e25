"""`runscore judgements`: filled assessment sheets -> the task's reference folder (docs/campaign.md).

Usage: runscore judgements --task T --pool DIR/pool.tsv [ASSESSOR=]SHEET... -o REFDIR
       [--resolve majority|median|max|min] [--agreement FILE.json] [--assessor-by-folder] [--disagreements FILE]
       [--partial]

Each SHEET is one assessor's labelled copy of (part of) pool.tsv, as saved by the assessment page or a
spreadsheet, or a qrels file (TREC `topic iter item grade` or NTCIR `topic item Lk`: an earlier round's
judgements, merged with the new sheets; its judgements of items outside the pool are counted, not errors). A sheet
is TAB-separated or CSV, with at least the columns topic, item and label (and text_sha1 where the pool's
items carry text); a label in any case, or as its number where the task's reference loader reads numbers. Labels are matched to the pool by (topic, item), never by row. Every problem of every sheet is
printed as `SHEET:LINE: error: topic T item I: ...` and nothing is written (exit 2: the sheets, like the pool, are
the organiser's files); items labelled differently without --resolve are one summary line, and --disagreements
writes them as a sheet for a third assessor. With several assessors (a sheet each, or named: ann=a1.tsv ann=a2.tsv,
or --assessor-by-folder) labelling the same items, the agreement of the assessors, not of the files (Cohen's kappa
for two, Krippendorff's alpha for more, on the labels and on binary relevance at each level; per pair of
assessors, per topic and overall) is printed, and with --agreement written as JSON.
"""
import argparse
import json
import os
import sys
from typing import Dict, List, Optional, Tuple

from ..campaign.agreement import agreement
from ..campaign.judgements import RESOLUTIONS, read_judgements
from ..campaign.pool import pooled_tasks
from ..campaign.reference_folder import write_reference
from ..campaign.sheet import LABEL, write_sheet
from ..errors import EXIT_CONFIG, EXIT_OK, ConfigError
from ..numeric import json_loads
from ..tasks import get_task
from ..textfile import read_text

NAME = "judgements"
HELP = "turn filled assessment sheets into the task's reference folder (qrels / labels + task.yaml)"


def sheet_assessors(sheets: List[str], by_folder: bool) -> Tuple[List[str], Dict[str, str]]:
    """The sheets' paths and the assessor of each: `NAME=PATH` names one (a path that exists as given is a path,
    whatever it holds), --assessor-by-folder takes the sheet's folder (assess/NAME/ as the pool writes it),
    otherwise each sheet is an assessor of its own."""
    paths, assessor_of = [], {}
    for written in sheets:
        name, path = None, written
        if "=" in written and not os.path.exists(written):
            name, path = written.split("=", 1)
            if not name.strip():
                raise ConfigError("sheet %r: the assessor's name before '=' is empty" % written)
        if not os.path.isfile(path):
            raise ConfigError("sheet %r does not exist" % path)
        if name is None:
            name = os.path.basename(os.path.dirname(os.path.abspath(path))) if by_folder else path
        paths.append(path)
        assessor_of[path] = name.strip()
    return paths, assessor_of


def by_assessor(given: Dict, assessor_of: Dict[str, str]) -> Dict:
    """(topic, item) -> {assessor: label}: an assessor's first label of an item over their sheets."""
    out = {}
    for key, by_sheet in given.items():
        labels: Dict[str, str] = {}
        for sheet, label in by_sheet.items():
            labels.setdefault(assessor_of[sheet], label)
        out[key] = labels
    return out


def write_disagreements(path: str, items, pool_rows, assessor_of: Dict[str, str]) -> None:
    """The items labelled differently as a sheet for a third assessor: the pool's key (and unit, text hash and
    text where the pool has them), each assessor's label, an empty label column. Given back to `runscore
    judgements` with the first sheets and --resolve majority, the adjudicator's label decides whenever it agrees
    with one of the others (and the median of the three otherwise)."""
    extra = [c for c in ("unit", "text_sha1", "text") if any(c in pool_rows[key] for key, _ in items)]
    columns = ["topic", "item"] + extra + ["labels", LABEL]
    rows = []
    for key, by_sheet in items:
        pooled = pool_rows[key]
        row = {"topic": key[0], "item": key[1], LABEL: "",
               "labels": "; ".join("%s: %s" % (assessor_of[sheet], label) for sheet, label in by_sheet.items())}
        row.update((c, pooled.get(c, "")) for c in extra)
        rows.append(row)
    write_sheet(path, columns, rows)


def run(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="runscore judgements", description=HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example:\n  runscore judgements --task temporalia-tir --pool pool/pool.tsv "
                                            "ann=a1.tsv ann=a2.tsv ben=b.tsv --resolve max -o reference/")
    parser.add_argument("--task", required=True, choices=pooled_tasks())
    parser.add_argument("--pool", required=True, help="the pool.tsv written by `runscore pool`")
    parser.add_argument("sheets", nargs="+", metavar="[ASSESSOR=]SHEET")
    parser.add_argument("-o", "--output", required=True, help="the reference folder to write (new or empty)")
    parser.add_argument("--resolve", choices=RESOLUTIONS, help="how differing labels of one item become one: "
                        "majority (a tie goes to the median), median (of the labels given; the lower middle one "
                        "for an even count), max or min (default: they are an error)")
    parser.add_argument("--agreement", help="write the agreement figures to this JSON file")
    parser.add_argument("--assessor-by-folder", action="store_true", help="a sheet's assessor is its folder's "
                        "name (assess/NAME/ as `runscore pool --assessors` writes it), not the sheet itself")
    parser.add_argument("--partial", action="store_true", help="write the reference of the topics whose pooled "
                        "items are all labelled, and list the others (default: an unlabelled item is an error)")
    parser.add_argument("--disagreements", metavar="FILE", help="write the items labelled differently as a sheet "
                        "for a third assessor (each assessor's label shown), even when the import is refused")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_CONFIG
    if not os.path.isfile(args.pool):
        raise ConfigError("pool sheet %r does not exist" % args.pool)
    pool_dir = os.path.dirname(os.path.abspath(args.pool))
    stats_path = os.path.join(pool_dir, "pool_stats.json")
    if os.path.isfile(stats_path):
        try:
            stats = json_loads(read_text(stats_path, error_class=ConfigError))
        except (ValueError, RecursionError) as exc:      # a number past 18 digits is refused before conversion
            raise ConfigError("cannot read the pool's statistics: %s" % str(exc)[:200], stats_path)
        pooled_task = stats.get("task") if isinstance(stats, dict) else None
        if pooled_task != args.task:
            raise ConfigError("the pool was built for task %s, not %s" % (pooled_task, args.task), stats_path)
    sheets, assessor_of = sheet_assessors(args.sheets, args.assessor_by_folder)
    if args.disagreements and os.path.abspath(args.disagreements) in {os.path.abspath(p) for p in
                                                                      [args.pool, stats_path] + sheets}:
        raise ConfigError("--disagreements %s would overwrite the pool or a sheet; name a new file"
                          % args.disagreements)

    def disagreements(items, pool_rows):
        if args.disagreements:
            write_disagreements(args.disagreements, items, pool_rows, assessor_of)
            print("%d item(s) labelled differently -> %s" % (len(items), args.disagreements), file=sys.stderr)

    judgements = read_judgements(args.task, args.pool, sheets, args.resolve, disagreements, args.partial)
    for note in judgements.notes:
        print("note: %s" % note, file=sys.stderr)
    assessors = list(dict.fromkeys(assessor_of[s] for s in sheets))
    found = None
    if len(assessors) > 1:
        form = get_task(args.task).assessment
        found = agreement(by_assessor(judgements.given, assessor_of), assessors,
                          lambda key: form.scale(judgements.pool_rows[key].get("unit", "")).labels)
    written = write_reference(judgements, pool_dir, args.output)
    print("%d label(s) of %d topic(s) from %d sheet(s)%s%s -> %s: %s"
          % (len(judgements.labels), len(judgements.topics), len(sheets),
             " of %d assessor(s)" % len(assessors) if len(assessors) != len(sheets) else "",
             " (%d resolved by %s)" % (judgements.resolved, args.resolve) if judgements.resolved else "",
             args.output, ", ".join(written) if len(written) <= 8 else "%d files" % len(written)))
    if judgements.incomplete:
        print("--partial: %d topic(s) left out, not every pooled item labelled (topic, unlabelled, pooled):"
              % len(judgements.incomplete))
        for topic, (missing, total) in judgements.incomplete.items():
            print("%s\t%d\t%d" % (topic, missing, total))
    if found is not None:
        if found["items"]:     # sheets of different topics (one a topic, each its own assessor) share no item
            print(agreement_table(found, level_names(get_task(args.task).assessment)))
        if args.agreement:
            with open(args.agreement, "w", encoding="utf-8") as handle:
                json.dump(found, handle, indent=1)
                handle.write("\n")
    return EXIT_OK


def _shown(value) -> str:
    return "n/a" if value is None else "%.4f" % value


def level_names(form) -> Dict[str, str]:
    """label -> its name on the task's scales (a form's grade 1 -> "partially relevant"), where the name is not
    the label itself, for the agreement's binary levels."""
    names: Dict[str, str] = {}
    for scale in form.scales.values():
        for label, name in zip(scale.labels, scale.names):
            if name and name != label:
                names.setdefault(label, name)
    return names


def level_title(level: str, names: Dict[str, str]) -> str:
    """A binary level in the scale's words: "relevant: 1 (partially relevant) and above"."""
    return "relevant: %s%s and above" % (level, " (%s)" % names[level] if level in names else "")


def agreement_table(found: dict, names: Optional[Dict[str, str]] = None) -> str:
    """The agreement as printed: overall (labels, then binary relevance at each level, named by the scale's
    `names`), each pair of assessors, each topic. n/a: undefined (every label the same, nothing to beat chance
    with)."""
    names = names or {}
    measure = found["measure"]
    lines = ["agreement (%s) of %d assessor(s) over %d item(s) labelled more than once (%d labelled differently): "
             "labels %s" % (measure, len(found["assessors"]), found["items"], found["disagreements"],
                            _shown(found["overall"]))]
    for level, value in found["binary"].items():
        lines[0] += "; %s %s" % (level_title(level, names), _shown(value))
    levels = list(found["binary"])
    lines.append("\t".join(["assessor", "assessor", "items", "equal", "kappa"] +
                           ["kappa %s" % level_title(level, names) for level in levels]))
    for pair in found["pairs"]:
        lines.append("\t".join(pair["assessors"] + [str(pair["items"]), str(pair["equal"]), _shown(pair["kappa"])] +
                               [_shown(pair["binary"].get(level)) for level in levels]))
    lines.append("topic\titems\t%s" % measure)
    for topic, row in found["per_topic"].items():
        lines.append("%s\t%d\t%s" % (topic, row["items"], _shown(row["value"])))
    return "\n".join(lines)
