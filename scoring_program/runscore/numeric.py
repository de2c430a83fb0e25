"""The one reader of integer fields in participant and reference files, for every task.

Why one reader: `str.isdigit()` and the regex `\\d` accept every Unicode digit (`³`, `٣`, fullwidth `３`), which
`int()` then refuses or reads as another number, and `int()` refuses digit strings of more than 4,300 characters
(Python's int-string limit) with a ValueError that escapes as a traceback. Here a number is ASCII digits only
(with an optional sign where the field allows one), at most MAX_DIGITS of them, and the message about a bad value
quotes it shortened, so a 5 MB "rank" gives a one-line message (docs/limits.md).

JSON numbers too (json_loads): json.loads hands every integer to int(), whose cost grows with the square of the
digits (a 1M-digit integer: 9 s, 10 MB: minutes), and the scoring image's Python 3.9 predates the 4,300-digit
limit that newer builds raise at. So every JSON reader of run and reference files uses json_loads, which refuses a
number with more than MAX_DIGITS digits before its point (or exponent) before any conversion; a fraction's digits
are read by float(), whose cost is linear.
"""
import json
import re
from typing import Any, Optional

# 18 digits: every value of a real run fits (ranks, ids, token offsets), and int() never sees a long string.
MAX_DIGITS = 18
SHOWN_CHARS = 40

_UNSIGNED = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"[+-]?[0-9]+")


class FieldError(ValueError):
    """A field that is not a usable integer; str() is the message (without FILE:LINE)."""


def shorten(value: str, limit: int = SHOWN_CHARS) -> str:
    """repr() of a value, cut in the middle beyond `limit` characters with the count left out."""
    if len(value) <= limit:
        return repr(value)
    head, tail = limit * 2 // 3, limit // 4
    return "%r [... %d characters ...] %r" % (value[:head], len(value) - head - tail, value[-tail:])


def is_int(text: str, signed: bool = False, max_digits: int = MAX_DIGITS) -> bool:
    """Is `text` an integer as read_int reads it (ASCII digits, optional sign when `signed`, bounded length)?"""
    if not isinstance(text, str) or len(text) > max_digits + 1:
        return False
    match = (_SIGNED if signed else _UNSIGNED).fullmatch(text)
    return match is not None and len(text.lstrip("+-")) <= max_digits


def read_int(text: str, what: str, signed: bool = False, low: Optional[int] = None, high: Optional[int] = None,
             max_digits: int = MAX_DIGITS) -> int:
    """`text` as an int, or FieldError with a message naming the field `what` and the value shortened."""
    if not isinstance(text, str):
        raise FieldError("%s must be an integer, found %s" % (what, shorten(str(text))))
    if not is_int(text, signed, max_digits):
        body = text.lstrip("+-") if signed else text
        if body and _UNSIGNED.fullmatch(body) and len(body) > max_digits:
            raise FieldError("%s has %d digits, more than the %d allowed: %s"
                             % (what, len(body), max_digits, shorten(text)))
        if any(c.isdigit() and not ("0" <= c <= "9") for c in text):
            raise FieldError("%s %s holds a digit that is not ASCII 0-9 (write numbers with 0-9 only)"
                             % (what, shorten(text)))
        kind = "an integer" if signed else "a non-negative integer"
        raise FieldError("%s must be %s, found %s" % (what, kind, shorten(text)))
    value = int(text)
    if low is not None and value < low or high is not None and value > high:
        bounds = ("in [%d, %d]" % (low, high) if low is not None and high is not None
                  else "at least %d" % low if low is not None else "at most %d" % high)
        raise FieldError("%s must be %s, found %s" % (what, bounds, shorten(text)))
    return value


def _json_int(text: str) -> int:
    if len(text) > MAX_DIGITS + 1 or len(text.lstrip("-")) > MAX_DIGITS:
        raise JsonNumberError(text)
    return int(text)


def _json_float(text: str) -> float:
    digits = len(re.split(r"[.eE]", text, maxsplit=1)[0].lstrip("-"))
    if digits > MAX_DIGITS:
        raise JsonNumberError(text)
    return float(text)


class JsonNumberError(FieldError):
    """A JSON number with more than MAX_DIGITS digits before its point; `line_in(text)` finds where it is."""

    def __init__(self, number: str):
        self.number = number
        body = re.split(r"[.eE]", number, maxsplit=1)[0].lstrip("-")
        super().__init__("a number has %d digits before its point, more than the %d allowed: %s"
                         % (len(body), MAX_DIGITS, shorten(number)))

    def line_in(self, text: str) -> int:
        """The line of the first number token of `text` with too many digits (strings are skipped whole)."""
        for match in _JSON_TOKENS.finditer(text):
            token = match.group()
            if token[0] != '"' and len(re.split(r"[.eE]", token, maxsplit=1)[0].lstrip("-")) > MAX_DIGITS:
                return text.count("\n", 0, match.start()) + 1
        return 1


_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?')


def json_loads(text: str) -> Any:
    """json.loads that raises JsonNumberError (a ValueError) for a number of more than MAX_DIGITS digits before
    its point, before converting it (see the module docstring)."""
    return json.loads(text, parse_int=_json_int, parse_float=_json_float)


def int_or_none(text: str, signed: bool = False, max_digits: int = MAX_DIGITS) -> Optional[int]:
    """`text` as an int when read_int would accept it, else None (for fields where a bad value is reported
    elsewhere or ignored)."""
    return int(text) if is_int(text, signed, max_digits) else None


def numeric_sort_key(text: str):
    """Sort key putting ASCII-digit ids in numeric order (any length, no int() conversion) before other ids."""
    if _UNSIGNED.fullmatch(text):
        digits = text.lstrip("0") or "0"
        return (0, len(digits), digits, text)
    return (1, 0, "", text)


def clip(value: str, limit: int = SHOWN_CHARS) -> str:
    """An id quoted in a message, cut in the middle beyond `limit` characters (no quotes added)."""
    if len(value) <= limit:
        return value
    head, tail = limit * 2 // 3, limit // 4
    return "%s[...%d...]%s" % (value[:head], len(value) - head - tail, value[-tail:])
