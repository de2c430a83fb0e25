"""Reading participant and reference text files: strict UTF-8, physical line numbers, tolerant line endings.

Why here: every parser needs the same answer to "what is line 12 of this file", and a decode error must point
at a line and a byte offset instead of raising UnicodeDecodeError deep inside a parser.
"""
import codecs
from typing import Iterator, List, Tuple

from .errors import RunError

BOM = codecs.BOM_UTF8


def decode_utf8(data: bytes, path: str, error_class=RunError) -> str:
    """Decode UTF-8 (a leading BOM is dropped); a bad byte is reported with its line and offset."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error_class("file is not valid UTF-8 (byte 0x%02x at offset %d); save it as UTF-8"
                          % (data[exc.start], exc.start), path, line)


def read_text(path: str, display: str = "", error_class=RunError) -> str:
    """The whole file as text; `display` is the name used in messages (defaults to `path`)."""
    name = display or path
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise error_class("cannot read file: %s" % exc.strerror, name)
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
