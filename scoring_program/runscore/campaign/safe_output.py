"""Text the campaign wing writes for organisers to open: spreadsheet cells that never run as formulas, and JSON that
never ends the HTML element it is embedded in.

Why: the wing's files carry what participants wrote (document ids, run names, team names, nugget texts), and the
docs tell organisers to open pool.tsv, means.csv and pool.csv in a spreadsheet and the assessment pages in a
browser. A run named `=HYPERLINK("http://...")` must stay text in a spreadsheet, and a document id `<!--<script>`
must not end (or hide the rest of) a page's data.

* Spreadsheet cells (OWASP "CSV Injection"; CWE-1236): a cell that starts with `=`, `+`, `-`, `@`, TAB, CR, LF or
  NUL is written with a single quote in front, which spreadsheets read as "this cell is text". A cell that starts
  with `'` or `"` gets one too, so the quoting can be undone exactly: `restore_cell` drops one leading quote that
  stands before one of those characters, and leaves any other text alone (a spreadsheet that dropped the quote
  on saving a sheet gives back the original text either way). Numbers the wing computes are written as numbers.
  The same holds inside a cell after a field separator or a text quote (`,`, `;`, TAB, `"`): OWASP warns that an
  attacker "could use this to start a new cell and then have the dangerous character in the middle of the user
  input, but at the beginning of a cell". A spreadsheet set to another separator than the file's (Excel in a
  locale whose list separator is `;` opens means.csv split at semicolons; a TSV opened with commas ticked) splits
  `x;=HYPERLINK(...)` into a formula cell, so each such inner start gets its quote as well, and restore_cell
  drops those too.
* JSON inside `<script>`: `<`, `>` and `&` are written as `\\u003c`, `\\u003e`, `\\u0026`, so no `</script>`, `<!--`
  or `<script` can reach the HTML tokenizer's script states, and U+2028 and U+2029 as `\\u2028`, `\\u2029` (line
  ends to a JavaScript reader of older engines). Each escape is valid JSON for the same string.
"""
import json
import re
from typing import Any

QUOTE = "'"
# What makes a spreadsheet read a cell as a formula (OWASP: = + - @ TAB CR; ASVS 1.2.10 adds NUL), LF (a line end
# some importers accept inside a field), and the two quotes that would otherwise make the marking ambiguous.
FORMULA_STARTS = frozenset("=+-@\t\r\n\x00") | frozenset("'\"")
# Where a spreadsheet may start a new cell inside a field: the separators it may be set to, and the text quote.
CELL_SPLITS = frozenset(",;\t\"")

_SPLITS, _STARTS = ("".join(re.escape(c) for c in sorted(chars)) for chars in (CELL_SPLITS, FORMULA_STARTS))
_CELL_START = re.compile("(?:^|(?<=[%s]))(?=[%s])" % (_SPLITS, _STARTS))
_ADDED_QUOTE = re.compile("(?:^|(?<=[%s]))'(?=[%s])" % (_SPLITS, _STARTS))

_SCRIPT_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028",
                   0x2029: "\\u2029"}


def neutralise_cell(text: str) -> str:
    """A spreadsheet cell that shows `text` and never evaluates it, however a spreadsheet splits it (see the module
    docstring): a quote before each of FORMULA_STARTS that begins the text or follows one of CELL_SPLITS."""
    return _CELL_START.sub(QUOTE, text)


def restore_cell(text: str) -> str:
    """The text `neutralise_cell` was given (also for a cell whose leading quote a spreadsheet dropped): a quote
    that begins the text or follows one of CELL_SPLITS, and stands before one of FORMULA_STARTS, was added (an added
    quote follows the original text's character, so the two rules see the same neighbours)."""
    return _ADDED_QUOTE.sub("", text) if QUOTE in text else text


def json_for_script(value: Any) -> str:
    """JSON text for a `<script type="application/json">` element (see the module docstring)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False).translate(_SCRIPT_ESCAPES)
