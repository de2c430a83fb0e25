"""Columnar reading of big TREC / NACSIS run and qrels files: numpy arrays instead of one Python object per line.

Why: a 5M-line run costs minutes as Python strings and dicts, and several GB. Here the file is read in large
byte chunks and each chunk is cut into fields with numpy (token boundaries from a whitespace table), so the
cost per line is a few vector operations. A document id becomes fixed-width big-endian uint64 words: comparing
the words compares the bytes, so trec_eval's tie-break (docno in byte order) is a lexsort of the words, and
joining with the qrels is an exact comparison of words.

The fast path never words a diagnostic. `read_columns` returns None for a file with anything the exact reader
would report (a bad field, a duplicate, a blank NACSIS line, a non-ASCII byte, ...) or that it does not handle
(comments, CR line ends in NACSIS files); the caller then runs the exact line-by-line reader, which produces the
messages with their line numbers. So both paths accept the same files and report the same diagnostics.

This module cuts the bytes into fields and checks them (chunk by chunk, in two threads for big files); the id
words are columnar_words', the numbers columnar_numbers', the result a columnar_run.ColumnarRun.

One room though long, since every part serves one job, reading one file into checked columns: `_Reader`
cuts and checks a chunk, `_WordCodes` is its topic table, `_Store` the columns it fills, `grouping_order` and
`has_duplicates` the checks it ends with, `read_columns` and its helpers the split of a big file between two
threads. What other readers share has its own rooms already (columnar_words, columnar_numbers, columnar_run,
columnar_qrels); the reader apart from its checks or its threads would not read alone.
"""
import io
import mmap
import os
from typing import BinaryIO, Dict, Iterator, List, Optional, Tuple

import numpy as np

from .columnar_numbers import are_integers, letter_table, map_is_letters, parse_decimals, parse_grades, parse_integers
from .columnar_run import ColumnarRun
from .columnar_words import LongIdBytes, long_ids_of, pack_fields, padded_buffer, row_keys, rows_equal
from .qrels import MAX_GRADE
from ..numeric import is_int, numeric_sort_key

TREC = "trec"        # whitespace-separated, >= 6 fields, blank lines skipped (trec_format.parse_trec_run)
NACSIS = "nacsis"    # exactly 6 TAB-separated fields (tasks/ntcir1_adhoc.py), no warning-worthy line
QRELS = "qrels"      # TREC qrels `topic iter docno grade`, >= 4 fields (qrels.parse_qrels_text); score = grade
LAYOUTS = (TREC, NACSIS, QRELS)

CHUNK_BYTES = 1024 * 1024   # a chunk's temporaries are about ten times its size: 1 MiB keeps them under the columns
MAX_FIELD_BYTES = 256          # longer ids go to the exact reader (except in trec_eval's reader: LONG_ID_BYTES)
LONG_ID_BYTES = 128            # trec_eval's reader: a longer document id takes the long-id layout (ColumnarRun)

# Python's str.split() separators among ASCII bytes; bytes >= 0x80 never reach the fast path.
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
# C isspace (trec_eval's separators): 0x1C-0x1F are id bytes to trec_eval (`c_space`).
_C_SPACE = np.zeros(256, dtype=bool)
_C_SPACE[[9, 10, 11, 12, 13, 32]] = True
_NACSIS_FORBIDDEN = _WHITESPACE.copy()          # inside a NACSIS file only TAB and LF may separate
_NACSIS_FORBIDDEN[[9, 10]] = False
# A NACSIS file without any TAB: the task's parser splits its lines on whitespace, with one warning; the fast
# reader takes it when spaces alone separate (any other whitespace, which the exact reader's line splitting
# may treat differently, sends the file to the exact reader).
_NACSIS_SPACES_FORBIDDEN = _NACSIS_FORBIDDEN.copy()
_NACSIS_SPACES_FORBIDDEN[[9, 32]] = [True, False]


_numeric_topic_key = numeric_sort_key


def _nacsis_topic_order(topics: List[str]) -> bool:
    """Are the Topic-IDs zero-padded and sorted (numerically, as the task's parser compares them)?"""
    previous = None
    for name in topics:
        if is_int(name) and len(name) < 4:
            return False
        key = _numeric_topic_key(name)
        if previous is not None and key < previous:
            return False
        previous = key
    return True


class _Reader:
    """State carried from chunk to chunk."""

    def __init__(self, layout: str, comments: bool, capacity: int = 0, grade_map: Optional[Dict[str, int]] = None,
                 c_space: bool = False):
        self.layout = layout
        self.c_space = c_space
        self.whitespace = _C_SPACE if c_space else _WHITESPACE
        # trec_eval's bytes (`c_space`): ids may hold any byte but NUL, are decoded as Latin-1 (one character a
        # byte, as ranking.trec_eval_files) and may be of any length; otherwise ASCII ids of at most
        # MAX_FIELD_BYTES, as the tasks' exact readers decode them.
        self.encoding = "latin-1" if c_space else "ascii"
        self.max_field = None if c_space else MAX_FIELD_BYTES
        self.nacsis_spaces: Optional[bool] = None     # NACSIS: does the file separate fields with spaces?
        self.long_rows: List[np.ndarray] = []       # rows (in store order) whose document id is a long one
        self.long_ids = LongIdBytes(3 * capacity)   # and those ids' bytes (room: a word and 8 bytes a line)
        self.grade_letters = letter_table(grade_map)
        self.fields = 4 if layout == QRELS else 6
        self.comments = comments
        self.codes: Dict[str, int] = {}
        self.word_codes = _WordCodes()     # the codes of topics of one word met in _shuffled_topics, by word
        self.topics: List[str] = []
        self.first_line: List[int] = []
        self.grouped = True
        self.last_topic = -1
        self.lines_before = 0
        self.store = _Store(capacity, np.int64 if layout == QRELS else np.float64)
        self.run_id = ""
        self.dummy: Optional[bytes] = None
        self.last_rank_score = None   # (topic code, rank, score) of the previous NACSIS line
        self.first_rank_score = None  # the same of the first NACSIS line (checked when two parts are joined)
        self.seen_newline = False
        self.topics_checked = 0         # NACSIS topics known to be padded and in order
        # Where the reader declined the file: (first line, last line) of the chunk, or a reason found after
        # reading (for the message about files the exact reader cannot read, see `_describe`).
        self.declined: Tuple[int, int, str] = (0, 0, "")

    def chunk(self, data: bytes, final: bool) -> bool:
        """Read the complete lines of one chunk; False = this file needs the exact reader."""
        first = self.lines_before + 1
        if self._chunk(data):
            return True
        self.declined = (first, first + data.count(b"\n") - (1 if data.endswith(b"\n") else 0), "")
        return False

    def _chunk(self, data: bytes) -> bool:
        if self.lines_before == 0 and data.startswith(b"\xef\xbb\xbf"):
            return False                # a byte order mark: the exact readers say something about it
        if self.layout == NACSIS:
            spaces = data.find(b"\t") < 0
            if self.nacsis_spaces is None:
                self.nacsis_spaces = spaces
            elif spaces != self.nacsis_spaces:
                return False            # TAB lines and space lines: the exact reader words the mix
        buf = padded_buffer(data)
        if buf.shape[0] == 0:
            return True
        field = self._fixed_fields(buf)
        if field is not None:
            lines = kept_count = field[0][0].shape[0]
            line_numbers = self.lines_before + np.arange(1, lines + 1)
        else:
            found = self._general_fields(buf)
            if found is None:
                return False
            field, line_numbers, lines = found
            kept_count = line_numbers.shape[0]
        self.lines_before += lines
        if kept_count == 0:
            return True
        return self._columns(buf, field, line_numbers)

    def _fixed_fields(self, buf):
        """The common layout in a few vector operations: every line is exactly six fields separated by single
        TABs or spaces, LF ended (in trec_eval's reading, `c_space`, also every line CR LF ended: its CR is C
        whitespace, so trec_eval reads the same fields). None when this chunk is anything else (the general
        tokeniser decides: mixed line ends, a CR elsewhere, ...)."""
        if buf[-1] != 10:
            return None
        fields = self.fields
        crlf = self.c_space and buf.shape[0] > 1 and buf[-2] == 13
        per_line = fields + 1 if crlf else fields      # the CR is one more cut a line
        # Also bytes >= 0x80 (negative as int8) unless ids may hold them: then the kinds below fail.
        cuts = np.flatnonzero(buf < 33) if self.encoding == "latin-1" else np.flatnonzero(buf.view(np.int8) < 33)
        if cuts.shape[0] % per_line or buf[0] < 33:
            return None
        kinds = buf[cuts].reshape(-1, per_line)
        separator = kinds[:, :fields - 1]
        if np.any(kinds[:, per_line - 1] != 10) or (crlf and np.any(kinds[:, fields - 1] != 13)):
            return None
        if self.layout == NACSIS:
            if np.any(separator != (32 if self.nacsis_spaces else 9)):
                return None
        elif np.any((separator != 9) & (separator != 32)):
            return None
        gaps = np.diff(cuts)
        if crlf:
            if np.any(gaps[fields - 1::per_line] != 1):
                return None           # CR not right before the LF
            gaps[fields - 1::per_line] = 2
        if np.any(gaps < 2):
            return None               # an empty field or a blank line
        del gaps
        cuts = cuts.reshape(-1, per_line)
        line_starts = np.empty(cuts.shape[0], dtype=cuts.dtype)
        line_starts[0] = 0
        line_starts[1:] = cuts[:-1, per_line - 1] + 1
        if self.comments and np.any(buf[line_starts] == 35):
            return None
        starts = [line_starts] + [cuts[:, i] + 1 for i in range(fields - 1)]
        return [(starts[i], cuts[:, i]) for i in range(fields)]

    def _general_fields(self, buf):
        """Any whitespace between fields, blank lines, extra fields: (fields, line numbers, lines) or None."""
        if (self.encoding == "ascii" and int(buf.max()) >= 0x80) or np.count_nonzero(buf == 0):
            return None
        newline = np.flatnonzero(buf == 10)
        line_ends = newline if newline.shape[0] and newline[-1] == buf.shape[0] - 1 else \
            np.append(newline, buf.shape[0])
        lines = line_ends.shape[0]
        if self.layout == NACSIS and np.count_nonzero(
                (_NACSIS_SPACES_FORBIDDEN if self.nacsis_spaces else _NACSIS_FORBIDDEN)[buf]):
            return None
        token = ~self.whitespace[buf]
        before = np.empty_like(token)
        before[0] = False
        before[1:] = token[:-1]
        after = np.empty_like(token)
        after[-1] = False
        after[:-1] = token[1:]
        starts = np.flatnonzero(token & ~before)
        ends = np.flatnonzero(token & ~after) + 1
        del token, before, after
        line_of = np.searchsorted(line_ends, starts)
        per_line = np.bincount(line_of, minlength=lines)
        if self.layout == NACSIS:
            tabs = np.bincount(np.searchsorted(line_ends, np.flatnonzero(buf == 9)), minlength=lines)
            if np.any(per_line != 6) or (not self.nacsis_spaces and np.any(tabs != 5)):
                return None      # blank lines, missing or empty fields: the exact reader words them
            kept = np.arange(lines)
        else:
            if np.any((per_line > 0) & (per_line < self.fields)):
                return None
            if self.layout == QRELS and self.encoding == "latin-1" and np.any(per_line != self.fields):
                return None      # trec_eval's qrels (`c_space`): exactly 4 fields, no blank line
            kept = np.flatnonzero(per_line)
        first = (np.cumsum(per_line) - per_line)[kept]
        if self.comments and np.any(buf[starts[first]] == 35):
            return None
        return [(starts[first + i], ends[first + i]) for i in range(self.fields)], self.lines_before + kept + 1, lines

    def _columns(self, buf, field, line_numbers) -> bool:
        if self.max_field is not None and any(int((e - s).max()) > self.max_field for s, e in field):
            return False
        if self.layout == QRELS:
            grade = parse_grades(buf, *field[3], self.grade_letters)
            if grade is None or np.any(np.abs(grade) > MAX_GRADE):
                return False            # the exact reader refuses grades beyond qrels.MAX_GRADE
            self.store.add(self._topics(buf, field[0], line_numbers), self._document_words(buf, *field[2]), grade)
            return True
        score = parse_decimals(buf, *field[4])
        if score is None:
            return False
        topic = self._topics(buf, field[0], line_numbers)
        if self.layout == NACSIS and not self._nacsis_checks(buf, field, score, topic):
            return False
        self.store.add(topic, self._document_words(buf, *field[2]), score)
        last = int(line_numbers.shape[0]) - 1
        self.run_id = buf[field[5][0][last]:field[5][1][last]].tobytes().decode(self.encoding)
        return True

    def _document_words(self, buf, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The document ids as words. In trec_eval's reader an id over LONG_ID_BYTES is kept as bytes
        (self.long_ids) instead: finish() ranks them and writes their rows (ColumnarRun.long_ids)."""
        if self.max_field is None:
            long = np.flatnonzero(ends - starts > LONG_ID_BYTES)
            if long.shape[0]:
                self.long_rows.append(long + self.store.size)
                self.long_ids.add(buf, starts[long], ends[long])
                self.store.keep_code_column()
                ends = ends.copy()
                ends[long] = starts[long]          # finish() writes the row
        return pack_fields(buf, starts, ends)

    def _topics(self, buf, field, line_numbers) -> np.ndarray:
        """The topic code of each line; new topics get the next code (order of first appearance)."""
        words = pack_fields(buf, *field)
        change = np.ones(words.shape[0], dtype=bool)
        change[1:] = np.any(words[1:] != words[:-1], axis=1)
        segment_starts = np.flatnonzero(change)
        if segment_starts.shape[0] > 256 and words.shape[1] == 1:
            segment_codes = self._shuffled_topics(buf, field, line_numbers, words[segment_starts, 0], segment_starts)
            lengths = np.diff(np.append(segment_starts, words.shape[0]))
            return np.repeat(segment_codes, lengths)
        segment_codes = np.empty(segment_starts.shape[0], dtype=np.int32)
        for i, row in enumerate(segment_starts.tolist()):
            known = len(self.topics)
            code = self._code_of(buf, field, line_numbers, row)
            if code < known and code != self.last_topic:     # a topic of an earlier segment comes back
                self.grouped = False
            self.last_topic = code
            segment_codes[i] = code
        lengths = np.diff(np.append(segment_starts, words.shape[0]))
        return np.repeat(segment_codes, lengths)

    def _code_of(self, buf, field, line_numbers, row: int) -> int:
        """The code of the topic on line `row`, decoded from the bytes; a new topic gets the next code and its first
        line is noted (one place for _topics and _shuffled_topics)."""
        topic = buf[field[0][row]:field[1][row]].tobytes().decode(self.encoding)
        code = self.codes.get(topic)
        if code is None:
            code = self.codes[topic] = len(self.topics)
            self.topics.append(topic)
            self.first_line.append(int(line_numbers[row]))
        return code

    def _shuffled_topics(self, buf, field, line_numbers, words: np.ndarray, segment_starts: np.ndarray) -> np.ndarray:
        """_topics' codes when the lines change topic often (lines in random order, many small topics): each
        topic is looked up by its word in one search (`word_codes`) and only a topic not met before is decoded
        (in order of first appearance), instead of once a change or once a chunk (143,000 decodings and a sort
        of each chunk's topics for a shuffled 1M-line run of 5,000 topics)."""
        known = len(self.topics)
        codes = self.word_codes.get(words)
        missing = np.flatnonzero(codes < 0)
        if missing.shape[0]:
            distinct, first = np.unique(words[missing], return_index=True)
            new_codes = np.empty(distinct.shape[0], dtype=np.int32)
            for j in np.argsort(first, kind="stable").tolist():
                new_codes[j] = self._code_of(buf, field, line_numbers, int(segment_starts[missing[first[j]]]))
            self.word_codes.add(distinct, new_codes)
            codes[missing] = self.word_codes.get(words[missing])
        # grouped (no topic comes back) unless a topic has two segments here, or one of an earlier chunk comes
        # back other than by continuing the last line's topic
        if self.grouped and (int(np.bincount(codes).max()) > 1 or np.any(codes[1:] < known)
                             or (codes[0] < known and codes[0] != self.last_topic)):
            self.grouped = False
        self.last_topic = int(codes[-1])
        return codes

    def _nacsis_checks(self, buf, field, score, topic) -> bool:
        """What the NACSIS reader would warn about, as a yes/no: any of it sends the file to the exact reader."""
        if not self.grouped or not self._topics_in_order():
            return False            # topics out of order, not zero-padded or not sorted
        if not are_integers(buf, *field[3]):
            return False            # Rank not an integer
        for which in (1, 5):        # Dummy constant (a warning otherwise), one Run-ID (an error otherwise)
            words = pack_fields(buf, *field[which])
            if np.any(words != words[0]):
                return False
            text = buf[field[which][0][0]:field[which][1][0]].tobytes()
            if which == 1:
                if self.dummy is not None and text != self.dummy:
                    return False
                self.dummy = text
            elif self.run_id and text.decode("ascii") != self.run_id:
                return False
        # Rank and Similarity disagree: a line whose Rank and Similarity both grow over the previous line of its
        # topic. Similarity rarely grows in a run written by score, so Ranks are parsed for those lines only.
        rank_start, rank_end = field[3]
        last = score.shape[0] - 1
        rising = np.zeros(score.shape[0], dtype=bool)
        rising[1:] = (topic[1:] == topic[:-1]) & (score[1:] > score[:-1])
        before = self.last_rank_score
        if before is not None and before[0] == topic[0] and score[0] > before[2]:
            rising[0] = True
        lines = np.flatnonzero(rising)
        if lines.shape[0]:
            rank = parse_integers(buf, rank_start[lines], rank_end[lines])
            previous = np.flatnonzero(rising[1:])
            previous_rank = parse_integers(buf, rank_start[previous], rank_end[previous])
            if rising[0]:
                previous_rank = np.concatenate([[before[1]], previous_rank])
            if np.any(rank > previous_rank):
                return False        # Rank and Similarity disagree
        last_rank = parse_integers(buf, rank_start[last:], rank_end[last:])
        self.last_rank_score = (int(topic[last]), int(last_rank[0]), float(score[last]))
        if self.first_rank_score is None:
            first_rank = parse_integers(buf, rank_start[:1], rank_end[:1])
            self.first_rank_score = (int(topic[0]), int(first_rank[0]), float(score[0]))
        return True

    def _topics_in_order(self) -> bool:
        """_nacsis_topic_order for the topics met since the last check (and the one before them)."""
        fine = _nacsis_topic_order(self.topics[max(self.topics_checked - 1, 0):])
        self.topics_checked = len(self.topics)
        return fine

    def absorb(self, other: "_Reader") -> bool:
        """Append what another reader read from the rest of the file (`read_columns` reads a big file in two
        parts at once); False when the joined file needs the exact reader (a rule broken across the cut)."""
        if not other.topics:                # the rest held no record (blank lines)
            self.lines_before += other.lines_before
            return True
        at_cut = (self.lines_before, self.lines_before + 1, "")
        if self.layout == NACSIS and self.topics:
            if other.dummy != self.dummy or other.run_id != self.run_id or other.nacsis_spaces != self.nacsis_spaces:
                self.declined = at_cut
                return False                # Dummy not constant, two Run-IDs
            code, rank, score = other.first_rank_score
            last_code, last_rank, last_score = self.last_rank_score
            if self.topics[last_code] == other.topics[code] and rank > last_rank and score > last_score:
                self.declined = at_cut
                return False                # Rank and Similarity disagree across the cut
        mapping = np.empty(len(other.topics), dtype=np.int32)
        for code, topic in enumerate(other.topics):
            mine = self.codes.get(topic)
            if mine is None:
                mine = self.codes[topic] = len(self.topics)
                self.topics.append(topic)
                self.first_line.append(other.first_line[code] + self.lines_before)
            elif code != 0 or mine != self.last_topic:
                self.grouped = False        # a topic of the first part comes back in the second
            mapping[code] = mine
        self.grouped = self.grouped and other.grouped
        if self.layout == NACSIS and not (self.grouped and self._topics_in_order()):
            self.declined = (0, 0, "a Topic-ID out of order after line %d" % self.lines_before)
            return False
        topic, docno, score = other.store.columns()
        self.long_rows.extend(rows + self.store.size for rows in other.long_rows)
        self.long_ids.extend(other.long_ids)
        if other.store.extra:
            self.store.keep_code_column()
        docno = docno[:, :other.store.short_width]           # without its free code column
        self.store.add(mapping[topic], docno, score)
        self.lines_before += other.lines_before
        self.last_topic = int(mapping[other.last_topic])
        self.run_id = other.run_id or self.run_id
        self.dummy = self.dummy if self.dummy is not None else other.dummy
        if other.last_rank_score is not None:
            self.last_rank_score = (int(mapping[other.last_rank_score[0]]),) + other.last_rank_score[1:]
        return True

    def finish(self) -> Optional[ColumnarRun]:
        if not self.topics:
            self.declined = (0, 0, "no result line")
            return None             # the exact reader says so
        topic, docno, score = self.store.columns()
        counts = np.bincount(topic, minlength=len(self.topics))
        starts = np.zeros(len(self.topics) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        order = None if self.grouped else grouping_order(topic, len(self.topics))
        long_ids = None
        if self.long_rows:
            # the store's last column is free (_Store.extra)
            long_ids, _ = long_ids_of(self.long_ids, docno.shape[1] - 1, docno, np.concatenate(self.long_rows))
        run = ColumnarRun(self.topics, topic, docno, score, self.first_line, order, starts, self.run_id,
                          (self.dummy or b"").decode("ascii"), long_ids, bool(self.nacsis_spaces))
        if has_duplicates(run):
            self.declined = (0, 0, "a document listed twice for one topic")
            return None
        return run


class _WordCodes:
    """Topic codes by the topic's word (a topic of at most 8 bytes is one word, and equal words are equal
    bytes), so a chunk's topics are looked up in a few vector operations: a hashed slot a word (the word in the
    slot confirms it; the word 0, never a topic's, marks an empty slot), and a search of the sorted table for
    the words whose slot holds another word."""

    _HASH = np.uint64(0x9E3779B97F4A7C15)

    def __init__(self):
        self.words = np.zeros(0, dtype=np.uint64)
        self.codes = np.zeros(0, dtype=np.int32)
        self.bits = np.uint64(1)
        self.slot_words = np.zeros(2, dtype=np.uint64)
        self.slot_codes = np.zeros(2, dtype=np.int32)

    def get(self, words: np.ndarray) -> np.ndarray:
        """The code of each word, -1 for a word not in the table."""
        if not self.words.shape[0]:
            return np.full(words.shape[0], -1, dtype=np.int32)
        slot = self._slot(words)
        codes = self.slot_codes[slot]
        other = np.flatnonzero(self.slot_words[slot] != words)
        if other.shape[0]:
            missed = words[other]
            at = np.minimum(np.searchsorted(self.words, missed), self.words.shape[0] - 1)
            codes[other] = np.where(self.words[at] == missed, self.codes[at], -1)
        return codes

    def add(self, words: np.ndarray, codes: np.ndarray) -> None:
        if words.shape[0]:
            all_words = np.concatenate([self.words, words])
            order = np.argsort(all_words, kind="stable")
            self.words, self.codes = all_words[order], np.concatenate([self.codes, codes])[order]
            self.bits = np.uint64(max(int(self.words.shape[0] * 4).bit_length(), 1))
            self.slot_words = np.zeros(1 << int(self.bits), dtype=np.uint64)
            self.slot_codes = np.zeros(1 << int(self.bits), dtype=np.int32)
            slot = self._slot(self.words)
            self.slot_words[slot] = self.words      # of two words in one slot, one stays: the other is searched
            self.slot_codes[slot] = self.codes

    def _slot(self, words: np.ndarray) -> np.ndarray:
        return ((words * self._HASH) >> (np.uint64(64) - self.bits)).astype(np.intp)


class _Store:
    """The output columns, filled chunk by chunk. When the number of lines is known beforehand (a file counted
    first) they are allocated once at that size, so the peak is the columns themselves plus one chunk's
    temporaries; otherwise they grow by doubling."""

    def __init__(self, capacity: int = 0, value_type=np.float64):
        capacity = max(capacity, 1024)
        self.size = 0
        self.topic = _zeroed((capacity,), np.int32)
        self.score = _zeroed((capacity,), value_type)
        self.docno = _zeroed((capacity, 1), np.uint64)
        self.short_width = 1    # the widest docno words added
        self.extra = 0          # 1: one more column, free, after them (the long ids' codes, written by finish)

    def add(self, topic: np.ndarray, docno: np.ndarray, score: np.ndarray) -> None:
        n, width = topic.shape[0], docno.shape[1]
        self.short_width = max(self.short_width, width)
        if self.size + n > self.topic.shape[0] or self.short_width + self.extra > self.docno.shape[1]:
            self._grow(max(self.size + n, 2 * self.topic.shape[0]), self.short_width + self.extra)
        end = self.size + n
        self.topic[self.size:end] = topic
        self.score[self.size:end] = score
        self.docno[self.size:end, :width] = docno
        self.size = end

    def _grow(self, capacity: int, width: int) -> None:
        if capacity > self.topic.shape[0]:
            capacity = max(capacity, self.topic.shape[0])
            for name in ("topic", "score"):
                old = getattr(self, name)
                new = _zeroed((capacity,), old.dtype)
                new[:self.size] = old[:self.size]
                setattr(self, name, new)
        docno = _zeroed((max(capacity, self.docno.shape[0]), width), np.uint64)
        docno[:self.size, :self.docno.shape[1]] = self.docno[:self.size]
        self.docno = docno

    def keep_code_column(self) -> None:
        """From now on the last docno column is free for the long ids' codes (whatever the widths before)."""
        self.extra = 1
        if self.short_width + 1 > self.docno.shape[1]:
            self._grow(self.topic.shape[0], self.short_width + 1)

    def columns(self):
        return self.topic[:self.size], self.docno[:self.size], self.score[:self.size]


def _zeroed(shape: Tuple[int, ...], dtype) -> np.ndarray:
    """A zeroed array whose pages cost memory only once written: a big one is an anonymous map of its own, as
    malloc would hand back freed pages, already resident, and zero all of them (`_capacity` is an upper bound:
    a 1M-line run is given room for 2.4M lines, 7 MiB more at peak)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    if size < 1024 * 1024:
        return np.zeros(shape, dtype=dtype)
    return np.frombuffer(mmap.mmap(-1, size), dtype=dtype).reshape(shape)


def grouping_order(topic: np.ndarray, topics: int) -> np.ndarray:
    """The line indices topic by topic, file order within a topic (ColumnarRun.grouped_order), as 32-bit indices
    when they fit: a counting sort block by block (each block's stable sort, a radix sort of 16-bit codes when
    they fit, places its lines after those of the blocks before), so no temporary is as long as the run (one
    sort of every line needed 14 MiB more at 1M lines)."""
    n = topic.shape[0]
    order = np.empty(n, dtype=np.int32 if n < 2 ** 31 else np.int64)
    next_slot = np.zeros(topics, dtype=np.int64)      # where the next line of each topic goes
    np.cumsum(np.bincount(topic, minlength=topics)[:-1], out=next_slot[1:])
    block = max(1 << 16, topics)
    for start in range(0, n, block):
        part = topic[start:start + block]
        if topics <= 2 ** 16:
            part = part.astype(np.uint16)
        by_topic = np.argsort(part, kind="stable")
        grouped = part[by_topic].astype(np.intp)
        in_block = np.bincount(grouped, minlength=topics)
        first = np.cumsum(in_block) - in_block
        order[next_slot[grouped] + np.arange(grouped.shape[0]) - first[grouped]] = by_topic + start
        next_slot += in_block
    return order


def has_duplicates(run: ColumnarRun) -> bool:
    """Does a topic list a document twice? One key a line (`row_keys`: the word itself, or the words mixed), and
    the topics with the same number of lines sorted together, as the rows of one matrix; a topic whose mixed
    keys meet is then confirmed on its words."""
    keys = row_keys(run.docno)
    if run.grouped_order is not None:
        keys = keys[run.grouped_order]        # topic after topic, as run.starts counts them
    counts = np.diff(run.starts)
    # Batches of at most 256 topics of one size; on a big run, two threads share them (numpy sorts without the GIL).
    batches = []
    for count in np.unique(counts[counts > 1]).tolist():
        codes = np.flatnonzero(counts == count)
        batches += [(codes[b:b + 256], count) for b in range(0, codes.shape[0], 256)]

    def repeated(part) -> List[np.ndarray]:
        """The topics of these batches whose keys repeat."""
        found = []
        for chosen, count in part:
            rows = np.sort(keys[run.starts[chosen][:, None] + np.arange(count)], axis=1)
            same = np.any(rows[:, 1:] == rows[:, :-1], axis=1)
            if np.any(same):
                found.append(chosen[same])
        return found

    if len(run) * 8 >= PARALLEL_MIN_BYTES and len(batches) > 1 and _free_cpus() > 1:
        from concurrent.futures import ThreadPoolExecutor     # here: it imports logging, for big runs only

        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(repeated, batches[1::2])
            suspects = repeated(batches[0::2]) + later.result()
    else:
        suspects = repeated(batches)
    if not suspects:
        return False
    if run.docno.shape[1] == 1:
        return True                 # one word: the key is the id
    return any(_repeats_words(run.docno[run.topic_lines(code)]) for code in np.concatenate(suspects).tolist())


def _repeats_words(words: np.ndarray) -> bool:
    """Do two rows hold the same words? (a lexsort of the rows: exact, for the few topics whose keys meet)"""
    ranked = words[np.lexsort(words.T[::-1])]
    return bool(np.any(rows_equal(ranked[1:], ranked[:-1])))


def read_columns(handle: BinaryIO, layout: str = TREC, comments: bool = False,
                 chunk_bytes: int = CHUNK_BYTES, grade_map: Optional[Dict[str, int]] = None,
                 split_at: Optional[int] = None, why: Optional[List[str]] = None,
                 c_space: bool = False) -> Optional[ColumnarRun]:
    """Read a run from a binary file object; None = use the exact reader (see the module docstring).
    `grade_map` (QRELS only) lets the grade column hold one-letter grades, as qrels.parse_qrels_text's.

    A big regular file (PARALLEL_MIN_BYTES) on a machine with two free CPUs is read in two parts at once, cut
    after the first LF at or after its middle (`split_at`: at or after that byte, for tests); the second
    part's reader is then absorbed by the first's, so the columns are those of one reader.

    `why`, a list, receives where or why the file was declined ("lines 1001-140000", "no result line", ...): the
    exact reader words the problem, but it cannot read every file the columnar reader can (docs/limits.md)."""
    if layout not in LAYOUTS:
        raise ValueError("unknown run layout %r" % layout)
    if grade_map and not map_is_letters(grade_map):
        return None                 # a key like "10" would be read as the integer 10 here
    cut = _cut(handle, split_at)
    if cut is None:
        reader = _Reader(layout, comments, _capacity(handle, layout), grade_map, c_space)
        blocks = iter(lambda: handle.read(chunk_bytes), b"")
        return _finish(reader if _feed(reader, blocks) is not None else None, reader, why)
    fd, start, middle, end = cut
    first = _Reader(layout, comments, (end - start) // _SHORTEST_LINE[layout] + 1, grade_map, c_space)
    second = _Reader(layout, comments, (end - middle) // _SHORTEST_LINE[layout] + 1, grade_map, c_space)
    half = max(chunk_bytes // 2, 1)     # two chunks in flight: their temporaries as one chunk's
    from concurrent.futures import ThreadPoolExecutor     # here: it imports logging, for big files only

    with ThreadPoolExecutor(max_workers=1) as pool:
        later = pool.submit(_feed, second, _blocks(fd, middle, end, half))
        done = _feed(first, _blocks(fd, start, middle, half)) is not None
        done_later = later.result() is not None
    del later                               # it holds the second reader: its columns are copied, then freed
    handle.seek(end)
    if done and not done_later:             # its line numbers start after the first part's
        low, high, reason = second.declined
        first.declined = (low + first.lines_before, high + first.lines_before, reason) if low else second.declined
    joined = done and done_later and first.absorb(second)       # the first part ends with an LF
    second = None
    return _finish(first if joined else None, first, why)


def _finish(reader: Optional["_Reader"], declining: "_Reader", why: Optional[List[str]]) -> Optional[ColumnarRun]:
    """The reader's columns, or None with `why` told where (a file without any LF goes to the exact reader)."""
    run = None
    if reader is not None and not reader.seen_newline:
        declining.declined = (0, 0, "no line end (LF) in the file")
    elif reader is not None:
        run = reader.finish()
    if run is None and why is not None:
        why.append(_describe(declining.declined))
    return run


def _describe(declined: Tuple[int, int, str]) -> str:
    """'lines 1001-140000', 'line 7' or the reason."""
    first, last, reason = declined
    if reason or not first:
        return reason or "somewhere"
    return "line %d" % first if last <= first else "lines %d-%d" % (first, last)


def _feed(reader: "_Reader", blocks: Iterator[bytes]) -> Optional["_Reader"]:
    """Give a reader the complete lines of a stream of blocks (the last line may lack its LF); None when it
    declines the file. Sets reader.seen_newline (a file without any LF goes to the exact reader)."""
    rest = b""
    for block in blocks:
        data = rest + block if rest else block
        cut = data.rfind(b"\n")
        if cut < 0:
            rest = data
            continue
        reader.seen_newline = True
        rest = data[cut + 1:]
        if not reader.chunk(data[:cut + 1], False):
            return None
    if rest and not reader.chunk(rest, True):
        return None
    return reader


def _blocks(fd: int, start: int, end: int, chunk_bytes: int) -> Iterator[bytes]:
    """The bytes start..end of a file in blocks, read with pread (no shared file position between threads)."""
    while start < end:
        block = os.pread(fd, min(chunk_bytes, end - start), start)
        if not block:
            return
        start += len(block)
        yield block


PARALLEL_MIN_BYTES = 32 * 1024 * 1024       # smaller files are read in well under a second by one thread


def _cut(handle: BinaryIO, split_at: Optional[int]) -> Optional[Tuple[int, int, int, int]]:
    """(fd, start, middle, end) to read a regular file in two parts, or None: a small file, a single CPU, not a
    file, or no LF after the middle."""
    if not hasattr(os, "pread"):    # Windows: one reader
        return None
    try:
        fd = handle.fileno()
        start, end = handle.tell(), os.fstat(fd).st_size
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    if split_at is None:
        if end - start < PARALLEL_MIN_BYTES or _free_cpus() < 2:
            return None
        split_at = (end - start) // 2
    at = start + max(split_at, 0)
    while at < end:
        block = os.pread(fd, 65536, at)
        newline = block.find(b"\n")
        if newline >= 0:
            middle = at + newline + 1
            return (fd, start, middle, end) if middle < end else None
        at += len(block)
    return None


def _free_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


# The shortest line that holds a record: one byte a field, one separator between fields, LF.
_SHORTEST_LINE = {TREC: 12, NACSIS: 12, QRELS: 8}


def _capacity(handle: BinaryIO, layout: str) -> int:
    """An upper bound of the records of a regular file, from its size: the columns are allocated once at that
    size and only the pages written are ever resident, so the bound costs address space, not memory (and no
    second pass over the file). Other files are counted (`_count_lines`)."""
    try:
        size = os.fstat(handle.fileno()).st_size
        position = handle.tell()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return _count_lines(handle)
    return max(size - position, 0) // _SHORTEST_LINE[layout] + 1


def _count_lines(handle: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> int:
    """Lines of a seekable file (read once more, from the page cache), 0 when it cannot be rewound."""
    try:
        if not handle.seekable():
            return 0
        start = handle.tell()
        lines = 1
        while True:
            block = handle.read(chunk_bytes)
            if not block:
                break
            lines += block.count(b"\n")
        handle.seek(start)
        return lines
    except (OSError, ValueError):
        return 0


def read_columns_file(path: str, layout: str = TREC, comments: bool = False,
                      grade_map: Optional[Dict[str, int]] = None) -> Optional[ColumnarRun]:
    with open(path, "rb") as handle:
        return read_columns(handle, layout, comments, grade_map=grade_map)


def file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
