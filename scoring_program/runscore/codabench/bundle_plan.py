"""What one competition is built from: its task, the reference folders of its two phases, their dates and
submission limits, what participants see of the formal phase; and which tasks have sample data to build one.

Why a plan of its own: competition.yaml, the pages, the kit, the zip and the worker's folder are each made from
the plan (codabench/competition_yaml.py, kit.py, bundle.py, worker_steps.py), so every part of a bundle reads the
same decisions (does the formal phase collect runs? is its reference kept on the organiser's worker?).
"""
import os
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from .bundle_files import read_files, reference_files, sample_reference_dir, with_detail
from .worker_data import WorkerCopy, existing_identity, worker_copy
from ..errors import ConfigError
from ..tasks import all_tasks, get_task
from ..tasks.base import AGGREGATE, Task

# The first lines of the formal phase's task.yaml when the reference stays on the organiser's worker.
POINTER_HEAD = ("# The formal reference data of %s is NOT in this competition's files: Codabench serves\n"
                "# every uploaded dataset to anyone who asks. It stays on the organisers' compute worker, whose\n"
                "# data folder is mounted at /app/data; score.py reads it there after checking each file against\n"
                "# these fingerprints (HMAC-SHA256 under a key kept on the worker). Written by runscore bundle\n"
                "# --reference (docs/codabench.md).\n")
# Submissions a participant may make to each phase, (per day, in all): Codabench's phase keys
# `max_submissions_per_day` and `max_submissions` (its unpacker's defaults are 5 and 100; failed submissions do not
# count, src/apps/competitions/models.py can_user_make_submissions). The dry run is for trying the format; the
# formal phase takes the campaign's rule (Task.formal_submissions) or this default (docs/codabench.md).
DRY_RUN_SUBMISSIONS = (20, 200)
FORMAL_SUBMISSIONS = (5, 100)


@dataclass(frozen=True)
class PhaseDates:
    """ISO `YYYY-MM-DD HH:MM:SS` dates; placeholders an organiser replaces with --dates (phases must not overlap)."""

    dry_run_start: str = "2026-01-01 00:00:00"
    dry_run_end: str = "2026-12-31 23:59:59"
    formal_start: str = "2027-01-01 00:00:00"
    # Codabench treats a phase without an end as active for ever (Phase.is_active, specs/campaign.md 4.3), so the
    # formal phase ends too; the organiser sets the date (--dates, or --formal-end).
    formal_end: Optional[str] = "2027-03-31 23:59:59"


@dataclass
class BundlePlan:
    """What one bundle holds: the tasks, their reference folders, and the generated files."""

    root: str
    tasks: List[Task]
    formal_reference: Optional[str] = None
    dates: PhaseDates = field(default_factory=PhaseDates)
    submissions: Optional[Tuple[int, int]] = None     # the formal phase's (per day, in all); None: the campaign's
    # What participants see of the formal phase (codabench/disclosure.py): written into its task.yaml as `detail:`.
    formal_detail: str = AGGREGATE
    # The formal reference data goes into the zip (anyone can then download it) instead of onto the organiser's
    # compute worker (codabench/worker_data.py).
    publish_reference: bool = False
    queue: Optional[str] = None           # the vhost of the organiser's Codabench queue (competition.yaml `queue:`)
    # Where the folder for the worker is written (beside the zip): an earlier build's id and key there are kept.
    worker_root: Optional[str] = None
    _worker: Optional[WorkerCopy] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # One competition per task: Codabench ranks a leaderboard by its primary column with NULLs first
        # (PostgreSQL, DESC), so a leaderboard holding two tasks' columns ranks one task's rows by the other's
        # column (docs/codabench.md).
        if len(self.tasks) != 1:
            raise ConfigError("a competition ranks one task (Codabench puts a row with an empty primary column "
                              "first); got %s: build one bundle per task (runscore bundle --tasks T, or "
                              "--per-task DIR)" % (", ".join(t.id for t in self.tasks) or "no task"))

    @property
    def task(self) -> Task:
        return self.tasks[0]

    @property
    def formal_submissions(self) -> Tuple[int, int]:
        """(per day, in all) of the formal phase: the bundle option, else the campaign's rule, else the default."""
        return self.submissions or self.task.formal_submissions or FORMAL_SUBMISSIONS

    @property
    def title(self) -> str:
        return "%s (runscore)" % self.task.title

    @property
    def collecting(self) -> bool:
        """Does the formal phase collect runs instead of scoring them? Without --reference it has no judgements
        (it never scores against the sample data); a reference folder may say so itself (`mode: collect`)."""
        if self.formal_reference is None:
            return True
        from .collect import is_collecting

        folder = self.formal_reference
        task_folder = os.path.join(folder, self.task.id)
        return is_collecting(task_folder if os.path.isdir(task_folder) else folder)

    @property
    def on_worker(self) -> bool:
        """Is the formal reference kept on the organiser's compute worker (the zip holding only where it is)?"""
        return bool(self.formal_reference) and not self.publish_reference and not self.collecting

    def worker_copy(self) -> WorkerCopy:
        """The formal reference as the worker keeps it, and the zip's pointer to it; made once per plan (its key is
        random, unless an earlier build's folder in worker_root gives it)."""
        if self._worker is None:
            files = read_files(reference_files(self.formal_reference, self.tasks, "formal reference data"))
            reference = {name.split("/", 1)[1]: content for name, content in files.items()}
            reference["task.yaml"] = with_detail(reference.get("task.yaml", ("task: %s\n" % self.task.id).encode(
                "utf-8")), self.formal_detail)
            identity = existing_identity(self.worker_root, self.task.id) if self.worker_root else None
            self._worker = worker_copy(self.task.id, reference, (POINTER_HEAD % self.task.id).encode("utf-8"),
                                       self.formal_detail, identity)
        return self._worker

    def phase_modes(self) -> List[Tuple[str, str]]:
        """(phase, what it does), for the organiser's summary of `make bundle`."""
        if self.collecting:
            formal = "collects runs (checks and receipts, no scores; leaderboard hidden)"
        elif self.on_worker:
            formal = "scores against %s, kept on your compute worker (not in the zip)" % self.formal_reference
        else:
            formal = "scores against %s, PUBLISHED in the zip" % self.formal_reference
        return [("Dry run", "scores against the sample data"), ("Formal run", formal)]


def select_tasks(root: str, task_ids: Optional[Sequence[str]] = None) -> List[Task]:
    """The requested tasks (registry order), or every registered task with sample data in reference_data/."""
    samples = sample_reference_dir(root)
    if task_ids:
        wanted = [get_task(t.strip()) for t in task_ids if t.strip()]
        chosen = [t for t in all_tasks() if t in wanted]
        missing = [t.id for t in chosen if not os.path.isdir(os.path.join(samples, t.id))]
        if missing:
            raise ConfigError("no sample reference data for %s in %s (the dry-run phase needs it)"
                              % (", ".join(missing), samples))
        return chosen
    chosen = [t for t in all_tasks() if os.path.isdir(os.path.join(samples, t.id))]
    if not chosen:
        raise ConfigError("no task folder in %s" % samples)
    return chosen


def tasks_without_samples(root: str) -> List[str]:
    samples = sample_reference_dir(root)
    return [t.id for t in all_tasks() if not os.path.isdir(os.path.join(samples, t.id))]
