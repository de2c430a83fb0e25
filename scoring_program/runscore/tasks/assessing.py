"""The part of a pooled task's form that the campaign wing reads to show its items to assessors and read their
labels back (docs/campaign.md, "Assess").

Why in the task's form: the wing (pool, assessment pages, judgements) serves every pooled task with one code path;
what differs per task is declared here, next to the task's reader and reference loader, so adding a pooled task
stays "filling in a form" and the wing never asks which task it holds:

* the label scale of each kind of item (`unit`: r2c2-ac judges answers and nuggets), lowest first, with the key
  that types each label on the page, the campaign's name and meaning of each, and whether a sheet may write a
  label as its number (0 = lowest) because the task's reference loader reads numbers too (NTCIR-1 graded qrels
  3/2/1/0, TREC qrels 0/1/2);
* where the judged text comes from: the collection (NTCIR-1, Temporalia: the runs name documents only) or the run
  (R2C2: the passage a run returned is what is judged; the collection adds its document's title);
* the collection's declared encoding (NTCIR-1 is EUC-JP: specs/collections.md 1.1);
* how topic ids are spelled (the task's normaliser) and which topic-file entries an assessment topic belongs to
  (a Temporalia subtopic `001p` is part of topic `001`).
"""
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence, Tuple

# Keys the assessment page keeps for itself (campaign/assess_page.py: j and k move, n goes to the next unlabelled
# item, t shows the topic): a label typed by one of them could never be given. tests/test_forms.py holds the two
# lists together.
PAGE_KEYS = ("j", "k", "n", "t")

COLLECTION = "collection"
RUN = "run"
TEXT_SOURCES = (COLLECTION, RUN)


@dataclass(frozen=True)
class LabelScale:
    """A judging scale as the campaign words it.

    labels: lowest first, as the reference writer writes them; keys: the key that types each on the page; names:
    short names; meanings: what each label means to the campaign (shown on the page); numbered: a sheet may write
    a label as its position on the scale (0 = labels[0]), because the task's reference loader reads numbers.
    """

    labels: Tuple[str, ...]
    keys: Tuple[str, ...]
    names: Tuple[str, ...]
    meanings: Tuple[str, ...] = ()
    numbered: bool = False

    def canonical(self, written: str) -> Optional[str]:
        """The label a sheet means by `written` (any case; a number when the scale is numbered, also as a
        spreadsheet may save it, `2.0`), or None when it is not on the scale."""
        text = written.strip()
        by_name = {label.lower(): label for label in self.labels}
        found = by_name.get(text.lower())
        if found is not None or not self.numbered:
            return found
        whole = text[:-2] if text.endswith(".0") else text
        if whole.isdigit() and whole.isascii() and len(whole) <= 2 and int(whole) < len(self.labels):
            return self.labels[int(whole)]
        return None

    def written_forms(self) -> str:
        """How a label may be written, for messages: `C, B, A, S or 0-3`."""
        shown = ", ".join(self.labels)
        return shown + (" or 0-%d" % (len(self.labels) - 1) if self.numbered else "")


def _unchanged(topic: str) -> Optional[str]:
    return topic


def _no_parents(topic: str) -> Sequence[str]:
    return ()


def _always_blind(options: Mapping) -> Optional[str]:
    return None


@dataclass(frozen=True)
class AssessmentForm:
    """What the campaign wing asks of a pooled task (module docstring).

    scales: by the sheet's `unit` column ("" for a task with one kind of item); text_source: COLLECTION or RUN;
    encoding: the collection's declared encoding (`runscore pool --encoding` overrides it); normalise_topic: a
    topic id as the task spells it (None when it is not one of its ids); topic_parents: the topic-file entries an
    assessment topic belongs to, most specific first after itself; not_blind: why, under the task's options, an
    item's key names its run (the pool warns that the pages cannot be blind), or None.
    """

    scales: Mapping[str, LabelScale]
    text_source: str = COLLECTION
    encoding: str = "utf-8"
    normalise_topic: Callable[[str], Optional[str]] = _unchanged
    topic_parents: Callable[[str], Sequence[str]] = _no_parents
    default_unit: str = ""
    # Why the items' keys themselves name runs or ranks under these options (the pages cannot then be blind), or None.
    not_blind: Callable[[Mapping], Optional[str]] = _always_blind

    def __post_init__(self):
        if self.text_source not in TEXT_SOURCES:
            raise ValueError("text_source must be one of %s" % ", ".join(TEXT_SOURCES))
        if self.default_unit not in self.scales:
            raise ValueError("default_unit %r has no scale" % self.default_unit)

    def scale(self, unit: str = "") -> LabelScale:
        """The scale of a kind of item (a row's `unit`; the task's default when the row has none)."""
        return self.scales.get(unit or self.default_unit) or self.scales[self.default_unit]

    def topic_key(self, written: str) -> str:
        """A topic id as the pool spells it (the task's normaliser; the id itself when the task does not know it)."""
        return self.normalise_topic(written.strip()) or written.strip()
