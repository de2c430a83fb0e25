"""The pool sheet: `pool.tsv` and every labelled copy of it (a filled sheet, the assessment page's download).

Why one module: the pool command writes it, the assessment page reads and saves it, the judgements command reads
it back; all three must agree on the columns, the escaping and the label scale. UTF-8, one header line, TAB-
separated; `topic`, `item` first, informational columns (the pool's `runs`, `rank_sum`, `run_names`, ...), `label`
last. A sheet read back needs only `topic`, `item` and `label` (and `text_sha1` where the pool's items carry text), or
is a qrels file (TREC `topic iter item grade` or NTCIR `topic item Lk`, no header: a previous round's judgements),
TAB-separated or saved by a spreadsheet as CSV (comma or semicolon; UTF-8, or UTF-16 with its byte order mark). A field's TAB, line break and backslash are
written `\\t`, `\\n`, `\\r`, `\\\\` (passage texts hold all of them), so only `\\n` ends a row whatever Unicode line
separators (U+2028, U+0085, ...) a field holds. Then a field that a spreadsheet would run as a formula (`=`, `+`,
`-`, `@` first, ...) gets a single quote in front, and reading drops it again (campaign/safe_output.py). Rows are
found by (topic, item), never by position (specs/campaign.md 1.2: the NTCIR WWW bug).
"""
import codecs
import csv
import io
import itertools
import os
import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..errors import ConfigError, RunError
from ..tasks.assessing import LabelScale
from ..textfile import MAX_FILE_BYTES, UTF16_BOMS, numbered_lines, read_text
from .safe_output import CELL_SPLITS, FORMULA_STARTS, neutralise_cell, restore_cell

FIRST = ("topic", "item", "runs")
LABEL = "label"
# What a sheet must hold to be read: the key of each row and its label. The pool's informational columns (runs,
# rank_sum, run_names, ...) are for the organiser; an assessor's sheet need not have them.
KEY = ("topic", "item")
# Separators of a header line, tried in this order: a sheet saved by a spreadsheet as CSV uses commas (or
# semicolons where the comma is the decimal mark).
SEPARATORS = ("\t", ",", ";")


def scale_of(task_id: str, row: Optional[Dict[str, str]] = None) -> LabelScale:
    """The label scale of a sheet row (its `unit`: r2c2-ac judges answers and nuggets), as the task declares it."""
    from ..tasks import get_task

    return get_task(task_id).assessment.scale((row or {}).get("unit", ""))


def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1], "\\" + text[i + 1]))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


# A line some cell of which write_cell changes: a character it escapes anywhere, or one that neutralise_cell quotes
# where a spreadsheet may start a cell (at the start of a field or after one of CELL_SPLITS; a TAB inside a cell is
# caught by counting the separators). Built from safe_output's own sets, so the two rules cannot drift apart.
_NEEDS_CARE = re.compile(r"[\\\n\r]|(?:^|[%s])[%s]" % (re.escape("".join(sorted(CELL_SPLITS))),
                                                      re.escape("".join(sorted(FORMULA_STARTS - set("\t\n\r"))))))


def write_cell(value: str) -> str:
    """One field as a sheet holds it: escaped, then safe to open in a spreadsheet."""
    return neutralise_cell(escape(value))


def read_cell(field: str) -> str:
    """The value of a field as `write_cell` wrote it (or as a spreadsheet saved it back)."""
    return unescape(restore_cell(field))


def write_sheet(path: str, columns: Sequence[str], rows: Sequence[Dict[str, str]]) -> None:
    """Write a sheet atomically (a half-written sheet must never be read as a whole one)."""
    if tuple(columns[:2]) != KEY or columns[-1] != LABEL:
        raise ValueError("a sheet starts with topic, item and ends with label")
    tmp = path + ".part"
    separators = len(columns) - 1
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            handle.write("\t".join(columns) + "\n")
            for row in rows:                # rows may be made one at a time as they are written
                values = [str(row.get(c, "")) for c in columns]
                line = "\t".join(values)
                # most rows need no escape and no quote: tested on the whole line at once (a pool of a hundred
                # thousand items spent more time in write_cell than in pooling)
                if line.count("\t") != separators or _NEEDS_CARE.search(line):
                    line = "\t".join(map(write_cell, values))
                handle.write(line + "\n")
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    os.replace(tmp, path)


@dataclass
class SheetRow:
    line: int
    values: Dict[str, str]

    @property
    def key(self) -> Tuple[str, str]:
        return (self.values["topic"], self.values["item"])


def read_sheet(path: str, error_class=RunError) -> Tuple[List[str], List[SheetRow]]:
    """The columns and rows of a sheet (every row in memory: for the pool's own sheet and for tests; a sheet an
    assessor sent is read row by row with iter_sheet)."""
    columns, rows = iter_sheet(path, error_class)
    return columns, list(rows)


def iter_sheet(path: str, error_class=RunError) -> Tuple[List[str], Iterator[SheetRow]]:
    """The columns of a sheet and its rows one at a time, so a sheet costs time and memory in proportion to its
    size and a reader may stop early. TAB-separated as the pool writes it, or comma- or semicolon-separated as a
    spreadsheet saves it (the header line tells which); UTF-8 (with or without a BOM) or UTF-16 with a BOM (a
    spreadsheet's "Unicode text"). A missing column or a row of the wrong width is `error_class` naming the line
    (several at once through ConfigErrors is the caller's business: here the layout itself is wrong)."""
    text = _sheet_text(path, error_class)
    lines = numbered_lines(text)
    for line_no, header in lines:
        if not header.strip():
            continue
        separator = _separator(header)
        columns = _split(header, separator)
        missing = [c for c in KEY + (LABEL,) if c not in columns]
        if missing and qrels_layout(header):
            return list(QRELS_COLUMNS), _qrels_rows(itertools.chain([(line_no, header)], lines), path, error_class)
        if missing:
            raise error_class("the header line must name the columns topic, item and label (TAB-, comma- or "
                              "semicolon-separated; other columns are kept for the reader); missing: %s"
                              % ", ".join(missing), path, line_no)
        if len(set(columns)) != len(columns):
            twice = sorted({c for c in columns if columns.count(c) > 1})
            raise error_class("the header line names column %s twice" % ", ".join(twice), path, line_no)
        if separator == "\t":
            return columns, _rows(lines, columns, path, error_class)
        return columns, _csv_rows(text, line_no, separator, columns, path, error_class)
    raise error_class("the sheet is empty (no header line)", path)


# A qrels file read as a sheet (a previous round's judgements, or a released qrels): TREC `topic iter item grade`
# or NTCIR `topic item Lk`, whitespace-separated, no header. The grade is the label as written: a numbered scale
# reads numbers (NTCIR-1 3..0 = S..C, TREC grades 0/1/2 = L0..L2), NTCIR levels are labels.
QRELS_COLUMNS = ("topic", "item", LABEL)
QRELS = "qrels"
_NTCIR_LEVEL = re.compile(r"L[0-9]{1,2}")
_TREC_GRADE = re.compile(r"-?[0-9]{1,6}")


def qrels_layout(line: str) -> Optional[str]:
    """'trec' or 'ntcir' when a line is a qrels line, else None (then it must be a sheet's header)."""
    fields = line.split()
    if len(fields) == 4 and _TREC_GRADE.fullmatch(fields[3]):
        return "trec"
    if len(fields) == 3 and _NTCIR_LEVEL.fullmatch(fields[2]):
        return "ntcir"
    return None


def _qrels_rows(lines, path: str, error_class) -> Iterator[SheetRow]:
    """The judgements of a qrels file as sheet rows (topic, item, label), in the layout of its first line."""
    layout = None
    for line_no, line in lines:
        if not line.strip():
            continue
        found = qrels_layout(line)
        layout = layout or found
        if found is None or found != layout:
            raise error_class("expected a qrels line like the first (%s), found %r"
                              % ("topic iter item grade" if layout == "trec" else "topic item Lk", line[:80]),
                              path, line_no)
        fields = line.split()
        item, label = (fields[2], fields[3]) if layout == "trec" else (fields[1], fields[2])
        yield SheetRow(line_no, {"topic": fields[0], "item": item, LABEL: label, QRELS: layout})


def _sheet_text(path: str, error_class) -> str:
    """UTF-8 as read_text reads it, or UTF-16 when the file starts with its byte order mark."""
    try:
        with open(path, "rb") as handle:
            bom = handle.read(2)
            utf16 = bom in UTF16_BOMS
            data = handle.read(MAX_FILE_BYTES + 1) if utf16 else b""
    except OSError:
        utf16 = False                   # read_text words the problem
    if not utf16:
        return read_text(path, error_class=error_class)
    if len(data) > MAX_FILE_BYTES:
        raise error_class("file is more than %d bytes" % MAX_FILE_BYTES, path)
    try:
        return data.decode("utf-16-le" if bom == codecs.BOM_UTF16_LE else "utf-16-be")
    except UnicodeDecodeError as exc:
        raise error_class("file starts as UTF-16 but is not valid UTF-16 (byte %d); save it as UTF-8"
                          % (exc.start + 2), path)


def _separator(header: str) -> str:
    for separator in SEPARATORS:
        if all(c in _split(header, separator) for c in KEY + (LABEL,)):
            return separator
    return "\t"


def _split(header: str, separator: str) -> List[str]:
    if separator == "\t":
        return [c.strip() for c in header.split("\t")]
    try:
        return [c.strip() for c in next(csv.reader([header], delimiter=separator))]
    except csv.Error:           # e.g. a NUL byte: not a header of this separator
        return [header]


def _rows(lines, columns: List[str], path: str, error_class) -> Iterator[SheetRow]:
    for line_no, line in lines:
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) == len(columns) - 1 and columns[-1] == LABEL:
            fields.append("")                   # a spreadsheet drops the empty last cell
        if len(fields) != len(columns):
            raise error_class("expected %d TAB-separated fields (%s), found %d"
                              % (len(columns), " ".join(columns), len(fields)), path, line_no)
        yield SheetRow(line_no, dict(zip(columns, map(read_cell, fields))))


def _csv_rows(text: str, header_line: int, separator: str, columns: List[str], path: str,
              error_class) -> Iterator[SheetRow]:
    """The rows of a comma- or semicolon-separated sheet (Python's csv module: quoted fields may hold the
    separator, quotes and line breaks), each with the physical line it starts on."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    end = 0
    try:
        for record in reader:
            start, end = end + 1, reader.line_num
            if start <= header_line:
                continue
            if not any(field.strip() for field in record):
                continue
            if len(record) < len(columns) and columns[-1] == LABEL:
                record = record + [""] * (len(columns) - len(record))     # a spreadsheet drops empty last cells
            if len(record) != len(columns):
                raise error_class("expected %d fields separated by %r (%s), found %d"
                                  % (len(columns), separator, " ".join(columns), len(record)), path, start)
            yield SheetRow(start, dict(zip(columns, map(read_cell, record))))
    except csv.Error as exc:
        raise error_class("cannot read the sheet as %r-separated values: %s" % (separator, exc), path, end + 1)


def config_error(message: str, path: str, line: int = 0) -> ConfigError:
    return ConfigError(message, path, line)
