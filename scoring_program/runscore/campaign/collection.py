"""The pooled documents of a collection, read in one pass however big it is (`runscore pool --collection`).

Why streaming: the collections these campaigns ship are 0.3 to 20 GB (specs/collections.md); an assessment page
needs the few thousand documents of the pool. So the reader takes the pooled ids first, reads each file once, line
by line with bounded lines and records, keeps only the records of those ids and stops as soon as every one is
found. An id not found is listed, never fatal.

What it reads (specs/collections.md): TREC SGML (`<DOC><DOCNO>`), NTCIR-1/NACSIS records (`<REC><ACCN>`),
LivingKnowledge news and blogs (Temporalia, `<doc id=...>`), JSON lines or a JSON array of records (Pyserini,
BEIR, R2C2 passages; id and text fields found by name or given), TSV (`id<TAB>text`, or columns named by a header
line); each plain, gzip or bzip2, in folders (hidden files, `readme*` and `dtd` folders skipped, as Anserini does)
and tar archives. The format is told by the file's start (or given). Record markup is matched as bytes, which is
safe for UTF-8 and EUC-JP alike (both keep ASCII bytes for ASCII only).

Decoding: with `--encoding` that encoding; JSON as UTF-8 (RFC 8259); otherwise the task's declared one (NTCIR-1:
EUC-JP), except that a file whose start is valid UTF-8 with non-ASCII text is read as UTF-8 (a collection converted with iconv, as the
NTCIR Transfer organisers do); every file's encoding is reported, and characters that do not decode are shown as
U+FFFD, counted and reported.
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
from .documents import (Document, json_document, livingknowledge_document, nacsis_document, read_json,
                        trec_document, tsv_document, whole_characters)

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
    """documents: id -> Document of every wanted id found; files: what was read; notes: FILE:LINE: warning: ...
    lines (at most MAX_NOTES, then a count); undecodable: characters shown as U+FFFD."""

    documents: Dict[str, Document] = field(default_factory=dict)
    files: List[FileRead] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    undecodable: int = 0
    more_notes: int = 0

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
    """The documents of `wanted` ids found in the files (or folders, or tar archives) `paths`, in one pass that
    stops once every id is found. ConfigError when a path does not exist or an option is wrong."""
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
    left = set(wanted)
    for path in files:
        if not left:
            break
        try:
            for display, stream in _streams(path):
                if not left:
                    break
                _read_stream(display, stream, left, options, found)
        except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
            found.note("%s: warning: the file cannot be read to its end (%s); the documents after that point "
                       "were not read" % (path, str(exc)[:200] or type(exc).__name__))
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
    bytes (a longer line comes in pieces under one number), its first SNIFF_BYTES kept for telling the format and
    the encoding. A damaged compressed stream raises once what was read before the damage has been given."""

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

    def chunks(self) -> Iterator[bytes]:
        if self.head:
            yield self.head
        if self.error is not None:
            raise self.error
        while True:
            chunk = self.stream.read(CHUNK)
            if not chunk:
                return
            yield chunk

    def lines(self) -> Iterator[Tuple[int, bytes]]:
        reader = io.BufferedReader(_Prefixed(self.head, self.stream, self.error), CHUNK)
        number = 1
        while True:
            line = reader.readline(MAX_LINE)
            if not line:
                return
            yield number, line
            if line.endswith(b"\n"):
                number += 1


class _Prefixed(io.RawIOBase):
    """`head`, then the rest of `stream` (or the error that stopped reading it)."""

    def __init__(self, head: bytes, stream: BinaryIO, error: Optional[BaseException] = None):
        self.head, self.stream, self.error = head, stream, error

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        if self.error is not None:
            raise self.error
        data = self.stream.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def sniff_format(head: bytes) -> Optional[str]:
    """The format a collection file's start shows, or None."""
    text = head.lstrip()
    if re.search(rb"<REC>", head, re.I) and re.search(rb"<ACCN", head, re.I):
        return "nacsis"
    if re.search(rb"<DOC>", head, re.I) and re.search(rb"<DOCNO>", head, re.I):
        return "trec"
    if re.search(rb"<doc\s[^>]*\bid\s*=", head, re.I):
        return "livingknowledge"
    if text[:1] in (b"{", b"["):
        return "jsonl"
    first = text.split(b"\n", 1)[0]
    if b"\t" in first:
        return "tsv"
    return None


def _encoding(head: bytes, options: CollectionOptions) -> str:
    if options.encoding:
        return options.encoding
    if re.search(rb"[\x80-\xff]", head):
        try:
            head.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError as exc:
            if exc.start >= len(head) - 3 and exc.reason == "unexpected end of data":
                return "utf-8"          # the sample ends inside a character
    return options.declared_encoding


def _read_stream(display: str, stream: BinaryIO, left: Set[str], options: CollectionOptions,
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
    # JSON is UTF-8 whatever the collection it came from (RFC 8259 8.1); the other formats follow _encoding's rule
    encoding = options.encoding or ("utf-8" if fmt == "jsonl" else _encoding(head, options))
    read = FileRead(display, fmt, encoding)
    found.files.append(read)
    decoder = _Decoder(encoding)
    if fmt in SGML:
        _read_sgml(display, source.chunks(), SGML[fmt], left, decoder, read, found)
    elif fmt == "jsonl":
        _read_json(display, source.lines(), head, left, options, decoder, read, found)
    else:
        _read_tsv(display, source.lines(), left, options, decoder, read, found)
    found.undecodable += decoder.replaced
    if decoder.replaced:
        found.note("%s: warning: %d character(s) of the documents shown could not be read as %s and show as "
                   "\ufffd%s" % (display, decoder.replaced, encoding, "" if options.encoding else
                                 "; give --encoding if the file is in another encoding"))


_REPLACED = [0]


def _count_and_replace(error: UnicodeDecodeError) -> Tuple[str, int]:
    _REPLACED[0] += 1
    return "\ufffd", error.end


codecs.register_error("runscore-count-replace", _count_and_replace)


class _Decoder:
    """Bytes -> str in one encoding; what does not decode becomes U+FFFD, counted."""

    def __init__(self, encoding: str):
        self.encoding = encoding
        self.replaced = 0

    def __call__(self, data: bytes) -> str:
        try:
            return data.decode(self.encoding)
        except UnicodeDecodeError:
            before = _REPLACED[0]
            text = data.decode(self.encoding, errors="runscore-count-replace")
            self.replaced += _REPLACED[0] - before
            return text


# ------------------------------------------------------------------------------------ SGML records ---
@dataclass(frozen=True)
class _Sgml:
    start: "re.Pattern[bytes]"     # a record starts here and runs to the next start (or the end of the file)
    identifier: "re.Pattern[bytes]"
    parse: Callable[[str, str], Document]


SGML = {
    "trec": _Sgml(re.compile(rb"<DOC>", re.I), re.compile(rb"<DOCNO>\s*(.*?)\s*</DOCNO", re.I | re.S),
                  trec_document),
    "nacsis": _Sgml(re.compile(rb"<REC>", re.I), re.compile(rb"<ACCN>\s*(.*?)\s*</ACCN", re.I | re.S),
                    nacsis_document),
    "livingknowledge": _Sgml(re.compile(rb"<doc\s", re.I),
                             re.compile(rb"""<doc\s[^>]*?\bid\s*=\s*["']?([^"'\s>]+)""", re.I),
                             livingknowledge_document),
}
MARKER = 16       # bytes of a chunk's end searched again with the next chunk (a start tag split between two)


def _read_sgml(display: str, chunks: Iterator[bytes], sgml: _Sgml, left: Set[str], decode: _Decoder,
               read: FileRead, found: Collection) -> None:
    """Records found by their start tags in chunks of the stream: the regex engine scans, Python looks at each
    record once (its id) and parses only the wanted ones. A record runs to the next start tag; its first MAX_RECORD
    bytes are kept and the rest skipped."""
    buffer = b""           # the current record so far (from its start tag), or the last bytes scanned
    in_record = False
    kept: Optional[bytes] = None       # the current record's first MAX_RECORD bytes, once it is longer
    before = 0             # line ends in the stream before buffer[0]
    record_line = 0

    def finish(record: bytes) -> None:
        match = sgml.identifier.search(record)
        if match is None:
            found.note("%s:%d: warning: a record without an id is skipped" % (display, record_line))
            return
        doc_id = decode(match.group(1)).strip()
        read.records += 1
        if doc_id in left:
            _keep(doc_id, sgml.parse(doc_id, decode(record)), left, read, found)

    for chunk in chunks:
        data = buffer + chunk
        own = in_record and kept is None           # data[0] is the current record's own start tag
        starts = [m.start() for m in sgml.start.finditer(data, max(0, len(buffer) - MARKER))
                  if not (own and m.start() == 0)]
        line = before + 1                          # the line of data[last]
        last = 0
        for start in starts:
            if in_record:
                finish(kept if kept is not None else data[last:start])
                if not left:
                    return
            line += data.count(b"\n", last, start)
            in_record, kept, record_line, last = True, None, line, start
        if in_record and kept is None and len(data) - last <= MAX_RECORD:
            buffer, before = data[last:], line - 1
            continue
        if in_record and kept is None:
            kept = data[last:last + MAX_RECORD]
        buffer = data[max(last, len(data) - MARKER):]
        before = line - 1 + data.count(b"\n", last, len(data) - len(buffer))
    if in_record and left:
        finish(kept if kept is not None else buffer)


def _keep(doc_id: str, document: Document, left: Set[str], read: FileRead, found: Collection) -> None:
    if doc_id in left:
        left.discard(doc_id)
        found.documents[doc_id] = document
        read.found += 1


# ------------------------------------------------------------------------------------ JSON ---
def _read_json(display: str, lines: Iterator[Tuple[int, bytes]], head: bytes, left: Set[str], options: CollectionOptions,
               decode: _Decoder, read: FileRead, found: Collection) -> None:
    if head.lstrip()[:1] == b"[":
        _read_json_array(display, lines, left, options, decode, read, found)
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
                doc_id = decode(match.group(1) if match.group(1) is not None else match.group(2)).strip()
                if doc_id not in left:
                    continue
        if not line.endswith(b"\n") and len(line) >= MAX_LINE:
            bad += 1
            continue
        try:
            record = read_json(decode(line))
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
        _json_record(record, id_field, left, options, read, found, decode)
        if not left:
            return
    if bad > 3:
        found.note("%s: warning: %d line(s) in all are not JSON objects and were skipped" % (display, bad))


def _json_record(record: dict, id_field: str, left: Set[str], options: CollectionOptions, read: FileRead,
                 found: Collection, decode: "_Decoder") -> None:
    value = record.get(id_field)
    if value is None or isinstance(value, (dict, list, bool)):
        return
    doc_id = str(value).strip()
    if doc_id in left:
        replaced = [0]          # halves of surrogate pairs shown as U+FFFD, counted with the undecodable bytes
        record = whole_characters(record, replaced)
        decode.replaced += replaced[0]
        _keep(doc_id, json_document(doc_id, record, id_field, options.title_field, options.text_fields), left, read, found)


def _read_json_array(display: str, lines: Iterator[Tuple[int, bytes]], left: Set[str], options: CollectionOptions, decode: _Decoder,
                     read: FileRead, found: Collection) -> None:
    data = bytearray()
    for _, line in lines:
        data += line
        if len(data) > MAX_JSON_ARRAY:
            found.note("%s: warning: a JSON array of more than %d bytes is not read; write one record a line "
                       "(JSON lines)" % (display, MAX_JSON_ARRAY))
            return
    try:
        records = read_json(decode(bytes(data)))
    except ValueError as exc:
        found.note("%s: warning: not JSON (%s); not read" % (display, str(exc)[:120]))
        return
    records = records if isinstance(records, list) else [records]
    dicts = [r for r in records if isinstance(r, dict)]
    id_field = options.id_field or next((k for k in ID_FIELDS if dicts and k in dicts[0]), None)
    if id_field is None:
        raise ConfigError("the JSON records have none of the id fields %s; give --id-field" % ", ".join(ID_FIELDS),
                          display)
    for record in dicts:
        read.records += 1
        _json_record(record, id_field, left, options, read, found, decode)


# ------------------------------------------------------------------------------------ TSV ---
def _read_tsv(display: str, lines: Iterator[Tuple[int, bytes]], left: Set[str], options: CollectionOptions, decode: _Decoder,
              read: FileRead, found: Collection) -> None:
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
            layout = _tsv_layout([decode(f).strip() for f in fields], options, display, number)
            if layout.header:
                continue
        read.records += 1
        doc_id = decode(fields[layout.id]).strip() if layout.id < len(fields) else ""
        if doc_id in left:
            document = tsv_document(doc_id, [decode(f) for f in fields], layout.names, layout.title, layout.texts)
            _keep(doc_id, document, left, read, found)
            if not left:
                return


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
