"""Discovery: which files of a submission are runs, and of which task.

Why: participants zip folders, macOS adds __MACOSX and .DS_Store, Codabench adds its own `metadata` file, and
v1 unzipped nested zips while Codabench does not. One place turns all that into a list of candidate files,
then assigns each to a task by its name, or failing that by its content.
"""
import lzma
import os
import stat
import struct
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .errors import Diagnostic, ERROR, RunError
from .textfile import BOM, UTF16_BOMS

IGNORED_NAMES = {"metadata", "metadata.yaml", "__MACOSX", "Thumbs.db", "desktop.ini"}
# Archives that are not unpacked: named in the message so the participant knows to send a zip instead.
OTHER_ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".gz", ".bz2", ".xz", ".7z", ".rar")
# Files a team may put beside its runs (a system description, a figure): told as what they are. A .docx is a zip
# inside, and was unpacked and its XML parts read as runs (one error a part, none naming the document).
DOCUMENT_KINDS = {".pdf": "a PDF document", ".doc": "a Word document", ".docx": "a Word document",
                  ".odt": "an OpenDocument text", ".rtf": "an RTF document", ".xls": "a spreadsheet",
                  ".xlsx": "a spreadsheet", ".ods": "a spreadsheet", ".ppt": "a presentation", ".pptx": "a presentation",
                  ".odp": "a presentation", ".png": "an image", ".jpg": "an image", ".jpeg": "an image",
                  ".gif": "an image"}
_DOCUMENT_SIGNATURES = ((b"%PDF-", "a PDF document"), (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Office document"),
                        (b"\x89PNG\r\n", "an image"), (b"\xff\xd8\xff", "an image"), (b"GIF87a", "an image"),
                        (b"GIF89a", "an image"),
                        (b"\x7fELF", "a program"))

# Limits on submissions (zip bombs, path tricks, floods of files); docs/limits.md explains each.
MAX_ZIP_MEMBERS = 10000                 # entries of one zip
MAX_ZIP_TOTAL_BYTES = 1024 ** 3         # bytes unpacked from all the zips of a submission together
MAX_ZIP_RATIO = 200                     # unpacked / packed size of one zip (when it unpacks to over 1 MiB)
MAX_ZIP_DEPTH = 2                       # a zip inside a zip inside the submission, no deeper
MAX_FOLDER_DEPTH = 32                   # folders inside folders
MAX_FILES = 10000                       # files of the whole submission, after unpacking
CHUNK = 1024 * 1024
# What zipfile raises on a hostile archive besides BadZipFile: each was once an "internal error" (exit 2) (an entry with an empty name: IndexError; a damaged LZMA stream: LZMAError; a name flagged UTF-8 that
# is not: UnicodeDecodeError) and is the participant's unreadable zip (exit 1).
ZIP_ERRORS = (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError, zlib.error, lzma.LZMAError,
              UnicodeDecodeError, IndexError, KeyError, ValueError, OverflowError, struct.error)
EOCD = b"PK\x05\x06"            # end-of-central-directory record: 22 bytes + a comment of at most 65,535
ZIP64_EOCD_LOCATOR = b"PK\x06\x07"


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


def list_file_candidates(paths: Sequence[str], workdir: Optional[str] = None) -> List[Candidate]:
    """The files named on a command line (`runscore validate`), each shown as it was named; a zip or a folder
    among them is opened as a submission's would be (the same checks and limits)."""
    workdir = workdir or tempfile.mkdtemp(prefix="runscore-")
    budget = _Budget()
    found: List[Candidate] = []
    for path in paths:
        if os.path.isdir(path):
            found.extend(_walk(path, path.rstrip("/") + "/", workdir, 0, budget, 1))
        elif _is_zip(os.path.basename(path), path):
            target = tempfile.mkdtemp(prefix="zip-", dir=workdir)
            safe_extract(path, target, path, budget)
            found.extend(_walk(target, path + "/", workdir, 1, budget, 1))
        else:
            budget.add_file(path)
            found.append(Candidate(path, path))
    return found


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
        elif _is_zip(entry, path):
            if depth >= MAX_ZIP_DEPTH:
                raise RunError("zip files nested more than %d deep are not accepted" % MAX_ZIP_DEPTH, display)
            target = tempfile.mkdtemp(prefix="zip-", dir=workdir)
            safe_extract(path, target, display, budget)
            found.extend(_walk(target, display + "/", workdir, depth + 1, budget, levels + 1))
        elif os.path.isfile(path):
            budget.add_file(display)
            found.append(Candidate(display, path))
    return found


def _is_zip(entry: str, path: str) -> bool:
    """A zip to unpack: named .zip, or starting with a zip's local-file signature. One that zipfile cannot read
    (fake end markers in its comment, a truncated file) is then refused as an unreadable zip, never read as a
    run (it once got "not valid UTF-8")."""
    if not os.path.isfile(path) or os.path.splitext(entry.lower())[1] in DOCUMENT_KINDS:
        return False
    return entry.lower().endswith(".zip") or read_start(path) in (b"PK\x03\x04", b"PK\x05\x06")


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
        if declared_entries(os.path.join(folder, zip_name)) > MAX_ZIP_MEMBERS:
            return False           # refused with its message when the zip itself is read
        with zipfile.ZipFile(os.path.join(folder, zip_name)) as archive:
            members = {m.filename.replace("\\", "/"): m.file_size for m in archive.infolist()
                       if not m.filename.endswith("/")}
    except ZIP_ERRORS:             # the zip is read (and refused with a message) as a zip, not as this copy
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
    if not name.strip("/\\"):
        return "has an empty name"
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
        entries = declared_entries(zip_path)
        if entries > MAX_ZIP_MEMBERS:      # told by the end record, before zipfile reads every entry
            raise RunError("zip holds %d entries (as its end record declares), more than the limit of %d"
                           % (entries, MAX_ZIP_MEMBERS), display)
        with zipfile.ZipFile(zip_path) as archive:
            members = archive.infolist()
            if not members and os.path.getsize(zip_path) == 22 + len(archive.comment):   # the end record alone
                raise RunError("the zip holds no file; zip the run files themselves", display)
            if not members:        # e.g. a fake end marker in the comment hides the real directory
                raise RunError("not a readable zip file: it lists no entry", display)
            _check_archive(members, os.path.getsize(zip_path), display, budget)
            root = os.path.realpath(target)
            for member in members:
                _extract_member(archive, member, root, display, budget)
    except zipfile.BadZipFile as exc:
        raise RunError("not a readable zip file: %s" % exc, display)
    except UnicodeDecodeError:
        # zipfile decodes a name flagged UTF-8 (bit 0x800) strictly; without the flag it reads cp437
        raise RunError("not a readable zip file: an entry name is marked UTF-8 but is not valid UTF-8; zip the "
                       "files again with a tool that writes UTF-8 names", display)
    except OSError as exc:
        raise RunError("cannot unpack zip: %s" % (exc.strerror or exc), display)
    except ZIP_ERRORS as exc:
        detail = " ".join(str(exc).split())[:200]
        raise RunError("cannot unpack zip: %s%s" % (type(exc).__name__ if not detail else "", detail), display)


def declared_entries(zip_path: str) -> int:
    """The entry count the zip's end-of-central-directory record declares (its ZIP64 record's when the plain one
    says 0xFFFF), read from the file's last 64 KiB: a zip of a million tiny entries is refused by this number
    before zipfile parses its whole central directory (a 5.8 MB zip of 1M entries took 13 s and 547 MB). 0 when
    no record is found (zipfile then says what is wrong)."""
    with open(zip_path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        start = max(0, size - (22 + 65535 + 20))
        handle.seek(start)
        tail = handle.read()
    # the record whose comment ends the file (a fake record inside a comment does not), else the last one
    # zipfile would take (trailing bytes after the comment must not hide the count)
    found = [i for i in _all(tail, EOCD) if len(tail) - i >= 22]
    exact = [i for i in found if struct.unpack("<H", tail[i + 20:i + 22])[0] == len(tail) - i - 22]
    if not found:
        return 0
    at = exact[-1] if exact else found[-1]
    on_disk, total = struct.unpack("<HH", tail[at + 8:at + 12])
    count = max(on_disk, total)
    locator = at - 20
    if count == 0xFFFF and locator >= 0 and tail[locator:locator + 4] == ZIP64_EOCD_LOCATOR:
        offset = struct.unpack("<Q", tail[locator + 8:locator + 16])[0]
        with open(zip_path, "rb") as handle:
            handle.seek(min(offset, size))
            record = handle.read(56)
        if len(record) == 56 and record[:4] == b"PK\x06\x06":
            count = max(struct.unpack("<QQ", record[24:40]))
    return count


def _check_archive(members, packed_size: int, display: str, budget: _Budget) -> None:
    """The checks that need only the central directory: counts, sizes, ratio, names, links, encryption (the
    entry count again, as zipfile read it: a record may understate it)."""
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


def _all(data: bytes, marker: bytes) -> List[int]:
    out, at = [], data.find(marker)
    while at >= 0:
        out.append(at)
        at = data.find(marker, at + 1)
    return out


MAX_BLANK_HEAD = 1024 * 1024     # leading blank bytes skipped by read_head before it gives up


def read_head(path: str, size: int = 4096) -> str:
    """The first `size` bytes of a file from its first non-blank byte, as text (undecodable bytes replaced),
    for content sniffing: leading blank lines never hide what a file is (five of them once made a run of one task
    pass as another's)."""
    with open(path, "rb") as handle:
        data = handle.read(size)
        if data.startswith(BOM):
            data = data[len(BOM):]
        skipped = 0
        while data and not data.strip() and skipped < MAX_BLANK_HEAD:
            skipped += len(data)
            data = handle.read(size)
        data = data.lstrip()
        if len(data) < size:
            data += handle.read(size - len(data))
    return data.decode("utf-8", errors="replace")


def read_start(path: str, size: int = 4) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def document_kind(name: str, path: str, by_first_bytes: bool = True) -> Optional[str]:
    """What a document, image or program is ("a PDF document (.pdf)"), by its name's extension, or by its first
    bytes unless `by_first_bytes` is off; None for any other file. No task's runs end in a document's extension, so
    the extension counts even when a task's name pattern claims the file (`tir_description.pdf` matches tir_.+ and
    got 'not valid UTF-8')."""
    extension = os.path.splitext(name.lower())[1]
    kind = DOCUMENT_KINDS.get(extension)
    if kind is not None:
        return "%s (%s)" % (kind, extension)
    if by_first_bytes:
        start = read_start(path, 8)
        return next((k for signature, k in _DOCUMENT_SIGNATURES if start.startswith(signature)), None)
    return None


def document_problem(name: str, path: str, by_first_bytes: bool = True) -> Optional[str]:
    """The message for a document, image or program in a submission (document_kind), else None. A file named
    like one that holds plain text is most likely a run given a wrong name (`results.png`): telling its author
    it is an image to take out would lose the run, so the message says to rename it."""
    kind = document_kind(name, path, by_first_bytes)
    if kind is None:
        return None
    extension = os.path.splitext(name.lower())[1]
    if extension in DOCUMENT_KINDS and _holds_plain_text(path):
        return ("named like %s but holds plain text: a file so named is never read as a run; if it is a run, "
                "rename it without %s, else take it out of the zip" % (kind, extension))
    return ("%s, not a run: every file of a submission is read as a run, so take it out of the zip (send a "
            "system description where the competition asks for one)" % kind)


def _holds_plain_text(path: str) -> bool:
    """Whether the file starts with UTF-8 text (no NUL byte, no document signature, not RTF), as a run does."""
    start = read_start(path, 4096)
    if not start.strip() or b"\0" in start or start.startswith(b"{\\rtf") or \
            any(start.startswith(signature) for signature, _kind in _DOCUMENT_SIGNATURES):
        return False
    for cut in range(4):         # the 4096th byte may end in the middle of a character
        try:
            start[:len(start) - cut].decode("utf-8")
            return True
        except UnicodeDecodeError:
            continue
    return False


def utf16_problem(path: str) -> Optional[str]:
    """The UTF-16 message when a file starts with a UTF-16 byte order mark or looks like UTF-16 text without one
    (every other byte NUL), else None; said before sniffing, which would only find "not a run of any task"."""
    start = read_start(path, 512)
    if start.startswith(UTF16_BOMS):
        return "file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8"
    if b"\0" not in start:
        return None                # UTF-16 of text has a 0 beside most characters (below): no 0, no UTF-16
    start = start[:len(start) // 2 * 2]
    for zeros, text in ((start[1::2], start[0::2]), (start[0::2], start[1::2])):
        # most characters are ASCII text with a 0 byte beside them: UTF-16 of text (with some non-ASCII
        # characters, say Japanese), not a binary file
        ascii_chars = sum(1 for z, b in zip(zeros, text) if z == 0 and (32 <= b < 127 or b in (9, 10, 13)))
        if len(zeros) >= 4 and ascii_chars >= 0.7 * len(zeros):
            return "file looks like UTF-16 (every other byte is 0); save it as UTF-8"
    return None


def assign_tasks(candidates: Sequence[Candidate], tasks: Sequence) -> Tuple[List[Tuple[Candidate, object]],
                                                                             List[Diagnostic]]:
    """Pair each candidate with the one task it is a run of (the same rule at every door: `validate`,
    `check` and score.py give one verdict).

    One task (a competition, `runscore validate --task T`): every file is a run of it, so the task's own checks
    say what is wrong with a file in another layout (comma-separated, JSON, a run of another task), whatever its
    name. Several tasks: the one task that claims the file's name, else the one whose run it looks like (sniff),
    else the one that accepts it, with warnings maybe (a space-separated ntcir1-adhoc run). A UTF-16 file and an
    archive other than a zip get their own message first."""
    pairs, problems = [], []
    for candidate in candidates:
        base = os.path.basename(candidate.display)
        by_name = [t for t in tasks if t.claims_name(base)]
        if len(by_name) != 1 and base.lower().endswith(OTHER_ARCHIVES):
            problems.append(Diagnostic(candidate.display, 0, ERROR, "only zip archives are unpacked; send a .zip "
                                       "or the run files themselves"))
            continue
        # first bytes only for a name no task claims: a claimed run is judged by its task's own checks
        problem = document_problem(base, candidate.path, by_first_bytes=len(by_name) != 1)
        if problem:
            problems.append(Diagnostic(candidate.display, 0, ERROR, problem))
            continue
        problem = None if len(by_name) == 1 else utf16_problem(candidate.path)
        if problem:
            problems.append(Diagnostic(candidate.display, 1, ERROR, problem))
            continue
        chosen = by_name if len(tasks) > 1 else list(tasks)
        if len(chosen) != 1:
            head = read_head(candidate.path)
            chosen = [t for t in (by_name or tasks) if t.sniff(head)] or \
                [t for t in (by_name or tasks) if accepts(t, candidate)] or by_name
        if len(chosen) == 1:
            pairs.append((candidate, chosen[0]))
        elif not chosen:
            expected = "; ".join("%s: %s" % (t.id, t.run_file_help) for t in tasks)
            problems.append(Diagnostic(candidate.display, 0, ERROR, "not a run of any task of this competition%s "
                                       "(expected %s)" % (_layout_of(candidate.path), expected)))
        else:
            problems.append(Diagnostic(candidate.display, 0, ERROR, "could be a run of %s; rename it as one task's "
                                       "runs are named" % " or ".join(t.id for t in chosen)))
    return pairs, problems


def accepts(task, candidate: Candidate) -> bool:
    """Does the task accept the file by its format rules alone (no error; warnings allowed)?"""
    _runs, diags = task.read_file(candidate.path, candidate.display, None, task.resolve_options({}, "defaults"), 1)
    return not diags.has_errors


def _layout_of(path: str) -> str:
    """": the file looks comma-separated (...)" when its lines are in a layout no task uses, else ""."""
    from .textfile import TAB_OR_SPACES, describe_layout

    found = describe_layout(read_head(path, 65536), TAB_OR_SPACES, 2)
    return ": the file looks %s" % found[1] if found else ""
