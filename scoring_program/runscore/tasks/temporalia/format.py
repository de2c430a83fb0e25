"""The run-file conventions shared by both Temporalia subtasks (seed 001: TQIC and TIR).

Why one module: both formats are TAB-separated lines with an optional header, end in `group_id run_id`,
may hold several runs told apart by run_id ("You can append multiple runs in a single file"), and allow at most
three runs per group. The line-level rules and the run bookkeeping are the same, so they are written once;
each task keeps only what is its own (its fields, their meaning, its measures).
"""
import os
from typing import Callable, Dict, Iterator, List, Sequence, Tuple

from ...errors import Diagnostics
from ...textfile import numbered_lines
from ...validate import RecordSchema

MAX_RUNS_PER_GROUP = 3     # the seed: "Each group can submit up to three runs (i.e., Run IDs)"


def records(text: str, diags: Diagnostics, fields: Sequence[str], min_fields: int, schema: RecordSchema,
            is_header: Callable[[str], bool], header_text: str) -> Iterator[Tuple[int, Dict[str, str]]]:
    """(line number, record) for each well-formed line; every other line becomes a diagnostic.

    Lines may lack the trailing group_id and run_id (down to `min_fields` fields): they form one run named
    after the file. A header is skipped; one after the first result line is skipped with a warning.
    """
    once = diags.warning_once
    content_seen = False
    for line_no, line in numbered_lines(text):
        if not line.strip():
            once("blank", line_no, "blank line ignored")
            continue
        if is_header(line):
            if content_seen:
                once("header", line_no, "header line '%s' in the middle of the file skipped" % header_text)
            continue
        content_seen = True
        values = line.split("\t")
        no_tab = len(values) == 1
        if no_tab:
            values = line.split()
        values = [v.strip() for v in values]
        if not min_fields <= len(values) <= len(fields):
            # One message for the line: a warning that it was split on spaces would contradict this error.
            diags.error(line_no, "expected %d TAB-separated fields '%s', found %s"
                        % (len(fields), " ".join(fields), "no TAB (%d field%s split on spaces)"
                           % (len(values), "" if len(values) == 1 else "s") if no_tab else len(values)))
            continue
        record = dict(zip(fields, values))
        problems = schema.errors(record)
        if problems:
            diags.error(line_no, "; ".join(problems))
            continue
        # Warnings about how a line was read come only for lines that were read.
        if no_tab:
            once("notab", line_no, "line has no TAB; fields split on spaces (the format asks for TABs)")
        if len(values) < len(fields):
            once("short", line_no, "group_id and run_id missing; the lines without them form one run named %r"
                 % default_run_name(diags.path))
        yield line_no, record


def default_run_name(display: str) -> str:
    return os.path.basename(display)


class RunBook:
    """The runs of one file by run_id, created on first sight. The cap of MAX_RUNS_PER_GROUP runs per group_id is
    not checked here but by pipeline.check_run_limit over the whole submission (Task.team_of = group_id), on the
    platform only: a researcher may score a group's every run in one call (issue 18)."""

    def __init__(self, diags: Diagnostics, make_run: Callable[[str, str], object]):
        self.diags = diags
        self.make_run = make_run
        self.runs: Dict[str, object] = {}
        self.runs_of_group: Dict[str, List[str]] = {}
        self.lines: Dict[str, int] = {}      # run_id -> the lines of the file that hold its records

    def run_for(self, line_no: int, record: Dict[str, str]):
        group_id = record.get("group_id", "")
        run_id = record.get("run_id", default_run_name(self.diags.path))
        self.lines[run_id] = self.lines.get(run_id, 0) + 1
        run = self.runs.get(run_id)
        if run is None:
            self.runs_of_group.setdefault(group_id, []).append(run_id)
            run = self.runs[run_id] = self.make_run(run_id, group_id)
            run.group_lines = {group_id: line_no}     # every group a run names, first line (Task.teams_named)
        elif group_id != run.group_id:
            run.group_lines.setdefault(group_id, line_no)
            self.diags.warning_once("group", line_no, "run_id %r appears with group_id %r and %r"
                                    % (run_id, run.group_id, group_id))
        return run

    def own_lines(self, run_id: str):
        """The lines of a run for its receipt when the file holds several runs (None: the file is the run)."""
        return self.lines.get(run_id, 0) if len(self.runs) > 1 else None

    def finish(self) -> None:
        """File-level checks once every line is read."""
        if not self.runs and not self.diags.has_errors:
            self.diags.error(0, "the file holds no result lines")
        if len(self.runs_of_group) > 1:
            self.diags.warning_once("groups", 0, "the file holds runs of %d groups (%s); the format asks for one "
                                    "file per group" % (len(self.runs_of_group), ", ".join(sorted(self.runs_of_group))))
