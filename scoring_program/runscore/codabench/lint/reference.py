"""Rules about the reference data a phase or task points at, and which tasks' data it holds.
"""
import os
import shutil
import tempfile
from typing import List, Tuple

import yaml

from ...errors import ConfigError
from ...tasks import all_tasks
from .archive import BundleView
from .base import LinterBase


class ReferenceRules(LinterBase):
    def check_reference(self, reference: BundleView, where: Tuple) -> None:
        label = reference.label
        descriptors = [n for n in reference.names if n.split("/")[-1] in ("metadata", "metadata.yaml")]
        if descriptors:
            self.error("reference-metadata", "%s holds %s: a file named metadata is read as a bundle descriptor by "
                       "the platform workers" % (label, descriptors[0]), where)
        known = {t.id for t in all_tasks()}
        tasks = reference_tasks(reference)
        if not tasks and not reference.exists("task.yaml"):    # a broken task.yaml: the loader says why below
            self.error("reference-tasks", "%s holds no task folder (expected one or more of %s)"
                       % (label, ", ".join(sorted(known))), where)
            return
        if not reference.exists("task.yaml"):
            others = [n for n in reference.top_level() if n not in known and "/" not in n.rstrip("/")
                      and reference.is_dir(n)]
            for name in others:
                self.warning("reference-tasks", "%s/%s/ is not a task id of this scoring program; it is ignored"
                             % (label, name), where)
        tmp = tempfile.mkdtemp(prefix="runscore-lint-")
        try:
            reference.extract(tmp)
            from ..entry import task_references

            if self._on_worker(tmp, label, where):
                return
            task_references(tmp, self.worker_data)
        except ConfigError as exc:
            message = str(exc).replace(tmp + os.sep, "").replace(tmp, label)
            self.error("reference-load", "%s cannot be loaded: %s" % (label, message), where)
        except Exception as exc:   # a loader's own bug: still a finding about this bundle, not a linter crash
            message = ("%s: %s" % (type(exc).__name__, exc)).replace(tmp + os.sep, "").replace(tmp, label)
            self.error("reference-load", "%s cannot be loaded (unexpected %s)" % (label, message), where)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


    def _on_worker(self, folder: str, label: str, where: Tuple) -> bool:
        """A reference folder whose task.yaml points to data on the organiser's worker: its pointer is checked, and
        the data only when the linter is given the worker's data folder (True: nothing more to load here)."""
        from ..worker_data import is_pointer_folder, pointer_of
        from ...tasks.base import read_task_yaml

        own = [folder] if os.path.isfile(os.path.join(folder, "task.yaml")) else \
            [os.path.join(folder, t.id) for t in all_tasks() if os.path.isdir(os.path.join(folder, t.id))]
        pointers = [f for f in own if is_pointer_folder(f)]
        if not pointers:
            return False
        for path in pointers:
            pointer_of(read_task_yaml(path), os.path.join(path, "task.yaml"))    # ConfigError when malformed
        if self.worker_data is None:
            self.warning("reference-worker", "%s keeps its data on the organisers' compute worker (worker_data in "
                         "task.yaml): only where it is was checked; give --worker-data DIR (the bundle's "
                         "<task-id>.worker-data/ folder) to check and load the data too" % label, where)
            return True
        return False


def reference_tasks(reference: BundleView) -> List[str]:
    """Task ids whose reference data is in this view (registry order), as score.py would find them."""
    if reference.exists("task.yaml"):
        try:
            own = yaml.safe_load(reference.read("task.yaml"))
        except yaml.YAMLError:
            own = None
        if isinstance(own, dict) and own.get("task") in {t.id for t in all_tasks()}:
            return [own["task"]]
    return [t.id for t in all_tasks() if reference.is_dir(t.id)]
