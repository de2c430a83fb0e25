"""The upload zip's bytes and its writing: members in a fixed order with fixed times and modes, so that the same
sources give a byte-identical zip; written under a temporary name and renamed only once accepted.
"""
import io
import os
import tempfile
import zipfile
from typing import Callable, Dict, Sequence

ZIP_TIME = (1980, 1, 1, 0, 0, 0)   # fixed member times: the same sources give a byte-identical zip


def zip_add(archive: zipfile.ZipFile, name: str, content: bytes) -> None:
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, content)


def zip_bytes(members: Dict[str, bytes], first: Sequence[str] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in list(first) + sorted(n for n in members if n not in first):
            zip_add(archive, name, members[name])
    return buffer.getvalue()


def write_accepted(data: bytes, out_path: str, accepted: Callable[[str], bool]) -> bool:
    """Write `data` to `out_path` when `accepted(temporary path)` says yes; a rejected zip (or one whose acceptance
    raises) leaves no file behind, so it cannot be uploaded by mistake."""
    folder = os.path.dirname(os.path.abspath(out_path))
    os.makedirs(folder, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix="." + os.path.basename(out_path) + ".", suffix=".partial.zip",
                                   dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        if not accepted(tmp):
            return False
        os.replace(tmp, out_path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return True
