"""The task registry: every module in this package, or in a campaign package inside it, that defines TASK is a task.

Why discovery instead of a hand-kept list: adding a task is adding one module (`tasks/<task>.py`, or
`tasks/<campaign>/<task>.py` beside the campaign's formats and readers), and nothing else to edit.
"""
import importlib
import importlib.util
import os
import pkgutil
from typing import Dict, List, Optional

from ..errors import ConfigError
from .base import Task

_TASKS: Dict[str, Task] = {}


def _task_modules() -> List[str]:
    """Every module that may define TASK: the modules of this package and of its campaign packages."""
    names = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        if info.ispkg:
            package = importlib.import_module("%s.%s" % (__name__, info.name))
            names.extend("%s.%s" % (info.name, sub.name) for sub in pkgutil.iter_modules(package.__path__)
                         if not sub.name.startswith("_") and not sub.ispkg)
        else:
            names.append(info.name)
    return names


def _load() -> Dict[str, Task]:
    if not _TASKS:
        found = []
        for name in _task_modules():
            task = getattr(importlib.import_module("%s.%s" % (__name__, name)), "TASK", None)
            if isinstance(task, Task):
                found.append(task)
        from .forms import installed_forms      # the form a competition's scoring program carries

        found.extend(installed_forms())
        for task in sorted(found, key=lambda t: ORDER.index(t.id) if t.id in ORDER else len(ORDER)):
            _TASKS[task.id] = task
    return _TASKS


# The order in which tasks are listed (README, leaderboard); tasks not listed come last.
ORDER = ["ntcir1-adhoc", "temporalia-tqic", "temporalia-tir", "r2c2-pr", "r2c2-ac", "qqa23-mrc", "datasearch-qa"]


def all_tasks() -> List[Task]:
    return list(_load().values())


def register(task: Task) -> Task:
    """A task made while the program runs (an organiser's form, tasks/forms/) into the registry, where every command
    finds it as it finds the seven; a form may not take the id of a task of the package."""
    tasks = _load()
    known = tasks.get(task.id)
    if known is not None and known is not task and getattr(known, "form_path", None) is None:
        raise ConfigError("a form may not be named %s: that is a task of runscore (`runscore tasks`)" % task.id,
                          getattr(task, "form_path", ""))
    tasks[task.id] = task
    return task


Task.registered = staticmethod(all_tasks)       # what a form asks to name the task a file belongs to instead


def _module_named_after(task_id: str) -> Optional[str]:
    """The module a task id names: `tasks/<id>.py` (ntcir1-adhoc -> ntcir1_adhoc) or, for a campaign package,
    `tasks/<campaign>/<rest>.py` (r2c2-pr -> r2c2.pr), or None."""
    candidates = [task_id.replace("-", "_")]
    if "-" in task_id:
        campaign, rest = task_id.split("-", 1)
        candidates.append("%s.%s" % (campaign, rest.replace("-", "_")))
    for name in candidates:
        parts = name.split(".")
        if not all(part.isidentifier() and not part.startswith("_") for part in parts) or parts[0] == "base":
            continue
        try:
            if importlib.util.find_spec("%s.%s" % (__name__, name)) is not None:
                return name
        except ImportError:  # a campaign package that does not exist
            continue
    return None


def get_task(task_id: str) -> Task:
    if not _TASKS:
        # The module named after the task is usually the one: import only it, so that scoring one task does not
        # import every task's dependencies.
        name = _module_named_after(task_id)
        if name is not None:
            task = getattr(importlib.import_module("%s.%s" % (__name__, name)), "TASK", None)
            if isinstance(task, Task) and task.id == task_id:
                return task
    tasks = _load()
    if task_id not in tasks:
        import difflib

        close = difflib.get_close_matches(task_id, list(tasks), n=3)
        hint = " (did you mean %s?)" % ", ".join(close) if close else ""
        raise ConfigError("unknown task %r%s; known tasks: %s" % (task_id, hint, ", ".join(tasks)))
    return tasks[task_id]


# ------------------------------------------------------------------------------ `--form FILE` ---
# The commands whose task option is `--tasks` (a list) rather than `--task`, and those that take no task option (the
# form's task is registered only: lint-bundle reads the form a bundle carries anyway).
_TASKS_OPTION = ("bundle",)
_NO_TASK_OPTION = ("lint-bundle",)


def form_arguments(argv: List[str]) -> List[str]:
    """The command line with each `--form FILE` read, its task registered, and the option replaced by the
    `--task ID` (`--tasks ID` for bundle) every command already takes: the one place a form becomes a task."""
    from .forms import load_form

    out: List[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            out.extend(argv[index:])
            break
        if arg == "--form" or arg.startswith("--form="):
            if arg == "--form":
                if index + 1 >= len(argv):
                    raise ConfigError("--form expects a form file (runscore new-task KIND NAME writes one)")
                path = argv[index + 1]
                index += 2
            else:
                path, index = arg[len("--form="):], index + 1
            if not os.path.isfile(path):
                raise ConfigError("form %r does not exist (runscore new-task KIND NAME writes one)" % path)
            task = register(load_form(path))
            if not (argv and argv[0] in _NO_TASK_OPTION):
                out.extend(["--tasks" if argv and argv[0] in _TASKS_OPTION else "--task", task.id])
            continue
        out.append(arg)
        index += 1
    return out
