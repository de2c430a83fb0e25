"""What every door of the API reads its arguments with: a task by id or object, a reference read once, runs as
paths, (name, text) pairs or a {name: text} dict (written to a private folder, since the tasks read files), and
InvalidRunsError, the error of runs that fail their checks (the CLI's exit 1) with every finding of every file."""
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import ConfigError, Diagnostic, RunError
from ..pipeline import LoadedReference
from ..pipeline import load_reference as pipeline_reference
from ..tasks import get_task
from ..tasks.base import Task


PathLike = Union[str, "os.PathLike[str]"]


class InvalidRunsError(RunError):
    """Some run files are invalid (the CLI exits 1): `diagnostics` maps each file to all its findings, and the
    message lists them as `FILE:LINE: error: message` lines."""

    def __init__(self, lines: List[str], diagnostics: Dict[str, List[Diagnostic]]):
        first = next((d for items in diagnostics.values() for d in items if d.severity == "error"), None)
        super().__init__(first.message if first else lines[0], first.path if first else "",
                         first.line if first else 0)
        self.lines = lines
        self.diagnostics = diagnostics

    def __str__(self) -> str:
        return "\n".join(self.lines)


def task_of(task: Union[str, Task]) -> Task:
    """A task given by id or as the object."""
    return task if isinstance(task, Task) else get_task(task)


def load_reference(task: Union[str, Task], ref: PathLike, options: Optional[Mapping[str, Any]] = None
                   ) -> LoadedReference:
    """A task's reference (a folder with task.yaml, or the task's single reference file) read once, with
    `options` over task.yaml's (as `--option NAME=VALUE`); pass it to score() to score many runs against it."""
    return pipeline_reference(task_of(task), os.fspath(ref), dict(options or {}))


RunInput = Union[PathLike, Tuple[str, Union[str, bytes]]]


def in_memory(runs: Any) -> Tuple[List[Any], List[Tuple[str, Union[str, bytes]]]]:
    """(paths, [(name, text)]) from a path, a (name, text) pair, a {name: text} dict, or a list of these."""
    if isinstance(runs, (str, bytes, os.PathLike)) or (isinstance(runs, tuple) and len(runs) == 2
                                                      and isinstance(runs[1], (str, bytes))):
        runs = [runs]
    elif isinstance(runs, Mapping):
        runs = list(runs.items())
    paths, texts = [], []
    for item in runs:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (str, bytes)):
            texts.append(item)
        elif isinstance(item, (str, os.PathLike)):
            paths.append(os.fspath(item))
        else:
            raise ConfigError("a run is a file path, a (name, text) pair or a {name: text} dict, not %r" % (item,))
    return paths, texts


def write_runs(folder: str, texts: Sequence[Tuple[str, Union[str, bytes]]]) -> List[str]:
    """In-memory files written into `folder` under their names (the tasks read files; a name is a run's name)."""
    written = []
    for name, text in texts:
        if not isinstance(name, str) or not name or os.path.basename(name) != name or name in (".", ".."):
            raise ConfigError("an in-memory run needs a plain file name (it names the run), not %r" % (name,))
        path = os.path.join(folder, name)
        if os.path.exists(path):
            raise ConfigError("two in-memory files are named %r" % name)
        with open(path, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        written.append(path)
    return written
