"""Reading participant and reference text files: strict UTF-8, physical line numbers, tolerant line endings.

Why here: every parser needs the same answer to "what is line 12 of this file", and a decode error must point
at a line and a byte offset instead of raising UnicodeDecodeError deep inside a parser. It is also the one place
that bounds what a file may cost: every run and reference file is read once, through read_text, and a file over
MAX_FILE_BYTES is refused before it is read (docs/limits.md).
"""
import codecs
import os
import re
from contextlib import contextmanager
from typing import Any, Iterator, List, Optional, Tuple

from .errors import RunError

BOM = codecs.BOM_UTF8
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)

# The largest file read (run or reference). Reading keeps the bytes, the text and its lines in memory at once,
# so the peak is a few times this; 128 MiB is 30 times the largest official run of the campaigns served.
MAX_FILE_BYTES = 128 * 1024 * 1024
# What the files of one submission may cost together when read here, line by line (big clean ranking runs take
# the columnar path and are not counted): two 127 MiB runs of the slow path once took 159 s and
# 2.3 GB. Applied by codabench/entry.py's examine (score.py and `runscore check`) through submission_read_budget.
MAX_SUBMISSION_TEXT_BYTES = 128 * 1024 * 1024


class _ReadBudget:
    left: Optional[int] = None        # None: no budget (the CLI, reference data)


@contextmanager
def submission_read_budget():
    """While open, read_text counts the bytes of participant files (error_class RunError) against
    MAX_SUBMISSION_TEXT_BYTES."""
    previous = _ReadBudget.left
    _ReadBudget.left = MAX_SUBMISSION_TEXT_BYTES
    try:
        yield
    finally:
        _ReadBudget.left = previous


@contextmanager
def read_again():
    """A second reading of files already counted against the submission's budget (a hidden phase parses a file
    again against the whole reference, submission.py) is not counted again: their first reading was within it."""
    before = _ReadBudget.left
    _ReadBudget.left = None
    try:
        yield
    finally:
        _ReadBudget.left = before


def decode_utf8(data: bytes, path: str, error_class=RunError) -> str:
    """Decode UTF-8 (a leading BOM is dropped); a bad byte is reported with its line and offset."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    elif data.startswith(UTF16_BOMS):
        raise error_class("file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8", path, 1)
    elif _looks_utf16(data):
        raise error_class("file looks UTF-16 without a byte order mark (every other byte of its start is 0); "
                          "save it as UTF-8", path, 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error_class("file is not valid UTF-8 (byte 0x%02x at offset %d); save it as UTF-8"
                          % (data[exc.start], exc.start), path, line)


def _looks_utf16(data: bytes) -> bool:
    """ASCII text saved as UTF-16 (LE or BE) without a BOM: every other byte of the start is 0."""
    head = data[:400]
    if len(head) < 8:
        return False
    for parity in (0, 1):
        half = head[parity::2]
        if half.count(0) >= 0.9 * len(half) and head[1 - parity::2].count(0) <= 0.1 * len(half):
            return True
    return False


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
    if _ReadBudget.left is not None and error_class is RunError:
        if len(data) > _ReadBudget.left:
            raise RunError("the submission's files read line by line add up to more than %d bytes (%d MiB, "
                           "docs/limits.md); send fewer or smaller runs per submission"
                           % (MAX_SUBMISSION_TEXT_BYTES, MAX_SUBMISSION_TEXT_BYTES // (1024 * 1024)), name)
        _ReadBudget.left -= len(data)
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


# How many non-blank lines describe_layout looks at, and the share of them that must miss the expected layout.
LAYOUT_SAMPLE_LINES = 50
LAYOUT_MISS_SHARE = 0.8
LAYOUT_HEAD_CHARS = 65536
LAYOUT_MIN_LINES = 3       # a file of one or two lines gets its per-line messages, which say as much
_SEPARATOR_NAMES = {"\t": "TAB", ",": "comma", ";": "semicolon", "|": "vertical bar"}


# The separator of formats that ask for TABs and read a line without any TAB split on spaces.
TAB_OR_SPACES = "tab-or-spaces"
# The "separator" of a JSON format: every line of a file that is not JSON misses it.
JSON_LAYOUT = "json"


def _fields(line: str, separator: Optional[str]) -> int:
    if separator == TAB_OR_SPACES:
        count = line.count("\t") + 1
        return count if count > 1 else len(line.split())
    return len(line.split(separator)) if separator else len(line.split())


def layout_misses(text: str, separator: Optional[str], min_fields: int,
                  max_fields: int = 0) -> Tuple[List[Tuple[int, str]], List[Tuple[int, str]]]:
    """(sample, misses): the first 50 non-blank lines, and those of them with too few or too many fields."""
    head = text[:LAYOUT_HEAD_CHARS]      # never split a whole big file to look at its first lines
    if len(text) > len(head) and "\n" in head:
        head = head[:head.rindex("\n")]
    sample: List[Tuple[int, str]] = []
    for line_no, line in numbered_lines(head):
        if line.strip():
            sample.append((line_no, line))
            if len(sample) == LAYOUT_SAMPLE_LINES:
                break
    if separator == JSON_LAYOUT:
        return sample, list(sample)
    misses = [(n, line) for n, line in sample
              if not min_fields <= _fields(line, separator) <= (max_fields or _fields(line, separator))]
    return sample, misses


def describe_layout(text: str, separator: Optional[str], min_fields: int,
                    max_fields: int = 0) -> Optional[Tuple[int, str]]:
    """What a file looks like when most of its lines are not in the expected layout, else None.

    separator: the expected field separator (None: any whitespace; TAB_OR_SPACES: TABs, or spaces in a line
    without a TAB); a line has min_fields to max_fields (0: no
    upper bound) fields. When at least 80% of the first 50 non-blank lines do not, the answer is (line of the
    first such line, a description such as "comma-separated (41 of 41 lines split on ',' into 4 fields)" or
    "JSON"), so a parser can say once what the file is instead of one field-count error per line.
    """
    sample, misses = layout_misses(text, separator, min_fields, max_fields)
    if not sample:
        return None
    start = sample[0][1].lstrip()
    if start[:1] in ("{", "[") and separator != JSON_LAYOUT:   # JSON splits into any number of fields
        return sample[0][0], "like JSON (it starts with %r), not lines of fields" % start[:1]
    if len(misses) < max(LAYOUT_MIN_LINES, LAYOUT_MISS_SHARE * len(sample)):
        return None
    first = misses[0][0]
    if start[:1] == "<" and all(line.lstrip().startswith("<") for _, line in sample[:3]):
        return first, "like XML or HTML (its lines start with '<')"
    for other in ("\t", ",", ";", "|"):
        if other == separator or other == "\t" and separator in (None, TAB_OR_SPACES) or other == "|" and \
                separator == JSON_LAYOUT:
            continue
        counts = [line.count(other) for _, line in sample]
        common = max(set(counts), key=counts.count)
        if common >= 1 and counts.count(common) >= LAYOUT_MISS_SHARE * len(sample):
            return first, "%s-separated (%d of %d lines split on %r into %d fields)" % (
                _SEPARATOR_NAMES[other], counts.count(common), len(sample), other, common + 1)
    return None


_ESCAPED_HALF = re.compile(r"\\u[dD][89a-fA-F]")       # a JSON \u escape of half a UTF-16 surrogate pair
LONE_SURROGATE = re.compile("[\ud800-\udfff]")        # half of a pair left by such an escape, in decoded text


def half_surrogate_problem(text: str) -> Optional[str]:
    """A message when the decoded string `text` holds half of a UTF-16 surrogate pair, else None: json.loads keeps a
    `"\\udc80"` escape without its other half as a code point that no UTF-8 text (a page, a log) can hold."""
    found = LONE_SURROGATE.search(text)
    if found is None:
        return None
    return ("not valid Unicode: a string holds \\u%04x, half of a UTF-16 surrogate pair without its other half; "
            "write the character itself (or both halves of its pair)" % ord(found.group()))


def lone_surrogate(json_text: str, value: Any) -> Optional[str]:
    """half_surrogate_problem of the first string of `value` (the JSON `json_text` decoded) that has one, else None.
    The page and the log of a reference file holding one failed when they were written; the readers refuse it
    where they read it. Cheap: the values are walked only when the text has such an escape."""
    if _ESCAPED_HALF.search(json_text) is None:
        return None
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            problem = half_surrogate_problem(item)
            if problem is not None:
                return problem
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None
