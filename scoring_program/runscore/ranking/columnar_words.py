"""Document ids as fixed-width big-endian uint64 words: comparing the words compares the bytes.

Why a module of its own: the columnar reader, the qrels join and the in-memory evaluation all turn ids into
words and back; this is the one place that knows the packing (zero padded, first byte most significant) and the
long-id layout (ColumnarRun.long_ids), so trec_eval's tie-break (docno in byte order) is a lexsort of the words
and a join with the qrels an exact comparison of words.
"""
import mmap
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

class LongIdBytes:
    """The long document ids of a reader (over columnar.LONG_ID_BYTES): each distinct id once, as its bytes in
    whole words (each id starts a word, zero padded to the next) with a hashed key, and each line's entry. No
    Python object an id (a dict of a million 80-byte ids cost 5 x trec_eval's time and 3 x its memory): a batch's
    ids are found in an open-addressing table of the keys by numpy calls, each match confirmed on every word (an
    id whose key another id has gets an entry of its own; byte_ranks tells such entries apart exactly). The
    words go into one array of their own pages (an anonymous map, grown by doubling): malloc keeps freed chunks
    resident. `long_ids_of` ranks the entries."""

    def __init__(self, room: int = 0) -> None:
        self.room = min(room, 1 << 28)                  # words to reserve at the first id (pages used cost memory)
        self.words = np.zeros(0, dtype=np.uint64)       # the entries' words (bytes in file order), one after another
        self.size = 0                                   # words used
        self.starts = np.zeros(0, dtype=np.int64)       # each entry's first word, length in bytes and key
        self.lengths = np.zeros(0, dtype=np.int64)
        self.keys = np.zeros(0, dtype=np.uint64)
        self.count = 0                                  # entries
        self.table_keys = np.zeros(0, dtype=np.uint64)  # the open-addressing table: key and entry (-1: empty)
        self.table_entry = np.zeros(0, dtype=np.int64)
        self.lines: List[np.ndarray] = []               # each kept line's entry, batch by batch
        self.waiting: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = []     # chunks not yet looked up
        self.waiting_ids = 0

    # Ids looked up at a time: a batch of chunks costs one set of numpy calls a probe round, as one chunk did
    # (a 1 MiB chunk holds 3,000 300-byte ids: the calls' overhead was a third of the look-up)
    BATCH = 1 << 14

    def __len__(self) -> int:
        self.flush()
        return sum(int(x.shape[0]) for x in self.lines)

    def add(self, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
        """Keep the ids buf[start:end] (looked up with the next chunks', BATCH ids at a time)."""
        words, lengths, keys = ragged_words(buf, starts, ends)
        self.waiting.append((words, lengths, keys))
        self.waiting_ids += lengths.shape[0]
        if self.waiting_ids >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        """Look up the waiting chunks' ids: every line's entry is in self.lines after it."""
        if not self.waiting:
            return
        if len(self.waiting) == 1:
            words, lengths, keys = self.waiting[0]
        else:
            words, lengths, keys = (np.concatenate(part) for part in zip(*self.waiting))
        self.waiting, self.waiting_ids = [], 0
        self.lines.append(self._entries(LongIds(words, word_starts(lengths), lengths, keys)))

    def extend(self, other: "LongIdBytes") -> None:
        """Take another reader's ids (the second part of a file), its entries mapped to this one's."""
        self.flush()
        mapping = self._entries(other.entries())
        self.lines.extend(mapping[lines] for lines in other.lines)
        other.__init__()                        # its words let go

    def entries(self) -> "LongIds":
        """The entries so far (the waiting chunks' looked up first)."""
        self.flush()
        return LongIds(self.words[:self.size], self.starts[:self.count], self.lengths[:self.count],
                       self.keys[:self.count])

    def _entries(self, ids: "LongIds") -> np.ndarray:
        """The entry of each of `ids`, new entries made for ids not met before."""
        n = len(ids)
        if not n:
            return np.zeros(0, dtype=np.int64)
        _, first, inverse = np.unique(ids.keys, return_index=True, return_inverse=True)
        leader = first[inverse]
        dup = np.flatnonzero(leader != np.arange(n))
        if dup.shape[0]:                        # equal to the first of its key? (if not: an entry of its own)
            same = _equal_ids(ids, dup, ids, leader[dup])
            leader[dup[~same]] = dup[~same]
        reps = np.flatnonzero(leader == np.arange(n))
        out = np.empty(n, dtype=np.int64)
        out[reps] = self._find_or_add(ids, reps)
        return out[leader]

    def _find_or_add(self, ids: "LongIds", reps: np.ndarray) -> np.ndarray:
        keys = ids.keys[reps]
        found = np.full(reps.shape[0], -1, dtype=np.int64)
        ordered = np.sort(keys)
        shared = ordered[1:][ordered[1:] == ordered[:-1]]       # keys two distinct ids have here: not tabled
        alone = np.flatnonzero(np.isin(keys, shared)) if shared.shape[0] else np.zeros(0, dtype=np.int64)
        if alone.shape[0]:
            found[alone] = self._append(ids, reps[alone])
        tabled = np.flatnonzero(found < 0)
        self._room(self.count + tabled.shape[0])
        fresh = np.zeros(reps.shape[0], dtype=bool)
        mask = np.uint64(self.table_keys.shape[0] - 1)
        slot = _slots(keys, self.table_keys.shape[0])
        pending = tabled
        added: List[np.ndarray] = []            # winners of free slots, in the order of their entries
        added_slots: List[np.ndarray] = []
        next_entry = self.count
        while pending.shape[0]:
            at = slot[pending]
            entry = self.table_entry[at]
            hit = (entry >= 0) & (self.table_keys[at] == keys[pending])
            found[pending[hit]] = entry[hit]
            won = np.zeros(pending.shape[0], dtype=bool)
            empty = np.flatnonzero(entry < 0)
            if empty.shape[0]:
                free, first = np.unique(at[empty], return_index=True)
                winners = empty[first]
                won[winners] = True
                new = np.arange(next_entry, next_entry + winners.shape[0], dtype=np.int64)
                next_entry += winners.shape[0]
                added.append(pending[winners])
                added_slots.append(free)
                self.table_keys[free] = keys[pending[winners]]
                self.table_entry[free] = new
                found[pending[winners]] = new
                fresh[pending[winners]] = True
            pending = pending[~hit & ~won]
            slot[pending] = (slot[pending] + 1) & int(mask)
        if added:                               # their words, once for the chunk, in the chunk's order (a slice
            won = np.concatenate(added)         # or a mask of its words, not a gather of each word)
            order = np.argsort(won)
            renumber = np.empty_like(order)
            renumber[order] = np.arange(self.count, self.count + order.shape[0], dtype=np.int64)
            self.table_entry[np.concatenate(added_slots)] = renumber
            found[won] = renumber
            self._append(ids, reps[won[order]])
        hits = tabled[~fresh[tabled]]
        if hits.shape[0]:                       # a key met before: the same bytes? (if not: an entry of its own)
            same = _equal_ids(ids, reps[hits], self.entries(), found[hits])
            if not same.all():
                found[hits[~same]] = self._append(ids, reps[hits[~same]])
        return found

    def _room(self, count: int) -> None:
        """A table at most half full for `count` entries (rebuilt from the tabled entries when it grows)."""
        if 2 * count <= self.table_keys.shape[0]:
            return
        size = 1 << max(12, int(4 * count - 1).bit_length())
        old_keys, old_entry = self.table_keys, self.table_entry
        self.table_keys = np.zeros(size, dtype=np.uint64)
        self.table_entry = np.full(size, -1, dtype=np.int64)
        used = np.flatnonzero(old_entry >= 0)
        keys, entries = old_keys[used], old_entry[used]
        mask = size - 1
        slot = _slots(keys, size)
        # In the order of their slots, each key takes the first free slot from its own: slot i + the running
        # maximum of (slot - i), the placement linear probing gives, in a few calls instead of a round a probe.
        # The keys pushed past the end go on from slot 0 (the slots from theirs to the end are taken).
        order = np.argsort(slot, kind="stable")
        step = np.arange(order.shape[0], dtype=np.int64)
        place = np.maximum.accumulate(slot[order] - step) + step
        inside = place < size
        self.table_keys[place[inside]] = keys[order[inside]]
        self.table_entry[place[inside]] = entries[order[inside]]
        pending = order[~inside]
        slot[pending] = 0
        while pending.shape[0]:                 # distinct keys: each takes the first free slot from its own
            at = slot[pending]
            empty = np.flatnonzero(self.table_entry[at] < 0)
            free, first = np.unique(at[empty], return_index=True)
            winners = pending[empty[first]]
            self.table_keys[free] = keys[winners]
            self.table_entry[free] = entries[winners]
            placed = np.zeros(pending.shape[0], dtype=bool)
            placed[empty[first]] = True
            pending = pending[~placed]
            slot[pending] = (slot[pending] + 1) & mask

    def _append(self, ids: "LongIds", which: np.ndarray, block: int = 1 << 15) -> np.ndarray:
        """New entries for ids `which` (their words copied, a block of ids at a time: another reader's ids are
        many); their indices."""
        counts_all = (ids.lengths + 7) // 8
        base = int(ids.starts[0]) if ids.starts.shape[0] else 0
        if which.shape[0] and np.all(which[1:] > which[:-1]) \
                and np.array_equal(ids.starts, word_starts(ids.lengths) + base):
            return self._append_laid(ids, which, counts_all, block)
        if which.shape[0] > block:
            first = self.count
            for at in range(0, which.shape[0], block):
                self._append(ids, which[at:at + block], block)
            return np.arange(first, self.count, dtype=np.int64)
        lengths = ids.lengths[which]
        counts = (lengths + 7) // 8
        total = int(counts.sum())
        offsets = np.zeros(which.shape[0], dtype=np.int64)
        np.cumsum(counts[:-1], out=offsets[1:])
        source = np.arange(total, dtype=np.int64) + np.repeat(ids.starts[which] - offsets, counts)
        end = self.size + total
        self._make_room(end)
        self.words[self.size:end] = ids.words[source]
        return self._add_entries(ids, which, offsets, end)

    def _append_laid(self, ids: "LongIds", which: np.ndarray, counts_all: np.ndarray, block: int) -> np.ndarray:
        """_append for ids laid one after another in whole words (a chunk's, another reader's entries) taken in
        their order: a block's words are one slice, or the slice's words through a mask of the ids taken (the
        gather of an index a word cost a third of the time of a 300-byte id's copy)."""
        counts = counts_all[which]
        total = int(counts.sum())
        offsets = np.zeros(which.shape[0], dtype=np.int64)
        np.cumsum(counts[:-1], out=offsets[1:])
        end = self.size + total
        self._make_room(end)
        for at in range(0, which.shape[0], block):
            part = which[at:at + block]
            low, high = int(part[0]), int(part[-1]) + 1
            source = ids.words[int(ids.starts[low]):int(ids.starts[high - 1] + counts_all[high - 1])]
            if high - low != part.shape[0]:     # some ids between are not taken
                taken = np.zeros(high - low, dtype=bool)
                taken[part - low] = True
                source = source[np.repeat(taken, counts_all[low:high])]
            into = self.size + int(offsets[at])
            self.words[into:into + source.shape[0]] = source
        return self._add_entries(ids, which, offsets, end)

    def _make_room(self, end: int) -> None:
        """Room for `end` words."""
        if end > self.words.shape[0]:           # room reserved at once: no copy as it grows, at most a doubling
            grown = _reserve(max(end, 2 * self.words.shape[0], 1 << 17, self.room))
            grown[:self.size] = self.words[:self.size]
            self.words = grown

    def _add_entries(self, ids: "LongIds", which: np.ndarray, offsets: np.ndarray, end: int) -> np.ndarray:
        """The entries of ids `which`, their words already written at `offsets` from self.size up to `end`."""
        lengths = ids.lengths[which]
        first = self.count
        last = first + which.shape[0]
        if last > self.starts.shape[0]:
            room = max(last, 2 * self.starts.shape[0], 1024)
            for name, dtype in (("starts", np.int64), ("lengths", np.int64), ("keys", np.uint64)):
                grown = np.zeros(room, dtype=dtype)
                grown[:first] = getattr(self, name)[:first]
                setattr(self, name, grown)
        self.starts[first:last] = offsets + self.size
        self.lengths[first:last] = lengths
        self.keys[first:last] = ids.keys[which]
        self.size, self.count = end, last
        return np.arange(first, last, dtype=np.int64)


def _slots(keys: np.ndarray, size: int) -> np.ndarray:
    """Each key's first slot in a table of `size` (a power of 2): the key's top bits, the best mixed."""
    return (keys >> np.uint64(64 - (size.bit_length() - 1))).astype(np.int64)


def _reserve(count: int) -> np.ndarray:
    """count zeroed uint64 whose pages cost memory once written and go back to the system when let go."""
    if count * 8 < 1024 * 1024:
        return np.zeros(count, dtype=np.uint64)
    return np.frombuffer(mmap.mmap(-1, count * 8), dtype=np.uint64)     # MemoryError/OSError as numpy's would


def word_starts(lengths: np.ndarray) -> np.ndarray:
    """Where each id's first word is, ids of these lengths laid one after another in whole words."""
    starts = np.zeros(lengths.shape[0], dtype=np.int64)
    np.cumsum((lengths[:-1] + 7) // 8, out=starts[1:])
    return starts


def ragged_words(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the fields buf[start:end] in whole words, one after another, zero padded; their lengths; their hashed
    keys): one gather of whole rows from a view whose row r is the words at bytes r, r + 8, ... (a gather a
    column, written a column of the matrix, cost a third of a 300-byte id's reading), the bytes past each field's
    end zeroed, each field's words mixed into its key a column at a time, then the words past each field's end
    dropped. A field's key mixes its own words only, whatever the chunk's longest: equal ids, equal keys."""
    lengths = (ends - starts).astype(np.int64)
    key = lengths.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    if not lengths.shape[0]:
        return np.zeros(0, dtype=np.uint64), lengths, key
    count = int((int(lengths.max()) + 7) // 8)
    shortest = int(lengths.min())
    uniform = shortest + 7 >= 8 * count     # every field as long in words: none read past its last word
    view = word_view(buf, 1 if uniform else count)
    rows = np.lib.stride_tricks.as_strided(view, shape=(view.shape[0] - 8 * (count - 1), count),
                                           strides=(view.strides[0], 8 * view.strides[0]), writeable=False)
    matrix = rows[starts]
    if uniform:
        tail = lengths - 8 * (count - 1)
        if int(tail.min()) < 8:
            matrix[:, count - 1] &= _LOW_BYTES[np.minimum(tail, 8)]
    else:
        matrix &= _LOW_BYTES[np.clip(lengths[:, None] - 8 * np.arange(count), 0, 8)]
    for j in range(count):
        if shortest > 8 * j:
            key ^= matrix[:, j]
            key *= np.uint64(0xBF58476D1CE4E5B9)
            key ^= key >> np.uint64(29)
        else:                                   # only the fields with bytes here
            part = np.flatnonzero(lengths > 8 * j)
            mixed = (key[part] ^ matrix[part, j]) * np.uint64(0xBF58476D1CE4E5B9)
            key[part] = mixed ^ (mixed >> np.uint64(29))
    if uniform:
        return matrix.reshape(-1), lengths, key
    return matrix[np.arange(count) < ((lengths + 7) // 8)[:, None]], lengths, key


def _equal_ids(a: "LongIds", mine: np.ndarray, b: "LongIds", theirs: np.ndarray, block: int = 1 << 15) -> np.ndarray:
    """Is a's id `mine` equal to b's id `theirs`, pair by pair? Lengths, then every word, a block of pairs at a time
    as the rows of two matrices (an id shorter than the block's longest repeats its last word)."""
    length = a.lengths[mine]
    same = length == b.lengths[theirs]
    check = np.flatnonzero(same)
    for at in range(0, check.shape[0], block):
        part = check[at:at + block]
        counts = (length[part] + 7) // 8
        offsets = np.minimum(np.arange(int(counts.max()), dtype=np.int64), (counts - 1)[:, None])
        left = a.words[a.starts[mine[part]][:, None] + offsets]
        right = b.words[b.starts[theirs[part]][:, None] + offsets]
        same[part] = (left == right).all(axis=1)
    return same


def byte_ranks(ids: "LongIds") -> Tuple[np.ndarray, np.ndarray]:
    """(distinct, rank): one index of each distinct id, in trec_eval's strcmp order (unsigned bytes; no id holds a
    NUL), and each id's dense rank from 0 (equal ids, equal ranks). Equal ids are found first by their keys,
    each confirmed on every word against the first id of its key (an id that is not: one of its own), so only
    distinct ids are ranked (_distinct_ranks)."""
    n = len(ids)
    by_key = np.argsort(ids.keys)
    keys = ids.keys[by_key]
    later = np.flatnonzero(keys[1:] == keys[:-1]) + 1       # positions in by_key whose key the one before has
    del keys
    representative = np.arange(n, dtype=np.int64)
    if later.shape[0]:
        head = np.ones(n, dtype=bool)
        head[later] = False
        leader = by_key[np.flatnonzero(head)[np.cumsum(head)[later] - 1]]
        same = _equal_ids(ids, by_key[later], ids, leader)
        representative[by_key[later[same]]] = leader[same]
    distinct = np.flatnonzero(representative == np.arange(n))
    order, rank = _distinct_ranks(ids, distinct)
    ranks = np.empty(n, dtype=np.int64)
    ranks[distinct] = rank
    rank = rank[order]                          # equal ids left apart by a shared key meet here: one of each
    first = np.ones(rank.shape[0], dtype=bool)
    first[1:] = rank[1:] != rank[:-1]
    return distinct[order[first]], ranks[representative]


def _distinct_ranks(ids: "LongIds", which: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """byte_ranks of the ids `which` (order as indices into `which`). Word by word from the first: a sort of the
    first words, then only the ids still tied with another are compared on their next word, and sorted again only
    where that word tells some apart (a prefix every tied id shares costs one gather a word). Time grows with the
    bytes the ids share, as strcmp's does."""
    n = which.shape[0]
    lengths = ids.lengths[which]
    first = ids.word(which, 0)
    order = np.argsort(first, kind="stable")
    first = first[order]
    new = np.ones(n, dtype=bool)                # does sorted position i start a group of equal prefixes?
    new[1:] = first[1:] != first[:-1]
    del first
    active = np.arange(n, dtype=np.int64)       # sorted positions of the ids still tied with another
    shared = _shared_words(ids)
    j, changed = 1, True
    rows = length = group = active
    while active.shape[0]:
        if changed:
            group = np.cumsum(new[active])
            rows = order[active]
            length = lengths[rows]
            keep = np.bincount(group)[group] > 1
            changed = False
        else:
            keep = np.ones(active.shape[0], dtype=bool)
        # not ended inside an earlier word (then its whole group is equal: distinct ids, a group of one)
        keep &= length >= 8 * j
        if not keep.all():
            active, group, rows, length = active[keep], group[keep], rows[keep], length[keep]
            if not active.shape[0]:
                break
        if j < shared.shape[0] and shared[j]:
            j += 1
            continue                            # every id has this word: it tells none apart
        word = np.zeros(rows.shape[0], dtype=np.uint64)     # 0 for an id of exactly 8j bytes: it sorts first
        more = np.flatnonzero(length > 8 * j)
        if more.shape[0]:
            word[more] = ids.word(which[rows[more]], j)
        j += 1
        if word.min() == word.max() or not np.any((word[1:] != word[:-1]) & (group[1:] == group[:-1])):
            continue                            # this word tells no tied ids apart
        sub = np.lexsort((word, group))
        order[active] = rows[sub]
        word = word[sub]
        new[active[1:]] |= word[1:] != word[:-1]
        changed = True
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return order, rank


def _shared_words(ids: "LongIds", block: int = 1 << 14) -> np.ndarray:
    """Which words every id has alike, for ids of one length (each of its words read once, in memory order, a
    block of ids at a time: a shared prefix or suffix costs no gather a word in _distinct_ranks); none else."""
    n = len(ids)
    if not n or int(ids.lengths.min()) != int(ids.lengths.max()):
        return np.zeros(0, dtype=bool)
    count = int((int(ids.lengths[0]) + 7) // 8)
    if not np.array_equal(ids.starts, ids.starts[0] + count * np.arange(n, dtype=np.int64)):
        return np.zeros(0, dtype=bool)          # not one after another
    matrix = ids.words[int(ids.starts[0]):int(ids.starts[0]) + n * count].reshape(n, count)
    shared = np.ones(count, dtype=bool)
    for at in range(0, n, block):
        shared &= (matrix[at:at + block] == matrix[0]).all(axis=0)
    return shared


class LongIds:
    """Long document ids as bytes in whole words with their keys (LongIdBytes), e.g. the distinct long ids of a
    run or qrels in byte order, code k + 1 the k-th (ColumnarRun.long_ids). Iterating gives each id's bytes."""

    def __init__(self, words: np.ndarray, starts: np.ndarray, lengths: np.ndarray, keys: np.ndarray):
        self.words, self.starts, self.lengths, self.keys = words, starts, lengths, keys
        self._sorted_keys: Optional[Tuple[np.ndarray, np.ndarray]] = None

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    def __iter__(self):
        data = self.words.tobytes()
        return iter([data[8 * s:8 * s + n] for s, n in zip(self.starts.tolist(), self.lengths.tolist())])

    def __eq__(self, other) -> bool:
        return isinstance(other, LongIds) and list(self) == list(other)

    def __repr__(self) -> str:
        return "LongIds(%d ids)" % len(self)

    def word(self, which: np.ndarray, j: int) -> np.ndarray:
        """Word j (bytes 8j..8j+7, big-endian: compared as the bytes) of the ids `which`, each longer than 8j."""
        return self.words[self.starts[which] + j].byteswap(inplace=True)

    def codes_of(self, ids: "LongIds") -> np.ndarray:
        """The code (1 + index) of each of `ids` among these ids (distinct); 0 for an id not among them: a search
        of the sorted keys, each match confirmed on every word. Two of these ids sharing a key (one chance in
        about 2 ** 64 / n ** 2): a dict of their bytes."""
        if self._sorted_keys is None:
            order = np.argsort(self.keys, kind="stable")
            self._sorted_keys = (self.keys[order], order)
        keys, order = self._sorted_keys
        out = np.zeros(len(ids), dtype=np.uint64)
        if not keys.shape[0] or not len(ids):
            return out
        if np.any(keys[1:] == keys[:-1]):
            table = dict(zip(self, range(1, len(self) + 1)))
            return np.fromiter((table.get(i, 0) for i in ids), dtype=np.uint64, count=len(ids))
        at = np.minimum(np.searchsorted(keys, ids.keys), keys.shape[0] - 1)
        found = np.flatnonzero(keys[at] == ids.keys)
        mine = order[at[found]]
        same = _equal_ids(self, mine, ids, found)
        out[found[same]] = (mine[same] + 1).astype(np.uint64)
        return out

    def first_words(self, width: int) -> np.ndarray:
        """(ids, width) big-endian words: each id's first `width` words, zero padded."""
        out = np.zeros((len(self), width), dtype=np.uint64)
        every = np.arange(len(self), dtype=np.int64)
        for j in range(width):
            part = every[self.lengths > 8 * j]
            out[part, j] = self.word(part, j)
        return out


def long_ids_of(kept: LongIdBytes, width: int, into: Optional[np.ndarray] = None,
                at: Optional[np.ndarray] = None) -> Tuple[LongIds, np.ndarray]:
    """(the distinct ids in byte order, each kept id's row in the long-id layout: its first `width` words and its
    code, ColumnarRun.long_ids). Given `into` (the docno words), the rows are written into its rows `at` a column at
    a time instead (a matrix of every long line's words as wide as the docno, gathered twice, cost URL-like ids'
    peak 120 MB)."""
    entries = kept.entries()                    # every line's entry in kept.lines from here
    distinct, rank = byte_ranks(entries)
    lines = np.concatenate(kept.lines) if kept.lines else np.zeros(0, dtype=np.int64)
    if into is None:
        into = np.zeros((lines.shape[0], width + 1), dtype=np.uint64)
        at = np.arange(lines.shape[0], dtype=np.int64)
    every = np.arange(len(entries), dtype=np.int64)
    for j in range(width):
        part = every[entries.lengths > 8 * j]
        column = np.zeros(len(entries), dtype=np.uint64)
        column[part] = entries.word(part, j)
        into[at, j] = column[lines]
    del column
    into[at, width] = (rank[lines] + 1).astype(np.uint64)
    return LongIds(entries.words, entries.starts[distinct], entries.lengths[distinct], entries.keys[distinct]), into


def with_long_ids(docno: np.ndarray, rows: np.ndarray, long_rows: np.ndarray) -> np.ndarray:
    """The docno words with one more column (see ColumnarRun.long_ids), the long ids' rows (long_ids_of) at
    `rows`."""
    out = widen(docno, docno.shape[1] + 1)
    out[rows] = long_rows
    return out


ABSENT_CODE = 1 << 62       # and up: long ids the run does not have (codes of one id each, matching no run row)


def long_id_rows(ids, width: int, long_ids: Optional[LongIds]) -> np.ndarray:
    """Rows in the long-id layout (ColumnarRun.long_ids) for long ids given as bytes (a list, e.g. a qrels file's
    read by the exact reader, or a LongIds): the first `width` words and the code of the equal run id (an id no
    run line has gets a code of its own above every run code, so it matches nothing). A code's big-endian bytes
    hold a NUL, which no id word holds."""
    if not isinstance(ids, LongIds):
        blob = padded_buffer(b"".join(ids))
        lengths = np.array([len(i) for i in ids], dtype=np.int64)
        starts = np.zeros(lengths.shape[0], dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        words, lengths, keys = ragged_words(blob, starts, starts + lengths)
        ids = LongIds(words, word_starts(lengths), lengths, keys)
    count = len(ids)
    codes = long_ids.codes_of(ids) if long_ids is not None and len(long_ids) else np.zeros(count, dtype=np.uint64)
    absent = codes == 0
    codes[absent] = np.uint64(ABSENT_CODE) + np.arange(int(np.count_nonzero(absent)), dtype=np.uint64)
    out = np.zeros((count, width + 1), dtype=np.uint64)
    out[:, :width] = ids.first_words(width)
    out[:, width] = codes
    return out
