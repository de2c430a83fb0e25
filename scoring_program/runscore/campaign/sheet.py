"""The pool sheet: `pool.tsv` and every labelled copy of it (a filled sheet, the assessment page's download).

Why one module: the pool command writes it, the assessment page reads and saves it, the judgements command reads
it back; all three must agree on the columns, the escaping and the label scale. UTF-8, one header line, TAB-
separated; `topic`, `item`, `runs` first, helper columns, `label` last. A field's TAB, line break and backslash are
written `\\t`, `\\n`, `\\r`, `\\\\` (passage texts hold all of them), so only `\\n` ends a row whatever Unicode line
separators (U+2028, U+0085, ...) a field holds. Then a field that a spreadsheet would run as a formula (`=`, `+`,
`-`, `@` first, ...) gets a single quote in front, and reading drops it again (campaign/safe_output.py). Rows are
found by (topic, item), never by position (specs/campaign.md 1.2: the NTCIR WWW bug).
"""
import os
import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..errors import ConfigError, RunError
from ..textfile import numbered_lines, read_text
from .safe_output import FORMULA_STARTS, neutralise_cell, restore_cell

FIRST = ("topic", "item", "runs")
LABEL = "label"


@dataclass(frozen=True)
class Scale:
    """A label scale: the labels in order (lowest first), the key that types each on the page, and their names."""

    labels: Tuple[str, ...]
    keys: Tuple[str, ...]
    names: Tuple[str, ...]


# The tasks' own scales (specs: ntcir1-adhoc.md 1 / campaign.md 2.1, temporalia.md 2.1, r2c2.md 4.3 and 2).
SCALES = {
    "ntcir1-adhoc": Scale(("C", "B", "A", "S"), ("c", "b", "a", "s"),
                          ("non-relevant", "partially relevant", "relevant", "highly relevant")),
    "temporalia-tir": Scale(("L0", "L1", "L2"), ("0", "1", "2"),
                            ("non-relevant", "partially relevant", "highly relevant")),
    "r2c2-pr": Scale(("L0", "L1", "L2"), ("0", "1", "2"), ("non-relevant", "partially relevant", "highly relevant")),
    # r2c2-ac: an answer is correct or not; a nugget is not entailed by its cited passage, entailed, or entailed
    # and helpful for deriving the correct answer (the official Stage A and Stage B, r2c2.md section 2).
    "r2c2-ac:answer": Scale(("0", "1"), ("0", "1"), ("incorrect", "correct")),
    "r2c2-ac:nugget": Scale(("0", "1", "2"), ("0", "1", "2"), ("not entailed", "entailed", "entailed and helpful")),
}


def scale_of(task_id: str, row: Optional[Dict[str, str]] = None) -> Scale:
    if task_id == "r2c2-ac":
        return SCALES["r2c2-ac:%s" % ((row or {}).get("unit") or "nugget")]
    return SCALES[task_id]


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


# A line some cell of which write_cell changes: a character it escapes anywhere, or one that neutralise_cell quotes at
# the start of a cell (a TAB inside a cell is caught by counting the separators).
_NEEDS_CARE = re.compile(r"[\\\n\r]|(?:^|\t)[%s]" % re.escape("".join(sorted(FORMULA_STARTS - set("\t\n\r")))))


def write_cell(value: str) -> str:
    """One field as a sheet holds it: escaped, then safe to open in a spreadsheet."""
    return neutralise_cell(escape(value))


def read_cell(field: str) -> str:
    """The value of a field as `write_cell` wrote it (or as a spreadsheet saved it back)."""
    return unescape(restore_cell(field))


def write_sheet(path: str, columns: Sequence[str], rows: Sequence[Dict[str, str]]) -> None:
    """Write a sheet atomically (a half-written sheet must never be read as a whole one)."""
    if tuple(columns[:3]) != FIRST or columns[-1] != LABEL:
        raise ValueError("a sheet starts with topic, item, runs and ends with label")
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
    size and a reader may stop early. A missing column or a row of the wrong width is `error_class` naming the
    line (several at once through ConfigErrors is the caller's business: here the layout itself is wrong)."""
    lines = numbered_lines(read_text(path, error_class=error_class))
    columns: Optional[List[str]] = None
    for line_no, line in lines:
        columns = [c.strip() for c in line.split("\t")]
        missing = [c for c in FIRST + (LABEL,) if c not in columns]
        if missing:
            raise error_class("the header line must name the columns topic, item, runs ... label "
                              "(TAB-separated); missing: %s" % ", ".join(missing), path, line_no)
        break
    if columns is None:
        raise error_class("the sheet is empty (no header line)", path)
    return columns, _rows(lines, columns, path, error_class)


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


def config_error(message: str, path: str, line: int = 0) -> ConfigError:
    return ConfigError(message, path, line)
