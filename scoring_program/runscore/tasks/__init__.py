"""The task registry: every module in this package that defines TASK is a task.

Why discovery instead of a hand-kept list: adding a task is adding one module, and nothing else to edit.
"""
import importlib
import importlib.util
import pkgutil
from typing import Dict, List

from ..errors import ConfigError
from .base import Task

_TASKS: Dict[str, Task] = {}


def _load() -> Dict[str, Task]:
    if not _TASKS:
        found = []
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_") or info.name == "base":
                continue
            module = importlib.import_module("%s.%s" % (__name__, info.name))
            task = getattr(module, "TASK", None)
            if task is not None:
                found.append(task)
        for task in sorted(found, key=lambda t: ORDER.index(t.id) if t.id in ORDER else len(ORDER)):
            _TASKS[task.id] = task
    return _TASKS


# The order in which tasks are listed (README, leaderboard); tasks not listed come last.
ORDER = ["ntcir1-adhoc", "temporalia-tqic", "temporalia-tir", "r2c2-pr", "r2c2-ac", "qqa23-mrc", "datasearch-qa"]


def all_tasks() -> List[Task]:
    return list(_load().values())


def get_task(task_id: str) -> Task:
    if not _TASKS:
        # The module named after the task (ntcir1-adhoc -> ntcir1_adhoc) is usually the one: import only it, so
        # that scoring one task does not import every task's dependencies.
        name = task_id.replace("-", "_")
        if name.isidentifier() and not name.startswith("_") and name != "base" and \
                importlib.util.find_spec("%s.%s" % (__name__, name)) is not None:
            task = getattr(importlib.import_module("%s.%s" % (__name__, name)), "TASK", None)
            if task is not None and task.id == task_id:
                return task
    tasks = _load()
    if task_id not in tasks:
        import difflib

        close = difflib.get_close_matches(task_id, list(tasks), n=3)
        hint = " (did you mean %s?)" % ", ".join(close) if close else ""
        raise ConfigError("unknown task %r%s; known tasks: %s" % (task_id, hint, ", ".join(tasks)))
    return tasks[task_id]
