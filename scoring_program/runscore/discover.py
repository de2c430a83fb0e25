"""Discovery: which files of a submission are runs, and of which task.

Why: participants zip folders, macOS adds __MACOSX and .DS_Store, Codabench adds its own `metadata` file, and
v1 unzipped nested zips while Codabench does not. One place turns all that into a list of candidate files,
then assigns each to a task by its name, or failing that by its content.
"""
import os
import stat
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .errors import Diagnostic, ERROR, RunError
from .textfile import BOM

IGNORED_NAMES = {"metadata", "metadata.yaml", "__MACOSX", "Thumbs.db", "desktop.ini"}
# Archives that are not unpacked: named in the message so the participant knows to send a zip instead.
OTHER_ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".gz", ".bz2", ".xz", ".7z", ".rar")

# Limits on submissions (zip bombs, path tricks, floods of files); docs/limits.md explains each.
MAX_ZIP_MEMBERS = 10000                 # entries of one zip
MAX_ZIP_TOTAL_BYTES = 1024 ** 3         # bytes unpacked from all the zips of a submission together
MAX_ZIP_RATIO = 200                     # unpacked / packed size of one zip (when it unpacks to over 1 MiB)
MAX_ZIP_DEPTH = 2                       # a zip inside a zip inside the submission, no deeper
MAX_FOLDER_DEPTH = 32                   # folders inside folders
MAX_FILES = 10000                       # files of the whole submission, after unpacking
CHUNK = 1024 * 1024


@dataclass
class Candidate:
    """A file of the submission: its name as the participant knows it, and where it is on disk."""

    display: str
    path: str


class _Budget:
    """What the whole submission may still unpack and list (shared by nested zips)."""

    def __init__(self) -> None:
        self.bytes_left = MAX_ZIP_TOTAL_BYTES
        self.files = 0

    def add_file(self, display: str) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise RunError("the submission holds more than %d files; send only the run files" % MAX_FILES, display)


def ignored(name: str) -> bool:
    return name in IGNORED_NAMES or name.startswith(".")


def list_candidates(res_dir: str, workdir: Optional[str] = None) -> List[Candidate]:
    """All candidate files under res_dir, nested zips opened (safely) into `workdir`."""
    workdir = workdir or tempfile.mkdtemp(prefix="runscore-")
    return _walk(res_dir, "", workdir, 0, _Budget(), 0)


def _walk(folder: str, prefix: str, workdir: str, depth: int, budget: _Budget, levels: int) -> List[Candidate]:
    if levels > MAX_FOLDER_DEPTH:
        raise RunError("folders nested more than %d deep are not accepted" % MAX_FOLDER_DEPTH, prefix.rstrip("/"))
    try:
        entries = sorted(e for e in os.listdir(folder) if not ignored(e))
    except OSError as exc:
        raise RunError("cannot list folder: %s" % (exc.strerror or exc), prefix.rstrip("/") or ".")
    # A single top-level folder (a zipped folder) is stepped into.
    if len(entries) == 1 and os.path.isdir(os.path.join(folder, entries[0])) and \
            not os.path.islink(os.path.join(folder, entries[0])):
        return _walk(os.path.join(folder, entries[0]), prefix + entries[0] + "/", workdir, depth, budget,
                     levels + 1)
    found: List[Candidate] = []
    for entry in entries:
        if _unzipped_copy(folder, entry, entries):
            continue
        path = os.path.join(folder, entry)
        display = prefix + entry
        if any(ord(c) < 32 or c == "\x7f" for c in entry):   # would break the one-line FILE:LINE messages
            raise RunError("file name %r has a control character; rename it" % entry, prefix.rstrip("/") or ".")
        if os.path.islink(path):
            raise RunError("symbolic links are not accepted in a submission", display)
        if os.path.isdir(path):
            found.extend(_walk(path, display + "/", workdir, depth, budget, levels + 1))
        elif entry.lower().endswith(".zip") and zipfile.is_zipfile(path):
            if depth >= MAX_ZIP_DEPTH:
                raise RunError("zip files nested more than %d deep are not accepted" % MAX_ZIP_DEPTH, display)
            target = tempfile.mkdtemp(prefix="zip-", dir=workdir)
            safe_extract(path, target, display, budget)
            found.extend(_walk(target, display + "/", workdir, depth + 1, budget, levels + 1))
        elif os.path.isfile(path):
            budget.add_file(display)
            found.append(Candidate(display, path))
    return found


def _unzipped_copy(folder: str, entry: str, entries: Sequence[str]) -> bool:
    """Whether folder/entry is the legacy CodaLab worker's copy of the zip beside it: that worker unzips every
    top-level `X.zip` of a submission into `X/` and keeps the zip (competitions-v1-compute-worker, worker.py
    get_bundle), so the runs would be read twice. The copy is skipped only when it holds exactly the zip's
    files (same paths, same sizes); anything else is the participant's own folder and is read."""
    zip_name = entry + ".zip"
    path = os.path.join(folder, entry)
    if zip_name not in entries or not os.path.isdir(path) or os.path.islink(path):
        return False
    try:
        with zipfile.ZipFile(os.path.join(folder, zip_name)) as archive:
            members = {m.filename.replace("\\", "/"): m.file_size for m in archive.infolist() if not m.is_dir()}
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError, zlib.error):
        return False
    files = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.islink(full):
                return False
            files[os.path.relpath(full, path).replace(os.sep, "/")] = os.path.getsize(full)
    return files == members


def _bad_name(name: str) -> Optional[str]:
    """Why a member name may not be unpacked (it would land outside the target or cannot be a file name)."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or ".." in parts:
        return "points outside the archive"
    if "\x00" in name or any(ord(c) < 32 for c in name):
        return "has a control character in its name"
    if len([p for p in parts if p]) > MAX_FOLDER_DEPTH:
        return "is nested more than %d folders deep" % MAX_FOLDER_DEPTH
    return None


def safe_extract(zip_path: str, target: str, display: str, budget: Optional[_Budget] = None) -> None:
    """Extract a zip into target, refusing path tricks, links, encryption, duplicates and bombs, with a clear
    message. Members are copied by this function, never by extractall, so the byte budget holds even when a
    member's header lies about its size, and no byte is written outside `target`."""
    budget = budget or _Budget()
    try:
        with zipfile.ZipFile(zip_path) as archive:
            members = archive.infolist()
            _check_archive(members, os.path.getsize(zip_path), display, budget)
            root = os.path.realpath(target)
            for member in members:
                _extract_member(archive, member, root, display, budget)
    except zipfile.BadZipFile as exc:
        raise RunError("not a readable zip file: %s" % exc, display)
    except (RuntimeError, NotImplementedError, EOFError, zlib.error) as exc:
        raise RunError("cannot unpack zip: %s" % exc, display)
    except OSError as exc:
        raise RunError("cannot unpack zip: %s" % (exc.strerror or exc), display)


def _check_archive(members, packed_size: int, display: str, budget: _Budget) -> None:
    """The checks that need only the central directory: counts, sizes, ratio, names, links, encryption."""
    if len(members) > MAX_ZIP_MEMBERS:
        raise RunError("zip holds %d entries, more than the limit of %d" % (len(members), MAX_ZIP_MEMBERS), display)
    total = sum(m.file_size for m in members)
    if total > budget.bytes_left:
        raise RunError("zip unpacks to %d bytes; the submission may unpack at most %d bytes in all"
                       % (total, MAX_ZIP_TOTAL_BYTES), display)
    if total > CHUNK and total / max(packed_size, 1) > MAX_ZIP_RATIO:
        raise RunError("zip compression ratio %.0f:1 looks like a zip bomb (limit %d:1)"
                       % (total / max(packed_size, 1), MAX_ZIP_RATIO), display)
    if sum(m.compress_size for m in members) > packed_size:
        raise RunError("zip entries overlap (their packed sizes add up to more than the file); this is how zip "
                       "bombs are built", display)
    seen = {}
    for member in members:
        name = member.filename
        if member.flag_bits & 0x1:
            raise RunError("zip entry %r is encrypted; submit an unencrypted zip" % name, display)
        if stat.S_ISLNK(member.external_attr >> 16):
            raise RunError("zip entry %r is a symbolic link; links are not accepted" % name, display)
        problem = _bad_name(name)
        if problem:
            raise RunError("zip entry %r %s" % (name, problem), display)
        key = name.replace("\\", "/").rstrip("/")
        if key in seen:
            raise RunError("zip holds two entries named %r; remove one" % name, display)
        seen[key] = name


def _extract_member(archive, member, root: str, display: str, budget: _Budget) -> None:
    name = member.filename.replace("\\", "/")
    destination = os.path.realpath(os.path.join(root, name))
    if not destination.startswith(root + os.sep) and destination != root:
        raise RunError("zip entry %r points outside the archive" % member.filename, display)
    if member.is_dir():
        os.makedirs(destination, exist_ok=True)
        return
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    with archive.open(member) as source, open(destination, "xb") as out:
        while True:
            chunk = source.read(CHUNK)
            if not chunk:
                break
            budget.bytes_left -= len(chunk)
            if budget.bytes_left < 0:
                raise RunError("zip unpacks to more than %d bytes (more than its headers say); not accepted"
                               % MAX_ZIP_TOTAL_BYTES, display)
            out.write(chunk)


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
        elif not chosen and base.lower().endswith(OTHER_ARCHIVES):
            problems.append(Diagnostic(candidate.display, 0, ERROR, "only zip archives are unpacked; send a .zip "
                                       "or the run files themselves"))
        elif not chosen:
            expected = "; ".join("%s: %s" % (t.id, t.run_file_help) for t in tasks)
            problems.append(Diagnostic(candidate.display, 0, ERROR,
                                       "not a run of any task of this competition (expected %s)" % expected))
        else:
            problems.append(Diagnostic(candidate.display, 0, ERROR, "could be a run of %s; rename it as one task's "
                                       "runs are named" % " or ".join(t.id for t in chosen)))
    return pairs, problems
