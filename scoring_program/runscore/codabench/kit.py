"""The participants' starting kit of one task's competition: which files of starting_kit/ are that task's, its
README made to name the task, and the published JSON Schemas.

Why one task's kit: each competition ranks one task, so its kit carries that task's sample submission, sample
reference data, schema and baselines, and its own copy of the scoring program, so that the kit downloaded from the
platform runs dry_run.py and `runscore validate/score` on its own (docs/codabench.md).
"""
import os
import re
from typing import Dict, List, Optional, Sequence

from .bundle_files import program_files, read_files, reference_files, sample_reference_dir, tree_files
from ..tasks.base import Task


def kit_members(root: str, task: Task) -> Dict[str, bytes]:
    """{name in the kit: content} of `task`'s kit, its README's worked examples rewritten for the task."""
    kit = read_files(starting_kit_files(root, [task]))
    if "README.md" in kit:
        title, _, rest = str(kit["README.md"], "utf-8").partition("\n\n")
        kit["README.md"] = ("%s\n\n%s%s" % (title, kit_note(task, rest, list(kit)),
                                            kit_readme_commands(task, rest))).encode("utf-8")
    return kit


def kit_file_of(name: str, path: str, task: Task) -> bool:
    """Is a schema or baseline of the kit one of `task`'s (each competition's kit carries only its own task's):
    a schema is named `<task-id>.*.json`; a baseline lies in a folder named the task id, or is a script whose
    text names the task id (ranking_shuffle.py serves two tasks)."""
    folder, _, rest = name.partition("/")
    if folder == "schemas":
        return rest.startswith(task.id + ".")
    if rest.split("/")[0] == task.id:
        return True
    if "/" in rest or not rest.endswith(".py"):
        return False
    with open(path, encoding="utf-8") as handle:
        return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(task.id), handle.read()) is not None


def starting_kit_files(root: str, tasks: Sequence[Task]) -> Dict[str, str]:
    """The participants' kit; it carries its own copy of the scoring program and of the sample reference data,
    so the kit downloaded from the platform runs dry_run.py and `runscore validate/score` on its own."""
    kit = os.path.join(root, "starting_kit")
    files = tree_files(kit, "", ["README.md", "dry_run.py"])
    files.update({name: path for name, path in tree_files(kit, "", ["schemas", "baselines"]).items()
                  if any(kit_file_of(name, path, task) for task in tasks)})
    files.update(tree_files(os.path.join(kit, "sample_submission"), "sample_submission/", [t.id for t in tasks]))
    files.update({"scoring_program/" + name: path for name, path in program_files(root).items()})
    files.update({"reference_data/" + name: path for name, path in
                  reference_files(sample_reference_dir(root), tasks, "sample reference data").items()})
    return files


def kit_note(task: Task, readme: str = "", kit: Optional[Sequence[str]] = None) -> str:
    """The first lines of a competition's kit README: the kit is one task's; when the README's worked examples
    were written with another task (the first `--task` of `readme`), its commands are rewritten for this one by
    kit_readme_commands and the note says what stays the other task's (file names, the example output)."""
    # `kit`: the kit's file names, when known: a schema and baselines are named only if the kit has them (a form's
    # kit has neither)
    extras = ["schema" if kit is None or any(n.startswith("schemas/") for n in kit) else "",
              "baselines" if kit is None or any(n.startswith("baselines/") for n in kit) else ""]
    held = ["sample submission (`sample_submission/%s/`)" % task.id, "sample reference data (`reference_data/%s/`)"
            % task.id] + [e for e in extras if e]
    note = ("> **This starting kit is the one of the `%s` competition**: it holds that task's %s."
            % (task.id, ", ".join(held[:-1]) + " and " + held[-1] if len(held) > 2 else " and ".join(held)))
    example = re.search(r"--task ([a-z0-9][a-z0-9-]*)", readme)
    if example is not None and example.group(1) != task.id:
        note += (" The commands below name `%s`; their file names and the example output of section 6 stay those "
                 "of the `%s` examples: put your own run files' names in their place (this kit's sample run is in "
                 "`sample_submission/%s/`)." % (task.id, example.group(1), task.id))
    return note + "\n\n"


def kit_readme_commands(task: Task, readme: str) -> str:
    """`readme` with its `python3 -m runscore` command lines naming `task` where they name the task of its worked
    examples (`--task X`, `reference_data/X`), so that a participant of another task's competition can paste them
    in the kit as they are; prose and example output are left as written (kit_note says so)."""
    example = re.search(r"--task ([a-z0-9][a-z0-9-]*)", readme)
    if example is None or example.group(1) == task.id:
        return readme
    other = re.escape(example.group(1))

    def rewrite(line: "re.Match") -> str:
        return re.sub(r"(--task |reference_data/)%s(?![\w-])" % other, lambda m: m.group(1) + task.id, line.group(0))

    return re.sub(r"^python3 -m runscore .*$", rewrite, readme, flags=re.M)


def kit_baselines(root: str, task: Task) -> List[str]:
    """The baselines (runs and scripts) the task's kit carries, as named in the kit."""
    kit = os.path.join(root, "starting_kit")
    return sorted(name for name, path in tree_files(kit, "", ["baselines"]).items() if kit_file_of(name, path, task))


def kit_schemas(root: str, task: Task) -> List[str]:
    """The JSON Schemas the task's kit carries, as named in the kit (a form's kit has none)."""
    kit = os.path.join(root, "starting_kit")
    return sorted(name for name, path in tree_files(kit, "", ["schemas"]).items() if kit_file_of(name, path, task))


def schema_files(root: str) -> Dict[str, str]:
    """{file name: text} of the published JSON Schemas (runscore/schemas/*.json)."""
    folder = os.path.join(root, "scoring_program", "runscore", "schemas")
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                out[name] = handle.read()
    return out
