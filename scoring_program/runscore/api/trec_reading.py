"""What api.trec_eval reads: the command's argv from the API's keywords, qrels and runs given as files (read as
`runscore trec_eval` reads them, its lenient readings as warnings or, with strict, errors), dicts or DataFrames
(checked by inmemory.py), and the command's stops as the API's errors (ConfigError for the qrels, RunError for
the run)."""
import os
from typing import List

from .. import inmemory
from ..errors import ConfigError, Diagnostic, RunError
from .inputs import InvalidRunsError


def trec_argv(measures, complete, level, max_docs, judged_only, num_docs_in_coll, version,
              keep_first_duplicate) -> List[str]:
    """The command line of `runscore trec_eval` that the API's keywords stand for."""
    if isinstance(measures, str):
        measures = [measures]
    argv = []
    for measure in measures or ():
        if not isinstance(measure, str):
            raise ConfigError("measures are trec_eval -m arguments (strings), not %r" % (measure,))
        argv += ["-m", measure]
    if version not in ("9.0.8", "10.0"):
        raise ConfigError("version is '9.0.8' or '10.0', not %r" % (version,))
    argv += ["-l", str(level)] + (["-M", str(max_docs)] if max_docs is not None else [])
    argv += ["-N", str(num_docs_in_coll)] + (["-c"] if complete else []) + (["-J"] if judged_only else [])
    return argv + (["--v10"] if version == "10.0" else []) + (["--keep-first-duplicate"] if keep_first_duplicate
                                                              else [])


def as_api_error(exc, qrels_path: str) -> Exception:
    """What trec_eval stops on (the command's exits 2, 4 and 7) as the API's error: ConfigError when the qrels
    are at fault, RunError when the run is."""
    where, _, message = exc.detail.partition(": error: ")
    qrels_fault = where == qrels_path or where.startswith(qrels_path + ":")
    return (ConfigError if qrels_fault else RunError)(message, where)


def id_text(name: str) -> str:
    """An id read from a file's bytes (kept as Latin-1 characters, one per byte) as the text it is in UTF-8."""
    try:
        return name.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return name


def read_as_trec_eval(command, settings, qrels_path, run_path, warnings, strict):
    """Both files read as `runscore trec_eval` reads them: its notes (what trec_eval reads silently: a score
    `abc` read as 0, a grade `1.5` read as 1, a BOM kept in an id, a repeated docno) become `warnings`, or
    errors with `strict` (ConfigError for the qrels, InvalidRunsError for the run)."""
    from ..ranking.trec_eval_files import read_qrels, read_run

    qrels = read_qrels(file_bytes(qrels_path, "qrels"), qrels_path, settings.v10)
    run = read_run(file_bytes(run_path, "run"), run_path, settings.v10)
    if settings.keep_first_duplicate:
        command._keep_first_lines(run, run.notes)
    else:
        command._duplicate_notes(run, run.notes)
    shown = {}
    for path, notes in ((qrels_path, qrels.notes), (run_path, run.notes)):
        shown[path] = ["%s: %s: %s" % ("%s:%d" % (path, n.line) if n.line else path, "error" if strict else
                                       "warning", n.message) for n in sorted(notes, key=lambda n: n.line)]
        warnings.extend([] if strict else shown[path])
    # as the command: with strict, a refused run line wins (exit 1) over a refused qrels line (exit 2)
    if strict and run.notes:
        raise InvalidRunsError(shown[run_path], {run_path: [Diagnostic(run_path, n.line, "error", n.message)
                                                            for n in run.notes]})
    if strict and qrels.notes:
        first = min(qrels.notes, key=lambda n: n.line)
        raise ConfigError(first.message, qrels_path, first.line)
    return qrels, run


def file_bytes(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise ConfigError("cannot read the %s file: %s" % (what, exc.strerror), path)


def qrels_file(path: str, settings, warnings=None, strict=False):
    """{qid: {docno: grade}} of a qrels file read as `runscore trec_eval` reads it (a judgement repeated for a
    topic is an error: a dict holds one)."""
    from ..ranking.trec_eval_files import read_qrels

    qrels = read_qrels(file_bytes(path, "qrels"), path, settings.v10)
    _notes_to(qrels.notes, path, warnings, strict, ConfigError)
    out = {}
    for qid in qrels.topics:
        twice = qrels.duplicate(qid)
        if twice is not None:
            raise ConfigError("duplicate judgement of %s in topic %s (first at line %d)"
                              % (id_text(twice[0]), id_text(qid), twice[1]), path, twice[2])
        out[id_text(qid)] = {id_text(d): g for d, g in qrels.grades(qid).items()}
    return out


def run_file(path: str, settings, warnings, strict=False):
    """({qid: {docno: score}}, run id) of a run file read as `runscore trec_eval` reads it (a repeated docno is
    an error, as a dict holds one score, unless keep_first_duplicate)."""
    from ..commands import trec_eval as command
    from ..ranking.trec_eval_files import read_run

    run = read_run(file_bytes(path, "run"), path, settings.v10)
    if settings.keep_first_duplicate:
        command._keep_first_lines(run, run.notes)
    _notes_to(run.notes, path, warnings, strict, RunError)
    out = {}
    for qid, topic in run.topics.items():
        ranked = out[id_text(qid)] = {}
        for docno, score, line in zip(topic.docnos, topic.scores, topic.lines):
            if id_text(docno) in ranked:
                raise RunError("duplicate docno %s in topic %s (keep_first_duplicate=True keeps the first)"
                               % (id_text(docno), id_text(qid)), path, line)
            ranked[id_text(docno)] = score
    return out, id_text(run.run_id)


def _notes_to(notes, path, warnings, strict, error_class):
    for note in sorted(notes, key=lambda n: n.line):
        if strict:
            raise error_class(note.message, path, note.line)
        if warnings is not None:
            warnings.append("%s: warning: %s" % ("%s:%d" % (path, note.line) if note.line else path, note.message))


def memory_side(command, settings, qrels, run, warnings, strict=False):
    """Qrels and run as checked dicts, whatever each was given as."""
    if isinstance(qrels, (str, os.PathLike)):
        qrels = qrels_file(os.fspath(qrels), settings, warnings, strict)
    qrels = inmemory.qrels_dict(qrels)
    if isinstance(run, (str, os.PathLike)):
        run = run_file(os.fspath(run), settings, warnings, strict)[0]
    run = inmemory.run_dict(run)
    inmemory.check_run(run)
    return qrels, run
