"""The campaigns' topic files -> what an assessor reads about a topic: its title, description, narrative, and the
query terms the page highlights (`runscore pool --topics FILE`; docs/campaign.md has an example of each format).

Formats (specs/collections.md; the format is told by the file's content):

* NTCIR `<TOPIC q=0084>` with TITLE, DESCRIPTION, NARRATIVE, CONCEPT (FIELD is "not used in relevance
  assessment" and not shown); the NTCIR-3 style `<TOPIC><NUM>` with DESC, NARR (BACK, RELE), CONC too;
* TREC `<top>` with `<num> Number:`, `<title>`, `<desc> Description:`, `<narr> Narrative:` (no end tags);
* Temporalia `<topic>` with `<id>`, `<title>`, `<description>`, `<query_issue_time>` and `<subtopic id="051p"
  type="past">` questions: each subtopic is an assessment topic, its question first, then its temporal class and
  its topic's title, description and query time (specs/collections.md 2.2);
* R2C2 `<question><qID>0066</qID><q>...</q></question>` (no root element, raw `&`);
* JSON: a list, JSON lines or an object of topics, each with an id (`query_id`, `qid`, `id`, `_id`, `topic`, ...)
  and any of `title`, `description`, `narrative`, `text`/`query`/`question` (BEIR's `metadata` read too);
* TSV: `topic<TAB>text` (the text is the topic's title), or columns named by a header line (`topic`/`id`, `title`,
  `description`, `narrative`, ...).

Ids are matched to the pool's topics by the task's own normaliser (AssessmentForm.topic_key: NTCIR's `84` =
`0084`, R2C2's `D001` = `0001`), so a topic file and the runs may spell them differently. Text is decoded as UTF-8
when it is valid UTF-8, else in the given or the task's declared encoding (NTCIR-1: EUC-JP), and said which.
"""
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import ConfigError
from ..tasks.assessing import AssessmentForm
from ..textfile import numbered_lines
from .documents import (MAX_SHOWN_CHARS, MAX_TITLE_CHARS, attribute, clean, decode_counted, elements,
                        is_utf8, read_json, shorten, whole_characters)

MAX_TOPIC_FILE = 64 * 1024 * 1024
MAX_TERMS = 30
ID_KEYS = ("query_id", "qid", "qID", "topic_id", "topic", "id", "_id", "num", "number")
QUERY_KEYS = ("text", "query", "question", "q", "query_string")
# NTCIR's and Temporalia's element names -> the label the page shows (None: not shown to assessors).
LABELS = {"TITLE": "title", "DESCRIPTION": "description", "DESC": "description", "NARRATIVE": "narrative",
          "NARR": "narrative", "CONCEPT": "concepts", "CONC": "concepts", "Q": "question", "QUERY_STRING": "query",
          "QUERY_ISSUE_TIME": "query issued", "FIELD": None, "SLANG": None, "TLANG": None, "NUM": None, "ID": None,
          "QID": None, "SUBTOPICS": None, "TEMPORAL_CLASS": None}
SUBTOPIC_TYPES = {"p": "past", "r": "recency", "f": "future", "a": "atemporal"}
STOPWORDS = frozenset("""a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having he
her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves document documents relevant find
information describe discuss first last next also many much whose know want like""".split())
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f]")
_SPLIT = re.compile(r"[\s,.;:!?()\[\]{}\"'\u201c\u201d\u2018\u2019\u3001\u3002\u30fb\uff0c\uff08\uff09/]+")


@dataclass
class Topic:
    """What the page shows of a topic: its title, then (label, text) fields in order, and the terms highlighted."""

    id: str
    title: str = ""
    fields: List[Tuple[str, str]] = field(default_factory=list)
    terms: List[str] = field(default_factory=list)

    def as_json(self) -> Dict[str, object]:
        """The page's view: the title cut at a word like a document's (it is a heading, shown twice, and the
        header's line), each field like a document's text."""
        return {"id": self.id, "title": shorten(self.title, MAX_TITLE_CHARS),
                "fields": [[label, shorten(text, MAX_SHOWN_CHARS)] for label, text in self.fields], "terms": self.terms}


@dataclass
class Topics:
    """The topics of a file by the pool's spelling of their ids; encoding: how the file was decoded; notes:
    FILE:LINE: warning: lines about its encoding (for stderr)."""

    path: str
    by_id: Dict[str, Topic]
    encoding: str
    form: AssessmentForm
    notes: List[str] = field(default_factory=list)

    def for_pool_topic(self, topic: str) -> Optional[Topic]:
        """The entry of a pool topic, else of the topic it belongs to (a Temporalia subtopic's topic)."""
        for key in (topic,) + tuple(self.form.topic_parents(topic)):
            found = self.by_id.get(key)
            if found is not None:
                return found
        return None


def read_topics(path: str, form: AssessmentForm, encoding: Optional[str] = None) -> Topics:
    """Every topic of the file (ConfigError naming the file when none can be read: the organiser's file); encoding:
    the one to insist on (`--encoding`), else decided from the bytes (_decode)."""
    text, used, notes = _decode(path, encoding, form.encoding)
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        found = _json_topics(text, path)
    elif re.search(r"<(?:TOPIC|top|topic|question|query)[\s>]", text, re.I):
        found = _tagged_topics(text)
    else:
        found = _tsv_topics(text, path)
    if not found:
        raise ConfigError("no topic found; a topic file is NTCIR <TOPIC>, TREC <top>, Temporalia <topic>, R2C2 "
                          "<question>, JSON or TSV 'topic<TAB>text' (docs/campaign.md)", path)
    by_id: Dict[str, Topic] = {}
    for topic in found:
        by_id.setdefault(form.topic_key(topic.id), topic)
    return Topics(path, by_id, used, form, notes)


def _decode(path: str, given: Optional[str], declared: str) -> Tuple[str, str, List[str]]:
    """(text, encoding, notes): the given encoding; else UTF-8 when the file is valid UTF-8; else the task's (or
    form's) declared one. Characters that do not decode show as U+FFFD, counted in a note with the first line; a
    file read in the declared encoding though most of its non-ASCII text is UTF-8 is told so (each of those
    characters garbled: "kármán" as "k叩rm叩n")."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_TOPIC_FILE + 1)
    except OSError as exc:
        raise ConfigError("cannot read the topic file: %s" % (exc.strerror or exc), path)
    if len(data) > MAX_TOPIC_FILE:
        raise ConfigError("the topic file is more than %d bytes" % MAX_TOPIC_FILE, path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    notes: List[str] = []
    encoding = given
    if encoding is None:
        try:
            return data.decode("utf-8"), "utf-8", notes
        except UnicodeDecodeError as exc:
            encoding = declared
            as_utf8 = data.decode("utf-8", errors="replace")
            bad = as_utf8.count("\ufffd") - data.count(b"\xef\xbf\xbd")
            garbled = sum(1 for c in as_utf8 if c >= "\x80") - bad - data.count(b"\xef\xbf\xbd")
            if not is_utf8(declared) and garbled > bad:
                notes.append("%s:%d: warning: the file is not valid UTF-8 (byte 0x%02x), so it is read as %s (the "
                             "task's encoding), which garbles its %d UTF-8 character(s); if it is UTF-8 with a few "
                             "bad bytes, give --encoding utf-8" % (path, data.count(b"\n", 0, exc.start) + 1,
                                                                    data[exc.start], declared, garbled))
    try:
        text, replaced, first = decode_counted(data, encoding)
    except LookupError:
        raise ConfigError("unknown encoding %r" % encoding, path)
    if replaced:
        notes.append("%s:%d: warning: %d character(s) could not be read as %s and show as \ufffd (the first on this "
                     "line); give --encoding if the file is in another encoding"
                     % (path, data.count(b"\n", 0, first) + 1, replaced, encoding))
    return text, encoding, notes


# ------------------------------------------------------------------------------------ query terms ---
def query_terms(*texts: str) -> List[str]:
    """The words worth highlighting in a topic's short texts: Latin words of three letters or more that are not
    stop words (lower-cased), numbers of three digits or more, and Japanese/Chinese/Korean runs of two characters
    or more (no spaces to split them on: the run is the term)."""
    terms: List[str] = []
    seen = set()
    for text in texts:
        for token in _SPLIT.split(text or ""):
            if len(terms) == MAX_TERMS:          # a title of 200,000 words: not each looked up in the terms so far
                return terms
            token = token.strip("-_*#")
            if _CJK.search(token):
                keep = len(token) >= 2
            else:
                token = token.lower()
                keep = (len(token) >= 3 and token not in STOPWORDS) if not token.isdigit() else len(token) >= 3
            if keep and token not in seen:
                seen.add(token)
                terms.append(token)
    return terms


def _concepts(text: str) -> List[str]:
    """NTCIR CONCEPT lines `a. distributed index, index splitting,` -> the phrases."""
    out = []
    for line in text.split("\n"):
        line = re.sub(r"^\s*[A-Za-z0-9]{1,2}[.)]\s*", "", line)
        out.extend(p.strip() for p in re.split(r"[,\u3001\uff0c;]", line) if p.strip())
    return out


def _finish(topic: Topic) -> Topic:
    if not topic.title:
        for label, text in topic.fields:
            if label in ("query", "question"):
                topic.title = text
                topic.fields = [f for f in topic.fields if f != (label, text)]
                break
    concepts = [p for label, text in topic.fields if label == "concepts" for p in _concepts(text)]
    topic.terms = query_terms(topic.title, *[t for label, t in topic.fields if label in ("subtopic", "question")])
    for phrase in concepts:
        phrase = phrase if _CJK.search(phrase) else phrase.lower()
        if phrase not in topic.terms and len(topic.terms) < MAX_TERMS:
            topic.terms.append(phrase)
    return topic


# ------------------------------------------------------------------------------------ tagged files ---
_OPEN = re.compile(r"<(TOPIC|top|topic|question|query)((?:\s[^<>]*)?)>", re.I)
_TREC_FIELD = re.compile(r"<(num|title|desc|narr)>", re.I)
_TREC_PREFIX = re.compile(r"^\s*(?:Number|Topic|Description|Narrative)\s*:\s*", re.I)
_TREC_LABELS = {"title": "title", "desc": "description", "narr": "narrative"}


def _tagged_topics(text: str) -> List[Topic]:
    found: List[Topic] = []
    for attributes, inner in _blocks(text):
        if re.search(r"<num>", inner, re.I) and not re.search(r"</title\s*>", inner, re.I):   # TREC: no end tags
            topic = _trec_topic(inner)
        else:
            topic, subtopics = _element_topic(inner, attributes)
            found.extend(subtopics)
        if topic is not None:
            found.append(_finish(topic))
    return found


def _blocks(text: str) -> List[Tuple[str, str]]:
    """(attribute text, inner markup) of each topic element. Linear in the file: an end tag looked for and not
    found is not looked for again (a file of many unclosed <topic> tags would otherwise cost its size squared)."""
    out: List[Tuple[str, str]] = []
    unclosed = set()
    position = 0
    while True:
        start = _OPEN.search(text, position)
        if start is None:
            return out
        name = start.group(1).lower()
        end = None if name in unclosed else re.compile(r"</%s\s*>" % name, re.I).search(text, start.end())
        if end is None:
            unclosed.add(name)
            position = start.end()
            continue
        out.append((start.group(2), text[start.end():end.start()]))
        position = end.end()


def _trec_topic(inner: str) -> Optional[Topic]:
    inner = re.sub(r"</(?:num|title|desc|narr)\s*>", "", inner, flags=re.I)
    parts = _TREC_FIELD.split(inner)
    values: Dict[str, str] = {}
    for name, value in zip(parts[1::2], parts[2::2]):
        values.setdefault(name.lower(), clean(_TREC_PREFIX.sub("", value, count=1)))
    topic_id = " ".join(values.get("num", "").split())
    if not topic_id:
        return None
    topic = Topic(topic_id, " ".join(values.get("title", "").split()))
    topic.fields = [(_TREC_LABELS[k], values[k]) for k in ("desc", "narr") if values.get(k)]
    return topic


# a subtopic's text runs to its end tag but never over another subtopic's start (an unclosed <subtopic> would be
# looked for to the file's end, each one: quadratic)
_SUBTOPIC = re.compile(r"<subtopic((?:\s[^<>]*)?)>([^<]*(?:<(?!/?subtopic\b)[^<]*)*)</subtopic\s*>", re.I)


def _element_topic(inner: str, attributes: str) -> Tuple[Optional[Topic], List[Topic]]:
    parts = elements(inner)
    named = {name: body for name, _, body in reversed(parts)}
    topic_id = next((v for v in (attribute(attributes, "q"), attribute(attributes, "id"),
                                 attribute(attributes, "num")) if v), None)
    if topic_id is None:
        topic_id = next((_TREC_PREFIX.sub("", clean(named[k])) for k in ("NUM", "ID", "QID")
                         if k in named and clean(named[k])), None)
    if not topic_id:
        return None, []
    topic = Topic(" ".join(topic_id.split()))
    for name, _, body in parts:
        label = LABELS.get(name, name.lower())
        value = _narrative(body) if name in ("NARRATIVE", "NARR") else clean(body)
        if label is None or not value:
            continue
        if label == "title" and not topic.title:
            topic.title = " ".join(value.split())
        else:
            topic.fields.append((label, value))
    subtopics = []
    for match in _SUBTOPIC.finditer(named.get("SUBTOPICS", "")):
        sub_id = attribute(match.group(1), "id")
        if not sub_id:
            continue
        kind = attribute(match.group(1), "type") or SUBTOPIC_TYPES.get(sub_id.strip()[-1:].lower(), "")
        question = " ".join(clean(match.group(2)).split())
        parent = [("topic", topic.title)] if topic.title else []
        sub = Topic(sub_id.strip(), question, ([("temporal class", kind)] if kind else []) + parent + topic.fields)
        sub.terms = query_terms(question, topic.title)
        subtopics.append(sub)
    return topic, subtopics


def _narrative(body: str) -> str:
    """NARR with NTCIR-3's BACK (background) and RELE (relevance) parts, labelled."""
    parts = elements(body)
    if not parts:
        return clean(body)
    names = {"BACK": "Background: ", "RELE": "Relevance: "}
    return "\n".join(names.get(name, "") + clean(inner) for name, _, inner in parts if clean(inner))


# ------------------------------------------------------------------------------------ JSON, TSV ---
def _json_topics(text: str, path: str) -> List[Topic]:
    try:
        data = read_json(text)
        records = data if isinstance(data, list) else _keyed(data)
    except ValueError:
        records = []
        for line_no, line in numbered_lines(text):
            if not line.strip():
                continue
            try:
                records.append(read_json(line))
            except ValueError as exc:
                raise ConfigError("not JSON: %s" % str(exc)[:120], path, line_no)
    records = whole_characters(records, [0])
    found = []
    for record in records:
        if not isinstance(record, dict):
            continue
        flat = dict(record)
        if isinstance(record.get("metadata"), dict):
            flat.update({k: v for k, v in record["metadata"].items() if k not in flat})
        topic_id = next((str(flat[k]) for k in ID_KEYS if isinstance(flat.get(k), (str, int))), None)
        if topic_id is None:
            continue
        topic = Topic(topic_id.strip(), _text(flat.get("title")))
        for key, label in (("description", "description"), ("desc", "description"), ("narrative", "narrative"),
                           ("narr", "narrative")):
            if _text(flat.get(key)):
                topic.fields.append((label, _text(flat[key])))
        query = next((_text(flat[k]) for k in QUERY_KEYS if _text(flat.get(k))), "")
        if query:
            topic.fields.insert(0, ("query", query))
        found.append(_finish(topic))
    return found


def _keyed(data) -> List[dict]:
    """{"001": "text"} or {"001": {...}} -> records with an `id`."""
    if not isinstance(data, dict):
        return []
    if any(k in data for k in ID_KEYS):
        return [data]
    return [dict(value, id=key) if isinstance(value, dict) else {"id": key, "text": value}
            for key, value in data.items()]


def _text(value) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) and str(value).strip() else ""


def _tsv_topics(text: str, path: str) -> List[Topic]:
    found: List[Topic] = []
    columns: Optional[List[str]] = None
    for line_no, line in numbered_lines(text):
        if not line.strip():
            continue
        if "\t" not in line:
            raise ConfigError("expected 'topic<TAB>text' (or a topic file in another format: docs/campaign.md)",
                              path, line_no)
        fields = [f.strip() for f in line.split("\t")]
        if columns is None and not found and fields[0].lower() in [k.lower() for k in ID_KEYS]:
            columns = [f.lower() for f in fields]
            continue
        found.append(_finish(_tsv_topic(fields, columns)))
    return found


def _tsv_topic(fields: Sequence[str], columns: Optional[List[str]]) -> Topic:
    if columns is None:
        return Topic(fields[0], " ".join(" ".join(fields[1:]).split()))
    values = dict(zip(columns, fields))
    topic = Topic(fields[0], values.get("title", ""))
    for name, value in values.items():
        if name == columns[0] or name == "title" or not value:
            continue
        label = {"desc": "description", "narr": "narrative"}.get(name, name)
        topic.fields.append(("query" if name in QUERY_KEYS else label, value))
    return topic
