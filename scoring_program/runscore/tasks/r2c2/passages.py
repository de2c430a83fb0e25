"""Resolving an AC nugget's PassageKey (PRrunname, PassageRank) to a passage of a PR run.

Why a module of its own: a nugget is only worth something if the passage it cites exists (the official
Stage A drops a nugget its passage does not support), and the passages may come from two places: the pool
of all teams' PR runs in the reference folder (the seed lets an AC run cite any team's PR run; spec 1.2, 8)
and the PR runs sent in the same submission. PR runs are read with runscore.tasks.r2c2.pr_format, exactly as task
r2c2-pr reads them; names are normalised there too (`.txt` dropped, display names mapped through the alias
table of the reference data).

Precedence (Proposed): a pool run wins over a submission run of the same name (the pool holds the runs that
were assessed); the submission's copy is then ignored with a warning.
"""
import os
from collections import ChainMap
from typing import Dict, List, Mapping, NamedTuple, Optional

from ...errors import ConfigError, Diagnostics, RunError
from ..base import SubmissionCache
from .pr_format import PRRun, normalise_run_name, parse_pr_run, parse_run_name


class Resolution(NamedTuple):
    """Where a PassageKey led: `ok` with the run name, or not ok with the reason (`unknown_run`, `no_rank`)."""

    ok: bool
    run_name: str
    reason: str = ""


class PassagePool:
    """PR runs by normalised name, and the alias table used to normalise a cited name."""

    def __init__(self, runs: Mapping[str, PRRun], aliases: Optional[Dict[str, str]] = None):
        self.runs = runs if isinstance(runs, ChainMap) else dict(runs)
        self.aliases = dict(aliases or {})

    def name_of(self, written: str) -> str:
        return normalise_run_name(written, self.aliases)

    def resolve(self, qid: str, written_run: str, rank: int) -> Resolution:
        name = self.name_of(written_run)
        run = self.runs.get(name)
        if run is None:
            return Resolution(False, name, "unknown_run")
        if run.passage(qid, rank) is None:
            return Resolution(False, name, "no_rank")
        return Resolution(True, name)

    def merged(self, extra: Dict[str, PRRun]) -> "PassagePool":
        """This pool plus runs not already in it (pool runs win, see the module docstring); a view, not a copy,
        so that each AC run of a many-file submission costs the same."""
        return PassagePool(ChainMap(self.runs, extra), self.aliases)


def load_pool(folder: str, aliases: Optional[Dict[str, str]] = None) -> PassagePool:
    """Every PR run in `folder` (files named `[Team]-{PG|PO}-[1-4]`, optional `.txt`); ConfigError if one is
    invalid or two files give the same run name (the reference must be clean)."""
    if not os.path.isdir(folder):
        raise ConfigError("PR run pool folder %r does not exist" % folder)
    runs: Dict[str, PRRun] = {}
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.startswith(".") or not os.path.isfile(path):
            continue
        name = normalise_run_name(entry)
        if parse_run_name(name) is None:
            raise ConfigError("file %r in the PR run pool is not named [TeamName]-{PG|PO}-[RunNumber]" % entry,
                              folder)
        if name in runs:
            raise ConfigError("two files of the PR run pool are named %s" % name, folder)
        diags = Diagnostics(path)
        try:
            run = parse_pr_run(path, path, diags)
        except RunError as exc:          # unreadable (not UTF-8 ...): the organiser's file, so exit 2
            raise ConfigError("PR run of the pool is unreadable: %s" % exc.diagnostic.message, path,
                              exc.diagnostic.line)
        if diags.has_errors:
            first = diags.first_error()
            raise ConfigError("PR run of the pool is invalid (%d error(s)); first: %s"
                              % (diags.error_count, first), path)
        runs[name] = run
    return PassagePool(runs, aliases)


def submission_pr_runs(ac_path: str, ac_display: str, diags: Diagnostics,
                       pool: Optional[PassagePool]) -> Dict[str, PRRun]:
    """The valid PR runs lying next to an AC run file (same folder of the submission), by normalised name.

    Why siblings: Codabench checks a submission file by file, so this is how an AC run sees the PR runs sent
    with it. An invalid sibling is not used (warning here; its own errors are reported when it is checked as
    a run of task r2c2-pr).
    """
    folder = os.path.dirname(os.path.abspath(ac_path))
    shown_folder = os.path.dirname(ac_display)
    key = (_stat_key(folder), shown_folder, id(pool))
    cached = _RESOLVED.get(key) if SubmissionCache.active else None
    if cached is None or cached[3] is not pool:
        found: Dict[str, PRRun] = {}
        clashes: List[str] = []
        invalid: List[tuple] = []
        for entry in _pr_run_files(folder):
            path = os.path.join(folder, entry)
            name = normalise_run_name(entry)
            shown = os.path.join(shown_folder, entry) if shown_folder else entry
            if pool is not None and name in pool.runs:
                clashes.append(shown)
                continue
            run, problem, _ = read_sibling(path, shown)
            if problem is not None:
                invalid.append((shown, problem))
                continue
            found[name] = run
        cached = (found, clashes, invalid, pool)
        if SubmissionCache.active:
            _RESOLVED[key] = cached
    found, clashes, invalid, _ = cached
    # one warning of each kind per AC run, whatever the number of PR runs (no N x M messages)
    if clashes:
        diags.warning(0, "PR run %s of the submission has the name of a run of the reference pool; the pool's run "
                      "is used to resolve PassageKeys" % clashes[0] + _more(len(clashes) - 1))
    if invalid:
        diags.warning(0, "PR run %s of the submission is %s; PassageKeys citing it are not resolved"
                      % invalid[0] + _more(len(invalid) - 1))
    return found


def _more(count: int) -> str:
    return " (and %d more PR run(s) like it)" % count if count > 0 else ""


# Within one submission (tasks.base.submission_scope, opened by score.py and the CLI) each PR run is parsed once,
# however many AC runs lie beside it, and each folder is listed once (re-reading them for every AC file once
# made a submission's cost grow with the square of its files). Outside a scope nothing is cached.
_SIBLINGS: Dict[tuple, tuple] = SubmissionCache.register({})
_RESOLVED: Dict[tuple, tuple] = SubmissionCache.register({})
_FOLDERS: Dict[tuple, List[str]] = SubmissionCache.register({})


def _stat_key(path: str) -> Optional[tuple]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (path, info.st_size, info.st_mtime_ns, info.st_ino)


def _pr_run_files(folder: str) -> List[str]:
    """Names of the files of `folder` named like PR runs, sorted (listed once per folder state)."""
    key = _stat_key(folder)
    cached = _FOLDERS.get(key) if key and SubmissionCache.active else None
    if cached is not None:
        return cached
    names = [entry for entry in sorted(os.listdir(folder)) if not entry.startswith(".")
             and parse_run_name(normalise_run_name(entry)) is not None
             and os.path.isfile(os.path.join(folder, entry))]
    if key and SubmissionCache.active:
        _FOLDERS[key] = names
    return names


def read_sibling(path: str, shown: str):
    """(PRRun, None, None) for a valid PR run file of the submission, else (None, why it is not used, the
    RunError when the file cannot be read at all: the submission reports it as that file's own error)."""
    key = _stat_key(path)
    cached = _SIBLINGS.get(key) if key and SubmissionCache.active else None
    if cached is not None:
        return cached
    sibling = Diagnostics(shown)
    try:
        run = parse_pr_run(path, shown, sibling)
        result = (run, None, None) if not sibling.has_errors else (
            None, "invalid (%d error(s); first: %s)" % (sibling.error_count, sibling.first_error()), None)
    except RunError as exc:
        result = (None, "unreadable (%s)" % exc.diagnostic.message, exc)
    if key and SubmissionCache.active:
        _SIBLINGS[key] = result
    return result


def companion_problem(path: str, shown: str) -> Optional[RunError]:
    """The error of a PR run file sent beside AC runs that cannot be read at all (not UTF-8, too large ...),
    reported as that file's own error; None when it reads (its format problems are warnings of the AC runs)."""
    return read_sibling(path, shown)[2]


# What becomes of a nugget whose PassageKey names no passage, by the r2c2-ac option `unresolved_nuggets`: the
# warnings say what the scorer does with it, so they follow the option.
UNRESOLVED_OUTCOME = {"not_entailed": ("counts as not entailed", "count as not entailed"),
                      "labels": ("is scored by its label as given (option unresolved_nuggets: labels)",
                                 "are scored by their labels as given (option unresolved_nuggets: labels)")}


def unknown_run_message(written: str, name: str, known: List[str], count: int,
                        unresolved: str = "not_entailed") -> str:
    """The warning for a PRrunname that names no known PR run; what its nuggets then count as follows the
    option `unresolved_nuggets`."""
    shown = written if written == name else "%s (read as %s)" % (written, name)
    return ("PRrunname %s names no known PR run; its %d nugget line(s) %s (known runs: %s)"
            % (shown, count, UNRESOLVED_OUTCOME[unresolved][1], _short_list(known)))


def missing_rank_message(qid: str, name: str, rank: int, unresolved: str = "not_entailed") -> str:
    """The warning for a PassageRank the cited run does not have for that question (what the nugget counts as
    follows the option `unresolved_nuggets`)."""
    return ("question %s: PR run %s has no passage at PassageRank %d for this question; the nugget %s"
            % (qid, name, rank, UNRESOLVED_OUTCOME[unresolved][0]))


def _short_list(names: List[str]) -> str:
    names = sorted(names)
    if not names:
        return "none"
    return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
