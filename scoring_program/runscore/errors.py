"""Diagnostics as data, and the two exceptions that map to exit codes.

Why: a participant must see every problem of every file at once, each as `FILE:LINE: error: message`, and an
organiser's mistake (bad reference data, bad usage) must be told apart from a participant's (bad run) by the
exit code: 1 for the participant's fault, 2 for the organiser's.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional

EXIT_OK = 0
EXIT_INVALID_RUN = 1
EXIT_CONFIG = 2

ERROR = "error"
WARNING = "warning"

# A message quoting a hostile field (a 5 MB "document id") is cut in the middle to stay readable (docs/limits.md).
MAX_MESSAGE_CHARS = 2000
# Line breaks and other control characters quoted from a file would break the one-line FILE:LINE format.
_CONTROL = {c: "\\x%02x" % c for c in range(32) if c != 9}
_CONTROL.update({10: "\\n", 13: "\\r", 0x85: "\\x85", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def clip_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """One printable line of at most about `limit` characters."""
    message = message.translate(_CONTROL)
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
    """Bad usage, bad reference data or bad configuration: the organiser's fault (exit 2)."""

    def __init__(self, message: str, path: str = "", line: int = 0):
        super().__init__(clip_message(message))
        self.path, self.line = path, line

    def __str__(self) -> str:
        if self.path:
            where = "%s:%d" % (self.path, self.line) if self.line else self.path
            return "%s: error: %s" % (where, self.args[0])
        return "error: %s" % self.args[0]


class Diagnostics:
    """Collects the findings of one file; caps how many errors are kept so a broken file stays readable."""

    def __init__(self, path: str, max_errors: int = 50):
        self.path = path
        self.max_errors = max_errors
        self._items: List[Diagnostic] = []
        self._once: Dict[str, List[int]] = {}   # kind -> [index in _items, repeats]
        self.error_count = 0
        self.warning_count = 0

    def error(self, line: int, message: str, code: str = "") -> None:
        self.error_count += 1
        if self.error_count <= self.max_errors:
            self._items.append(Diagnostic(self.path, line, ERROR, message, code))

    def warning(self, line: int, message: str, code: str = "") -> None:
        self.warning_count += 1
        if self.warning_count <= self.max_errors:
            self._items.append(Diagnostic(self.path, line, WARNING, message, code))

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
        """Every kept finding, a repeated warning carrying the count of its other lines."""
        items = list(self._items)
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

    def sorted_items(self) -> List[Diagnostic]:
        return sorted(self.items, key=lambda d: (d.line, d.severity != ERROR))

    def lines(self) -> List[str]:
        """The printable report: every kept finding, then how many were left out."""
        out = [str(d) for d in self.sorted_items()]
        for count, kind in ((self.error_count, "errors"), (self.warning_count, "warnings")):
            if count > self.max_errors:
                out.append("%s: note: %d more %s not shown (first %d listed)"
                           % (self.path, count - self.max_errors, kind, self.max_errors))
        return out

    def first_error(self) -> Optional[Diagnostic]:
        errs = [d for d in self.sorted_items() if d.severity == ERROR]
        return errs[0] if errs else None
