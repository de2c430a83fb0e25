"""A topic's pooled items split into batches for assessors, with overlap for agreement when asked.

Why: a depth-100 pool of an NTCIR-style topic holds ~800 documents, more than one sitting; campaigns split the
work, and measure agreement by giving some work to two assessors (specs/campaign.md 2.2-2.3). The rules, kept
simple enough to state on one line each:

* `batch_size` N cuts each topic's items, in assessment order, into consecutive batches of at most N (without it,
  a topic is one batch);
* with assessors, the batches of all topics, in order, go to the assessors in turn (batch j to assessor j mod n),
  so the work is even and each assessor sees whole batches;
* `overlap` K gives every batch to K more assessors (the next ones in the list): each item is then labelled K + 1
  times, and `runscore judgements` reports their agreement and resolves their differences by the rule named.
"""
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from ..errors import ConfigError

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass
class Batch:
    """Rows of one topic (in assessment order) for one assessor ("" when none is named): batch `index` of the
    topic's `count` batches."""

    topic: str
    index: int
    count: int
    rows: List[Dict[str, str]]
    assessor: str = ""

    @property
    def name(self) -> str:
        """The part of a file name that tells this batch: `0031`, `0031-b2`, `0031-b2-alice`."""
        parts = [safe_name(self.topic)]
        if self.count > 1:
            parts.append("b%d" % self.index)
        if self.assessor:
            parts.append(safe_name(self.assessor))
        return "-".join(parts)


def safe_name(text: str) -> str:
    """A file-name part (ids are short; anything odd becomes _)."""
    return _UNSAFE.sub("_", text) or "_"


def read_assessors(value: Optional[str]) -> List[str]:
    """`alice,bob` or `@FILE` (one name a line) -> the names; ConfigError for an empty or repeated name, or two
    names that make the same file name."""
    if not value:
        return []
    if value.startswith("@"):
        from ..textfile import numbered_lines, read_text

        names = [line.strip() for _, line in numbered_lines(read_text(value[1:], error_class=ConfigError))
                 if line.strip()]
    else:
        names = [name.strip() for name in value.split(",")]
    if not names or any(not name for name in names):
        raise ConfigError("--assessors: an empty name in %r; give names separated by commas, or @FILE" % value[:80])
    seen: Dict[str, str] = {}
    for name in names:
        if len(name) > 64:
            raise ConfigError("--assessors: the name %r is longer than 64 characters" % name[:80])
        if safe_name(name) in seen:
            raise ConfigError("--assessors: %r and %r make the same file name (%s)"
                              % (seen[safe_name(name)], name, safe_name(name)))
        seen[safe_name(name)] = name
    return names


def make_batches(rows: Sequence[Dict[str, str]], batch_size: Optional[int] = None,
                 assessors: Sequence[str] = (), overlap: int = 0) -> List[Batch]:
    """The batches of `rows` (every topic's rows in assessment order) by the module's rules."""
    if batch_size is not None and batch_size < 1:
        raise ConfigError("--batch-size must be at least 1")
    if overlap < 0:
        raise ConfigError("--overlap must be 0 or more")
    if overlap and len(assessors) < overlap + 1:
        raise ConfigError("--overlap %d gives every batch to %d assessors; name at least that many with --assessors"
                          % (overlap, overlap + 1))
    by_topic: Dict[str, List[Dict[str, str]]] = {}
    for row in rows:
        by_topic.setdefault(row["topic"], []).append(row)
    chunks: List[Batch] = []
    for topic, topic_rows in by_topic.items():
        size = batch_size or len(topic_rows)
        parts = [topic_rows[i:i + size] for i in range(0, len(topic_rows), size)]
        chunks.extend(Batch(topic, k, len(parts), part) for k, part in enumerate(parts, 1))
    if not assessors:
        return chunks
    out = []
    for j, chunk in enumerate(chunks):
        for copy in range(overlap + 1):
            out.append(Batch(chunk.topic, chunk.index, chunk.count, chunk.rows,
                             assessors[(j + copy) % len(assessors)]))
    return out
