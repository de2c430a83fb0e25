"""Hostile variants of a valid file: the mutation engine shared by the fuzz tests and make_corpus.py.

Why one engine: the fuzz tests draw thousands of variants from it with a seeded random generator (so a failure
is reproducible from its seed), and the checked-in corpus is a named, reviewed selection of the same kinds.
Every mutation takes the clean bytes and a random.Random and returns new bytes; none needs to know the format,
so a new task is fuzzed as soon as it ships a sample.
"""
import random
import re
from typing import Callable, Dict, List

BOM = b"\xef\xbb\xbf"

# Tokens that break number parsers, id parsers and JSON value handling.
HOSTILE_TOKENS = [
    b"NaN", b"nan", b"-nan", b"Infinity", b"-Infinity", b"inf", b"-inf", b"1e400", b"-1e400", b"1e-400",
    b"0x1F", b"1_000", b"+5", b"-1", b"-0", b"0", b"99999999999999999999999999999999", b"-2147483649",
    b"9" * 400, b"1.", b".5", b"1e", b"--1", b"", b" ", b"\t", b"null", b"true", b"[]", b"{}", b'"', b"\\",
    b"\x00", b"\xc3", b"\xff\xfe", b"\xed\xa0\x80", b"\xc0\xaf", "\u2028".encode(), "\u00a0".encode(),
    "\u0663".encode(), "\uff11\uff12".encode(), "\u200b".encode(), b"<D0001>", b"</D0001>", b";", b"::",
    b"x" * 5000,
]

INVALID_UTF8 = [b"\xff", b"\xc3", b"\xc3\x28", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"\x80",
                b"\xe2\x82", b"\xf4\x90\x80\x80"]

_TOKEN = re.compile(rb"[^\s;,\"{}\[\]:<>/]+")
_NUMBER = re.compile(rb"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _lines(data: bytes) -> List[bytes]:
    return data.split(b"\n")


def _join(lines: List[bytes]) -> bytes:
    return b"\n".join(lines)


def random_bytes(data: bytes, rng: random.Random) -> bytes:
    alphabet = [bytes([i]) for i in range(256)] if rng.random() < 0.5 else \
        [b"\t", b"\n", b" ", b"0", b"1", b"-", b".", b"a", b"Q", b"{", b"}", b'"', b":", b";", b"<", b">", b"\r"]
    return b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))


def truncate_anywhere(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randint(0, len(data))]


def truncate_at_boundary(data: bytes, rng: random.Random) -> bytes:
    """Cut just before or after a line end, a field separator or inside a multi-byte character."""
    cuts = [m.start() for m in re.finditer(rb"[\n\t ;,:}\]\x80-\xff]", data)] or [len(data)]
    cut = rng.choice(cuts) + rng.choice((0, 1))
    return data[:cut]


def flip_byte(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def insert_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randint(0, len(data))
    piece = rng.choice([b"\x00", b"\t", b"\n", b"\r", b" ", b"\n\n", b"\t\t"] + INVALID_UTF8)
    return data[:at] + piece + data[at:]


def delete_bytes(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    at = rng.randrange(len(data))
    return data[:at] + data[at + rng.randint(1, 8):]


def nul_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + b"\x00" * rng.randint(1, 3) + data[at:]


def invalid_utf8(data: bytes, rng: random.Random) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + rng.choice(INVALID_UTF8) + data[at:]


def huge_line(data: bytes, rng: random.Random) -> bytes:
    """A line (or a field) of ~200 KB: parsers must stay linear and messages must not echo it whole."""
    lines = _lines(data)
    at = rng.randrange(len(lines))
    filler = rng.choice([b"x", b"9", b"\t", b" ", b"a\t"]) * rng.randint(50000, 200000)
    if rng.random() < 0.5:
        lines.insert(at, filler)
    else:
        lines[at] = lines[at] + filler
    return _join(lines)


def bom(data: bytes, rng: random.Random) -> bytes:
    return BOM + data


def crlf(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def cr_only(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def mixed_line_ends(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    return b"".join(line + rng.choice([b"\n", b"\r\n", b"\r"]) for line in lines)


def tabs_and_spaces(data: bytes, rng: random.Random) -> bytes:
    """Some separators swapped: TAB to spaces, spaces to TAB, or doubled."""
    out = bytearray()
    for byte in data:
        if byte in (9, 32) and rng.random() < 0.3:
            out += rng.choice([b" ", b"  ", b"\t", b" \t", b"\t\t"])
        else:
            out.append(byte)
    return bytes(out)


def trailing_blank_lines(data: bytes, rng: random.Random) -> bytes:
    return data + rng.choice([b"\n", b"\n\n\n", b"\n \n\t\n", b"   ", b"\r\n\r\n"])


def leading_blank_lines(data: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"\n", b"\n\n", b" \n", b"\t\n"]) + data


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    lines.insert(rng.randint(0, len(lines)), lines[at])
    return _join(lines)


def delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return _join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return _join(lines)


def replace_token(data: bytes, rng: random.Random) -> bytes:
    """One word-like token replaced by a hostile one (NaN, 1e400, a huge integer, an empty string ...)."""
    tokens = list(_TOKEN.finditer(data))
    if not tokens:
        return data + rng.choice(HOSTILE_TOKENS)
    match = rng.choice(tokens)
    return data[:match.start()] + rng.choice(HOSTILE_TOKENS) + data[match.end():]


def replace_number(data: bytes, rng: random.Random) -> bytes:
    """A number (score, rank, confidence, offset) replaced by a non-finite, huge, negative or malformed one."""
    numbers = list(_NUMBER.finditer(data))
    if not numbers:
        return replace_token(data, rng)
    match = rng.choice(numbers)
    value = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf", b"1e400", b"-1e400", b"-1", b"-0",
                        b"0", b"-99999999999", b"99999999999999999999", b"1e308", b"4.9e-324", b"1e-400",
                        b"2147483648", b"-2147483649", b"1.5", b"0.0000001", b"00001", b"+1", b"1e2"])
    return data[:match.start()] + value + data[match.end():]


def json_deep_nesting(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([50, 1000, 100000])
    deep = b"[" * depth + b"]" * depth if rng.random() < 0.5 else b'{"a":' * depth + b"1" + b"}" * depth
    mode = rng.randrange(3)
    if mode == 0:
        return deep
    lines = _lines(data)
    at = rng.randrange(len(lines))
    if mode == 1:
        lines[at] = deep
        return _join(lines)
    numbers = list(_NUMBER.finditer(data))
    if not numbers:
        return deep
    match = rng.choice(numbers)
    return data[:match.start()] + deep + data[match.end():]


def json_duplicate_key(data: bytes, rng: random.Random) -> bytes:
    """A `"key": value` pair repeated inside its object (json.loads silently keeps the last)."""
    pairs = list(re.finditer(rb'"[^"\\\n]{1,40}"\s*:\s*("[^"\\\n]*"|[-\d.eE+]+|true|false|null)', data))
    if not pairs:
        return data
    match = rng.choice(pairs)
    return data[:match.end()] + b", " + match.group(0) + data[match.end():]


def json_hostile_value(data: bytes, rng: random.Random) -> bytes:
    """A JSON value replaced by another type or a non-standard literal json.loads accepts (NaN, Infinity)."""
    values = list(re.finditer(rb':\s*("[^"\\\n]*"|[-\d.eE+]+|true|false|null|\[\])', data))
    if not values:
        return data
    match = rng.choice(values)
    new = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e400", b"null", b"true", b"[]", b"{}", b'""',
                      b'"\\u0000"', b'"\\ud800"', b"-1", b"99999999999999999999999", b"[1, [2]]", b'{"a": 1}',
                      b'"' + b"x" * 10000 + b'"'])
    return data[:match.start()] + b": " + new + data[match.end():]


# The kinds every format gets; the JSON kinds are added for files that look like JSON or JSON lines.
TEXT_MUTATIONS: Dict[str, Callable[[bytes, random.Random], bytes]] = {
    "random_bytes": random_bytes, "truncate_anywhere": truncate_anywhere,
    "truncate_at_boundary": truncate_at_boundary, "flip_byte": flip_byte, "insert_bytes": insert_bytes,
    "delete_bytes": delete_bytes, "nul_bytes": nul_bytes, "invalid_utf8": invalid_utf8, "huge_line": huge_line,
    "bom": bom, "crlf": crlf, "cr_only": cr_only, "mixed_line_ends": mixed_line_ends,
    "tabs_and_spaces": tabs_and_spaces, "trailing_blank_lines": trailing_blank_lines,
    "leading_blank_lines": leading_blank_lines, "duplicate_line": duplicate_line, "delete_line": delete_line,
    "swap_lines": swap_lines, "replace_token": replace_token, "replace_number": replace_number,
}
JSON_MUTATIONS: Dict[str, Callable[[bytes, random.Random], bytes]] = {
    "json_deep_nesting": json_deep_nesting, "json_duplicate_key": json_duplicate_key,
    "json_hostile_value": json_hostile_value,
}
# Mutations that are expensive to run (large inputs) are drawn less often.
RARE = {"huge_line", "json_deep_nesting"}
# Mutations with few possible outcomes on a given file (repeated draws give repeated inputs).
FEW_OUTCOMES = {"bom", "crlf", "cr_only", "trailing_blank_lines", "leading_blank_lines", "delete_line",
                "duplicate_line", "swap_lines", "truncate_at_boundary", "json_duplicate_key"}


def looks_like_json(data: bytes) -> bool:
    return data.lstrip(BOM + b" \t\r\n")[:1] in (b"{", b"[")


def mutations_for(data: bytes) -> Dict[str, Callable[[bytes, random.Random], bytes]]:
    kinds = dict(TEXT_MUTATIONS)
    if looks_like_json(data):
        kinds.update(JSON_MUTATIONS)
    return kinds


def mutate(data: bytes, rng: random.Random, rounds: int = 1) -> (str, bytes):
    """Apply `rounds` randomly chosen mutations; returns (kinds applied joined by '+', mutated bytes)."""
    kinds = mutations_for(data)
    names = sorted(kinds)
    applied = []
    for _ in range(rounds):
        name = rng.choice(names)
        if name in RARE and rng.random() < 0.8:
            name = rng.choice([n for n in names if n not in RARE])
        data = kinds[name](data, rng)
        applied.append(name)
    if all(name in FEW_OUTCOMES for name in applied) and rng.random() < 0.9:
        # A BOM or CRLF alone on the same seed gives the same input again: add a mutation with many outcomes.
        name = rng.choice([n for n in names if n not in FEW_OUTCOMES and n not in RARE])
        data = kinds[name](data, rng)
        applied.append(name)
    return "+".join(applied), data
