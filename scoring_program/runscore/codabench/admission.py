"""The organiser's gate (`runscore admit`): a competition whose reference data lie on the organiser's compute worker
holds every submission (`auto_run_submissions: false`) and only result files are started.

Codabench's worker runs a submission as a program when the unpacked zip holds `metadata.yaml` or `metadata` at its
top (compute_worker.py `_run_program_directory`), in a container that mounts /app/data, the worker's data folder,
in every phase; what such a program sets (the size of its output, how long it runs, how it fails) reaches its
author whatever score.py does afterwards. So each waiting zip is read here first, by its central directory only
(never unpacked): a zip that Codabench would run as a program, or that is no zip, is cancelled; the rest are run.
One pass is idempotent: a submission run or cancelled leaves status Submitting and is not listed again.
"""
import os
import tempfile
import zipfile
from dataclasses import dataclass
from typing import Callable, List, Optional

from ..discover import MAX_ZIP_MEMBERS, declared_entries
from .site_api import Site, SiteDown, SiteRefused, TooLarge

# How often the poller looks for new submissions; participants are told their submission starts within it (the
# phase pages, codabench/pages.py).
ADMIT_INTERVAL = 60
MAX_SUBMISSION_BYTES = 1024 ** 3      # a submission's zip (score.py unpacks at most 1 GiB, docs/limits.md)
MAX_DOWNLOAD_SECONDS = 600.0          # one zip's whole download (1 GiB at under 2 MB/s is a stuck store)
PROGRAM_FILES = ("metadata", "metadata.yaml")


@dataclass
class Decision:
    submission: int
    owner: str
    phase: str
    file: str
    action: str          # "run", "cancel" or "skip" (not decided this pass: tried again on the next)
    why: str

    def line(self) -> str:
        return "submission %d by %s (phase %s, %s): %s: %s" % (self.submission, self.owner, self.phase, self.file,
                                                              self.action, self.why)


def program_reason(zip_path: str) -> Optional[str]:
    """Why Codabench would run this upload as a program or could not read it (None: a result zip it would copy).

    Read from the zip's central directory only, in time and memory bounded by MAX_ZIP_MEMBERS entries whatever the
    file holds (a bomb is never inflated). A name is taken as the worker's `ZipFile.extractall` writes it (empty,
    '.' and '..' parts dropped, a leading '/' too), '\\' counted as a separator as well, and its case ignored: the
    worker looks for metadata at the top; one top-level folder is looked into too (zip tools often add one, and a
    result file is never named metadata)."""
    try:
        declared = declared_entries(zip_path)
    except OSError as exc:
        return "cannot be read (%s)" % (exc.strerror or exc)
    if declared > MAX_ZIP_MEMBERS:
        return "a zip of %d entries (as its end record declares), more than the limit of %d" % (
            declared, MAX_ZIP_MEMBERS)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, NotImplementedError, OSError, EOFError,
            UnicodeDecodeError):
        return "not a zip file Codabench can unpack"
    if len(names) > MAX_ZIP_MEMBERS:
        return "a zip of %d entries, more than the limit of %d" % (len(names), MAX_ZIP_MEMBERS)
    if not names:
        return "an empty zip"
    for name in names:
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
        if 1 <= len(parts) <= 2 and parts[-1].lower() in PROGRAM_FILES:
            shown = "/".join(parts)
            return ("it holds %s, which makes Codabench run the submission as a program on the worker that holds "
                    "the reference data; only result files are admitted" % _printable(shown))
    return None


def _printable(name: str) -> str:
    return repr(name[:100] + ("..." if len(name) > 100 else ""))


def decide(site: Site, row: dict, workdir: str, limit: int = MAX_SUBMISSION_BYTES,
           seconds: float = MAX_DOWNLOAD_SECONDS) -> Decision:
    """Download one waiting submission's zip and decide. A zip that cannot be had (a submission created without a
    data file makes download_many fail with HTTP 500; a stuck store) is skipped, never allowed to stop the pass:
    oldest first, it would hold every later submission back, pass after pass. A token that may not download
    (401, 403) propagates: that is the organiser's to fix."""
    submission = row["id"]
    decision = Decision(submission, _text(row.get("owner")), _text(row.get("phase_name") or row.get("phase")),
                        _text(row.get("filename")), "skip", "")
    if row.get("parent") is not None:
        decision.why = "a task of submission %s, started with it" % row.get("parent")
        return decision
    handle, path = tempfile.mkstemp(prefix="admit-%d-" % submission, suffix=".zip", dir=workdir)
    os.close(handle)
    try:
        try:
            size = site.download(site.data_url(submission), path, limit, seconds)
        except TooLarge as exc:
            decision.action, decision.why = "cancel", "its upload is %s, the limit of a submission" % exc
            return decision
        except (SiteDown, SiteRefused) as exc:
            if isinstance(exc, SiteRefused) and exc.status in (401, 403):
                raise
            decision.why = "its zip could not be downloaded (%s): left waiting, tried again on the next pass" % exc
            return decision
        reason = program_reason(path)
    finally:
        os.unlink(path)
    if reason is None:
        decision.action, decision.why = "run", "a result zip (%d bytes, no metadata file)" % size
    else:
        decision.action, decision.why = "cancel", reason
    return decision


def _text(value) -> str:
    text = "" if value is None else str(value)
    return "".join(c if c.isprintable() else "?" for c in text[:80]) or "?"


def admit_once(site: Site, competition: int, log: Callable[[str], None], workdir: str,
               limit: int = MAX_SUBMISSION_BYTES, seconds: float = MAX_DOWNLOAD_SECONDS) -> List[Decision]:
    """One pass over the competition's waiting submissions: each downloaded, decided, then run or cancelled, one
    log line each. A zip that cannot be downloaded is skipped (decide); SiteDown of the list, a run or a cancel
    stops the pass (what was done stays done; the rest waits for the next pass); a
    SiteRefused of one submission's run or cancel (another organiser acted first) is logged and the pass goes on."""
    done = []
    for row in site.waiting(competition):
        decision = decide(site, row, workdir, limit, seconds)
        try:
            if decision.action == "run":
                site.run(decision.submission)
            elif decision.action == "cancel":
                if not site.cancel(decision.submission):
                    decision.why += " (the site says it was no longer running: cancelled or finished already)"
        except SiteRefused as exc:
            if exc.status == 401 or "permission" in str(exc).lower():     # the token is no organiser's
                raise
            decision.why += "; the site refused the %s: %s" % (decision.action, exc)
            decision.action = "failed"
        except SiteDown:
            log("submission %d: the site did not answer the %s; tried again on the next pass"
                % (decision.submission, decision.action))
            raise
        log(decision.line())
        done.append(decision)
    return done
