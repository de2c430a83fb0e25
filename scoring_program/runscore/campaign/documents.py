"""One document record of a collection -> what an assessor reads: its title, a few short facts, its text.

Why a module of its own: the collection reader (campaign/collection.py) finds the records of the pooled documents;
this turns each into fields an assessment page shows readably, whatever the format (specs/collections.md):

* TREC SGML (`<DOC><DOCNO>`): title from the first of HEADLINE, TITLE, HL, HEAD, TTL; body TEXT, LP, LEADPARA;
  other short elements (DATE, BYLINE, ...) as facts, other long ones as sections; DOCHDR (a web server's
  header) left out (Anserini and ir_datasets drop it too).
* NTCIR-1/NACSIS (`<REC><ACCN>`): title TITL (Japanese) or TITE, the other beneath; the abstracts ABST and ABSE
  paragraph by paragraph (`*.P` elements); keywords KYWD/KYWE (`//`-separated); authors, conference, date and
  society as facts.
* LivingKnowledge (Temporalia, `<doc id=...>`): the `title` tag; date (also written `data`), host and url as
  facts; the `<text>` without its sentence, entity and time annotations, a sentence a line.
* JSON records (Pyserini, BEIR, R2C2 passages): the id field, `title`, the text fields, other short values as
  facts. TSV: the id column and the rest as text.

Parsing is lenient, by tag regex and never by an XML parser (records hold raw `&`, unquoted attributes, unclosed
elements); entities are decoded, tags dropped, and nothing here is trusted: the page shows every field as text.
"""
import codecs
import html
import json
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..textfile import LONE_SURROGATE

# A document's text is shown up to this many characters (a page of a depth-100 topic holds ~800 documents), cut at
# a word; the whole text is a link away (campaign/assess_page.py), kept up to MAX_KEPT_CHARS.
MAX_SHOWN_CHARS = 20000
MAX_TITLE_CHARS = 300     # a title (a heading) is shown up to this many characters, like a section
MAX_FACT_CHARS = 300      # a fact's value likewise
MAX_KEPT_CHARS = 1000000  # the whole text kept of a document (its sections)
MAX_KEPT_TITLE = 10000    # and of its title
SHORT_FACT = 160          # an element of at most this many characters is a fact; a longer one a section
MAX_FACTS = 12
MAX_ELEMENTS = 1000       # elements of a record told apart; the markup after them is shown as one text
WORD_BACK = 200           # a cut looks this far back for a space to cut at (none in Japanese text: cut there)


@dataclass
class Document:
    """What the page shows of one document. facts: short (label, value) pairs; sections: (label, text) with
    paragraphs separated by line breaks, whole up to MAX_KEPT_CHARS (cut: the record held more); place: FILE:LINE
    of its record; duplicates:
    where else the collection holds a record of this id (FILE:LINE; the first record is this one)."""

    id: str
    title: str = ""
    facts: List[Tuple[str, str]] = field(default_factory=list)
    sections: List[Tuple[str, str]] = field(default_factory=list)
    cut: bool = False
    place: str = ""
    duplicates: List[str] = field(default_factory=list)

    def length(self) -> int:
        """Characters of the whole text: title and sections."""
        return len(self.title) + sum(len(text) for _, text in self.sections)

    def shortened(self) -> bool:
        """Whether the page shows less than the whole text (a long title or text, cut at a word)."""
        return len(self.title) > MAX_TITLE_CHARS or self.length() - len(self.title) > MAX_SHOWN_CHARS

    def as_json(self, with_text: bool = True) -> Dict[str, object]:
        """The page's view of the document, its title and text cut at a word (MAX_TITLE_CHARS, MAX_SHOWN_CHARS);
        with_text=False keeps the title and facts only (the run carries the judged text, R2C2)."""
        shown: Dict[str, object] = {"title": shorten(self.title, MAX_TITLE_CHARS)}
        facts = list(self.facts)
        if self.duplicates:
            facts.append(("duplicate id", "%d records in the collection: this one (%s), then %s" % (
                1 + len(self.duplicates), self.place, ", ".join(self.duplicates[:3]) +
                (" and %d more" % (len(self.duplicates) - 3) if len(self.duplicates) > 3 else ""))))
        if facts:
            shown["facts"] = [[label, shorten(value, MAX_FACT_CHARS)] for label, value in facts]
        if with_text and self.sections:
            sections, left = [], MAX_SHOWN_CHARS
            for label, text in self.sections:
                if left <= 0:
                    break
                part = shorten(text, left)
                sections.append([label, part])
                left = left - len(part) if part == text else 0
            shown["sections"] = sections
        if (with_text and self.shortened()) or len(self.title) > MAX_TITLE_CHARS:
            shown["shortened"] = {"shown": sum(len(t) for _, t in shown.get("sections", ())),
                                  "length": self.length() - len(self.title), "cut": self.cut}
        return shown


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word (the last space within WORD_BACK characters of the limit,
    else at the limit: Japanese has no spaces), marked with an ellipsis."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "\u2026"[:max(limit, 0)]
    head = text[:limit - 1]
    back = max(0, limit - 1 - WORD_BACK)
    space = max(head.rfind(" ", back), head.rfind("\n", back))
    if space > 0 and text[limit - 1] not in " \n":
        head = head[:space]
    return head.rstrip() + "\u2026"


_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)((?:\s[^<>]*)?)/?>")
_BREAKS = re.compile(r"</(?:P|SE|ABST\.P|ABSE\.P|LI|DIV|TR|H[1-6])\s*>|<(?:BR|P)(?:\s[^<>]*)?/?>", re.I)
_END_TAG = re.compile(r"</([A-Za-z][\w.:-]*)\s*>")
# an unclosed quote takes the rest (a failed match would be tried again at each later `q`: quadratic)
_ATTRIBUTE = r"""\b%s\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s"'<>]+))"""


def clean(markup: str) -> str:
    """Text of a piece of markup: paragraph and sentence ends as line breaks, tags dropped, entities decoded,
    runs of spaces folded, blank lines dropped."""
    text = _BREAKS.sub("\n", markup)
    text = _TAG.sub("", text)          # inline annotations (<E>, <T>) must not split "Works</E>." apart
    text = html.unescape(text)
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def attribute(attributes: str, name: str) -> Optional[str]:
    """The value of attribute `name` in a tag's attribute text (quoted or not), or None."""
    match = re.search(_ATTRIBUTE % re.escape(name), attributes, re.I)
    if match is None:
        return None
    return next(g for g in match.groups() if g is not None)


def elements(markup: str) -> List[Tuple[str, str, str]]:
    """The top-level elements of a record, in order: (NAME upper-cased, attribute text, inner markup). An element
    without its end tag runs to the next top-level start tag (SGML in the wild omits end tags). Linear in the
    record: one pass finds where each name's last end tag is, so an end tag is looked for only when one lies
    ahead (and then the walk jumps past it), and after MAX_ELEMENTS elements the rest is one TEXT element."""
    last_end: Dict[str, int] = {}
    for end in _END_TAG.finditer(markup):
        last_end[end.group(1).upper()] = end.start()
    found: List[Tuple[str, str, str]] = []
    position = 0
    while True:
        start = _TAG.search(markup, position)
        if start is None:
            return found
        if len(found) == MAX_ELEMENTS:          # a record of thousands of elements: the rest is one text
            found.append(("TEXT", "", markup[start.start():]))
            return found
        if start.group(1):                         # a stray end tag
            position = start.end()
            continue
        name = start.group(2)
        end = None
        if last_end.get(name.upper(), -1) >= start.end():
            end = re.compile(r"</%s\s*>" % re.escape(name), re.I).search(markup, start.end())
        if end is None:
            following = _next_start(markup, start.end())
            inner, position = markup[start.end():following], following
        else:
            inner, position = markup[start.end():end.start()], end.end()
        found.append((name.upper(), start.group(3) or "", inner))


def _next_start(markup: str, position: int) -> int:
    for match in _TAG.finditer(markup, position):
        if not match.group(1):
            return match.start()
    return len(markup)


def keep_shown_only(document: Document) -> None:
    """Drop what the card does not show (the collection's budget of whole texts is spent): the whole-text page then
    shows what is kept, and says the record held more."""
    _bound(document, MAX_SHOWN_CHARS)


def _kept(document: Document) -> Document:
    """The document with its title and sections bounded (MAX_KEPT_TITLE, MAX_KEPT_CHARS; cut when the record held
    more)."""
    if len(document.title) > MAX_KEPT_TITLE:
        document.title, document.cut = document.title[:MAX_KEPT_TITLE], True
    _bound(document, MAX_KEPT_CHARS)
    return document


def _bound(document: Document, limit: int) -> None:
    left = limit
    kept = []
    for label, text in document.sections:
        if left <= 0:
            document.cut = True
            break
        if len(text) > left:
            text, document.cut = text[:left], True
        kept.append((label, text))
        left -= len(text)
    document.sections = kept


# ------------------------------------------------------------------------------------ TREC SGML ---
TREC_TITLES = ("HEADLINE", "TITLE", "HL", "HEAD", "TTL")
TREC_BODY = ("TEXT", "LP", "LEADPARA")
TREC_LEFT_OUT = ("DOCNO", "DOCID", "DOCHDR")


def trec_document(doc_id: str, record: str) -> Document:
    document = Document(doc_id)
    parts = elements(_inside(record, "DOC"))
    for name, _, inner in parts:
        text = clean(inner)
        if not text or name in TREC_LEFT_OUT:
            continue
        if name in TREC_TITLES and not document.title:
            document.title = " ".join(text.split())
        elif name in TREC_BODY:
            document.sections.append(("", text))
        elif len(text) <= SHORT_FACT and "\n" not in text and len(document.facts) < MAX_FACTS:
            document.facts.append((name.lower(), text))
        else:
            document.sections.append((name.lower(), text))
    return _kept(document)


def _inside(record: str, name: str) -> str:
    """The inner markup of the record's outer element `name` (the whole record when it has no such tags)."""
    start = re.search(r"<%s(?:\s[^<>]*)?>" % name, record, re.I)
    if start is None:
        return record
    end = re.compile(r"</%s\s*>" % name, re.I).search(record, start.end())
    return record[start.end():end.start() if end else len(record)]


# ------------------------------------------------------------------------------------ NACSIS ---
NACSIS_TITLES = (("TITL", "title (Japanese)"), ("TITE", "title (English)"))
NACSIS_SECTIONS = {"ABST": "abstract (Japanese)", "ABSE": "abstract (English)", "KYWD": "keywords (Japanese)",
                   "KYWE": "keywords (English)"}
NACSIS_FACTS = {"AUPE": "authors", "AUPK": "authors (Japanese)", "CNFE": "conference", "CNFD": "date",
                "SOCE": "society", "SOCN": "society (Japanese)"}
NACSIS_LEFT_OUT = ("ACCN",)


def nacsis_document(doc_id: str, record: str) -> Document:
    document = Document(doc_id)
    found: Dict[str, str] = {}
    order: List[Tuple[str, str]] = []
    for name, _, inner in elements(_inside(record, "REC")):
        text = clean(inner)
        if text and name not in NACSIS_LEFT_OUT and name not in found:
            found[name] = text
            order.append((name, text))
    titles = [(label, found[name]) for name, label in NACSIS_TITLES if name in found]
    if titles:
        document.title = " ".join(titles[0][1].split())
        document.sections.extend(titles[1:])
    for name, text in order:
        if name in NACSIS_SECTIONS:
            if name.startswith("KYW"):
                text = " / ".join(k.strip() for k in text.split("//") if k.strip())
            document.sections.append((NACSIS_SECTIONS[name], text))
        elif name in NACSIS_FACTS:
            document.facts.append((NACSIS_FACTS[name], " ".join(text.split())))
        elif name not in dict(NACSIS_TITLES):
            short = len(text) <= SHORT_FACT and len(document.facts) < MAX_FACTS
            (document.facts if short else document.sections).append((name.lower(), text))
    return _kept(document)


# ------------------------------------------------------------------------------------ LivingKnowledge ---
LK_FACTS = (("date", "date"), ("data", "date"), ("host", "host"), ("url", "url"))
# a tag's value runs to its end tag but never over another tag's start: a tag without its end costs its own length
_LK_TAG = re.compile(r"<tag\s+name\s*=\s*[\"']?([\w-]+)[\"']?\s*>([^<]*(?:<(?!/?tag\b)[^<]*)*)</tag\s*>", re.I)
_LK_TEXT = re.compile(r"<text(?:\s[^<>]*)?>(.*?)(?:</text\s*>|<text(?:\s[^<>]*)?>|</doc\s*>|\Z)", re.I | re.S)


def livingknowledge_document(doc_id: str, record: str) -> Document:
    document = Document(doc_id)
    tags: Dict[str, str] = {}
    for name, value in _LK_TAG.findall(record):
        tags.setdefault(name.lower(), " ".join(clean(value).split()))
    document.title = tags.get("title", "")
    shown = set()
    for name, label in LK_FACTS:
        if tags.get(name) and label not in shown:
            document.facts.append((label, tags[name]))
            shown.add(label)
    body = _LK_TEXT.search(record)
    if body is not None and clean(body.group(1)):
        document.sections.append(("", clean(body.group(1))))
    return _kept(document)


# ------------------------------------------------------------------------------------ JSON, TSV ---
JSON_TITLES = ("title",)


def read_json(text: str):
    """A JSON text of a collection or topic file, as the page shows it. Numbers are kept as written (strings): the
    page shows them and never computes with them, and int() of a long digit string costs its square on the
    Python 3.9 builds without the int-string limit. ValueError for text that is not JSON or nests too deeply (a
    RecursionError otherwise, which no reader caught)."""
    try:
        return json.loads(text, parse_int=str, parse_float=str)
    except RecursionError:
        raise ValueError("nested too deeply")


def _count_and_replace(error: UnicodeDecodeError) -> Tuple[str, int]:
    _REPLACED[0] += 1
    return "\ufffd", error.end


_REPLACED = [0]
codecs.register_error("runscore-count-replace", _count_and_replace)


def decode_counted(data: bytes, encoding: str) -> Tuple[str, int, int]:
    """(text, characters shown as U+FFFD because they did not decode, the byte offset of the first or -1)."""
    try:
        return data.decode(encoding), 0, -1
    except UnicodeDecodeError as exc:
        before = _REPLACED[0]
        text = data.decode(encoding, errors="runscore-count-replace")
        return text, _REPLACED[0] - before, exc.start


def is_utf8(encoding: str) -> bool:
    """Whether an encoding's name is UTF-8's (utf8, UTF_8, ...)."""
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def whole_characters(value, replaced: List[int]):
    """`value` with every half of a UTF-16 surrogate pair that a JSON escape left alone (`"\\ud800"`) shown as
    U+FFFD: no page or sheet written as UTF-8 can hold one (writing it failed). replaced[0] counts them."""
    if isinstance(value, str):
        if LONE_SURROGATE.search(value) is None:
            return value
        replaced[0] += len(LONE_SURROGATE.findall(value))
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [whole_characters(v, replaced) for v in value]
    if isinstance(value, dict):
        return {whole_characters(k, replaced): whole_characters(v, replaced) for k, v in value.items()}
    return value
JSON_TEXTS = ("contents", "text", "body", "abstract", "passage", "content")


def json_document(doc_id: str, record: dict, id_field: str, title_field: Optional[str],
                  text_fields: Sequence[str]) -> Document:
    document = Document(doc_id)
    title_key = title_field or next((k for k in JSON_TITLES if isinstance(record.get(k), str)), None)
    if title_key is not None and record.get(title_key) is not None:
        document.title = " ".join(str(record[title_key]).split())
    texts = list(text_fields) or [next((k for k in JSON_TEXTS if record.get(k) is not None), "")]
    for key in texts:
        value = record.get(key)
        if isinstance(value, (str, int, float)) and str(value).strip():
            document.sections.append(("" if len(texts) == 1 else key, str(value).strip()))
    for key, value in record.items():
        if key in texts or key in (title_key, id_field) or not isinstance(value, (str, int, float)) or isinstance(value, bool):
            continue
        value = " ".join(str(value).split())
        if value and len(value) <= SHORT_FACT and len(document.facts) < MAX_FACTS:
            document.facts.append((str(key)[:40], value))
    return _kept(document)


def tsv_document(doc_id: str, fields: Sequence[str], names: Sequence[str], title_column: Optional[int],
                 text_columns: Sequence[int]) -> Document:
    document = Document(doc_id)
    if title_column is not None and title_column < len(fields):
        document.title = " ".join(fields[title_column].split())
    for column in text_columns:
        if column < len(fields) and fields[column].strip():
            label = names[column] if len(text_columns) > 1 and column < len(names) else ""
            document.sections.append((label, fields[column].strip()))
    return _kept(document)
