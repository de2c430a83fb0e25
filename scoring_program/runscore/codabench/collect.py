"""The collection phase: a formal phase whose judgements do not exist yet checks every run and gives a receipt.

Why: for a pooled task (ntcir1-adhoc, temporalia-tir, r2c2-pr, r2c2-ac) the qrels are made from the formal runs,
so when those runs arrive there is nothing to score against. Scoring them against the sample data (what a bundle
without REFERENCE did) posts meaningless numbers; `auto_run_submissions: false` stores uploads unchecked. Here a
reference folder whose task.yaml says `mode: collect` makes score.py run every check a scored phase runs (format,
names, per-team caps, and the official topics when task.yaml lists them: pipeline.check_official_topics) and, for
a valid submission, write a receipt (run, team, line count, SHA-256 of the file) to the log and the detailed page
instead of scores. The scores file it writes holds only `<task>_runs_received`, which is no leaderboard column:
Codabench finishes a submission whose scores file exists and skips keys it has no column for (specs/campaign.md
4.3), so the rows of a collecting phase stay empty; the bundle hides the leaderboard while collecting
(docs/campaign.md).
"""
import os
from typing import Sequence

from ..tasks.base import read_task_yaml

COLLECT = "collect"


def is_collecting(folder: str) -> bool:
    return os.path.isdir(folder) and read_task_yaml(folder).get("mode") == COLLECT


def collect_task_yaml(task_id: str) -> str:
    """The task.yaml of a formal phase built without judgements (runscore bundle without --reference)."""
    return ("# The formal phase of %s collects runs: every check of a scored phase, a receipt instead of scores.\n"
            "# Once the judgements exist, replace this folder with the one runscore bundle --reference writes\n"
            "# (the data stay on your compute worker; docs/campaign.md); optionally list the official topics\n"
            "# here so that the phase checks them.\n"
            "task: %s\nmode: collect\n" % (task_id, task_id))


def collect_submission(references, checked_by_task, candidates, output_dir: str, page: str,
                       companions: Sequence = ()) -> int:
    """A valid submission of a collecting phase: a receipt per run and per companion file (the PR runs an AC run
    cites, stored with it) in the log and on the page, a scores file with no leaderboard column (so the
    submission finishes), nothing scored."""
    from ..errors import EXIT_OK
    from ..report import atomic_write, detailed_html, write_scores
    from .receipt import receipt_line, receipt_of, receipt_table, receipts_of, team_of_run

    paths = {c.display: c.path for c in candidates}
    sections = []
    received = {}
    for task_id, checked in checked_by_task.items():
        task = references[task_id].task
        receipts = receipts_of((paths[c.display], run.name, team_of_run(task, run), c.display, run.lines)
                               for c in checked for run in c.runs)
        for receipt in receipts:
            print(receipt_line(receipt))
        received["%s_runs_received" % task.key_prefix] = float(len(receipts))
        sections.append({"title": "%s (%s): runs received" % (task.title, task.id),
                         "text": "This phase collects runs: every check passed, and the runs are stored for the "
                                 "organisers' assessment. Nothing is scored yet; the leaderboard stays hidden until "
                                 "the judgements exist and every run is scored again.",
                         "diagnostics": [m for c in checked for m in c.diags.lines()],
                         "tables": [receipt_table(receipts)]})
    if companions:
        stored = [receipt_of(c.path, os.path.basename(c.display), file=c.display) for c in companions]
        for receipt in stored:
            print("receipt: companion %s, %d line%s, sha256 %s" % (receipt.file, receipt.lines,
                                                                   "" if receipt.lines == 1 else "s", receipt.sha256))
        sections.append({"title": "Files read beside the runs", "text": "Stored with the runs that cite them "
                         "(not runs of this competition themselves).",
                         "tables": [dict(receipt_table(stored), caption="Receipt of each file read beside the runs "
                                         "(compare with sha256sum and wc -l on your copy)")]})
    write_scores(output_dir, received)
    atomic_write(page, detailed_html("Runs received (not scored)", sections, "collected"))
    print("collected %d run(s); nothing scored (this phase collects runs for assessment)"
          % int(sum(received.values())))
    return EXIT_OK
