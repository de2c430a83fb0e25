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
from typing import Dict, List, NamedTuple, Optional

from ...errors import ConfigError, Diagnostics, RunError
from .pr_format import PRRun, normalise_run_name, parse_pr_run, parse_run_name


class Resolution(NamedTuple):
    """Where a PassageKey led: `ok` with the run name, or not ok with the reason (`unknown_run`, `no_rank`)."""

    ok: bool
    run_name: str
    reason: str = ""


class PassagePool:
    """PR runs by normalised name, and the alias table used to normalise a cited name."""

    def __init__(self, runs: Dict[str, PRRun], aliases: Optional[Dict[str, str]] = None):
        self.runs = dict(runs)
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
        """This pool plus runs not already in it (pool runs win, see the module docstring)."""
        runs = dict(extra)
        runs.update(self.runs)
        return PassagePool(runs, self.aliases)


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
    own = os.path.basename(ac_path)
    found: Dict[str, PRRun] = {}
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry == own or entry.startswith(".") or not os.path.isfile(path):
            continue
        name = normalise_run_name(entry)
        if parse_run_name(name) is None:
            continue
        shown = os.path.join(shown_folder, entry) if shown_folder else entry
        if pool is not None and name in pool.runs:
            diags.warning(0, "PR run %s of the submission has the name of a run of the reference pool; the "
                          "pool's run is used to resolve PassageKeys" % shown)
            continue
        sibling = Diagnostics(shown)
        run = parse_pr_run(path, shown, sibling)
        if sibling.has_errors:
            diags.warning(0, "PR run %s of the submission is invalid (%d error(s); first: %s); PassageKeys "
                          "citing it are not resolved" % (shown, sibling.error_count, sibling.first_error()))
            continue
        found[name] = run
    return found


def unknown_run_message(written: str, name: str, known: List[str], count: int) -> str:
    """The warning for a PRrunname that names no known PR run; its nuggets then count as not entailed."""
    shown = written if written == name else "%s (read as %s)" % (written, name)
    return ("PRrunname %s names no known PR run; its %d nugget line(s) count as not entailed (known runs: %s)"
            % (shown, count, _short_list(known)))


def missing_rank_message(qid: str, name: str, rank: int) -> str:
    """The warning for a PassageRank the cited run does not have for that question (nugget not entailed)."""
    return ("question %s: PR run %s has no passage at PassageRank %d for this question; the nugget counts as "
            "not entailed" % (qid, name, rank))


def _short_list(names: List[str]) -> str:
    names = sorted(names)
    if not names:
        return "none"
    return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
