"""Discovery: which files of a submission are runs, and of which task.

Why: participants zip folders, macOS adds __MACOSX and .DS_Store, Codabench adds its own `metadata` file, and
v1 unzipped nested zips while Codabench does not. One place turns all that into a list of candidate files,
then assigns each to a task by its name, or failing that by its content.
"""
import os
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .errors import Diagnostic, ERROR, RunError
from .textfile import BOM

IGNORED_NAMES = {"metadata", "metadata.yaml", "__MACOSX", "Thumbs.db", "desktop.ini"}

# Limits on archives (zip bombs, path tricks); see README "Limits".
MAX_ZIP_MEMBERS = 10000
MAX_ZIP_TOTAL_BYTES = 4 * 1024 ** 3
MAX_ZIP_RATIO = 200
MAX_ZIP_DEPTH = 2


@dataclass
class Candidate:
    """A file of the submission: its name as the participant knows it, and where it is on disk."""

    display: str
    path: str


def ignored(name: str) -> bool:
    return name in IGNORED_NAMES or name.startswith(".")


def list_candidates(res_dir: str, workdir: Optional[str] = None) -> List[Candidate]:
    """All candidate files under res_dir, nested zips opened (safely) into `workdir`."""
    workdir = workdir or tempfile.mkdtemp(prefix="runscore-")
    return _walk(res_dir, "", workdir, 0)


def _walk(folder: str, prefix: str, workdir: str, depth: int) -> List[Candidate]:
    entries = sorted(e for e in os.listdir(folder) if not ignored(e))
    # A single top-level folder (a zipped folder) is stepped into.
    if len(entries) == 1 and os.path.isdir(os.path.join(folder, entries[0])) and \
            not os.path.islink(os.path.join(folder, entries[0])):
        return _walk(os.path.join(folder, entries[0]), prefix + entries[0] + "/", workdir, depth)
    found: List[Candidate] = []
    for entry in entries:
        path = os.path.join(folder, entry)
        display = prefix + entry
        if os.path.islink(path):
            raise RunError("symbolic links are not accepted in a submission", display)
        if os.path.isdir(path):
            found.extend(_walk(path, display + "/", workdir, depth))
        elif entry.lower().endswith(".zip") and zipfile.is_zipfile(path):
            if depth >= MAX_ZIP_DEPTH:
                raise RunError("zip files nested more than %d deep are not accepted" % MAX_ZIP_DEPTH, display)
            target = tempfile.mkdtemp(prefix="zip-", dir=workdir)
            safe_extract(path, target, display)
            found.extend(_walk(target, display + "/", workdir, depth + 1))
        elif os.path.isfile(path):
            found.append(Candidate(display, path))
    return found


def safe_extract(zip_path: str, target: str, display: str) -> None:
    """Extract a zip into target, refusing path tricks, links, encryption and bombs, with a clear message."""
    try:
        with zipfile.ZipFile(zip_path) as archive:
            members = archive.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise RunError("zip holds %d entries, more than the limit of %d" % (len(members), MAX_ZIP_MEMBERS),
                               display)
            total = sum(m.file_size for m in members)
            compressed = sum(m.compress_size for m in members) or 1
            if total > MAX_ZIP_TOTAL_BYTES:
                raise RunError("zip unpacks to %d bytes, more than the limit of %d" % (total, MAX_ZIP_TOTAL_BYTES),
                               display)
            if total > 1024 * 1024 and total / compressed > MAX_ZIP_RATIO:
                raise RunError("zip compression ratio %.0f:1 looks like a zip bomb (limit %d:1)"
                               % (total / compressed, MAX_ZIP_RATIO), display)
            root = os.path.realpath(target)
            for member in members:
                name = member.filename
                if member.flag_bits & 0x1:
                    raise RunError("zip entry %r is encrypted; submit an unencrypted zip" % name, display)
                mode = member.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise RunError("zip entry %r is a symbolic link; links are not accepted" % name, display)
                if name.startswith("/") or name.startswith("\\") or ".." in name.replace("\\", "/").split("/") \
                        or (len(name) > 1 and name[1] == ":"):
                    raise RunError("zip entry %r points outside the archive" % name, display)
                destination = os.path.realpath(os.path.join(root, name))
                if not destination.startswith(root + os.sep) and destination != root:
                    raise RunError("zip entry %r points outside the archive" % name, display)
            archive.extractall(target)
    except zipfile.BadZipFile as exc:
        raise RunError("not a readable zip file: %s" % exc, display)
    except (RuntimeError, NotImplementedError) as exc:
        raise RunError("cannot unpack zip: %s" % exc, display)


def read_head(path: str, size: int = 4096) -> str:
    """The first bytes of a file as text (undecodable bytes replaced), for content sniffing."""
    with open(path, "rb") as handle:
        data = handle.read(size)
    if data.startswith(BOM):
        data = data[len(BOM):]
    return data.decode("utf-8", errors="replace")


def assign_tasks(candidates: Sequence[Candidate], tasks: Sequence) -> Tuple[List[Tuple[Candidate, object]],
                                                                             List[Diagnostic]]:
    """Pair each candidate with the one task it belongs to: by file name first, then by content."""
    pairs, problems = [], []
    for candidate in candidates:
        base = os.path.basename(candidate.display)
        by_name = [t for t in tasks if t.claims_name(base)]
        chosen = by_name
        if len(by_name) != 1:
            head = read_head(candidate.path)
            by_content = [t for t in (by_name or tasks) if t.sniff(head)]
            chosen = by_content if by_content else by_name
        if len(chosen) == 1:
            pairs.append((candidate, chosen[0]))
        elif not chosen:
            expected = "; ".join("%s: %s" % (t.id, t.run_file_help) for t in tasks)
            problems.append(Diagnostic(candidate.display, 0, ERROR,
                                       "not a run of any task of this competition (expected %s)" % expected))
        else:
            problems.append(Diagnostic(candidate.display, 0, ERROR, "could be a run of %s; rename it as one task's "
                                       "runs are named" % " or ".join(t.id for t in chosen)))
    return pairs, problems
