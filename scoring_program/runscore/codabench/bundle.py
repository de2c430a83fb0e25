"""The competition bundle built: the upload zip of one task's competition and the bundle files committed at the
repository root, from a plan (codabench/bundle_plan.py) and the parts made by the modules beside this one.

Why from the registry: the leaderboard column keys must equal the keys score.py writes (a mismatch shows `n/a`
silently on Codabench), and the pages must say what the code does. Both are derived from the same task
declarations, so a bundle cannot disagree with its scoring program. Why an allowlist: the upload zip must hold
exactly the bundle (competition.yaml first and at the root, no tests, caches or virtualenv), byte-reproducible.
See docs/codabench.md and shared/specs/codabench.md sections 8-9. The parts: competition.yaml
(competition_yaml.py, its leaderboard leaderboard.py), the pages (pages.py), the logo (logo.py), the files taken
from the repository (bundle_files.py), the starting kit (kit.py), the zip's bytes (bundle_zip.py), the formal
reference kept on the organiser's worker (worker_data.py) and the organiser's steps for it (worker_steps.py).
"""
import os
from typing import Callable, Dict, List, Optional, Sequence

from .bundle_files import (FORMAL_REFERENCE, program_files, read_files, reference_files, sample_reference_dir,
                           with_detail)
from .bundle_plan import BundlePlan, select_tasks
from .bundle_zip import write_accepted, zip_bytes
from .competition_yaml import competition_v1, competition_v2, pages_of, yaml_text
from .kit import kit_members, schema_files
from .logo import logo_png
from .pages import TERMS, markdown_to_html
from .worker_data import WorkerCopy, worker_root_of, write_worker_copy
from .worker_steps import worker_readme
from ..errors import ConfigError
from ..tasks.base import Task

ROOT_NOTE = ("# The repository root is the competition of %s, one of the per-task competitions; organisers\n"
             "# upload dist/<task-id>.zip, built by `make bundle` (one competition per task, docs/codabench.md).\n")


def generated_files(plan: BundlePlan) -> Dict[str, bytes]:
    """competition.yaml, the pages and the logo of a v2 bundle: {path under the bundle root: content}."""
    out = {"competition.yaml": yaml_text(competition_v2(plan)).encode("utf-8"), "logo.png": logo_png(),
           "pages/terms.md": TERMS.encode("utf-8")}
    for _, name, text in pages_of(plan):
        out["pages/" + name] = text.encode("utf-8")
    return out


def root_task(root: str) -> Task:
    """The task of the competition.yaml at the repository root: the first registered task with sample data. The
    root is one task's competition like every upload zip (never several tasks on one leaderboard); organisers
    upload dist/<task-id>.zip (`make bundle`)."""
    return select_tasks(root)[0]


def root_files(root: str) -> Dict[str, bytes]:
    """competition.yaml, pages/ and logo.png of the repository root: the competition of root_task()."""
    plan = BundlePlan(root, [root_task(root)])
    files = generated_files(plan)
    files["competition.yaml"] = (ROOT_NOTE % (plan.task.id,)).encode("utf-8") + files["competition.yaml"]
    files.update({FORMAL_REFERENCE + "/" + name: content for name, content in collect_reference(plan).items()})
    return files


def write_root(root: str) -> List[str]:
    """Regenerate the committed bundle files at the repository root (competition.yaml, pages/, logo.png,
    starting_kit/schemas/); returns the paths written. Stale pages of removed tasks are deleted."""
    files = root_files(root)
    pages_dir = os.path.join(root, "pages")
    if os.path.isdir(pages_dir):
        for name in os.listdir(pages_dir):
            if name.endswith(".md") and "pages/" + name not in files:
                os.unlink(os.path.join(pages_dir, name))
    schema_dir = os.path.join(root, "starting_kit", "schemas")
    schemas = schema_files(root)
    if os.path.isdir(schema_dir):
        for name in os.listdir(schema_dir):
            if name.endswith(".json") and name not in schemas:
                os.unlink(os.path.join(schema_dir, name))
    for name, text in schemas.items():
        files["starting_kit/schemas/" + name] = text.encode("utf-8")
    written = []
    for name, content in sorted(files.items()):
        path = os.path.join(root, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content)
        written.append(name)
    return written


def collect_reference(plan: BundlePlan) -> Dict[str, bytes]:
    """The formal phase's reference folder when the bundle has no judgements: one task.yaml, `mode: collect`."""
    from .collect import collect_task_yaml

    return {"%s/task.yaml" % plan.task.id: collect_task_yaml(plan.task.id).encode("utf-8")}


def bundle_members(plan: BundlePlan, v1: bool = False) -> Dict[str, bytes]:
    """Every member of the upload zip, competition.yaml included: {archive name: content}."""
    program = read_files(program_files(plan.root))
    if "metadata" not in program or "score.py" not in program:
        raise ConfigError("%s/scoring_program lacks metadata or score.py" % plan.root)
    reference = read_files(reference_files(sample_reference_dir(plan.root), plan.tasks, "sample reference data"))
    if plan.on_worker:          # the zip says where the worker keeps the data, and holds none of it
        formal = {"%s/task.yaml" % plan.task.id: plan.worker_copy().pointer_yaml}
    else:
        formal = read_files(reference_files(plan.formal_reference, plan.tasks, "formal reference data")) \
            if plan.formal_reference else collect_reference(plan)
    if plan.formal_reference and not plan.on_worker:
        name = "%s/task.yaml" % plan.task.id
        formal[name] = with_detail(formal.get(name, ("task: %s\n" % plan.task.id).encode("utf-8")),
                                   plan.formal_detail)
    kit = kit_members(plan.root, plan.task)
    if not v1:
        members = generated_files(plan)
        for prefix, files in (("scoring_program/", program), ("reference_data/", reference),
                              (FORMAL_REFERENCE + "/", formal), ("starting_kit/", kit)):
            members.update({prefix + name: content for name, content in files.items()})
        return members
    members = {"competition.yaml": yaml_text(competition_v1(plan)).encode("utf-8"), "logo.png": logo_png()}
    pages = pages_of(plan, v1=True) + [("Terms", "terms.md", TERMS)]
    for title, name, text in pages:
        members[name[:-3] + ".html"] = markdown_to_html(text, title).encode("utf-8")
    members["scoring_program.zip"] = zip_bytes(program, ["metadata"])
    members["reference_data.zip"] = zip_bytes(reference)
    members[FORMAL_REFERENCE + ".zip"] = zip_bytes(formal)
    members["starting_kit.zip"] = zip_bytes(kit)
    return members


def check_plans(plans: Sequence[BundlePlan]) -> None:
    """Every input of every bundle present and sound (the scoring program, each task's sample and formal
    reference folders) before the first zip is written: ConfigError naming every problem otherwise, so a
    `make bundle` that fails leaves dist/ as it was, never half of the competitions rebuilt."""
    problems: List[ConfigError] = []
    for plan in plans:
        for check in (lambda: program_files(plan.root)["score.py"],
                      lambda: reference_files(sample_reference_dir(plan.root), plan.tasks, "sample reference data"),
                      lambda: plan.formal_reference and reference_files(plan.formal_reference, plan.tasks,
                                                                        "formal reference data")):
            try:
                check()
            except KeyError:
                problems.append(ConfigError("%s/scoring_program lacks score.py" % plan.root))
            except ConfigError as exc:
                problems.append(exc)
    unique = list({str(p): p for p in problems}.values())
    if unique:
        first = unique[0]
        raise ConfigError("%s (nothing written: no zip is built until every task's data is there%s)"
                          % (first.args[0], _only_the_tasks_with_data(plans)), first.path, first.line, unique[1:])


def _only_the_tasks_with_data(plans: Sequence[BundlePlan]) -> str:
    """What to do when the formal reference holds some tasks' folders only (an organiser of one or two of the
    campaigns): build just those competitions; an empty string when every folder or none is there."""
    formal = [p for p in plans if p.formal_reference]
    have = [p.task.id for p in formal if os.path.isdir(os.path.join(p.formal_reference, p.task.id))]
    if not have or len(have) == len(formal):
        return ""
    return ("; to build only the competitions whose folders it holds: --tasks %s (make bundle TASKS=%s)"
            % (",".join(have), ",".join(have)))


def build_zip(plan: BundlePlan, out_path: str, v1: bool = False,
              accept: Optional[Callable[[str, Optional[WorkerCopy]], bool]] = None) -> Optional[List[str]]:
    """Write the upload zip (competition.yaml first, at the root; contents, not a folder); returns its names.

    The zip is written under a temporary name beside `out_path` and renamed only when `accept(temporary path,
    the worker's copy of the formal reference or None)` (the linter) says yes; a rejected bundle leaves no file
    behind (returns None), so it cannot be uploaded by mistake. A formal reference kept on the worker is written
    beside the zip (worker_root_of) once the zip is accepted."""
    if plan.on_worker and v1:
        raise ConfigError("a CodaLab v1.5 bundle cannot keep the formal reference on a compute worker; give "
                          "--publish-reference to put it in the zip (anyone can then download it), or build the "
                          "Codabench bundle")
    plan.worker_root = plan.worker_root or worker_root_of(out_path)
    members = bundle_members(plan, v1)
    data = zip_bytes(members, ["competition.yaml"])

    def accepted(tmp: str) -> bool:
        if accept is not None and not accept(tmp, plan.worker_copy() if plan.on_worker else None):
            return False
        if plan.on_worker:
            write_worker_copy(plan.worker_copy(), plan.worker_root, worker_readme(plan, out_path))
        return True

    if not write_accepted(data, out_path, accepted):
        return None
    return ["competition.yaml"] + sorted(n for n in members if n != "competition.yaml")
