"""Document ids as fixed-width big-endian uint64 words: comparing the words compares the bytes.

Why a module of its own: the columnar reader, the qrels join and the in-memory evaluation all turn ids into
words and back; this is the one place that knows the packing (zero padded, first byte most significant) and the
long-id layout (ColumnarRun.long_ids), so trec_eval's tie-break (docno in byte order) is a lexsort of the words
and a join with the qrels an exact comparison of words.
"""
from typing import Dict, List, Optional, Tuple

import numpy as np

# Zero bytes kept after a buffer (padded_buffer): a gather of the longest field the tasks' reader takes
# (columnar.MAX_FIELD_BYTES, 256) plus one word.
PAD = 256 + 8


def field_bytes(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int = 0) -> np.ndarray:
    """(n, width) uint8 matrix of the fields buf[start:end], zero padded (width 0 = the longest field).

    `buf` must be followed by at least `width` readable bytes: a view made by `padded_buffer`, whose base has
    PAD zero bytes after it, is used as it is; any other array is copied with room for the last field."""
    lengths = ends - starts
    if not width:
        width = int(lengths.max()) if lengths.shape[0] else 1
    width = max(width, 1)
    base = buf.base
    if isinstance(base, np.ndarray) and base.dtype == np.uint8 and base.shape[0] >= buf.shape[0] + width \
            and base.ctypes.data == buf.ctypes.data:
        padded = base
    else:
        padded = padded_buffer(buf, width).base
    matrix = np.lib.stride_tricks.sliding_window_view(padded, width)[starts]
    matrix *= np.arange(width) < lengths[:, None]
    return matrix


def padded_buffer(data, pad: int = 0) -> np.ndarray:
    """The bytes as a uint8 array (a view) whose base has zero bytes after it, for field gathers."""
    source = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    size = source.shape[0]
    padded = np.zeros(size + max(pad, PAD), dtype=np.uint8)
    padded[:size] = source
    return padded[:size]


_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2 ** 64 - 1], dtype=np.uint64)   # k = 0..8


def pack_fields(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, words: int = 0) -> np.ndarray:
    """Fields buf[start:end] as (n, words) uint64 big-endian words, zero padded (`words` 0 = as needed).

    Each word is one gather from an overlapping little-endian uint64 view of the buffer (`masked_words`), and
    the words are byte-swapped at the end: the first byte becomes the most significant, so comparing words
    compares the bytes."""
    lengths = ends - starts
    longest = int(lengths.max()) if lengths.shape[0] else 1
    count = max(words, (longest + 7) // 8, 1)
    view = word_view(buf, count)
    out = np.empty((starts.shape[0], count), dtype=np.uint64)
    for j in range(count):
        out[:, j] = masked_words(view, starts, lengths, j)
    return out.byteswap(inplace=True)


def word_view(buf: np.ndarray, count: int) -> np.ndarray:
    """A little-endian uint64 view of the buffer whose element i is bytes i..i+7, readable 8 * count bytes
    past the end (the buffer's padded base when it has one, else a padded copy)."""
    base = buf.base
    if not (isinstance(base, np.ndarray) and base.dtype == np.uint8 and base.ctypes.data == buf.ctypes.data
            and base.shape[0] >= buf.shape[0] + 8 * count):
        base = padded_buffer(buf, 8 * count).base
    return np.ndarray((base.shape[0] - 7,), dtype="<u8", buffer=base, strides=(1,))


def masked_words(view: np.ndarray, starts: np.ndarray, lengths: np.ndarray, j: int) -> np.ndarray:
    """Bytes 8j..8j+7 of each field, as little-endian words with the bytes past the field's end zeroed (one
    constant mask when every field has the same length, as document ids often do)."""
    column = view[starts + 8 * j] if j else view[starts]
    shortest = int(lengths.min()) if lengths.shape[0] else 0
    if shortest < 8 * (j + 1):            # some field ends inside this word
        longest = int(lengths.max())
        mask = _LOW_BYTES[min(max(longest - 8 * j, 0), 8)] if longest == shortest else \
            _LOW_BYTES[np.clip(lengths - 8 * j, 0, 8)]
        np.bitwise_and(column, mask, out=column)
    return column


def pack_strings(texts: List[str], words: int = 0) -> Optional[np.ndarray]:
    """The same words for Python strings (qrels document ids); None if one holds a NUL or whitespace."""
    blob = "\n".join(texts).encode("utf-8") + b"\n"
    buf = np.frombuffer(blob, dtype=np.uint8)
    if buf[buf == 0].shape[0]:
        return None
    ends = np.flatnonzero(buf == 10)
    if ends.shape[0] != len(texts):
        return None
    starts = np.empty_like(ends)
    starts[0:1] = 0
    starts[1:] = ends[:-1] + 1
    return pack_fields(buf, starts, ends, words)


def unpack_words(words: np.ndarray) -> List[str]:
    """The strings of packed words (pack_fields, pack_strings), for the exact path: ASCII ids, no NUL."""
    return [row.tobytes().rstrip(b"\0").decode("latin-1") for row in words.astype(">u8")]


def unpack_utf8(words: np.ndarray) -> List[str]:
    """The strings of words packed from UTF-8 text (pack_strings, or a task's reading of ASCII ids): numpy's
    bytes view of each row drops the zero padding, as no id ends in a NUL byte."""
    if not words.shape[0]:
        return []
    rows = np.ascontiguousarray(words.astype(">u8", copy=False)).view("S%d" % (8 * words.shape[1]))[:, 0]
    return [row.decode("utf-8") for row in rows.tolist()]


def widen(words: np.ndarray, count: int) -> np.ndarray:
    """Pad (n, w) words with zero columns to (n, count)."""
    if words.shape[1] >= count:
        return words
    out = np.zeros((words.shape[0], count), dtype=np.uint64)
    out[:, :words.shape[1]] = words
    return out


def pack_bytes(texts: List[bytes], words: int = 0) -> np.ndarray:
    """pack_strings for bytes (no NUL, no LF: an id read by trec_eval's rules has neither)."""
    blob = b"\n".join(texts) + b"\n"
    buf = padded_buffer(blob)
    ends = np.flatnonzero(buf == 10)
    starts = np.empty_like(ends)
    starts[0:1] = 0
    starts[1:] = ends[:-1] + 1
    return pack_fields(buf, starts, ends, words)


# ------------------------------------------------------------------------------------------ hashed keys ---

def row_keys(words: np.ndarray) -> np.ndarray:
    """One uint64 per row for the one-word paths (the duplicate check, the qrels join): the word itself when
    there is one (exact), else the words mixed (equal rows, equal keys; two keys that meet must be confirmed on
    the words). Vectorised over the words: a few numpy calls a word, whatever the number of rows."""
    if words.shape[1] == 1:
        return words[:, 0]
    key = words[:, 0] * np.uint64(0x9E3779B97F4A7C15)
    for j in range(1, words.shape[1]):
        key ^= words[:, j]
        key *= np.uint64(0xBF58476D1CE4E5B9)
        key ^= key >> np.uint64(31)
    return key


def rows_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, are the words of a and b equal? (a column at a time: np.all(a == b, axis=1) over rows of one
    or two words costs ten times as much)"""
    same = a[:, 0] == b[:, 0]
    for j in range(1, a.shape[1]):
        same &= a[:, j] == b[:, j]
    return same


# ------------------------------------------------------------------------------------------ long ids ---

class LongIdCodes(dict):
    """Long document ids (bytes, trec_eval's reader: over columnar.LONG_ID_BYTES) -> a code: the next one (1, 2,
    ...) for an id not seen before, so a code stands for exactly one id (Python's dict compares the bytes
    where two hashes meet). The codes are made in order of first appearance; `byte_order_codes` ranks them."""

    def __missing__(self, key: bytes) -> int:
        code = self[key] = len(self) + 1
        return code


def long_id_codes(codes: LongIdCodes, blob: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The code of each id blob[start:end] (one dict lookup an id: hashing 300 bytes in C costs less than
    packing them into 38 words)."""
    ids = map(blob.__getitem__, map(slice, starts.tolist(), ends.tolist()))     # no list of the ids
    return np.fromiter(map(codes.__getitem__, ids), dtype=np.uint64, count=starts.shape[0])


def byte_order_codes(codes: LongIdCodes) -> Tuple[Dict[bytes, int], np.ndarray]:
    """({id: 1 + its rank among the distinct long ids in byte order}, that code at the index of each code of
    `codes`): ranks sort only the distinct ids, once."""
    ids = list(codes)                       # in code order: ids[k] has code k + 1
    order = sorted(range(len(ids)), key=ids.__getitem__)
    final = np.zeros(len(ids) + 1, dtype=np.uint64)
    final[np.array(order, dtype=np.int64) + 1] = np.arange(1, len(ids) + 1, dtype=np.uint64)
    return dict(zip([ids[k] for k in order], range(1, len(ids) + 1))), final


def with_long_ids(docno: np.ndarray, rows: np.ndarray, codes: np.ndarray, long_ids: Dict[bytes, int]) -> np.ndarray:
    """The docno words with one more column (see ColumnarRun.long_ids): the long ids' rows get their first words
    (as wide as the widest short id) and their code. The words are packed once a distinct id, not once a line."""
    width = docno.shape[1]
    table = long_id_rows(list(long_ids), width, long_ids)      # row k: the id of code k + 1
    out = widen(docno, width + 1)
    out[rows] = table[codes.astype(np.int64) - 1]
    return out


ABSENT_CODE = 1 << 62       # and up: long ids the run does not have (codes of one id each, matching no run row)


def long_id_rows(ids: List[bytes], width: int, long_ids: Dict[bytes, int]) -> np.ndarray:
    """Rows in the long-id layout (ColumnarRun.long_ids) for long ids given as bytes, e.g. a qrels file's: the
    first `width` words and the code of the equal run id (an id no run line has gets a code of its own above
    every run code, so it matches nothing). A code's big-endian bytes hold a NUL, which no id word holds."""
    codes = np.fromiter((long_ids.get(i, 0) for i in ids), dtype=np.uint64, count=len(ids))
    absent = codes == 0
    codes[absent] = np.uint64(ABSENT_CODE) + np.arange(int(np.count_nonzero(absent)), dtype=np.uint64)
    out = np.zeros((len(ids), width + 1), dtype=np.uint64)
    if ids:
        out[:, :width] = pack_bytes([i[:8 * width] for i in ids], width)[:, :width]
    out[:, width] = codes
    return out
