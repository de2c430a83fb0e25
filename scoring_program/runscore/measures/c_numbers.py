"""C's arithmetic and number reading as trec_eval and NTCIREVAL meet them, in Python: atol, atof (strtod), (long)
casts, lround, division and log2 without exceptions, libm's log2, log and pow tables, and sums added left to right.

Why a module of its own: bit-for-bit agreement with the C tools depends on these few rules (x/0 is inf, NaN casts
to LONG_MIN, sums in the C loops' order, libm's log2, log and pow), and every reader and measure that meets them
uses this one copy. numpy's own log2, log, exp (and, in numpy 2, pow) depend on the CPU: under AVX-512 numpy 1.22
computes log2 and log with its own vector code, one ulp away from libm at many arguments (log2 at 26, 52, 75, ...),
so a measure computed with them would change its last bits with the machine (docs/performance.md, "Bits that do
not depend on the CPU").
"""
import math
import re

import numpy as np


def c_atol(text: str) -> int:
    """C atol: the leading integer of the text (`23.4` -> 23, `abc` -> 0), as trec_eval reads cutoffs."""
    match = re.match(r"\s*([+-]?[0-9]+)", text)
    return int(match.group(1)) if match else 0


_C_SPACE = "[ \t\n\v\f\r]*"          # C isspace, which strtod skips first
_SPECIAL_PREFIX = re.compile(_C_SPACE + r"([+-]?)(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_HEX_PREFIX = re.compile(_C_SPACE + r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)")
_DECIMAL_PREFIX = re.compile(_C_SPACE + r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def c_atof(text: str) -> float:
    """glibc atof (strtod), as trec_eval reads scores and measure parameters: the longest number at the start of
    the text (after C white space), 0.0 when there is none (`abc`); decimal and hexadecimal forms, inf/infinity/
    nan(...) in any case; out of range gives +-inf or 0 as strtod. ASCII digits only."""
    special = _SPECIAL_PREFIX.match(text)
    if special:
        value = math.inf if special.group(2)[:1] in "iI" else math.nan
        return -value if special.group(1) == "-" else value
    hexa = _HEX_PREFIX.match(text)
    if hexa:
        body = hexa.group(2)
        if "p" not in body.lower():
            body += "p0"
        try:
            value = float.fromhex("0x" + body)
        except OverflowError:
            value = math.inf
        return -value if hexa.group(1) == "-" else value
    match = _DECIMAL_PREFIX.match(text)
    return float(match.group(1)) if match else 0.0   # correctly rounded as strtod: 1e400 -> inf, 1e-400 -> 0.0


def c_long(x: float) -> int:
    """(long)x as trec_eval's C does on x86-64: truncation toward zero, and LONG_MIN (the processor's "integer
    indefinite") for NaN or a value out of range, where Python's int() raises (`-m Rprec_mult.1e308`)."""
    if x != x or not -9223372036854775808.0 <= x < 9223372036854775808.0:
        return -9223372036854775808
    return int(x)


def c_int(x: float) -> int:
    """(int)x as trec_eval's C does on x86-64: truncation toward zero, and INT_MIN (the processor's "integer
    indefinite") for NaN or a value out of int's range. trec_eval's gain comparators return (int)(gain1 - gain2),
    so gains more than 2 ** 31 apart compare as "less" there, whatever their order."""
    if x != x or not -2147483648.0 <= x < 2147483648.0:
        return -2147483648
    return int(x)


def c_lround(x: float) -> int:
    """glibc lround (trec_eval 10.0's recall points): halves away from zero, exactly; LONG_MIN for NaN or out of
    range, as on x86-64."""
    if x != x or not -9223372036854775808.0 <= x < 9223372036854775808.0:
        return -9223372036854775808
    whole = math.floor(abs(x))
    whole += 1 if abs(x) - whole >= 0.5 else 0
    return int(-whole if x < 0 else whole)


def c_div(a: float, b: float) -> float:
    """a / b with C double semantics: x/0 is +-inf and 0/0 is NaN instead of a Python exception."""
    if b == 0:
        if a == 0 or a != a:
            return -math.nan   # x86 produces the negative default NaN; glibc prints it as -nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def as_scores(values, dtype=np.float32) -> np.ndarray:
    """The values as an array of `dtype` (trec_eval 9 and pytrec_eval keep scores and gains as C floats), converted
    as C converts a double: a value beyond float's range becomes +-inf, as the x86 conversion makes it. Without
    numpy's "overflow encountered in cast" RuntimeWarning (numpy 1.24 and later), which would reach the user's
    stderr for a score such as 1e39 that trec_eval reads without a word (runscore says it in its own words)."""
    with np.errstate(over="ignore"):
        return np.asarray(values).astype(dtype, copy=False)


def c_float(x: float) -> float:
    """(float) x for one number, as as_scores converts: the C float's value as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def c_log2(x: float) -> float:
    """log2 with C semantics: -inf at 0 and NaN below, instead of a Python exception."""
    if x > 0:
        return math.log2(x)
    return -math.inf if x == 0 else -math.nan


def _read_only(values) -> np.ndarray:
    """A shared table: callers get views of it, which must not write into the next caller's numbers."""
    table = np.array(values, dtype=np.float64)
    table.setflags(write=False)
    return table


class _LibmTable:
    """function(first), function(first + 1), ... as C's libm gives them (Python's math calls it), computed once and
    grown by doubling; callers get read-only views of the one table."""

    def __init__(self, function, first: int):
        self.function, self.first, self.table = function, first, np.zeros(0)

    def values(self, count: int) -> np.ndarray:
        if self.table.shape[0] < count:
            size = max(count, 2 * self.table.shape[0], 1024)
            self.table = _read_only([self.function(i) for i in range(self.first, self.first + size)])
        return self.table[:count]


_LOG2_FROM_2 = _LibmTable(math.log2, 2)
_LOG_FROM_1 = _LibmTable(math.log, 1)


def log2_discounts(count: int) -> np.ndarray:
    """log2(2), log2(3), ..., log2(count + 1) as C's libm log2 gives them (math.log2), on every CPU."""
    return _LOG2_FROM_2.values(count)


def log_table(count: int) -> np.ndarray:
    """log(1), log(2), ..., log(count) as C's libm log gives them (math.log), on every CPU."""
    return _LOG_FROM_1.values(count)


def c_pow(x: float, y: float) -> float:
    """C's pow (libm's, through math.pow), with C's inf on overflow instead of a Python exception."""
    try:
        return math.pow(x, y)
    except OverflowError:
        odd = y == math.floor(y) and math.fmod(y, 2.0) != 0.0
        return -math.inf if x < 0 and odd else math.inf
    except ValueError:              # a negative base and a fractional exponent: C's domain error
        return math.nan


_POWER_TABLES = {}


def power_table(base: float, count: int) -> np.ndarray:
    """base ** 0, base ** 1, ..., base ** (count - 1) as C's libm pow gives them, on every CPU (a table a base:
    the measures' p and gamma take a few values)."""
    table = _POWER_TABLES.get(base)
    if table is None or table.shape[0] < count:
        size = max(count, 2 * (0 if table is None else table.shape[0]), 1024)
        if len(_POWER_TABLES) >= 64:           # parameters from options: keep the tables of a few bases only
            _POWER_TABLES.clear()
        table = _POWER_TABLES[base] = _read_only([c_pow(base, float(k)) for k in range(size)])
    return table[:count]


def running_total(values: np.ndarray) -> float:
    """0.0 + values[0] + values[1] + ..., added left to right as a C loop adds: numpy's cumulative sum adds in
    order (an accumulation cannot be regrouped), where np.sum and np.dot regroup the terms (pairwise, or as the
    BLAS kernel of the CPU adds them)."""
    if values.shape[0] == 0:
        return 0.0
    return float(np.cumsum(values, dtype=np.float64)[-1]) + 0.0


def ordered_sum(values) -> float:
    """Left-to-right sum, as the C loops add (numpy's pairwise sum can differ in the last bit)."""
    total = 0.0
    for v in np.asarray(values, dtype=float).tolist():
        total += v
    return total
