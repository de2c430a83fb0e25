"""The organiser's steps to keep a competition's formal reference on a compute worker of their own: the README
written beside the data (codabench/worker_data.py) and printed by `runscore bundle`.
"""
import os

from .bundle_plan import BundlePlan
from .worker_data import worker_root_of


def worker_readme(plan: BundlePlan, zip_path: str) -> str:
    """The organiser's steps, written beside the data on the worker and printed by `runscore bundle`."""
    base = plan.worker_copy().base
    root = worker_root_of(zip_path)
    from .admission import ADMIT_INTERVAL

    return WORKER_STEPS.format(task=plan.task.id, zip=os.path.basename(zip_path), zip_path=zip_path, root=root,
                               base=base, interval=ADMIT_INTERVAL,
                               queue_step=("it is set already (built with --queue %s)" % plan.queue if plan.queue
                                           else "on the competition's page, Edit > Details > Queue (or build the "
                                           "zip with --queue VHOST)"))


WORKER_STEPS = """# The formal reference data of {task}: keep it on your own compute worker

The zip {zip} holds none of the formal phase's reference data, only where it is and a fingerprint of each
file. Codabench serves every dataset of a competition to anyone who asks (a published competition lists their
keys, and a download by key checks no permission), so data in the zip is public. The formal phase reads the
data from the compute worker's data folder instead: every container the worker runs sees its
$HOST_DIRECTORY/data read-only at /app/data (Codabench's documentation: "Compute worker management and setup",
"put data directly inside the compute worker").

1. Create a queue of your own on Codabench: Resources > Queue management > Create queue, "Make public" left
   unchecked. Its eye button shows its broker URL and its vhost.
2. Run a compute worker for that queue on a machine you control (Codabench's documentation, "Compute worker
   management and setup"). In its .env: BROKER_URL=<the queue's broker URL>, HOST_DIRECTORY=<a folder of that
   machine, e.g. /codabench>, and COMPETITION_CONTAINER_NETWORK_DISABLED=True (why: at the end).
3. Copy the contents of the folder written beside the zip into $HOST_DIRECTORY/data/ on every worker of the
   queue, owned by the user that runs the worker (root when Docker runs as root), e.g.
       cp -r {root}/. /codabench/data/
   The competition's own folder in it, {base}/, holds the data ({task}/), the key of
   the fingerprints (fingerprint.key) and this README; other competitions' folders can lie beside it.
4. Upload {zip} and assign the competition to your queue: {queue_step}. Every phase of the competition then
   runs on your worker.
5. Start the gate, and keep it running while the competition is open. The competition holds every submission
   (auto_run_submissions: false): none runs until you start it, so no participant's program ever runs on your
   worker. `runscore admit` starts the result files and cancels every zip that Codabench would run as a program
   (one holding a file named metadata or metadata.yaml), in every phase. With your API token (POST
   <site>/api/api-token-auth/ with your username and password returns it):
       CODABENCH_TOKEN=<token> runscore admit https://www.codabench.org <competition number>
   or from cron, every minute: ... runscore admit https://www.codabench.org <competition number> --once
   The competition's pages tell participants that a submission starts within {interval} seconds of upload.
6. Check it before the formal phase opens (the dry run finds the folder beside the zip and lays it out as the
   worker does):
       python3 starting_kit/dry_run.py --bundle {zip_path} --phase formal
   On the platform, a worker whose data folder lacks the data, or holds other data, fails every formal
   submission with exit 2 and a message for you in the scoring log: it never scores against other data.

Keep this folder: a later `runscore bundle --reference` that writes beside it reuses its folder name and key,
so the worker needs a new copy only when the data change.

Why the network off, and why the gate: Codabench runs a submission that holds a file named `metadata` as a
program, in every phase of the competition, on your worker, with /app/data mounted; what such a program sets
(the size of its output, how long it runs, how it fails) reaches its author, whatever score.py does afterwards
(docs/codabench.md measures it: 20 of 20 gold labels out of 4 failed submissions). `runscore admit` never
starts one; score.py refusing what a program wrote is the second lock, and the network off the third.
"""
