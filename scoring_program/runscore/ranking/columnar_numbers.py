"""Number fields of the columnar reader (scores, grades, NACSIS ranks) parsed in numpy, to the values the exact
readers get from Python's float() and int().

Why a module of its own: exactness of the numbers is its own argument (Clinger's fast path for short decimals,
float() for the rest, eight byte-flags a uint64 for short fields) and is tested field by field
(tests/test_columnar.py), apart from how the reader cuts a file into fields.
"""
import re
from typing import Dict, Optional, Tuple

import numpy as np

from .columnar_words import masked_words, word_view, field_bytes
from .qrels import MAX_GRADE

FAST_DIGITS = 15               # a decimal with at most 15 digits is exact as mantissa / 10**k (Clinger)
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
# 10 ** k for k <= 22 is a double exactly (5 ** 22 < 2 ** 53), and float() of the integer gives it exactly; numpy's
# power is its own vector code in numpy 2 (10.0 ** 23 there is not libm's), so the table is not left to it.
_POW10 = np.array([float(10 ** k) for k in range(FAST_DIGITS + 8)])


def parse_decimals(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Optional[np.ndarray]:
    """The fields as float64, exactly as Python's float() reads them; None if one is not a finite number of
    the run grammar `[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?`.

    Common case (sign, at most 15 digits, one dot, no exponent) in numpy: the digits as an integer m < 2**53
    and k digits after the dot give m / 10**k, one correctly rounded division of exact doubles, so the value
    equals float(text). Other fields (exponents, long mantissas) are read one by one with float()."""
    n = starts.shape[0]
    lengths = ends - starts
    short = n > 0 and int(lengths.max()) <= 8
    chars = _eight_bytes(buf, starts, lengths) if short else field_bytes(buf, starts, ends)
    width = chars.shape[1]
    value = chars - np.uint8(48)          # padding bytes (0) become 208: neither a digit nor a dot
    digit = value < 10
    dot = chars == 46
    sign = (chars[:, 0] == 45) | (chars[:, 0] == 43)
    if short:
        # Eight flags a row are one uint64: "any", "none" and "at most one" are tests on one number a row.
        other = (chars != 0) & ~digit & ~dot
        other[:, 0] &= ~sign
        dot_flags = dot.view(np.uint64)[:, 0]
        simple = (other.view(np.uint64)[:, 0] == 0) & ((dot_flags & (dot_flags - np.uint64(1))) == 0) \
            & (digit.view(np.uint64)[:, 0] != 0)
        dots = (dot_flags != 0).astype(np.int64)
    else:
        digits = np.count_nonzero(digit, axis=1)
        dots = np.count_nonzero(dot, axis=1)
        simple = (digits + dots + sign == lengths) & (dots <= 1) & (digits >= 1) & (digits <= FAST_DIGITS)
    mantissa = np.zeros(n, dtype=np.int64)
    for column in range(width):
        mantissa = np.where(digit[:, column], mantissa * 10 + value[:, column], mantissa)
    dot_at = np.where(dots > 0, np.argmax(dot, axis=1), lengths - 1)
    fraction = lengths - 1 - dot_at
    values = mantissa.astype(np.float64) / _POW10[np.minimum(fraction, _POW10.shape[0] - 1)]
    negative = chars[:, 0] == 45
    values[negative] = -values[negative]
    for i in np.flatnonzero(~simple).tolist():
        text = buf[starts[i]:ends[i]].tobytes().decode("latin-1")     # any byte: the grammar decides
        if not _NUMBER.fullmatch(text):
            return None
        value = float(text)
        if value != value or value in (float("inf"), float("-inf")):
            return None
        values[i] = value
    return values


def _eight_bytes(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(n, 8) bytes of fields of at most 8 bytes, zero padded: one uint64 gather and a mask a field."""
    words = masked_words(word_view(buf, 1), starts, lengths, 0)      # little-endian: bytes in field order
    return words.view(np.uint8).reshape(-1, 8)


def are_integers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Is every field `[+-]?[0-9]+` with at most 18 digits? (parse_integers' test, without the values)"""
    lengths = ends - starts
    if lengths.shape[0] == 0:
        return True
    if int(lengths.max()) > 8:
        return parse_integers(buf, starts, ends) is not None
    return _short_integers(_eight_bytes(buf, starts, lengths))[1]


def _short_integers(chars: np.ndarray) -> Tuple[np.ndarray, bool]:
    """(digit flags, all integers?) of fields of at most 8 bytes: eight flags a row are one uint64 (see
    parse_decimals), so "no other byte" and "some digit" are tests on one number a row."""
    digit = (chars - np.uint8(48)) < 10
    other = (chars != 0) & ~digit
    other[:, 0] &= (chars[:, 0] != 45) & (chars[:, 0] != 43)
    return digit, not np.any(other.view(np.uint64)[:, 0]) and bool(np.all(digit.view(np.uint64)[:, 0]))


def parse_integers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Optional[np.ndarray]:
    """`[+-]?[0-9]+` fields of at most 18 digits as int64; None if one is not."""
    lengths = ends - starts
    if lengths.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    short = int(lengths.max()) <= 8
    chars = _eight_bytes(buf, starts, lengths) if short else field_bytes(buf, starts, ends)
    value = chars - np.uint8(48)
    if short:
        digit, integers = _short_integers(chars)
        if not integers:
            return None
    else:
        digit = value < 10
        sign = (chars[:, 0] == 45) | (chars[:, 0] == 43)
        digits = np.count_nonzero(digit, axis=1)
        if not np.all((digits + sign == lengths) & (digits >= 1) & (digits <= 18)):
            return None
    number = np.zeros(lengths.shape[0], dtype=np.int64)
    for column in range(chars.shape[1]):
        number = np.where(digit[:, column], number * 10 + value[:, column], number)
    return np.where(chars[:, 0] == 45, -number, number)


def letter_table(grade_map: Optional[Dict[str, int]]) -> Optional[np.ndarray]:
    """byte -> grade + MAX_GRADE + 1 for the one-letter ASCII grades of a map (0 = not a letter grade); None
    when the map is empty. Other keys (longer, digits, non-ASCII) are left out: such a field is not an integer
    of at most 18 digits either, or read_columns declined the map (`map_is_letters`)."""
    if not grade_map:
        return None
    table = np.zeros(256, dtype=np.int64)
    for text, grade in grade_map.items():
        if len(text) == 1 and ord(text) < 128 and not text.isdigit() and abs(grade) <= MAX_GRADE:
            table[ord(text)] = grade + MAX_GRADE + 1
    return table


def map_is_letters(grade_map: Dict[str, int]) -> bool:
    return all(len(text) == 1 and not text.isdigit() for text in grade_map)


def parse_grades(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 letters: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
    """Qrels grades: integers, or one-letter grades of a grade map (`letters`, from letter_table)."""
    if letters is None:
        return parse_integers(buf, starts, ends)
    coded = np.where(ends - starts == 1, letters[buf[starts]], 0)
    is_letter = coded != 0
    if not np.any(is_letter):
        return parse_integers(buf, starts, ends)
    grade = coded - (MAX_GRADE + 1)
    rest = np.flatnonzero(~is_letter)
    if rest.shape[0]:
        numbers = parse_integers(buf, starts[rest], ends[rest])
        if numbers is None:
            return None
        grade[rest] = numbers
    return grade
