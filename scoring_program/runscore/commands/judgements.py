"""`runscore judgements`: filled assessment sheets -> the task's reference folder (docs/campaign.md).

Usage: runscore judgements --task T --pool DIR/pool.tsv SHEET... -o REFDIR [--resolve majority|median|max|min]
       [--agreement FILE.json]

Each SHEET is one assessor's labelled copy of (part of) pool.tsv, as saved by the assessment page or a
spreadsheet: TAB-separated or CSV, with at least the columns topic, item and label (and text_sha1 where the pool's
items carry text); a label in any case, or as its number where the task's reference loader reads numbers. Labels are matched to the pool by (topic, item), never by row. Every problem of every sheet is
printed as `SHEET:LINE: error: topic T item I: ...` and nothing is written (exit 2: the sheets, like the pool, are
the organiser's files). With several sheets labelling the same items, the agreement (Cohen's kappa for two
sheets, Krippendorff's alpha for more; per topic and overall) is printed, and with --agreement written as JSON.
"""
import argparse
import json
import os
from typing import List

from ..campaign.agreement import agreement
from ..campaign.judgements import RESOLUTIONS, read_judgements
from ..campaign.pool import POOLED_TASKS
from ..campaign.reference_folder import write_reference
from ..errors import EXIT_CONFIG, EXIT_OK, ConfigError
from ..numeric import json_loads
from ..textfile import read_text

NAME = "judgements"
HELP = "turn filled assessment sheets into the task's reference folder (qrels / labels + task.yaml)"


def run(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="runscore judgements", description=HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="example:\n  runscore judgements --task temporalia-tir --pool pool/pool.tsv "
                                            "alice.tsv bob.tsv --resolve max -o reference/")
    parser.add_argument("--task", required=True, choices=POOLED_TASKS)
    parser.add_argument("--pool", required=True, help="the pool.tsv written by `runscore pool`")
    parser.add_argument("sheets", nargs="+", metavar="SHEET")
    parser.add_argument("-o", "--output", required=True, help="the reference folder to write (new or empty)")
    parser.add_argument("--resolve", choices=RESOLUTIONS, help="how differing labels of one item become one: "
                        "majority (a tie goes to the median), median (of the labels given; the lower middle one "
                        "for an even count), max or min (default: they are an error)")
    parser.add_argument("--agreement", help="write the agreement figures to this JSON file")
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
    for sheet in args.sheets:
        if not os.path.isfile(sheet):
            raise ConfigError("sheet %r does not exist" % sheet)
    judgements = read_judgements(args.task, args.pool, args.sheets, args.resolve)
    found = None
    if len(args.sheets) > 1:
        found = agreement(judgements.given, list(args.sheets))
    written = write_reference(judgements, pool_dir, args.output)
    print("%d label(s) of %d topic(s) from %d sheet(s)%s -> %s: %s"
          % (len(judgements.labels), len(judgements.topics), len(args.sheets),
             " (%d resolved by %s)" % (judgements.resolved, args.resolve) if judgements.resolved else "",
             args.output, ", ".join(written) if len(written) <= 8 else "%d files" % len(written)))
    if found is not None:
        print(agreement_table(found))
        if args.agreement:
            with open(args.agreement, "w", encoding="utf-8") as handle:
                json.dump(found, handle, indent=1)
                handle.write("\n")
    return EXIT_OK


def agreement_table(found: dict) -> str:
    def shown(value):
        return "n/a (undefined: one label only)" if value is None else "%.4f" % value

    lines = ["agreement (%s) over %d item(s) labelled more than once: %s"
             % (found["measure"], found["items"], shown(found["overall"])), "topic\titems\t%s" % found["measure"]]
    for topic, row in found["per_topic"].items():
        lines.append("%s\t%d\t%s" % (topic, row["items"], shown(row["value"])))
    return "\n".join(lines)
