"""`runscore trec_eval`: a drop-in for the trec_eval command line (9.0.8 output by default, 10.0 with --v10).

Why: users of trec_eval can check that runscore gives their numbers, line for line, before they trust its
task scorers, which share the same ranking, labelling and measure code (rankeval, label, measures.trec).
Options follow trec_eval's own syntax (getopt: `-mP.5,10`, `-m P.5,10`, `-M100`, `-l2`, `-qc`, long forms);
bad input is reported as `FILE:LINE: error: message` (exit 1 for the run, 2 for the qrels or usage).

This module is the door: it reads the two files (or hands them to the fast path), says what trec_eval reads
silently and prints. The command line is commands/trec_eval/options.py, trec_eval's main loop and its lines
commands/trec_eval/loop.py.
"""
import sys
from typing import Dict, List, Optional, Sequence

from ...ranking import fastpath
from ...errors import EXIT_CONFIG, EXIT_INVALID_RUN, EXIT_OK, ConfigError
from ...ranking.rankeval import TopicRun
from ...ranking.trec_eval_files import Note, TrecEvalFailure, read_qrels, read_run
from .loop import (BOGUS_DOCNO, Evaluation, evaluate, grade_counts, summary_lines, summary_values,
                             topic_lines, zero_bogus)
from .options import EXIT_USAGE, Settings, _InitError, _Usage, help_text, parse_settings, select_measures

# The names api.trec_eval and the tests take from this module, the command's door (the loop and the command line
# are commands/trec_eval/loop.py and commands/trec_eval/options.py).
__all__ = ["NAME", "HELP", "run", "BOGUS_DOCNO", "Evaluation", "evaluate", "grade_counts", "summary_lines",
           "summary_values", "topic_lines", "zero_bogus", "Settings", "help_text", "parse_settings",
           "select_measures"]

EXIT_FILES = 2      # trec_eval's exit code for a file it cannot read or use

NAME = "trec_eval"
HELP = "trec_eval-compatible evaluation: runscore trec_eval [-q] [-c] [-M N] [-l N] [-m MEASURE]... QRELS RUN"


def run(argv: Sequence[str]) -> int:
    try:
        return _run(argv)
    except _Usage as exc:
        if exc.trec_eval_line:
            print(exc.trec_eval_line, file=sys.stderr)
        print("runscore trec_eval: error: %s" % exc.args[0], file=sys.stderr)
        print("usage: runscore trec_eval [options] QRELS RUN  (runscore trec_eval -h for help)", file=sys.stderr)
        return EXIT_USAGE
    except _InitError as exc:
        print(exc.text, file=sys.stderr)
        return EXIT_CONFIG
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_CONFIG


def _read_bytes(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        if what == "qrels":
            raise TrecEvalFailure("trec_eval.get_qrels: Cannot read qrels file '%s'\ntrec_eval: Quit in file '%s'\n"
                                  % (path, path), 2, "%s: error: cannot read the qrels file: %s" % (path, exc.strerror))
        raise TrecEvalFailure("trec_eval.get_results: Cannot read results file '%s'\ntrec_eval: Quit in file '%s'\n"
                              % (path, path), 2, "%s: error: cannot read the run file: %s" % (path, exc.strerror))


def _report_notes(notes, path: str, strict: bool, code: int) -> Optional[int]:
    """Print what trec_eval reads silently: warnings, or errors with --strict (then the exit code)."""
    notes = sorted(notes, key=lambda note: note.line)
    for note in notes[:50]:
        where = "%s:%d" % (path, note.line) if note.line else path
        print("%s: %s: %s" % (where, "error" if strict else "warning", note.message), file=sys.stderr)
    if len(notes) > 50:
        print("%s: %s: ... and %d more" % (path, "error" if strict else "warning", len(notes) - 50), file=sys.stderr)
    return code if strict and notes else None


def _keep_first_lines(run, notes) -> None:
    """--keep-first-duplicate: a repeated docno of a topic is dropped (its first line counts), with a warning."""
    for qid, topic in run.topics.items():
        seen: Dict[str, int] = {}
        keep = []
        for i, (docno, line) in enumerate(zip(topic.docnos, topic.lines)):
            if docno in seen:
                notes.append(Note(line, "duplicate docno %s in topic %s (first seen at line %d); this line is "
                                        "ignored" % (docno, qid, seen[docno])))
                continue
            seen[docno] = line
            keep.append(i)
        if len(keep) != len(topic.docnos):
            run.topics[qid] = TopicRun([topic.docnos[i] for i in keep], [topic.scores[i] for i in keep],
                                       [topic.lines[i] for i in keep])


def _duplicate_notes(run, notes) -> None:
    """A docno listed twice for a topic: a warning (an error with --strict) wherever it is; trec_eval itself
    only notices it within -M documents of an evaluated topic (then exit 4) and ranks it like any line elsewhere."""
    for qid, topic in run.topics.items():
        seen: Dict[str, int] = {}
        for docno, line in zip(topic.docnos, topic.lines):
            if docno in seen:
                notes.append(Note(line, "duplicate docno %s in topic %s (first seen at line %d)"
                                  % (docno, qid, seen[docno])))
            else:
                seen[docno] = line


def _write(lines: Sequence[str]) -> None:
    """Lines to stdout as bytes: ids are Latin-1 strings standing for the files' bytes."""
    data = "".join(line + "\n" for line in lines).encode("latin-1")
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("latin-1"))
    else:
        buffer.write(data)
        buffer.flush()


def _run(argv: Sequence[str]) -> int:
    settings, positional = parse_settings(argv)
    if settings.help:
        print(help_text())
        return EXIT_OK
    if settings.version:
        from ... import __version__
        # trec_eval prints its VersionID on stderr (9.0.8's still says 9.0.7), nothing on stdout.
        print("trec_eval version %s" % ("10.0-rc3" if settings.v10 else "9.0.7"), file=sys.stderr)
        print("runscore %s trec_eval front end (trec_eval %s rules)" % (__version__,
                                                                          "10.0" if settings.v10 else "9.0.8"),
              file=sys.stderr)
        return EXIT_OK
    if len(positional) != 2:
        raise _Usage("expected two files, QRELS and RUN, got %d argument(s)" % len(positional))
    qrels_path, run_path = positional
    settings.qrels_path = qrels_path
    for note in settings.notes:
        print("runscore trec_eval: %s: %s" % ("error" if settings.strict else "warning", note), file=sys.stderr)
    if settings.notes and settings.strict:
        return EXIT_USAGE
    if settings.max_docs is not None and settings.max_docs < 0:
        raise _Usage("-M needs a number >= 0, got %d (trec_eval crashes on a negative -M)" % settings.max_docs)
    notes: List[str] = []
    measures, params = select_measures(settings.measure_args, settings.v10, notes)
    for note in notes:
        print("runscore trec_eval: %s: %s" % ("error" if settings.strict else "warning", note), file=sys.stderr)
    if notes and settings.strict:
        return EXIT_USAGE
    out: List[str] = []
    try:
        fast = fastpath.trec_eval(settings, qrels_path, run_path, measures, params, min_bytes=0)
        if fast is not None:
            evaluation, run_id = Evaluation.of_columns(fast, settings.complete), fast.run_id
            if settings.per_topic:
                for qid in evaluation.printed:
                    out.extend(topic_lines(qid, measures, evaluation.values[qid], params, settings.full_precision))
        else:
            evaluation, run_id = _exact(settings, qrels_path, run_path, measures, params, out)
            if evaluation is None:
                return run_id
    except TrecEvalFailure as failure:
        _write(out)
        sys.stderr.write(failure.stderr)
        if failure.detail:
            print(failure.detail, file=sys.stderr)
        return failure.code
    except MemoryError:
        # The line-by-line reader holds about ten times the file; the columnar reader, which takes nearly every
        # file in a tenth of that, declined this one (a BOM, -J, standard input, see docs/trec_eval.md).
        print("runscore trec_eval: error: not enough memory to evaluate %s line by line; nothing was printed"
              % run_path, file=sys.stderr)
        return EXIT_FILES
    if settings.summary:
        out.extend(summary_lines(measures, evaluation, params, run_id, settings.full_precision))
    _write(out)
    return EXIT_OK


def _exact(settings: Settings, qrels_path: str, run_path: str, measures, params, out: List[str]):
    """Read both files as trec_eval does and run its main loop: (Evaluation, run id), or (None, exit code)
    when --strict refuses what trec_eval would read silently."""
    qrels = read_qrels(_read_bytes(qrels_path, "qrels"), qrels_path, settings.v10)
    if run_path == "-":
        run = read_run(sys.stdin.buffer.read(), "-", settings.v10, "<stdin>")
        shown = "<stdin>"
    else:
        run = read_run(_read_bytes(run_path, "run"), run_path, settings.v10)
        shown = run_path
    if settings.keep_first_duplicate:
        _keep_first_lines(run, run.notes)
    else:
        _duplicate_notes(run, run.notes)
    code = _report_notes(qrels.notes, qrels_path, settings.strict, EXIT_CONFIG)
    code = _report_notes(run.notes, shown, settings.strict, EXIT_INVALID_RUN) or code
    if code:
        return None, code
    warnings: List[str] = []
    try:
        evaluation = evaluate(settings, qrels, run, measures, params, shown, out, warnings)
    finally:                        # also when trec_eval's stop follows: its crash may come first
        for warning in warnings:
            print(warning, file=sys.stderr)
    return evaluation, run.run_id
