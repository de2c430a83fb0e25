"""Diagnostics as data, and the two exceptions that map to exit codes.

Why: a participant must see every problem of every file at once, each as `FILE:LINE: error: message`, and an
organiser's mistake (bad reference data, bad usage) must be told apart from a participant's (bad run) by the
exit code: 1 for the participant's fault, 2 for the organiser's.
"""
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

EXIT_OK = 0
EXIT_INVALID_RUN = 1
EXIT_CONFIG = 2

ERROR = "error"
WARNING = "warning"

# A message quoting a hostile field (a 5 MB "document id") is cut in the middle to stay readable (docs/limits.md).
MAX_MESSAGE_CHARS = 2000
# Line breaks and other control characters quoted from a file would break the one-line FILE:LINE format, and a
# terminal runs them (ESC and the one-byte CSI U+009B move the cursor and erase lines; DEL erases a character).
_CONTROL = {c: "\\x%02x" % c for c in list(range(32)) + list(range(0x7f, 0xa0)) if c != 9}
_CONTROL.update({10: "\\n", 13: "\\r", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def printable(text: str) -> str:
    """`text` with every control character but TAB written as an escape (`\\x1b`): one line that a terminal shows
    as it is, for what a command prints of a participant's names outside a Diagnostic."""
    return text.translate(_CONTROL)


def clip_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """One printable line of at most about `limit` characters."""
    message = printable(message)
    if len(message) <= limit:
        return message
    head, tail = limit * 4 // 5, limit // 8
    return "%s [... %d characters left out ...] %s" % (message[:head], len(message) - head - tail,
                                                      message[-tail:])


@dataclass(frozen=True)
class Diagnostic:
    """One finding about one place of one file (line 0 = the file as a whole)."""

    path: str
    line: int
    severity: str
    message: str
    code: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", clip_message(self.message))

    def __str__(self) -> str:
        where = "%s:%d" % (self.path, self.line) if self.line else self.path
        return "%s: %s: %s" % (where, self.severity, self.message)


class RunError(Exception):
    """The participant's run is invalid (exit 1)."""

    def __init__(self, message: str, path: str = "", line: int = 0):
        super().__init__(message)
        self.diagnostic = Diagnostic(path, line, ERROR, message)

    def __str__(self) -> str:
        return str(self.diagnostic)


class ConfigError(Exception):
    """Bad usage, bad reference data or bad configuration: the organiser's fault (exit 2).

    `more`: further problems found in the same pass (a reference file lists all its errors at once); str()
    gives one `FILE:LINE: error: message` line for each.
    """

    def __init__(self, message: str, path: str = "", line: int = 0, more: Sequence["ConfigError"] = ()):
        super().__init__(clip_message(message))
        self.path, self.line = path, line
        self.more = list(more)

    def one_line(self) -> str:
        if self.path:
            where = "%s:%d" % (self.path, self.line) if self.line else self.path
            return "%s: error: %s" % (where, self.args[0])
        return "error: %s" % self.args[0]

    def lines(self) -> List[str]:
        return [self.one_line()] + [line for other in self.more for line in other.lines()]

    def __str__(self) -> str:
        return "\n".join(self.lines())


class ConfigErrors:
    """Collects the problems of one reference file so that all of them are told at once, not the first only:
    `with ConfigErrors() as problems:` around the reading, `problems.catch()` around each line's checks (or
    `problems.add(error)`, then `problems.check()`). The same message on many lines is told once with its lines,
    as for a run (Diagnostics)."""

    def __init__(self, limit: int = 50):
        self.limit = limit
        self.found: List[ConfigError] = []      # the first problems, as raised
        self.count = 0
        self._by_path: Dict[str, "Diagnostics"] = {}

    def add(self, error: ConfigError) -> None:
        for one in [error] + error.more:
            self.count += 1
            if len(self.found) < self.limit:
                self.found.append(one)
            diags = self._by_path.get(one.path)
            if diags is None:
                diags = self._by_path[one.path] = Diagnostics(one.path, self.limit)
            diags.error(one.line, one.args[0])

    def catch(self) -> "_Catch":
        """A context that records a ConfigError raised inside it and lets the reading go on."""
        return _Catch(self)

    def check(self) -> None:
        """Raise every problem found, as one ConfigError (the first, carrying the others)."""
        if not self.found:
            return
        told: List[ConfigError] = []
        for path, diags in self._by_path.items():
            told.extend(ConfigError(d.message, path, d.line) for d in diags.sorted_items())
            if diags.hidden_errors:
                told.append(ConfigError("%d more errors not shown (the first %d different ones listed)"
                                        % (diags.hidden_errors, self.limit), path))
        raise ConfigError(told[0].args[0], told[0].path, told[0].line, told[1:])

    def __enter__(self) -> "ConfigErrors":
        return self

    def __exit__(self, kind, value, traceback) -> bool:
        if kind is None:
            self.check()
            return False
        if isinstance(value, ConfigError) and self.found:   # a fatal problem after others: tell all of them
            self.add(value)
            self.check()
        return False


class _Catch:
    def __init__(self, errors: ConfigErrors):
        self.errors = errors

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, value, traceback) -> bool:
        if isinstance(value, ConfigError):
            self.errors.add(value)
            return True
        return False


class _Group:
    """The lines one identical message was found on: ranges of consecutive lines (the first few kept) and a count."""

    MAX_RANGES = 6

    __slots__ = ("index", "ranges", "count", "last", "more_ranges")

    def __init__(self, index: int, line: int):
        self.index = index
        self.ranges = [[line, line]]
        self.count = 1
        self.last = line
        self.more_ranges = 0

    def add(self, line: int) -> None:
        self.count += 1
        if not self.more_ranges and self.ranges[-1][0] <= line <= self.ranges[-1][1] + 1:
            self.ranges[-1][1] = max(self.ranges[-1][1], line)
        elif self.more_ranges and self.last <= line <= self.last + 1:
            pass                                    # continues a place that is counted, not listed
        elif len(self.ranges) < self.MAX_RANGES:
            self.ranges.append([line, line])
        else:
            self.more_ranges += 1
        self.last = line

    def where(self) -> str:
        """`lines 2-42`, `lines 2-5, 8, 10-42`, or with more ranges `lines 2-5, ... and 3 more places (87 lines)`."""
        shown = ", ".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in self.ranges)
        if self.more_ranges:
            return "lines %s and %d more place%s (%d lines)" % (shown, self.more_ranges,
                                                              "s" if self.more_ranges > 1 else "", self.count)
        if len(self.ranges) > 1 or self.ranges[0][0] != self.ranges[0][1]:
            span = sum(b - a + 1 for a, b in self.ranges)
            return "lines %s" % shown if span == self.count else "lines %s (%d times)" % (shown, self.count)
        return "line %d (%d times)" % (self.ranges[0][0], self.count)


_GROUPED = re.compile(r": (?:error|warning): (?:lines? ([0-9, -]+?)(?: and \d+ more places?)?(?: \((\d+) (?:lines|times)\))?: )")


def findings_in(line: str) -> int:
    """How many findings one printed diagnostic stands for: `lines 2-42: ...` is 41, any other line 1."""
    match = _GROUPED.search(line)
    if match is None:
        return 1
    if match.group(2):
        return int(match.group(2))
    total = 0
    for part in match.group(1).split(", "):
        first, _, last = part.partition("-")
        total += int(last or first) - int(first) + 1
    return max(1, total)


class Diagnostics:
    """Collects the findings of one file.

    The same message (same severity and text) on many lines is kept once, with the lines it was found on:
    `run.txt:2: error: lines 2-42: expected 4 TAB-separated fields ...`, so 41 identical errors read as one
    cause. At most `max_errors` distinct errors (and as many warnings) are kept; the rest are counted.
    """

    def __init__(self, path: str, max_errors: int = 50):
        self.path = path
        self.max_errors = max_errors
        self._items: List[Diagnostic] = []
        self._once: Dict[str, List[int]] = {}   # kind -> [index in _items, repeats]
        self._groups: Dict[tuple, _Group] = {}  # (severity, message, code) -> the lines it was found on
        self._kept = {ERROR: 0, WARNING: 0}     # distinct messages kept per severity
        self._hidden = {ERROR: 0, WARNING: 0}   # findings not kept (over the cap)
        self.error_count = 0
        self.warning_count = 0

    def _record(self, severity: str, line: int, message: str, code: str) -> bool:
        """Keep or group one finding; False when it is over the cap and only counted."""
        key = (severity, message, code)
        group = self._groups.get(key)
        if group is not None:
            group.add(line)
            return True
        if self._kept[severity] >= self.max_errors:
            self._hidden[severity] += 1
            return False
        self._kept[severity] += 1
        self._groups[key] = _Group(len(self._items), line)
        self._items.append(Diagnostic(self.path, line, severity, message, code))
        return True

    def error(self, line: int, message: str, code: str = "") -> None:
        self.error_count += 1
        self._record(ERROR, line, message, code)

    def warning(self, line: int, message: str, code: str = "") -> None:
        self.warning_count += 1
        self._record(WARNING, line, message, code)

    def warning_once(self, kind: str, line: int, message: str, repeats: int = 0) -> None:
        """A warning that may repeat on many lines: reported at its first line, with a count of the others
        (`repeats`: that many more lines at once, for a reader that counted them itself)."""
        entry = self._once.get(kind)
        if entry is not None:
            entry[1] += 1 + repeats
            return
        kept = len(self._items)
        self.warning(line, message, kind)
        self._once[kind] = [kept if len(self._items) > kept else -1, repeats]

    @property
    def items(self) -> List[Diagnostic]:
        """Every kept finding; one found on several lines names them, a repeated warning carries its count."""
        items = list(self._items)
        for group in self._groups.values():
            if group.count > 1:
                d = items[group.index]
                items[group.index] = Diagnostic(d.path, d.line, d.severity, "%s: %s" % (group.where(), d.message),
                                                d.code)
        for index, repeats in self._once.values():
            if index >= 0 and repeats:
                d = items[index]
                items[index] = Diagnostic(d.path, d.line, d.severity,
                                          "%s (and %d more line%s like it)" % (d.message, repeats,
                                                                               "s" if repeats > 1 else ""), d.code)
        return items

    def add(self, diagnostic: Diagnostic) -> None:
        if diagnostic.severity == ERROR:
            self.error(diagnostic.line, diagnostic.message, diagnostic.code)
        else:
            self.warning(diagnostic.line, diagnostic.message, diagnostic.code)

    @property
    def has_errors(self) -> bool:
        return self.error_count > 0

    @property
    def hidden_errors(self) -> int:
        """Errors counted but not kept (over the cap of different messages)."""
        return self._hidden[ERROR]

    def sorted_items(self) -> List[Diagnostic]:
        return sorted(self.items, key=lambda d: (d.line, d.severity != ERROR))

    def lines(self) -> List[str]:
        """The printable report: every kept finding, then how many were left out."""
        out = [str(d) for d in self.sorted_items()]
        for severity, kind in ((ERROR, "errors"), (WARNING, "warnings")):
            if self._hidden[severity]:
                out.append("%s: note: %d more %s not shown (the first %d different ones listed)"
                           % (self.path, self._hidden[severity], kind, self.max_errors))
        return out

    def first_error(self) -> Optional[Diagnostic]:
        errs = [d for d in self.sorted_items() if d.severity == ERROR]
        return errs[0] if errs else None


# ------------------------------------------------------------------------------ internal errors ---
# An exception that is neither RunError nor ConfigError is a defect of runscore, never the participant's fault:
# it must not exit 1 (the platform would blame the participant). Both entries (the CLI, score.py) end such a
# run with exit 2 and "internal error, please report". The test suite sets RUNSCORE_INTERNAL_ERROR_LOG to a file
# where each one is recorded, and fails any test that produced one (tests/conftest.py).
EXIT_INTERNAL = EXIT_CONFIG
INTERNAL_ERROR_LOG = "RUNSCORE_INTERNAL_ERROR_LOG"


def report_internal_error(exc: BaseException, version: str, stream=None) -> int:
    """Print a one-line report (the traceback only with RUNSCORE_TRACEBACK=1), log it for the tests, exit 2."""
    import os
    import sys
    import traceback

    stream = stream or sys.stderr
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    place = " at %s:%d" % (os.path.basename(where.filename), where.lineno) if where else ""
    print("internal error, please report it to the runscore maintainers (runscore %s): %s%s: %s"
          % (version, type(exc).__name__, place, clip_message(str(exc), 300)), file=stream)
    if os.environ.get("RUNSCORE_TRACEBACK"):
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=stream)
    log = os.environ.get(INTERNAL_ERROR_LOG)
    if log:
        try:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + "\n")
        except OSError:
            pass
    return EXIT_INTERNAL
