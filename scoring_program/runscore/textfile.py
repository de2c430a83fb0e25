"""Reading participant and reference text files: strict UTF-8, physical line numbers, tolerant line endings.

Why here: every parser needs the same answer to "what is line 12 of this file", and a decode error must point
at a line and a byte offset instead of raising UnicodeDecodeError deep inside a parser. It is also the one place
that bounds what a file may cost: every run and reference file is read once, through read_text, and a file over
MAX_FILE_BYTES is refused before it is read (docs/limits.md).
"""
import codecs
import os
from typing import Iterator, List, Tuple

from .errors import RunError

BOM = codecs.BOM_UTF8
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)

# The largest file read (run or reference). Reading keeps the bytes, the text and its lines in memory at once,
# so the peak is a few times this; 128 MiB is 30 times the largest official run of the campaigns served.
MAX_FILE_BYTES = 128 * 1024 * 1024


def decode_utf8(data: bytes, path: str, error_class=RunError) -> str:
    """Decode UTF-8 (a leading BOM is dropped); a bad byte is reported with its line and offset."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    elif data.startswith(UTF16_BOMS):
        raise error_class("file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8", path, 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error_class("file is not valid UTF-8 (byte 0x%02x at offset %d); save it as UTF-8"
                          % (data[exc.start], exc.start), path, line)


def read_text(path: str, display: str = "", error_class=RunError, max_bytes: int = 0) -> str:
    """The whole file as text; `display` is the name used in messages (defaults to `path`).

    A file larger than max_bytes (default MAX_FILE_BYTES) is an error, told before reading it; at most
    max_bytes + 1 bytes are ever read, so a file that grows or lies about its size cannot exhaust memory.
    """
    name = display or path
    limit = max_bytes or MAX_FILE_BYTES
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = b"" if size > limit else handle.read(limit + 1)
    except OSError as exc:
        raise error_class("cannot read file: %s" % (exc.strerror or exc), name)
    if size > limit or len(data) > limit:
        mib = " (%d MiB)" % (limit // (1024 * 1024)) if limit >= 1024 * 1024 else ""
        advice = "; split the run or ask the organisers" if error_class is RunError else ""
        raise error_class("file is %d bytes, more than the limit of %d bytes%s%s"
                          % (max(size, len(data)), limit, mib, advice), name)
    return decode_utf8(data, name, error_class)


def split_lines(text: str) -> List[str]:
    r"""Split on \n only (so line numbers match what editors show), dropping a trailing \r of CRLF files.

    A lone \r (old Mac files) also ends a line when the file has no \n at all.
    """
    if "\n" not in text and "\r" in text:
        lines = text.split("\r")
    else:
        lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def numbered_lines(text: str) -> Iterator[Tuple[int, str]]:
    """(physical line number, line) pairs, counting from 1."""
    return enumerate(split_lines(text), 1)
