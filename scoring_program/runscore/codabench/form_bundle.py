"""The repository a form's competition is built from: `runscore bundle --form FORM.yaml` lays out, in a temporary
folder, the tree a seed task's competition is built from (scoring program, sample reference data, starting kit),
with the form in the scoring program and the samples made from the form.

Why a staged tree rather than a second way of bundling: codabench/bundle.py builds, and the linter checks, every
competition from one layout; a form's competition differs only in where three things come from, so they are put
where the bundler reads them and nothing of the bundler asks whether its task is a form:

* the scoring program is the repository's, plus the form at runscore/tasks/forms/installed/<name>.yaml, so that
  score.py in every phase (and the worker's copy of the formal reference, and the kit's dry_run.py) registers the
  form's task as it finds the seven;
* the sample reference data and sample submission of the dry-run phase and the starting kit are made from the form
  (Task.sample_files), never from the organiser's real data; being public, the sample reference says `detail: full`
  (the dry run's pages show everything, as the Overview page says);
* a formal reference folder the form describes (the qrels the form names, no task.yaml) gets the task.yaml that
  names its task, in a copy.
"""
import os
import shutil
from typing import Optional

from ..errors import ConfigError
from ..tasks.base import Task, read_task_yaml

_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "installed")


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def staged_root(root: str, task: Task, workdir: str) -> str:
    """A repository tree under `workdir` whose only task with sample data is the form's (module docstring)."""
    staged = os.path.join(workdir, "root")
    program = os.path.join(staged, "scoring_program")
    shutil.copytree(os.path.join(root, "scoring_program"), program, ignore=_IGNORED)
    installed = os.path.join(program, "runscore", "tasks", "forms", "installed")
    os.makedirs(installed)
    shutil.copyfile(task.form_path, os.path.join(installed, "%s.yaml" % task.id))
    reference, submission = task.sample_files()
    for name, text in reference.items():
        if name == "task.yaml":     # public sample data: the dry run shows everything, as the seed tasks' samples do
            text += "detail: full\n"
        _write(os.path.join(staged, "reference_data", task.id, name), text)
    for name, text in submission.items():
        _write(os.path.join(staged, "starting_kit", "sample_submission", task.id, name), text)
    shutil.copyfile(os.path.join(root, "starting_kit", "dry_run.py"), os.path.join(staged, "starting_kit", "dry_run.py"))
    _write(os.path.join(staged, "starting_kit", "README.md"), kit_readme(task, sorted(submission)[0]))
    shutil.copytree(os.path.join(root, "docs"), os.path.join(staged, "docs"))
    _write(os.path.join(staged, "docs", "%s.md" % task.id), task.about())
    return staged


def kit_readme(task: Task, sample: str) -> str:
    """The starting kit's README of a form's competition, in the form's own words and commands."""
    return KIT_README.format(title=task.title, id=task.id, sample=sample, help=task.run_file_help)


KIT_README = """\
# Starting kit: {title}

This kit holds the competition's scoring program (`scoring_program/`), sample reference data
(`reference_data/{id}/`, made up: two topics) and a sample submission (`sample_submission/{id}/{sample}`). A run
is {help}.

Check and score a run on your machine exactly as the competition does (Python 3.9+ with numpy, PyYAML and
jsonschema), from this folder:

```
export PYTHONPATH=$PWD/scoring_program
python3 -m runscore validate --task {id} my_run                              # the format rules
python3 -m runscore score --task {id} --ref reference_data/{id} my_run      # scored on the sample data
python3 -m runscore check --task {id} submission.zip                          # the zip you will upload
python3 dry_run.py                                                           # the sample, as the platform runs it
python3 dry_run.py submission.zip
```

A submission is a zip of run files at its top level (`cd my_runs && zip ../submission.zip run1 run2`). Every
problem is told as `FILE:LINE: error: message`; a submission with an error is not scored.
"""


def staged_reference(reference: Optional[str], task: Task, workdir: str) -> Optional[str]:
    """The organiser's formal reference for a form: a folder with the task's task.yaml (or a folder of task
    folders) as it is; a folder the form describes (its qrels, no task.yaml) copied with a task.yaml naming the
    task, so that the bundler and every phase read it as any task's folder."""
    if reference is None:
        return None
    if not os.path.isdir(reference):
        raise ConfigError("formal reference data folder %s does not exist" % reference)
    own = read_task_yaml(reference).get("task")
    if own is not None or os.path.isdir(os.path.join(reference, task.id)):
        return reference
    copy = os.path.join(workdir, "formal", task.id)
    shutil.copytree(reference, copy)
    _write(os.path.join(copy, "task.yaml"), "task: %s\n" % task.id)
    return copy


# Where a form's competition carries its form (the scoring program's tasks/forms/installed/).
CARRIED = "scoring_program/runscore/tasks/forms/installed/"


def register_carried_forms(path: str) -> None:
    """The forms a bundle's scoring program carries (a zip or a folder), registered in this process, so that
    `runscore lint-bundle` loads the bundle's reference data as its own score.py will."""
    import tempfile
    import zipfile

    from ..tasks import register
    from ..tasks.forms import load_form

    if os.path.isdir(path):
        folder = os.path.join(path, *CARRIED.split("/"))
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        for name in names:
            if name.endswith(".yaml"):
                register(load_form(os.path.join(folder, name)))
        return
    if not zipfile.is_zipfile(path):
        return
    with zipfile.ZipFile(path) as archive:
        carried = [n for n in archive.namelist() if n.startswith(CARRIED) and n.endswith(".yaml")
                   and "/" not in n[len(CARRIED):]]
        if not carried:
            return
        workdir = tempfile.mkdtemp(prefix="runscore-form-")
        try:
            for name in carried:
                local = os.path.join(workdir, os.path.basename(name))
                with open(local, "wb") as handle:
                    handle.write(archive.read(name)[:1 << 18])
                register(load_form(local))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

