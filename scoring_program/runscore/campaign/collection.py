"""The pooled documents of a collection, read in one pass however big it is (`runscore pool --collection`).

Why streaming: the collections these campaigns ship are 0.3 to 20 GB (specs/collections.md); an assessment page
needs the few thousand documents of the pool. So the reader takes the pooled ids first, reads each file once, in
chunks or bounded lines with bounded records, and keeps only the records of those ids. It reads to the end: a
second record of a pooled id is a duplicate, told with both places (FILE:LINE) and on the document's card, never
silently the first. An id not found is listed, never fatal.

What it reads (specs/collections.md): TREC SGML (`<DOC><DOCNO>`), NTCIR-1/NACSIS records (`<REC><ACCN>`),
LivingKnowledge news and blogs (Temporalia, `<doc id=...>`), JSON lines or a JSON array of records (Pyserini,
BEIR, R2C2 passages; id and text fields found by name or given), TSV (`id<TAB>text`, or columns named by a header
line); each plain, gzip or bzip2, in folders (hidden files, `readme*` and `dtd` folders skipped, as Anserini does)
and tar archives. The format is told by the file's start (or given). Record markup is matched as bytes, which is
safe for UTF-8 and EUC-JP alike (both keep ASCII bytes for ASCII only).

Hostile text: a record starts only where a record can start (after the previous one's end tag), so a crawled page
holding `<DOC><DOCNO>X</DOCNO>` cannot become document X; ids and tags are found in linear time (every pattern
here and in documents.py is checked on hostile input in tests/test_campaign_collection.py).

Decoding: with `--encoding` that encoding; JSON as UTF-8 (RFC 8259); otherwise decided from the bytes
(_EncodingWatch): UTF-8 when the text from the first non-ASCII byte on is valid UTF-8 (a collection converted with
iconv, as the NTCIR Transfer organisers did), else the task's declared one (NTCIR-1: EUC-JP). Every file's encoding
is reported; characters that do not decode are shown as U+FFFD, counted and told with the first line.
"""
import bz2
import codecs
import gzip
import io
import os
import re
import tarfile
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ..errors import ConfigError
from .documents import (Document, decode_counted, is_utf8, json_document, keep_shown_only, livingknowledge_document,
                        nacsis_document, read_json, trec_document, tsv_document, whole_characters)

FORMATS = ("auto", "trec", "nacsis", "livingknowledge", "jsonl", "tsv")
MAX_LINE = 16 * 1024 * 1024         # longer lines are read in pieces of this size
MAX_RECORD = 4 * 1024 * 1024        # a record's bytes kept beyond this are dropped (the page shows 20,000 chars)
MAX_JSON_ARRAY = 256 * 1024 * 1024  # a file holding one JSON array is read whole, up to this size
SNIFF_BYTES = 65536
SNIFF_PIECE = 4096
CHUNK = 1024 * 1024
ID_FIELDS = ("id", "_id", "doc_id", "docid", "docno", "pid", "DOCNO")
SKIPPED_FOLDERS = ("cr", "dtd", "dtds")
MAX_NOTES = 20
MAX_KEPT_TOTAL = 256 * 1000 * 1000   # characters of whole texts kept for the pages' links, all documents together


@dataclass(frozen=True)
class CollectionOptions:
    """How to read a collection: format (FORMATS), encoding (None: declared, with the UTF-8 rule), the JSON or
    TSV id, title and text fields (None / (): found by name)."""

    format: str = "auto"
    encoding: Optional[str] = None
    declared_encoding: str = "utf-8"
    id_field: Optional[str] = None
    title_field: Optional[str] = None
    text_fields: Sequence[str] = ()


@dataclass
class FileRead:
    path: str
    format: str
    encoding: str
    records: int = 0
    found: int = 0


@dataclass
class Collection:
    """documents: id -> Document of every wanted id found (its first record); files: what was read; notes:
    FILE:LINE: warning: ... lines (at most MAX_NOTES, then a count); undecodable: characters shown as U+FFFD;
    duplicated: the wanted ids the collection holds more than one record of."""

    documents: Dict[str, Document] = field(default_factory=dict)
    files: List[FileRead] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    undecodable: int = 0
    more_notes: int = 0
    duplicated: List[str] = field(default_factory=list)
    kept_chars: int = 0
    over_budget: bool = False

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(text)
        else:
            self.more_notes += 1

    def told(self) -> List[str]:
        """The notes to print, with the count of those left out."""
        more = ["collection: %d more warning(s) like these, not shown" % self.more_notes] if self.more_notes else []
        return self.notes + more


def read_collection(paths: Sequence[str], wanted: Set[str], options: CollectionOptions) -> Collection:
    """The documents of `wanted` ids found in the files (or folders, or tar archives) `paths`, in one pass over
    all of them (a later record of an id already found is a duplicate, told with both places). ConfigError when a
    path does not exist or an option is wrong."""
    if options.format not in FORMATS:
        raise ConfigError("collection format %r is not one of %s" % (options.format, ", ".join(FORMATS)))
    for name in filter(None, (options.encoding, options.declared_encoding)):
        try:
            codecs.lookup(name)
        except LookupError:
            raise ConfigError("unknown encoding %r (Python's names: utf-8, euc_jp, shift_jis, latin-1, ...)" % name)
    files, skipped = _files(paths)
    found = Collection()
    for path in skipped:
        found.note("%s: warning: not a regular file (a pipe, a device, or a link to one), so not read" % path)
    if not wanted:
        return found
    for path in files:
        try:
            for display, stream in _streams(path):
                _read_stream(display, stream, wanted, options, found)
        except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
            found.note("%s: warning: the file cannot be read to its end (%s); the documents after that point "
                       "were not read" % (path, str(exc)[:200] or type(exc).__name__))
    for doc_id, document in found.documents.items():
        if document.duplicates:
            found.duplicated.append(doc_id)
    return found


# ------------------------------------------------------------------------------------ files ---
def _files(paths: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(the files to read, the entries of folders that are no regular files): a pipe in a folder would block the
    reader forever and a link to /dev/zero feed it without end, so only regular files (links to them too) are
    read."""
    out: List[str] = []
    skipped: List[str] = []
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d.lower() not in SKIPPED_FOLDERS)
                for name in sorted(n for n in names if not _skipped(n)):
                    full = os.path.join(folder, name)
                    (out if os.path.isfile(full) else skipped).append(full)
        elif os.path.isfile(path):
            out.append(path)
        else:
            raise ConfigError("collection %r does not exist (or is not a regular file)" % path)
    if not out:
        raise ConfigError("the collection %s holds no file" % ", ".join(paths))
    return out, skipped


def _skipped(name: str) -> bool:
    return name.startswith(".") or name.lower().startswith("readme")


def _streams(path: str) -> Iterator[Tuple[str, BinaryIO]]:
    """(name for messages, decompressed byte stream) of a file, or of each file of a tar archive."""
    with open(path, "rb") as raw:
        head = raw.read(4)
    if _is_tar(path, head):
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                base = os.path.basename(member.name)
                if not member.isfile() or _skipped(base):
                    continue
                inner = archive.extractfile(member)
                if inner is not None:
                    yield "%s/%s" % (path, member.name), _decompressed(inner, inner.read(4), True)
        return
    with open(path, "rb") as raw:
        yield path, _decompressed(raw, head, False)


def _is_tar(path: str, head: bytes) -> bool:
    lower = path.lower()
    if lower.endswith((".tar", ".tgz", ".tar.gz", ".tar.bz2", ".tbz2")):
        return True
    if head[:2] == b"\x1f\x8b" or head[:3] == b"BZh":
        return False
    try:
        return tarfile.is_tarfile(path)
    except OSError:
        return False


def _decompressed(stream: BinaryIO, head: bytes, consumed: bool) -> BinaryIO:
    """`stream` decompressed when it starts as gzip or bzip2 (`head`: its first bytes, already read when
    `consumed`)."""
    if consumed:
        stream = io.BufferedReader(_Prefixed(head, stream), CHUNK)
    else:
        stream.seek(0)
    if head[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=stream)
    if head[:3] == b"BZh":
        return bz2.BZ2File(stream)
    return stream


# ------------------------------------------------------------------------------------ one stream ---
class _Source:
    """A decompressed byte stream read either in chunks (the SGML formats) or as numbered lines of at most MAX_LINE
    bytes (a longer line comes in pieces under one number), its first SNIFF_BYTES kept for telling the format. A
    damaged compressed stream raises once what was read before the damage has been given.

    The encoding is decided from the bytes as they pass (`watch`): nothing is decoded before it, and until the
    first non-ASCII byte every encoding reads the same."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        pieces: List[bytes] = []
        self.error: Optional[BaseException] = None
        size = 0
        try:
            while size < SNIFF_BYTES:
                piece = stream.read(SNIFF_PIECE)       # small pieces: a damaged gzip loses at most one
                if not piece:
                    break
                pieces.append(piece)
                size += len(piece)
        except (OSError, EOFError, zlib.error) as exc:
            self.error = exc
        self.head = b"".join(pieces)
        self.watch: Optional["_EncodingWatch"] = None

    def _blocks(self) -> Iterator[bytes]:
        if self.head:
            yield self.head
        if self.error is not None:
            raise self.error
        while True:
            chunk = self.stream.read(CHUNK)
            if not chunk:
                return
            yield chunk

    def chunks(self) -> Iterator[bytes]:
        blocks = self._blocks()
        for block in blocks:
            if self.watch is not None and self.watch.encoding is None:
                block = self.watch.see(block, blocks)
            yield block

    def lines(self) -> Iterator[Tuple[int, bytes]]:
        reader = io.BufferedReader(_Chunked(self.chunks()), CHUNK)
        number = 1
        while True:
            line = reader.readline(MAX_LINE)
            if not line:
                return
            yield number, line
            if line.endswith(b"\n"):
                number += 1


class _Chunked(io.RawIOBase):
    """A raw stream of the byte strings an iterator gives (and of the error that stopped it)."""

    def __init__(self, chunks: Iterator[bytes]):
        self.chunks, self.pending = chunks, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            self.pending = next(self.chunks, b"")
            if not self.pending:
                return 0
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n


class _Prefixed(io.RawIOBase):
    """`head`, then the rest of `stream`."""

    def __init__(self, head: bytes, stream: BinaryIO):
        self.head, self.stream = head, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        data = self.stream.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


_NON_ASCII = re.compile(rb"[\x80-\xff]")
_NOT_LEADS = bytes(range(0xc0))     # deleting these from valid UTF-8 leaves one lead byte a non-ASCII character
WINDOW = 65536                      # bytes from the first non-ASCII one that decide the encoding


class _EncodingWatch:
    """Decides a file's encoding from its bytes as they are read: the declared one, unless the text from the first
    non-ASCII byte on (WINDOW bytes, the start of the file being ASCII in either) is valid UTF-8 (a collection
    converted with iconv, as the NTCIR Transfer organisers did). One pass, nothing read twice: a 20 GB file cannot
    be checked whole before its records are read, so a byte that is not UTF-8 after the window is shown as U+FFFD,
    counted and told with its line. `undecided`: no non-ASCII byte yet (every ASCII-compatible encoding reads
    the same)."""

    def __init__(self, declared: str):
        self.declared = declared
        self.encoding: Optional[str] = None
        self.lines_before = 0        # line ends before the block being looked at
        self.line = 0                # the line of the first non-ASCII byte
        self.bad_line = 0            # the line of the first byte that is not UTF-8 (a fallback's reason)
        self.bad_byte = 0
        self.utf8_characters = 0     # in the window: characters UTF-8 reads, and bytes it cannot
        self.not_utf8 = 0

    def see(self, block: bytes, more: Iterator[bytes]) -> bytes:
        """The block, made longer from `more` when the window must reach past its end; decides when it can."""
        if block.isascii():           # C speed; the regex below runs on one block only
            self.lines_before += block.count(b"\n")
            return block
        first = _NON_ASCII.search(block)
        while len(block) - first.start() < WINDOW:
            extra = next(more, b"")
            if not extra:
                break
            block += extra
        self.line = self.lines_before + block.count(b"\n", 0, first.start()) + 1
        window = block[first.start():first.start() + WINDOW]
        self.encoding = self.decide(window, first.start() + len(window) == len(block))
        if self.encoding != "utf-8":
            bad = _first_not_utf8(window)
            self.bad_line = self.line + window.count(b"\n", 0, bad)
            self.bad_byte = window[bad]
        return block

    def decide(self, window: bytes, at_end: bool) -> str:
        if is_utf8(self.declared):
            return "utf-8"
        try:
            window.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError as exc:
            if at_end and exc.start >= len(window) - 3 and exc.reason == "unexpected end of data" or \
                    not at_end and exc.start >= len(window) - 3:
                return "utf-8"       # the window ends inside a character
        text = window.decode("utf-8", errors="replace")
        self.not_utf8 = text.count("\ufffd")
        self.utf8_characters = sum(1 for c in text if c >= "\x80") - self.not_utf8
        return self.declared

    def told(self, display: str) -> Optional[str]:
        """A warning when the file was read in its declared encoding though most of its non-ASCII text is UTF-8
        (a UTF-8 file with a few stray bytes: its every accent and kana garbled), or None."""
        if self.encoding in (None, "utf-8") or self.utf8_characters <= self.not_utf8:
            return None
        return ("%s:%d: warning: the file is not valid UTF-8 (byte 0x%02x), so it is read as %s (the task's "
                "encoding), which garbles the %d UTF-8 character(s) of its first non-ASCII text (line %d on); if it "
                "is UTF-8 with a few bad bytes, give --encoding utf-8" % (display, self.bad_line, self.bad_byte,
                                                                        self.encoding, self.utf8_characters,
                                                                        self.line))


def _first_not_utf8(data: bytes) -> int:
    try:
        data.decode("utf-8")
        return 0
    except UnicodeDecodeError as exc:
        return exc.start


def sniff_format(head: bytes) -> Optional[str]:
    """The format a collection file's start shows, or None."""
    text = head.lstrip()
    if re.search(rb"<REC>", head, re.I) and re.search(rb"<ACCN", head, re.I):
        return "nacsis"
    if re.search(rb"<DOC>", head, re.I) and re.search(rb"<DOCNO>", head, re.I):
        return "trec"
    if re.search(rb"<doc\s[^<>]*\bid\s*=", head, re.I):     # [^<>]: each <doc scanned up to the next tag only
        return "livingknowledge"
    if text[:1] in (b"{", b"["):
        return "jsonl"
    first = text.split(b"\n", 1)[0]
    if b"\t" in first:
        return "tsv"
    return None


def _read_stream(display: str, stream: BinaryIO, wanted: Set[str], options: CollectionOptions,
                 found: Collection) -> None:
    source = _Source(stream)
    head = source.head
    if not head and source.error is not None:
        raise source.error
    fmt = options.format if options.format != "auto" else sniff_format(head)
    if fmt is None:
        found.note("%s: warning: not read: its start is none of the collection formats (TREC <DOC>, NACSIS <REC>, "
                   "LivingKnowledge <doc id=...>, JSON, TSV); give --collection-format if it is one" % display)
        return
    # JSON is UTF-8 whatever the collection it came from (RFC 8259 8.1); the other formats are decided by the watch
    fixed = options.encoding or ("utf-8" if fmt == "jsonl" else None)
    if fixed is None:
        source.watch = _EncodingWatch(options.declared_encoding)
    read = FileRead(display, fmt, fixed or options.declared_encoding)
    found.files.append(read)
    decoder = _Decoder(fixed, source.watch, options.declared_encoding)
    try:
        if fmt in SGML:
            _read_sgml(display, source.chunks(), SGML[fmt], wanted, decoder, read, found)
        elif fmt == "jsonl":
            _read_json(display, source.lines(), head, wanted, options, decoder, read, found)
        else:
            _read_tsv(display, source.lines(), wanted, options, decoder, read, found)
    finally:                # a damaged file too: its encoding and replacements as far as it was read
        _told_encoding(display, source, decoder, options, read, found)


def _told_encoding(display: str, source: _Source, decoder: "_Decoder", options: CollectionOptions, read: FileRead,
                   found: Collection) -> None:
    if source.watch is not None:
        read.encoding = source.watch.encoding or "ascii"
        told = source.watch.told(display)
        if told:
            found.note(told)
    found.undecodable += decoder.replaced
    if decoder.replaced:
        advice = ""
        if not options.encoding:
            advice = "; give --encoding if the file is in another encoding"
            if read.encoding == "utf-8" and source.watch is not None and not is_utf8(options.declared_encoding):
                advice = ("; it was read as UTF-8 because its first non-ASCII text (line %d) is: if it is %s, give "
                          "--encoding %s" % (source.watch.line, options.declared_encoding, options.declared_encoding))
        where = "%s:%d" % (display, decoder.first_line) if decoder.first_line else display
        found.note("%s: warning: %d character(s) of the documents shown could not be read as %s and show as "
                   "\ufffd%s%s" % (where, decoder.replaced, read.encoding,
                                   " (the first on this line)" if decoder.first_line else "", advice))


class _Decoder:
    """Bytes -> str in the file's encoding (given, or decided by its watch); what does not decode becomes U+FFFD,
    counted (replaced) with the line of the first (first_line)."""

    def __init__(self, fixed: Optional[str], watch: Optional[_EncodingWatch], declared: str):
        self.fixed, self.watch, self.declared = fixed, watch, declared
        self.replaced = 0
        self.first_line = 0

    def encoding(self) -> str:
        if self.fixed:
            return self.fixed
        return (self.watch.encoding if self.watch is not None else None) or self.declared

    def __call__(self, data: bytes, line: int = 0) -> str:
        text, replaced, first = decode_counted(data, self.encoding())
        if replaced:
            if not self.replaced:
                self.first_line = line + data.count(b"\n", 0, first) if line else 0
            self.replaced += replaced
        return text


# ------------------------------------------------------------------------------------ SGML records ---
@dataclass(frozen=True)
class _Sgml:
    """A record format: `tokens` finds its start and end tags (and, for LivingKnowledge, its text's); a record
    starts only outside another record (or, where end tags are optional, after the current one's text); its id is
    `identify(record)`."""

    tag: str
    tokens: "re.Pattern[bytes]"
    identify: Callable[[bytes], Optional[bytes]]
    parse: Callable[[str, str], Document]
    ends_optional: bool = False


def _element_id(name: bytes) -> Callable[[bytes], Optional[bytes]]:
    """The content of the record's first <name> element (<DOCNO>, <ACCN>), found in linear time: a literal start
    tag, then its end tag searched once (`<DOCNO>\\s*(.*?)\\s*</DOCNO` was cubic in the white space after an
    unclosed tag: 10,000 spaces took 8 minutes)."""
    start = re.compile(rb"<%s(?:\s[^<>]*)?>" % name, re.I)
    end = re.compile(rb"</%s" % name, re.I)

    def identify(record: bytes) -> Optional[bytes]:
        opened = start.search(record)
        if opened is None:
            return None
        closed = end.search(record, opened.end())
        return None if closed is None else record[opened.end():closed.start()].strip()

    return identify


_LK_ID = re.compile(rb"""<doc\s[^<>]*?\bid\s*=\s*["']?([^"'\s<>]+)""", re.I)


def _livingknowledge_id(record: bytes) -> Optional[bytes]:
    match = _LK_ID.match(record)           # in the record's own start tag only
    return None if match is None else match.group(1)


# Each pattern starts with a literal `<`, which the regex engine jumps to (an alternation of whole tags made it try
# every byte: 25 times slower).
SGML = {
    "trec": _Sgml("<DOC>", re.compile(rb"<(?:(?P<start>DOC>)|(?P<end>/DOC\s{0,8}>))", re.I), _element_id(b"DOCNO"),
                  trec_document),
    "nacsis": _Sgml("<REC>", re.compile(rb"<(?:(?P<start>REC>)|(?P<end>/REC\s{0,8}>))", re.I), _element_id(b"ACCN"),
                    nacsis_document),
    "livingknowledge": _Sgml("<doc id=...>", re.compile(
        rb"<(?:(?P<start>doc\s)|(?P<end>/doc\s{0,8}>)|(?P<text>text[\s>])|(?P<untext>/text\s{0,8}>))", re.I),
        _livingknowledge_id, livingknowledge_document, ends_optional=True),
}
MARKER = 32       # bytes of a chunk's end looked at again with the next chunk (a tag split between two)


class _Records:
    """The record scanner of one SGML stream. A record starts at its start tag only outside another record: a web
    page inside a TREC record holding `<DOC><DOCNO>WEB-0002</DOCNO>` is that record's text, never record WEB-0002
    (the assessor would judge WEB-0002 by the page's author's text). It ends at its end tag; LivingKnowledge
    records, whose end tags are optional, end at the next `<doc ` at a line's start outside their `<text>`. A
    record's first MAX_RECORD bytes are kept; the regex engine scans, Python sees each tag once."""

    def __init__(self, display: str, sgml: _Sgml, finish: Callable[[bytes, Callable[[], int]], None],
                 found: Collection):
        self.display, self.sgml, self.finish, self.found = display, sgml, finish, found
        self.data = b""               # the stream's bytes from the current record's start (or the last scanned)
        self.scan = 0                 # tags before this offset of data are handled
        self.counted, self.line = 0, 1     # data[counted] is on this line
        self.start: Optional[int] = None   # the current record's start in data (None: outside a record)
        self.kept: Optional[bytes] = None  # its first MAX_RECORD bytes once data no longer holds its start
        self.record_line = 0          # the current record's first line (0: not counted yet, see first_line)
        self.in_text = False
        self.told_inside = False
        self.previous = b"\n"          # the byte before data[0]

    def line_of(self, position: int) -> int:
        """The line of data[position] (positions asked in increasing order)."""
        if position > self.counted:
            self.line += self.data.count(b"\n", self.counted, position)
            self.counted = position
        return self.line

    def feed(self, chunk: bytes, last: bool) -> None:
        self.data += chunk
        limit = len(self.data) if last else len(self.data) - MARKER
        for token in self.sgml.tokens.finditer(self.data, self.scan):
            position = token.start()
            if position >= limit:
                break
            kind = token.lastgroup
            outside = self.start is None and self.kept is None
            if kind == "start" and outside:         # the common cases inline: a record's start, then its end
                self.start, self.in_text, self.told_inside, self.record_line = position, False, False, 0
            elif kind == "end" and not outside:
                self.end(token.end())
            else:
                self.token(kind, position, token.end())
            self.scan = token.end()
        self.scan = max(self.scan, limit)
        if last:
            if self.start is not None or self.kept is not None:
                self.end(len(self.data))
            return
        self.trim()

    def token(self, kind: str, position: int, after: int) -> None:
        inside = self.start is not None or self.kept is not None
        if kind == "start":
            if not inside:
                self.begin(position)
            elif self.sgml.ends_optional and not self.in_text and self.at_line_start(position):
                self.end(position)
                self.begin(position)
            elif not self.told_inside:
                self.told_inside = True
                first = self.first_line()
                self.found.note("%s:%d: warning: %s inside the record that starts on line %d is read as that "
                                "record's text, not as a record (a record starts only after the previous one's "
                                "end tag)" % (self.display, self.line_of(position), self.sgml.tag, first))
        elif kind == "end":
            if inside:
                self.end(after)
        elif inside:
            self.in_text = kind == "text" and not self.in_text    # a second <text> closes it (the mirror's pages)

    def at_line_start(self, position: int) -> bool:
        before = self.data[position - 1:position] if position else self.previous
        return before in (b"\n", b"\r")

    def begin(self, position: int) -> None:
        self.start, self.kept, self.in_text, self.told_inside = position, None, False, False
        self.record_line = 0

    def first_line(self) -> int:
        """The current record's first line, counted only when asked (a wanted record, a warning): most records are
        not wanted, and their lines cost nothing."""
        if not self.record_line:
            self.record_line = self.line_of(self.start)
        return self.record_line

    def end(self, position: int) -> None:
        record = self.kept if self.kept is not None else self.data[self.start:min(position, self.start + MAX_RECORD)]
        self.finish(record, self.first_line)
        self.start, self.kept = None, None

    def trim(self) -> None:
        """Drop what is no longer needed: the bytes before the current record, or beyond its first MAX_RECORD."""
        if self.start is not None and len(self.data) - self.start > MAX_RECORD:
            self.first_line()
            self.kept = self.data[self.start:self.start + MAX_RECORD]
            self.start = None
        cut = self.start if self.start is not None else self.scan
        if cut <= 0:
            return
        if self.start is not None:
            self.first_line()
        self.line_of(cut)
        self.previous = self.data[cut - 1:cut]
        self.data = self.data[cut:]
        self.scan -= cut
        self.counted = max(0, self.counted - cut)
        if self.start is not None:
            self.start -= cut


def _read_sgml(display: str, chunks: Iterator[bytes], sgml: _Sgml, wanted: Set[str], decode: _Decoder,
               read: FileRead, found: Collection) -> None:
    """Records found by their start and end tags; each one's id looked at once, only the wanted ones parsed."""

    def finish(record: bytes, first_line: Callable[[], int]) -> None:
        raw_id = sgml.identify(record)
        if raw_id is None:
            found.note("%s:%d: warning: a record without an id is skipped" % (display, first_line()))
            return
        doc_id = (raw_id.decode("ascii") if raw_id.isascii() else decode(raw_id, first_line())).strip()
        read.records += 1
        if doc_id in wanted:
            line = first_line()
            _keep(doc_id, lambda: sgml.parse(doc_id, decode(record, line)), "%s:%d" % (display, line), read, found)

    records = _Records(display, sgml, finish, found)
    for chunk in chunks:          # a damaged stream raises here, after the records before the damage
        records.feed(chunk, False)
    records.feed(b"", True)


def _keep(doc_id: str, parse: Callable[[], Document], place: str, read: FileRead, found: Collection) -> None:
    """A record of a wanted id: the first is parsed and kept; a later one is a duplicate, told with both places
    and said on the document's card (never silently the first)."""
    first = found.documents.get(doc_id)
    if first is not None:
        first.duplicates.append(place)
        found.note("%s: warning: a second record of document %s (the first is at %s, and is the one shown; its "
                   "card says so)" % (place, doc_id, first.place))
        return
    document = parse()
    document.place = place
    found.kept_chars += document.length()
    if found.kept_chars > MAX_KEPT_TOTAL:
        if not found.over_budget:
            found.note("%s: warning: the pooled documents' whole texts pass %s characters in all; this one and the "
                       "later ones keep only what their cards show (their whole-text pages say so)"
                       % (place, format(MAX_KEPT_TOTAL, ",")))
        found.over_budget = True
        keep_shown_only(document)
    found.documents[doc_id] = document
    read.found += 1


# ------------------------------------------------------------------------------------ JSON ---
def _read_json(display: str, lines: Iterator[Tuple[int, bytes]], head: bytes, wanted: Set[str],
               options: CollectionOptions, decode: _Decoder, read: FileRead, found: Collection) -> None:
    if head.lstrip()[:1] == b"[":
        _read_json_array(display, lines, wanted, options, decode, read, found)
        return
    id_field = options.id_field
    quick = None
    bad = 0
    previous = 0
    for number, line in lines:
        if number == previous:        # a later piece of a line longer than MAX_LINE: never a record of its own
            continue
        previous = number
        if not line.strip():
            continue
        read.records += 1
        if quick is not None:
            match = quick.search(line)
            if match is not None and b"\\" not in match.group(0):
                doc_id = decode(match.group(1) if match.group(1) is not None else match.group(2), number).strip()
                if doc_id not in wanted:
                    continue
        if not line.endswith(b"\n") and len(line) >= MAX_LINE:
            bad += 1
            continue
        try:
            record = read_json(decode(line, number))
        except ValueError:
            bad += 1
            if bad <= 3:
                found.note("%s:%d: warning: not a JSON object; the line is skipped" % (display, number))
            continue
        if not isinstance(record, dict):
            bad += 1
            continue
        if id_field is None:
            id_field = next((k for k in ID_FIELDS if k in record), None)
            if id_field is None:
                raise ConfigError("the JSON records have none of the id fields %s; give --id-field"
                                  % ", ".join(ID_FIELDS), display, number)
        if quick is None:
            quick = re.compile(rb'"%s"\s*:\s*(?:"([^"]*)"|(-?[0-9]+)\s*[,}])' % re.escape(id_field.encode("utf-8")))
        _json_record(record, id_field, wanted, options, read, found, decode, "%s:%d" % (display, number), number)
    if bad > 3:
        found.note("%s: warning: %d line(s) in all are not JSON objects and were skipped" % (display, bad))


def _json_record(record: dict, id_field: str, wanted: Set[str], options: CollectionOptions, read: FileRead,
                 found: Collection, decode: "_Decoder", place: str, line: int = 0) -> None:
    value = record.get(id_field)
    if value is None or isinstance(value, (dict, list, bool)):
        return
    doc_id = str(value).strip()
    if doc_id in wanted:
        def parse() -> Document:
            replaced = [0]          # halves of surrogate pairs shown as U+FFFD, counted with the undecodable bytes
            whole = whole_characters(record, replaced)
            if replaced[0] and not decode.replaced:
                decode.first_line = line
            decode.replaced += replaced[0]
            return json_document(doc_id, whole, id_field, options.title_field, options.text_fields)

        _keep(doc_id, parse, place, read, found)


def _read_json_array(display: str, lines: Iterator[Tuple[int, bytes]], wanted: Set[str], options: CollectionOptions,
                     decode: _Decoder, read: FileRead, found: Collection) -> None:
    data = bytearray()
    for _, line in lines:
        data += line
        if len(data) > MAX_JSON_ARRAY:
            found.note("%s: warning: a JSON array of more than %d bytes is not read; write one record a line "
                       "(JSON lines)" % (display, MAX_JSON_ARRAY))
            return
    try:
        records = read_json(decode(bytes(data), 1))
    except ValueError as exc:
        found.note("%s: warning: not JSON (%s); not read" % (display, str(exc)[:120]))
        return
    records = records if isinstance(records, list) else [records]
    dicts = [r for r in records if isinstance(r, dict)]
    id_field = options.id_field or next((k for k in ID_FIELDS if dicts and k in dicts[0]), None)
    if id_field is None:
        raise ConfigError("the JSON records have none of the id fields %s; give --id-field" % ", ".join(ID_FIELDS),
                          display)
    for number, record in enumerate(dicts, 1):
        read.records += 1
        _json_record(record, id_field, wanted, options, read, found, decode, "%s (record %d)" % (display, number))


# ------------------------------------------------------------------------------------ TSV ---
def _read_tsv(display: str, lines: Iterator[Tuple[int, bytes]], wanted: Set[str], options: CollectionOptions,
              decode: _Decoder, read: FileRead, found: Collection) -> None:
    layout = None
    previous = 0
    for number, line in lines:
        if number == previous:        # a later piece of a line longer than MAX_LINE: never a record of its own
            continue
        previous = number
        raw = line.rstrip(b"\r\n")
        if not raw.strip():
            continue
        fields = raw.split(b"\t")
        if layout is None:
            layout = _tsv_layout([decode(f, number).strip() for f in fields], options, display, number)
            if layout.header:
                continue
        read.records += 1
        doc_id = decode(fields[layout.id], number).strip() if layout.id < len(fields) else ""
        if doc_id in wanted:
            names, title, texts = layout.names, layout.title, layout.texts
            _keep(doc_id, lambda: tsv_document(doc_id, [decode(f, number) for f in fields], names, title, texts),
                  "%s:%d" % (display, number), read, found)


@dataclass(frozen=True)
class _TsvLayout:
    header: bool
    names: Sequence[str]
    id: int
    title: Optional[int]
    texts: Sequence[int]


def _tsv_layout(first: List[str], options: CollectionOptions, display: str, line: int) -> _TsvLayout:
    """Columns of a TSV collection: named by a header line when its first line names the id column (--id-field,
    else one of ID_FIELDS first); else id in column 1 and the text in the others (MS MARCO's `pid<TAB>passage`)."""
    lowered = [f.lower() for f in first]
    wanted = (options.id_field or "").lower()
    if (wanted and wanted in lowered) or (not wanted and lowered[0] in {i.lower() for i in ID_FIELDS}):
        id_column = lowered.index(wanted) if wanted else 0
        title_name = (options.title_field or "title").lower()
        title = lowered.index(title_name) if title_name in lowered else None
        missing = [t for t in options.text_fields if t.lower() not in lowered]
        if missing:
            raise ConfigError("--text-field %s is not a column of the TSV header line" % ", ".join(missing),
                              display, line)
        texts = [lowered.index(t.lower()) for t in options.text_fields] or \
            [i for i in range(len(first)) if i not in (id_column, title)]
        return _TsvLayout(True, first, id_column, title, texts)
    if wanted:
        raise ConfigError("--id-field %s is not a column of the TSV header line" % options.id_field, display, line)
    return _TsvLayout(False, (), 0, None, list(range(1, len(first))))
