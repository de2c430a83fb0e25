"""Checked judgements -> the task's reference folder, in the task's documented formats, with its task.yaml.

Why a module of its own: the folder must be exactly what `runscore score --ref` and `make bundle REFERENCE=` read,
so the task's own form writes its files (Pooling.write_reference, beside the task's loader: NTCIR-1's rel1 and rel2,
Temporalia's NTCIREVAL qrels, R2C2's PR qrels and AC labels) and the folder is loaded by that very loader before it
is moved into place: a folder that the scorer would refuse is never written. This module never asks which task it
holds.
"""
import os
import re
import shutil
import tempfile
from typing import List, Tuple

import yaml

from ..errors import ConfigError, RunError
from ..tasks import get_task
from ..tasks.pooling import JudgedPool
from ..textfile import numbered_lines, read_text
from .judgements import Judgements


def write_reference(judgements: Judgements, pool_dir: str, target: str) -> List[str]:
    """Write the reference folder `target` (which must not exist or be empty); returns the files written."""
    if os.path.exists(target) and (not os.path.isdir(target) or os.listdir(target)):
        raise ConfigError("%s exists and is not an empty folder; write the reference folder to a new path" % target)
    parent = os.path.dirname(os.path.abspath(target))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".reference-", dir=parent)
    try:
        judged = JudgedPool(judgements.labels, judgements.topics, pool_dir, lambda: _pooled_files(pool_dir))
        try:
            config = get_task(judgements.task_id).pooling.write_reference(judged, staging)
        except RunError as exc:      # a file of the pool folder no longer reads: the organiser's folder (exit 2)
            raise ConfigError("a file of the pool folder cannot be read again: %s" % exc.diagnostic.message,
                              exc.diagnostic.path, exc.diagnostic.line)
        config = dict([("task", judgements.task_id)] + list(config.items()))
        with open(os.path.join(staging, "task.yaml"), "w", encoding="utf-8") as handle:
            handle.write("# written by `runscore judgements` from %d sheet(s); see docs/campaign.md\n"
                         % len(judgements.sheets))
            yaml.dump(config, handle, Dumper=_quoting_dumper(), sort_keys=False, allow_unicode=True)
        _check_loads(judgements.task_id, staging)
        if os.path.isdir(target):
            os.rmdir(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(os.path.relpath(os.path.join(d, f), target) for d, _, fs in os.walk(target) for f in fs)


# A string a YAML reader could take for a number: PyYAML quotes '0001' (an octal to YAML 1.1) but writes 0008, 0009
# and 1e3 bare, which YAML 1.2 readers (and a person) read as numbers, so topic 0008 became 8.
_NUMBER_LIKE = re.compile(r"[-+]?[0-9][0-9a-zA-Z._:+-]*|[-+]?\.[0-9a-zA-Z._:+-]*")


def _quoting_dumper():
    """safe_dump's Dumper, with every string that looks like a number single-quoted: topic ids stay strings
    everywhere. Made when writing, not at import: `runscore judgements --help` imports this module where PyYAML
    may be optional.py's stand-in, which has no add_representer."""

    class QuotingDumper(yaml.SafeDumper):
        pass

    QuotingDumper.add_representer(str, _represent_str)
    return QuotingDumper


def _represent_str(dumper, value):
    style = "'" if _NUMBER_LIKE.fullmatch(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _check_loads(task_id: str, folder: str) -> None:
    from ..pipeline import load_reference

    try:
        load_reference(get_task(task_id), folder)
    except ConfigError as exc:
        raise ConfigError("the reference folder written would not load (a defect of runscore, please report it): "
                          "%s" % exc.one_line())


def _pooled_files(pool_dir: str) -> List[Tuple[str, str]]:
    """(run name, file relative to the pool folder) from the pool's runs.tsv, split on \\n only (a team name may
    hold U+2028 or another character str.splitlines() would end a line at), its cells read as the pool wrote them
    (campaign/sheet.py's escaping and spreadsheet quoting)."""
    from .sheet import read_cell

    path = os.path.join(pool_dir, "runs.tsv")
    if not os.path.isfile(path):
        raise ConfigError("the pool folder has no runs.tsv (written by `runscore pool`)", pool_dir)
    lines = list(numbered_lines(read_text(path, error_class=ConfigError)))
    if not lines or lines[0][1].split("\t") != ["run", "team", "file", "submission"]:
        raise ConfigError("the first line must be run, team, file, submission (TAB-separated), as `runscore pool` "
                          "writes it", path, 1)
    out = []
    for line_no, line in lines[1:]:
        fields = [read_cell(f) for f in line.split("\t")]
        if len(fields) != 4:
            raise ConfigError("expected run, team, file, submission", path, line_no)
        if os.path.isabs(fields[2]) or ".." in fields[2].replace("\\", "/").split("/"):
            raise ConfigError("file %r is not inside the pool folder" % fields[2][:80], path, line_no)
        if not os.path.isfile(os.path.join(pool_dir, fields[2])):
            raise ConfigError("file %r is not in the pool folder" % fields[2][:80], path, line_no)
        out.append((fields[0], fields[2]))
    return out
