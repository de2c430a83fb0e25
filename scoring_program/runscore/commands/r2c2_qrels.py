"""`runscore r2c2-qrels`: derive R2C2 PR qrels from AC nugget labels (offline helper, spec r2c2.md 4.3).

Why: the official PR qrels are not public; the design paper derives a passage's grade from the AC judgements
(nuggets citing it). This tool makes that derivation reproducible so the r2c2-pr scorer can be run on qrels
built from any label set. For every AC nugget line whose label is set (mode `entailed`, the default and the
reading consistent with topic 0039, or `relevant`, the design paper's reading), the cited (PRrunname,
PassageRank) is resolved to a passage of the PR runs and that passage's count grows by 1; level = min(count,
15), or L1 for any count with --binary. Every passage of the PR runs is written (L0 when never credited).

Usage: runscore r2c2-qrels --pr PR_RUN... --ac AC_RUN... --labels ac_nugget_labels.tsv
       [--mode entailed|relevant] [--binary] [--key-mode content|run_rank] [--aliases FILE] [-o OUT]
Output lines: `qID<TAB>passage_key<TAB>Lk` with a header line, sorted by qID then key.
"""
import argparse
import os
import re
import sys
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Optional, Tuple

from ..errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError, Diagnostics
from ..measures.ntcireval import MAX_LEVELS
from ..r2c2_format import (KEY_MODES, PRRun, bounded_int, key_text, normalise_qid, normalise_run_name,
                           parse_pr_run)
from ..textfile import numbered_lines, read_text

NAME = "r2c2-qrels"
HELP = "derive R2C2 PR qrels (qID, passage key, Lk) from AC nugget labels (offline helper)"
MODES = ("entailed", "relevant")

_OPEN = re.compile(r"<D(\d{3,4})>")
_CLOSE = re.compile(r"</D(\d{3,4})>")


class NuggetCitation(NamedTuple):
    """One nugget line of an AC run: which PR passage it cites."""

    qid: str
    number: str
    pr_run: str
    rank: str
    line: int


def read_ac_citations(path: str, diags: Diagnostics) -> List[NuggetCitation]:
    """The nugget lines of one AC run, read only as far as this helper needs (blocks `<Dxxxx>`...`</Dxxxx>`,
    the first content line of a block is `Answer;Confidence`, the others `NuggetNum;PRrunname;PassageRank;Nugget`
    split on the first three `;`). Format defects are warnings here: the r2c2-ac task validates AC runs."""
    citations: List[NuggetCitation] = []
    qid: Optional[str] = None
    answer_seen = False
    for line_no, line in numbered_lines(read_text(path, os.path.basename(path))):
        rest = line.strip()
        opening = _OPEN.match(rest)
        if opening:
            if qid is not None:
                diags.warning(line_no, "block <D%s> opened before </D%s> closed" % (opening.group(1), qid))
            qid, answer_seen = opening.group(1).zfill(4), False
            rest = rest[opening.end():].strip()
        closing = _CLOSE.search(rest)
        if closing:
            rest = rest[:closing.start()].strip()
        if rest:
            if qid is None:
                diags.warning(line_no, "text outside a <Dxxxx> block ignored")
            elif not answer_seen:
                answer_seen = True
            else:
                fields = rest.split(";", 3)
                if len(fields) < 4:
                    diags.warning(line_no, "nugget line with %d ';'-separated fields ignored (expected "
                                  "NuggetNum;PRrunname;PassageRank;Nugget)" % len(fields))
                else:
                    citations.append(NuggetCitation(qid, fields[0].strip(), fields[1].strip(), fields[2].strip(),
                                                    line_no))
        if closing:
            qid = None
    return citations


def read_nugget_labels(path: str) -> Dict[Tuple[str, str, str], Tuple[int, int]]:
    """`run_id qID NuggetNum entailed relevant` (TAB-separated, one header line) -> {(run, qID, num): labels}."""
    labels: Dict[Tuple[str, str, str], Tuple[int, int]] = {}
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        fields = [f.strip() for f in line.split("\t")]
        if not line.strip() or (line_no == 1 and fields[0].lower() == "run_id"):
            continue
        if len(fields) != 5:
            raise ConfigError("expected 5 TAB-separated fields 'run_id qID NuggetNum entailed relevant', found %d"
                              % len(fields), path, line_no)
        qid = normalise_qid(fields[1])
        if qid is None:
            raise ConfigError("qID %r is not a question id" % fields[1], path, line_no)
        if fields[3] not in ("0", "1") or fields[4] not in ("0", "1"):
            raise ConfigError("entailed and relevant must be 0 or 1, found %r and %r" % (fields[3], fields[4]),
                              path, line_no)
        entailed, relevant = int(fields[3]), int(fields[4])
        if relevant and not entailed:
            raise ConfigError("a relevant nugget must be entailed (relevant = 1, entailed = 0)", path, line_no)
        key = (normalise_run_name(fields[0]), qid, fields[2])
        if key in labels:
            raise ConfigError("duplicate label for run %s question %s nugget %s" % key, path, line_no)
        labels[key] = (entailed, relevant)
    return labels


def read_aliases(path: str) -> Dict[str, str]:
    """`display name<TAB>official run name` lines (e.g. a team's long name used in AC runs)."""
    aliases = {}
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise ConfigError("expected 'display name<TAB>run name'", path, line_no)
        aliases[normalise_run_name(fields[0])] = normalise_run_name(fields[1])
    return aliases


def derive_qrels(pr_runs: Dict[str, PRRun], citations: Dict[str, List[NuggetCitation]],
                 labels: Dict[Tuple[str, str, str], Tuple[int, int]], mode: str = "entailed",
                 binary: bool = False, key_mode: str = "content", aliases: Optional[Dict[str, str]] = None,
                 warn=None) -> "OrderedDict[Tuple[str, str], int]":
    """{(qID, passage key text): level} over every passage of the PR runs, sorted (see the module docstring)."""
    warn = warn or (lambda message: None)
    counts: Dict[Tuple[str, str], int] = {}
    for run in pr_runs.values():
        for qid in run.topics:
            for rank, _ in run.passages(qid):
                counts.setdefault((qid, key_text(run.key(qid, rank, key_mode))), 0)
    column = MODES.index(mode)
    for ac_run, lines in citations.items():
        for cite in lines:
            label = labels.get((ac_run, cite.qid, cite.number))
            if label is None:
                warn("%s:%d: no label for question %s nugget %s; counted as not entailed"
                     % (ac_run, cite.line, cite.qid, cite.number))
                continue
            if not label[column]:
                continue
            pr_name = normalise_run_name(cite.pr_run, aliases)
            run = pr_runs.get(pr_name)
            rank = bounded_int(cite.rank) if re.fullmatch(r"\d+", cite.rank) else None
            if run is None or rank is None or run.passage(cite.qid, rank) is None:
                warn("%s:%d: nugget %s cites %s;%s, which no PR run has for question %s; not counted"
                     % (ac_run, cite.line, cite.number, cite.pr_run, cite.rank, cite.qid))
                continue
            key = (cite.qid, key_text(run.key(cite.qid, rank, key_mode)))
            counts[key] += 1
    return OrderedDict((key, (min(count, 1) if binary else min(count, MAX_LEVELS)))
                       for key, count in sorted(counts.items()))


def run(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="runscore r2c2-qrels", description=HELP)
    parser.add_argument("--pr", nargs="+", required=True, help="PR run files ([Team]-{PG|PO}-[1-4])")
    parser.add_argument("--ac", nargs="+", required=True, help="AC run files ([Team]-AC-[1-4])")
    parser.add_argument("--labels", required=True, help="ac_nugget_labels.tsv")
    parser.add_argument("--mode", choices=MODES, default="entailed", help="which nugget label credits a passage")
    parser.add_argument("--binary", action="store_true", help="L1 for any credited passage (else L = count, <= 15)")
    parser.add_argument("--key-mode", choices=KEY_MODES, default="content", help="passage identity")
    parser.add_argument("--aliases", help="TAB-separated 'display name<TAB>run name' file")
    parser.add_argument("-o", "--output", help="output file (default: standard output)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_CONFIG
    aliases = read_aliases(args.aliases) if args.aliases else {}
    labels = read_nugget_labels(args.labels)
    pr_runs: Dict[str, PRRun] = {}
    failed = False
    for path in args.pr:
        diags = Diagnostics(os.path.basename(path))
        pr_run = parse_pr_run(path, os.path.basename(path), diags)
        for text in diags.lines():
            print(text, file=sys.stderr)
        failed = failed or diags.has_errors
        if pr_run.name in pr_runs:
            raise ConfigError("two PR runs are named %s" % pr_run.name, path)
        pr_runs[pr_run.name] = pr_run
    citations: Dict[str, List[NuggetCitation]] = {}
    for path in args.ac:
        diags = Diagnostics(os.path.basename(path))
        citations[normalise_run_name(path)] = read_ac_citations(path, diags)
        for text in diags.lines():
            print(text, file=sys.stderr)
    if failed:
        return EXIT_INVALID_RUN
    qrels = derive_qrels(pr_runs, citations, labels, args.mode, args.binary, args.key_mode, aliases,
                         warn=lambda message: print("warning: " + message, file=sys.stderr))
    text = "qID\tpassage_key\tlevel\n" + "".join("%s\t%s\tL%d\n" % (qid, key, level)
                                                  for (qid, key), level in qrels.items())
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
