"""Document ids as fixed-width big-endian uint64 words: comparing the words compares the bytes.

Why a module of its own: the columnar reader, the qrels join and the in-memory evaluation all turn ids into
words and back; this is the one place that knows the packing (zero padded, first byte most significant) and the
long-id layout (ColumnarRun.long_ids), so trec_eval's tie-break (docno in byte order) is a lexsort of the words
and a join with the qrels an exact comparison of words.
"""
from typing import List, Optional, Tuple

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


def widen(words: np.ndarray, count: int) -> np.ndarray:
    """Pad (n, w) words with zero columns to (n, count)."""
    if words.shape[1] >= count:
        return words
    out = np.zeros((words.shape[0], count), dtype=np.uint64)
    out[:, :words.shape[1]] = words
    return out


def with_long_ids(docno: np.ndarray, rows: np.ndarray, parts: List[np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """The docno words with one more column (see ColumnarRun.long_ids) and the sorted distinct long ids. Costs one
    copy of the word matrix and a sort of the long ids' words, whatever their number."""
    longest = max(part.shape[1] for part in parts)
    words = np.vstack([widen(part, longest) for part in parts])
    unique, codes = _distinct_rows(words)
    width = docno.shape[1]
    out = np.zeros((docno.shape[0], width + 1), dtype=np.uint64)
    out[:, :width] = docno
    out[rows, :width] = words[:, :width]
    out[rows, width] = codes
    return out, unique


def _distinct_rows(words: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(the distinct rows sorted, 1 + the index of each row among them)."""
    order = np.lexsort(words.T[::-1])
    ordered = words[order]
    new = np.ones(ordered.shape[0], dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    codes = np.empty(ordered.shape[0], dtype=np.uint64)
    codes[order] = np.cumsum(new)
    return ordered[new], codes


def long_id_words(words: np.ndarray, width: int, long_ids: np.ndarray) -> np.ndarray:
    """Rows in the long-id layout (ColumnarRun.long_ids) for ids given as words, e.g. a qrels file's long ids:
    the first `width` words and the code of the equal run id (an id no run line has gets a code of its own
    above every run code, so it matches nothing)."""
    common = max(words.shape[1], long_ids.shape[1])
    both = np.vstack([widen(long_ids, common), widen(words, common)])
    from_run = np.zeros(both.shape[0], dtype=bool)
    from_run[:long_ids.shape[0]] = True
    order = np.lexsort((~from_run,) + tuple(both.T[::-1]))      # equal rows together, the run's first
    ordered = both[order]
    group = np.cumsum(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)]) - 1
    group_code = np.zeros(int(group[-1]) + 1, dtype=np.uint64)
    run_rows = from_run[order]
    group_code[group[run_rows]] = order[run_rows].astype(np.uint64) + np.uint64(1)
    codes = np.empty(words.shape[0], dtype=np.uint64)
    codes[order[~run_rows] - long_ids.shape[0]] = group_code[group[~run_rows]]
    absent = codes == 0
    codes[absent] = np.uint64(1 << 62) + np.arange(int(np.count_nonzero(absent)), dtype=np.uint64)
    out = np.zeros((words.shape[0], width + 1), dtype=np.uint64)
    out[:, :width] = widen(words, width)[:, :width]
    out[:, width] = codes
    return out
