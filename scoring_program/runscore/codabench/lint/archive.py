"""The bundle as the linter sees it (a folder or the upload zip, the same interface) and the zip's own rules
(junk files, entry order).
"""
import io
import os
import re
import zipfile
from typing import Callable, Dict, List, Sequence

from ...errors import ConfigError

JUNK = re.compile(r"(^|/)(__pycache__|__MACOSX|\.DS_Store|\.git|\.venv|tests|utilities)(/|$)|\.pyc$")


class BundleView:
    """The files of a bundle (or of a folder or zip inside it) by '/'-separated name, whatever it is stored in."""

    def __init__(self, names: Sequence[str], reader: Callable[[str], bytes], label: str):
        self.names = list(names)          # in storage order (zip order matters for CodaLab v1)
        self._set = set(self.names)
        self._reader = reader
        self.label = label
        self.is_zip = False

    @classmethod
    def from_folder(cls, folder: str, label: str = "") -> "BundleView":
        names = []
        for dirpath, dirnames, filenames in os.walk(folder):
            # A working tree, not an upload: its VCS, virtualenv and caches are never part of what is uploaded.
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for name in sorted(filenames):
                names.append(os.path.relpath(os.path.join(dirpath, name), folder).replace(os.sep, "/"))

        def read(name: str) -> bytes:
            with open(os.path.join(folder, *name.split("/")), "rb") as handle:
                return handle.read()

        return cls(names, read, label or folder)

    @classmethod
    def from_zip(cls, data: bytes, label: str) -> "BundleView":
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = [i.filename for i in archive.infolist() if not i.is_dir()]
        view = cls(names, archive.read, label)
        view.is_zip = True
        return view

    @classmethod
    def from_members(cls, members: Dict[str, bytes], label: str, is_zip: bool = True) -> "BundleView":
        """A bundle held in memory ({name: content}, in order), as the builder makes it before zipping."""
        view = cls(list(members), members.__getitem__, label)
        view.is_zip = is_zip
        return view

    def exists(self, name: str) -> bool:
        return name in self._set

    def is_dir(self, name: str) -> bool:
        prefix = name.strip("/") + "/"
        return any(n.startswith(prefix) for n in self.names)

    def read(self, name: str) -> bytes:
        return self._reader(name)

    def sub(self, folder: str) -> "BundleView":
        prefix = folder.strip("/") + "/"
        names = [n[len(prefix):] for n in self.names if n.startswith(prefix)]
        return BundleView(names, lambda n: self._reader(prefix + n), prefix.rstrip("/"))

    def top_level(self) -> List[str]:
        return sorted({n.split("/")[0] for n in self.names})

    def extract(self, target: str) -> None:
        for name in self.names:
            path = os.path.join(target, *name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(self.read(name))


def open_bundle(path: str) -> BundleView:
    if os.path.isdir(path):
        return BundleView.from_folder(path)
    if not os.path.isfile(path):
        raise ConfigError("%s does not exist" % path)
    if not zipfile.is_zipfile(path):
        raise ConfigError("%s is neither a folder nor a zip file" % path)
    with open(path, "rb") as handle:
        return BundleView.from_zip(handle.read(), path)


class ArchiveRules:
    """Rules about the zip itself (a mixin of base.LinterBase, which gives it warning())."""

    def check_junk(self) -> None:
        junk = [n for n in self.bundle.names if JUNK.search(n)]
        if junk:
            self.warning("zip-junk", "%d file(s) that do not belong in a bundle (tests, caches, macOS or VCS "
                         "files), e.g. %s" % (len(junk), ", ".join(junk[:3])), file=self.bundle.label)
