"""A competition's reference folders as a phase reads them: which tasks it scores, each task's reference loaded
(from the organiser's worker when the folder points there), and what the phase shows of it.

Why a module of its own: score.py (codabench/entry.py), `runscore check --ref` and the bundle linter
(codabench/lint/reference.py) must read a phase's references alike; the linter reading them through score.py's
entry made the platform wing import its own door.
"""
import os
from typing import Dict, Optional, Tuple

from ..errors import ConfigError
from ..pipeline import LoadedReference, load_reference
from ..tasks import all_tasks, get_task
from ..tasks.base import read_task_yaml
from . import disclosure, worker_data


def task_references(ref_dir: str, data_dir: Optional[str] = None) -> Dict[str, LoadedReference]:
    """The tasks this competition scores: ref/<task-id>/ folders, or ref/ itself if its task.yaml names one. A
    folder whose task.yaml points to data on the organiser's worker (codabench/worker_data.py) is read there, in
    `data_dir`, once its files match the fingerprints."""
    return phase_references(ref_dir, data_dir)[0]


def phase_references(ref_dir: str, data_dir: Optional[str]) -> Tuple[Dict[str, LoadedReference], bool]:
    """task_references, and whether any of them is kept on the worker."""
    if not os.path.isdir(ref_dir):
        raise ConfigError("reference folder %s does not exist (was reference_data uploaded?)" % ref_dir)
    own = read_task_yaml(ref_dir).get("task")
    folders = [(get_task(own), ref_dir)] if own else [(task, os.path.join(ref_dir, task.id)) for task in all_tasks()
                                                       if os.path.isdir(os.path.join(ref_dir, task.id))]
    forms = [task for task in all_tasks() if getattr(task, "form_path", None)]
    if not folders and len(forms) == 1 and not os.path.isfile(os.path.join(ref_dir, "task.yaml")):
        folders = [(forms[0], ref_dir)]       # a folder a form describes (--form): the form says where its files are
    if not folders:
        raise ConfigError("no task folder in %s; expected one or more of %s"
                          % (ref_dir, ", ".join(t.id for t in all_tasks())))
    loaded, on_worker = {}, False
    for task, folder in folders:
        config = read_task_yaml(folder)
        where = os.path.join(folder, "task.yaml")
        pointer = worker_data.pointer_of(config, where)
        on_worker = on_worker or pointer is not None
        data = worker_data.resolve(pointer, data_dir, where) if pointer is not None else folder
        reference = load_reference(task, data)
        # The phase's disclosure level: the zip's task.yaml says it (hidden unless it says full).
        reference.detail = disclosure.level_of(config, where)
        loaded[task.id] = reference
    return loaded, on_worker
