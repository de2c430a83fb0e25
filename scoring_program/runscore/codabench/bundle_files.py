"""Which files of the repository and of a reference folder go into a bundle, and where they go in it.

Why an allowlist: the upload zip must hold exactly the bundle (no tests, caches or virtualenv), byte-reproducible,
and no reference file a platform worker would take for a bundle descriptor (`metadata`). The formal reference's
task.yaml gets its `detail:` here (what participants see of the formal phase, codabench/disclosure.py).
"""
import os
import re
from typing import Dict, Optional, Sequence, Tuple

from ..errors import ConfigError
from ..tasks.base import DISCLOSURE_LEVELS, Task, read_task_yaml

FORMAL_REFERENCE = "reference_data_formal"
# Which files of the repository go into a bundle (everything else is left out: tests, caches, .venv, runs).
SKIPPED_NAMES = {"__pycache__", "tests", "utilities", ".DS_Store", "Thumbs.db"}
SKIPPED_SUFFIXES = (".pyc", ".pyo", ".egg-info", "~")


def sample_reference_dir(root: str) -> str:
    return os.path.join(root, "reference_data")


def _skipped(name: str) -> bool:
    return name in SKIPPED_NAMES or name.startswith(".") or name.endswith(SKIPPED_SUFFIXES)


def tree_files(folder: str, prefix: str, top: Optional[Sequence[str]] = None) -> Dict[str, str]:
    """{archive name: disk path} of the files under folder (optionally only its entries `top`), allowlist rules."""
    out: Dict[str, str] = {}
    if not os.path.isdir(folder):
        return out
    entries = sorted(os.listdir(folder)) if top is None else [t for t in top
                                                               if os.path.exists(os.path.join(folder, t))]
    for entry in entries:
        if _skipped(entry):
            continue
        path = os.path.join(folder, entry)
        if os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not _skipped(d))
                for name in sorted(filenames):
                    if not _skipped(name):
                        full = os.path.join(dirpath, name)
                        out[prefix + os.path.relpath(full, folder).replace(os.sep, "/")] = full
        elif os.path.isfile(path):
            out[prefix + entry] = path
    return out


def program_files(root: str) -> Dict[str, str]:
    return tree_files(os.path.join(root, "scoring_program"), "", ["metadata", "score.py", "runscore"])


def reference_files(folder: str, tasks: Sequence[Task], what: str) -> Dict[str, str]:
    """The task folders of a reference tree (a tree with one task.yaml naming its task counts as that task)."""
    if not os.path.isdir(folder):
        raise ConfigError("%s folder %s does not exist" % (what, folder))
    own = read_task_yaml(folder).get("task")
    if own:
        if [t.id for t in tasks] != [own]:
            raise ConfigError("%s %s holds task %s only; the bundle's tasks are %s"
                              % (what, folder, own, ", ".join(t.id for t in tasks)))
        files = {"%s/%s" % (own, name): path for name, path in tree_files(folder, "").items()}
    else:
        missing = [t.id for t in tasks if not os.path.isdir(os.path.join(folder, t.id))]
        if missing:
            raise ConfigError("%s %s has no folder for %s" % (what, folder, ", ".join(missing)))
        files = tree_files(folder, "", [t.id for t in tasks])
    for name in files:
        if name.split("/")[-1] in ("metadata", "metadata.yaml"):
            raise ConfigError("%s holds a file named %r (%s): the platform workers read such files as bundle "
                              "descriptors; rename it" % (what, name.split("/")[-1], name))
    return files


def read_files(paths: Dict[str, str]) -> Dict[str, bytes]:
    out = {}
    for name, path in paths.items():
        with open(path, "rb") as handle:
            out[name] = handle.read()
    return out


def with_detail(task_yaml: bytes, level: str) -> bytes:
    """task.yaml with its top-level `detail:` set to `level` (any earlier `detail:` line removed)."""
    if level not in DISCLOSURE_LEVELS:
        raise ConfigError("detail %r is not one of %s" % (level, ", ".join(DISCLOSURE_LEVELS)))
    text = re.sub(rb"(?m)^detail[ \t]*:.*(\r?\n|$)", b"", task_yaml)
    if text and not text.endswith(b"\n"):
        text += b"\n"
    return text + b"detail: %s                # set by runscore bundle (--formal-detail); docs/codabench.md\n" % (
        level.encode("ascii"),)


def formal_task_yaml_detail(folder: str, task: Task) -> Tuple[str, Optional[str]]:
    """(the task.yaml read, the `detail:` it asks for or None) of the organiser's reference folder (DIR/<task-id>/
    or DIR itself): the path is the file an organiser would edit, so a note about it must name that file."""
    own = os.path.join(folder, task.id)
    chosen = own if os.path.isdir(own) else folder
    value = read_task_yaml(chosen).get("detail")
    return os.path.join(chosen, "task.yaml"), None if value is None else str(value)
