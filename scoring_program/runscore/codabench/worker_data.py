"""The formal reference kept on the organiser's compute worker: written beside the upload zip, found and checked by
score.py.

Why: Codabench serves every dataset of a competition to anyone who asks (`/datasets/download/<key>/` checks no
permission, and `/api/competitions/<id>/` lists the keys), so reference data uploaded in the bundle is public data
(shared/specs/codabench.md 4.1). Codabench's own way to keep data confidential is the organiser's compute worker:
it mounts its `$HOST_DIRECTORY/data` read-only at `/app/data` in every container it runs (compute_worker.py;
documentation "Compute worker management and setup", "put data directly inside the compute worker").

So `runscore bundle --reference DIR` puts in the zip only a pointer, the formal phase's task.yaml:

    task: ntcir1-adhoc
    detail: aggregate
    worker_data:
      folder: runscore-ntcir1-adhoc-1f2e3d4c5b6a/ntcir1-adhoc     # under the worker's data folder
      key: runscore-ntcir1-adhoc-1f2e3d4c5b6a/fingerprint.key
      fingerprints: {rel1: <hex>, rel2: <hex>, task.yaml: <hex>}

and writes beside the zip the folder whose contents the organiser copies into the worker's `$HOST_DIRECTORY/data/`.
A folder of its own per competition and task (a random id made at the first build, kept by later builds) lets one
worker serve several competitions. Each fingerprint is an HMAC-SHA256 keyed with a random key that exists only
in that folder: a plain SHA-256 of a small file (a topic list, a label file) can be confirmed by hashing guesses,
a keyed one cannot without the key. score.py finds the data folder beside its input folder (`/app/input` ->
`/app/data`), and refuses (exit 2, a message for the organiser naming files, never their contents) a missing
folder, a missing or extra file, or a file whose fingerprint differs: it never scores against other data.
"""
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..errors import ConfigError
from ..tasks.base import read_task_yaml

POINTER = "worker_data"
KEY_FILE = "fingerprint.key"
README = "README.md"
WORKER_SUFFIX = ".worker-data"   # the folder for the worker, beside the zip (worker_root_of)
# Files never taken as reference data (an organiser's copy made on a Mac, an editor's backup), as the bundle skips
# them when it copies the folder.
_SKIPPED = ("__pycache__", ".DS_Store", "Thumbs.db")


@dataclass(frozen=True)
class Pointer:
    """What the zip's task.yaml says of the data on the worker: paths under the worker's data folder."""

    folder: str
    key: str
    fingerprints: Dict[str, str]


def pointer_of(config: Dict, where: str) -> Optional[Pointer]:
    """The `worker_data:` of a reference folder's task.yaml, checked; None when it has none."""
    raw = config.get(POINTER)
    if raw is None:
        return None
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) and raw.get(k) for k in ("folder", "key")):
        raise ConfigError("worker_data must give folder and key (paths under the worker's data folder) and "
                          "fingerprints; write it with runscore bundle --reference", where)
    prints = raw.get("fingerprints")
    if not isinstance(prints, dict) or not prints or not all(
            isinstance(k, str) and isinstance(v, str) and len(v) == 64 for k, v in prints.items()):
        raise ConfigError("worker_data fingerprints must map each file name to its 64-digit HMAC-SHA256", where)
    for path in [raw["folder"], raw["key"]] + list(prints):
        parts = path.replace("\\", "/").split("/")
        if os.path.isabs(path) or ".." in parts or "" in parts:
            raise ConfigError("worker_data path %r must be relative, inside the worker's data folder" % path, where)
    return Pointer(raw["folder"], raw["key"], dict(prints))


def data_folder_of(input_dir: str) -> str:
    """The worker's data folder as Codabench mounts it: `data` beside the input folder (/app/input -> /app/data)."""
    return os.path.join(os.path.dirname(os.path.normpath(os.path.abspath(input_dir))), "data")


def fingerprint(key: bytes, name: str, content: bytes) -> str:
    """HMAC-SHA256 of a file's name and bytes under the competition's key."""
    return hmac.new(key, name.encode("utf-8") + b"\0" + content, hashlib.sha256).hexdigest()


def file_fingerprint(key: bytes, name: str, path: str, chunk: int = 1 << 20) -> str:
    """fingerprint() of a file read in chunks (a reference file of any size, in bounded memory)."""
    digest = hmac.new(key, name.encode("utf-8") + b"\0", hashlib.sha256)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def files_of(folder: str) -> Dict[str, str]:
    """{name relative to folder, '/'-separated: path} of every file under it (dotfiles and caches left out)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIPPED)
        for name in sorted(filenames):
            if name.startswith(".") or name in _SKIPPED or name.endswith((".pyc", "~")):
                continue
            full = os.path.join(dirpath, name)
            out[os.path.relpath(full, folder).replace(os.sep, "/")] = full
    return out


def resolve(pointer: Pointer, data_dir: Optional[str], where: str) -> str:
    """The worker's copy of the reference folder, checked file by file against the zip's fingerprints."""
    if data_dir is None:
        raise ConfigError("this reference folder names data kept on the organisers' compute worker (worker_data: "
                          "%s); give the folder itself (the worker data folder's %s)" % (pointer.folder,
                                                                                         pointer.folder), where)
    folder = os.path.join(data_dir, *pointer.folder.split("/"))
    key_path = os.path.join(data_dir, *pointer.key.split("/"))
    if not os.path.isdir(folder) or not os.path.isfile(key_path):
        raise ConfigError(
            "this phase's reference data is kept on the organisers' compute worker, and this container's data folder "
            "%s has no %s: the competition must run on the organisers' own queue, whose every worker has the "
            "contents of the bundle's <task-id>.worker-data/ folder in its $HOST_DIRECTORY/data/ (docs/codabench.md, "
            "'The reference on the worker'); nothing was scored" % (data_dir, pointer.folder if not
                                                                     os.path.isdir(folder) else pointer.key), where)
    try:
        with open(key_path, "rb") as handle:
            key = bytes.fromhex(handle.read().decode("ascii").strip())
        found = files_of(folder)
        differ = []
        for name in sorted(set(found) & set(pointer.fingerprints)):
            if not hmac.compare_digest(file_fingerprint(key, name, found[name]), pointer.fingerprints[name]):
                differ.append(name)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ConfigError("cannot read the reference data on the worker (%s): %s"
                          % (pointer.folder, getattr(exc, "strerror", None) or type(exc).__name__), where)
    missing = sorted(set(pointer.fingerprints) - set(found))
    extra = sorted(set(found) - set(pointer.fingerprints))
    if missing or extra or differ:
        told = "; ".join(part for part in (
            "missing: %s" % _names(missing) if missing else "",
            "not in the bundle: %s" % _names(extra) if extra else "",
            "different from the bundle's: %s" % _names(differ) if differ else "") if part)
        raise ConfigError("the reference data on the worker (%s) is not the data this competition was built with "
                          "(%s); copy the bundle's <task-id>.worker-data/ folder to the worker again, or rebuild "
                          "the bundle from the data the worker holds; nothing was scored" % (pointer.folder, told),
                          where)
    return folder


def _names(names: List[str], limit: int = 10) -> str:
    return ", ".join(names[:limit]) + (" ..." if len(names) > limit else "")


# ------------------------------------------------------------------------------------- writing (the bundle) ---

@dataclass
class WorkerCopy:
    """The folder an organiser copies onto the worker, as {path under it: bytes}, and the zip's pointer."""

    base: str                     # runscore-<task-id>-<id>: the competition's own folder under the data folder
    files: Dict[str, bytes]
    pointer_yaml: bytes


def existing_identity(worker_root: str, task_id: str) -> Optional[Tuple[str, bytes]]:
    """(folder name, key) of an earlier build's worker-data folder, so that a rebuild keeps the worker's paths and
    key (and gives the same zip for the same data); None when there is none."""
    if not os.path.isdir(worker_root):
        return None
    for name in sorted(os.listdir(worker_root)):
        key_path = os.path.join(worker_root, name, KEY_FILE)
        if name.startswith("runscore-%s-" % task_id) and os.path.isfile(key_path):
            try:
                with open(key_path, "rb") as handle:
                    return name, bytes.fromhex(handle.read().decode("ascii").strip())
            except (OSError, ValueError, UnicodeDecodeError):
                return None
    return None


def worker_copy(task_id: str, reference: Dict[str, bytes], pointer_head: bytes, detail: str,
                identity: Optional[Tuple[str, bytes]] = None) -> WorkerCopy:
    """The worker's copy of one task's reference folder ({name: bytes}, task.yaml included and already carrying
    its `detail:`) and the pointer task.yaml of the zip (pointer_head: its comment lines)."""
    import yaml

    base, key = identity or ("runscore-%s-%s" % (task_id, secrets.token_hex(6)), secrets.token_bytes(32))
    folder = "%s/%s" % (base, task_id)
    prints = {name: fingerprint(key, name, content) for name, content in sorted(reference.items())}
    pointer = {"task": task_id, "detail": detail,
               POINTER: {"folder": folder, "key": "%s/%s" % (base, KEY_FILE), "fingerprints": prints}}
    files = {"%s/%s" % (folder, name): content for name, content in reference.items()}
    files["%s/%s" % (base, KEY_FILE)] = (key.hex() + "\n").encode("ascii")
    text = pointer_head + yaml.safe_dump(pointer, sort_keys=False, width=110).encode("utf-8")
    return WorkerCopy(base, files, text)


def write_worker_copy(copy: WorkerCopy, worker_root: str, readme: str) -> None:
    """Write the folder to copy onto the worker: the competition's own folder replaced whole (a file removed from
    the reference goes from the copy too), its README beside the data."""
    import shutil

    target = os.path.join(worker_root, copy.base)
    if os.path.isdir(target):
        shutil.rmtree(target)
    for name, content in sorted(copy.files.items()):
        path = os.path.join(worker_root, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content)
    with open(os.path.join(target, README), "w", encoding="utf-8") as handle:
        handle.write(readme)


def is_pointer_folder(folder: str) -> bool:
    """Does a reference folder's task.yaml point to data on the worker?"""
    return os.path.isdir(folder) and POINTER in read_task_yaml(folder)


def worker_root_of(zip_path: str) -> str:
    """The folder for the worker, beside the zip: dist/ntcir1-adhoc.zip -> dist/ntcir1-adhoc.worker-data/."""
    base = zip_path[:-4] if zip_path.lower().endswith(".zip") else zip_path
    return base + WORKER_SUFFIX
