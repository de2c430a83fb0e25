"""A JSON reader that remembers where every value is, and the duplicate keys json.loads silently drops.

Why: the run file is one JSON object, and a participant needs `run.json:1234: error: ...` rather than "answer 3
of pq_id 2:1-5_570", and json.loads keeps only the last of two equal keys, which the official checker rejects.
The text is first parsed by json.loads (its error messages and the values it builds are the reference); a
second pass over the same, now known-valid, text records the line of every value and every repeated key.
"""
import bisect
import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring
from typing import Any, Dict, List, Tuple

from ...errors import RunError
from ...numeric import JsonNumberError, json_loads
from ...textfile import half_surrogate_problem

Path = Tuple[Any, ...]
WHITESPACE = re.compile(r"[ \t\n\r]*")
NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
LONG_DIGITS = re.compile(r"[0-9]{1000,}")
CONSTANTS = {"true": True, "false": False, "null": None, "NaN": float("nan"), "Infinity": float("inf"),
             "-Infinity": float("-inf")}


@dataclass
class Duplicate:
    """A key repeated in one object: where the object is, the key, and the lines of both occurrences."""

    path: Path
    key: str
    line: int
    first_line: int


@dataclass
class JsonDocument:
    value: Any
    lines: Dict[Path, int] = field(default_factory=dict)      # path -> line where the value starts
    key_lines: Dict[Path, int] = field(default_factory=dict)  # path -> line of the key naming it
    duplicates: List[Duplicate] = field(default_factory=list)

    def line(self, path: Path) -> int:
        """Line of the key naming the value (or of the value), walking up to the nearest known path."""
        path = tuple(path)
        while path:
            if path in self.key_lines:
                return self.key_lines[path]
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)


def parse_json(text: str, display: str) -> JsonDocument:
    """Parse `text`; invalid JSON is a RunError at its line, with json's own description. An empty file gets
    its own message: json's "Expecting value (column 1)" at line 1 does not tell its author the file is empty."""
    if not text.strip():
        raise RunError("the file is empty; a run is one JSON object {pq_id: [answer, ...]}", display)
    try:
        value = json_loads(text)          # a number of more than 18 digits is refused before int() sees it
    except json.JSONDecodeError as exc:
        raise RunError("not valid JSON: %s (column %d)" % (exc.msg, exc.colno), display, exc.lineno)
    except RecursionError:
        raise RunError("not a usable run: JSON nested too deeply", display, 1)
    except JsonNumberError as exc:
        raise RunError("not a usable run: %s" % exc, display, exc.line_in(text))
    except ValueError as exc:              # no longer expected (JsonNumberError comes first); kept as a guard
        huge = LONG_DIGITS.search(text)
        line = text.count("\n", 0, huge.start()) + 1 if huge else 1
        raise RunError("not a usable run: %s" % str(exc).split(";")[0], display, line)
    scanner = _Scanner(text)
    try:
        scanner.value(scanner.skip(0), ())
    except RecursionError:
        raise RunError("not a usable run: JSON nested too deeply", display, 1)
    except RunError as exc:                # a string that is no text (_whole_characters), at its line
        raise RunError(exc.diagnostic.message, display, exc.diagnostic.line)
    return JsonDocument(value, scanner.lines, scanner.key_lines, scanner.duplicates)


def _whole_characters(text: str, line: int) -> None:
    """A string whose \\u escapes leave half of a UTF-16 surrogate pair (`"\\ud800"`) is refused at its line: the
    report of the run failed on it (an escaped pair such as `"\\ud83d\\ude00"` is one character and passes)."""
    problem = half_surrogate_problem(text)
    if problem is not None:
        raise RunError(problem, "", line)


class _Scanner:
    """Walks valid JSON text, recording positions; values are rebuilt only as far as positions need them."""

    def __init__(self, text: str):
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.lines: Dict[Path, int] = {}
        self.key_lines: Dict[Path, int] = {}
        self.duplicates: List[Duplicate] = []

    def line_at(self, index: int) -> int:
        return bisect.bisect_left(self.newlines, index) + 1

    def skip(self, index: int) -> int:
        return WHITESPACE.match(self.text, index).end()

    def value(self, index: int, path: Path) -> int:
        """Record the value starting at `index`; return the index after it."""
        self.lines[path] = self.line_at(index)
        char = self.text[index]
        if char == "{":
            return self.object(index + 1, path)
        if char == "[":
            return self.array(index + 1, path)
        if char == '"':
            text, end = scanstring(self.text, index + 1)
            _whole_characters(text, self.line_at(index))
            return end
        for word, _ in sorted(CONSTANTS.items(), key=lambda kv: -len(kv[0])):
            if self.text.startswith(word, index):
                return index + len(word)
        return NUMBER.match(self.text, index).end()

    def object(self, index: int, path: Path) -> int:
        index = self.skip(index)
        seen: Dict[str, int] = {}
        if self.text[index] == "}":
            return index + 1
        while True:
            key_line = self.line_at(index)
            key, index = scanstring(self.text, index + 1)
            _whole_characters(key, key_line)
            if key in seen:
                self.duplicates.append(Duplicate(path, key, key_line, seen[key]))
            else:
                seen[key] = key_line
            self.key_lines[path + (key,)] = key_line
            index = self.skip(self.skip(index) + 1)           # the ':'
            index = self.skip(self.value(index, path + (key,)))
            if self.text[index] == "}":
                return index + 1
            index = self.skip(index + 1)                      # the ','

    def array(self, index: int, path: Path) -> int:
        index = self.skip(index)
        if self.text[index] == "]":
            return index + 1
        position = 0
        while True:
            index = self.skip(self.value(index, path + (position,)))
            if self.text[index] == "]":
                return index + 1
            index = self.skip(index + 1)
            position += 1
