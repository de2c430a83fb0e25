"""The assessors' folder of a pool: pages and blind sheets per topic or batch, and the organiser's own view.

Why a module of its own: the pool command decides what is pooled; this decides what assessors get, from the pool's
rows, the collection (campaign/collection.py), the topic file (campaign/topics.py) and the batches
(campaign/batches.py), and writes it:

* `assess/[ASSESSOR/]topic-T[-bK][-ASSESSOR].html`: the page of a topic or batch (campaign/assess_page.py);
* `assess/[ASSESSOR/]sheet-....tsv`: the same rows as a sheet for a spreadsheet (topic, item, [unit, text_sha1,
  text, passage,] label), which `runscore judgements` reads like a page's saved sheet (topic, item, [unit,
  text_sha1,] label: the key of each row and its label);
* `assess/assignments.tsv` (with assessors): who has which batch; `assess/missing_documents.tsv`: pooled items whose
  document the collection did not hold;
* with show_pool_stats, `organiser/topic-T.html`: a topic's items with the runs that retrieved them, their best
  rank and rank sum (never inside assess/, so the assessors' folder can be handed out whole).

Blind by construction: the assessors' files are made from the rows' key columns and texts only, never from the
pool's informational columns (runs, rank_sum, best_rank, run_names), so no run, team, rank or count reaches them.
What differs per task (label scales, where the judged text comes from, the collection's encoding, topic ids) is
asked of the task's form (tasks/assessing.py).
"""
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from ..tasks.assessing import RUN
from ..tasks.base import Task
from .assess_page import PageItem, page, write_whole_texts
from .batches import Batch, make_batches, safe_name
from .collection import Collection, CollectionOptions, read_collection
from .sheet import LABEL, write_sheet
from .topics import Topics, read_topics

ASSESS_DIR = "assess"
ORGANISER_DIR = "organiser"
# The pool's columns an assessor's sheet keeps: the key of each row (and its text hash, which import checks)
# and what is judged; everything else is about the runs.
KEY_COLUMNS = ("topic", "item", "unit", "text_sha1")
TEXT_COLUMNS = ("text", "passage")


@dataclass(frozen=True)
class AssessOptions:
    """What the organiser asked for (`runscore pool` options)."""

    collection: Sequence[str] = ()
    collection_options: CollectionOptions = CollectionOptions()
    topics: Optional[str] = None
    topics_encoding: Optional[str] = None
    batch_size: Optional[int] = None
    assessors: Sequence[str] = ()
    overlap: int = 0
    show_pool_stats: bool = False
    order: str = ""             # the items' order and why (campaign/pool.py ORDER_WHY), said on every page


@dataclass
class Assessment:
    """What the assessors get: read by `prepare` (batches, topics, documents), then written by `write_assessment`
    (the paths), and told by `summary`."""

    task: Task
    columns: List[str]
    rows: List[Dict[str, str]]
    options: AssessOptions
    views: Dict[str, Dict[str, object]] = field(default_factory=dict)
    pages: List[str] = field(default_factory=list)
    sheets: List[str] = field(default_factory=list)
    organiser_pages: List[str] = field(default_factory=list)
    missing: List[Dict[str, str]] = field(default_factory=list)
    collection: Optional[Collection] = None
    topics: Optional[Topics] = None
    topics_missing: List[str] = field(default_factory=list)
    batches: List[Batch] = field(default_factory=list)

    def summary(self, output: str) -> List[str]:
        """Lines for stdout: what to hand out and what is missing."""
        lines = []
        assessors = sorted({b.assessor for b in self.batches if b.assessor})
        lines.append("assessment: %d page(s) and sheet(s) in %s%s" % (
            len(self.pages), os.path.join(output, ASSESS_DIR),
            " for %d assessor(s), %d batch(es)" % (len(assessors), len(self.batches)) if assessors else ""))
        if self.collection is not None:
            files = self.collection.files
            lines.append("collection: %d document(s) found in %d file(s) (%s)" % (
                len(self.collection.documents), len(files),
                ", ".join(sorted({"%s %s" % (f.format, f.encoding) for f in files})) or "no file read"))
        if self.missing:
            lines.append("collection: %d document(s) of %d pooled item(s) not found, listed in %s (their cards say "
                         "so)" % (len({m["document"] for m in self.missing}), len(self.missing),
                                  os.path.join(output, ASSESS_DIR, "missing_documents.tsv")))
        if self.topics is not None:
            count = len(self.topics.by_id)
            lines.append("topics: %d entr%s read from %s (%s)%s" % (
                count, "y" if count == 1 else "ies", self.topics.path, self.topics.encoding,
                "; no entry for %d pooled topic(s): %s" % (len(self.topics_missing), ", ".join(self.topics_missing[:10]))
                if self.topics_missing else ""))
        if self.organiser_pages:
            lines.append("organiser's view (runs and ranks shown; not for assessors): %d page(s) in %s"
                         % (len(self.organiser_pages), os.path.join(output, ORGANISER_DIR)))
        return lines


def prepare(task: Task, columns: Sequence[str], rows: Sequence[Dict[str, str]], options: AssessOptions,
            topics: Optional[Topics] = None) -> Assessment:
    """Everything read before anything is written (a bad option, topic file or collection stops the pool with
    nothing written): the batches, the topics (unless read already) and the pooled documents of the collection."""
    form = task.assessment
    prepared = Assessment(task=task, columns=list(columns), rows=list(rows), options=options)
    prepared.batches = make_batches(rows, options.batch_size, options.assessors, options.overlap)
    prepared.topics = topics
    if options.topics and topics is None:
        prepared.topics = read_topics(options.topics, form, options.topics_encoding)
    if options.collection:
        wanted = {row["document"] for row in rows if row.get("document")}
        prepared.collection = read_collection(options.collection, wanted, options.collection_options)
        with_text = form.text_source != RUN
        prepared.views = {doc_id: document.as_json(with_text)
                          for doc_id, document in prepared.collection.documents.items()}
        if with_text:
            prepared.missing = [{"topic": r["topic"], "item": r["item"], "document": r["document"]}
                                for r in rows if r.get("document") and r["document"] not in prepared.views]
    return prepared


def write_assessment(output: str, assessment: Assessment) -> Assessment:
    """Write the assessors' folder (and the organiser's view) of a prepared pool; the paths are noted in it."""
    task, columns, rows, options = assessment.task, assessment.columns, assessment.rows, assessment.options
    views = assessment.views
    documents = assessment.collection.documents if assessment.collection is not None else {}
    key = [c for c in KEY_COLUMNS if c in columns] + [LABEL]
    sheet_columns = key[:-1] + [c for c in TEXT_COLUMNS if c in columns] + [LABEL]
    folder = os.path.join(output, ASSESS_DIR)
    missing = {(m["topic"], m["item"]) for m in assessment.missing}
    topics_seen = []
    for batch in assessment.batches:
        target = os.path.join(folder, safe_name(batch.assessor)) if batch.assessor else folder
        os.makedirs(target, exist_ok=True)
        items = [_item(row, key, views, (row["topic"], row["item"]) in missing) for row in batch.rows]
        shown = _topic(assessment.topics, batch.topic)
        write_whole_texts(target, "topic-%s" % batch.name, items, documents, (shown or {}).get("terms", ()))
        if batch.topic not in topics_seen:
            topics_seen.append(batch.topic)
            if assessment.topics is not None and shown is None:
                assessment.topics_missing.append(batch.topic)
        path = os.path.join(target, "topic-%s.html" % batch.name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(page(task, batch.topic, shown, items, key, "labels-%s.tsv" % batch.name,
                              _batch_title(batch), order=options.order))
        assessment.pages.append(path)
        sheet = os.path.join(target, "sheet-%s.tsv" % batch.name)
        write_sheet(sheet, sheet_columns, [{c: row.get(c, "") for c in sheet_columns[:-1]} for row in batch.rows])
        assessment.sheets.append(sheet)
    if options.assessors:
        _write_table(os.path.join(folder, "assignments.tsv"), ["assessor", "topic", "batch", "items", "page", "sheet"],
                     [[b.assessor, b.topic, "%d of %d" % (b.index, b.count), str(len(b.rows)),
                       os.path.relpath(p, folder), os.path.relpath(s, folder)]
                      for b, p, s in zip(assessment.batches, assessment.pages, assessment.sheets)])
    if assessment.missing:
        _write_table(os.path.join(folder, "missing_documents.tsv"), ["topic", "item", "document"],
                     [[m["topic"], m["item"], m["document"]] for m in assessment.missing])
    if options.show_pool_stats:
        assessment.organiser_pages = _organiser_view(output, task, rows, key, views, missing, assessment.topics,
                                                     documents, options.order)
    return assessment


def _item(row: Dict[str, str], key: Sequence[str], views: Dict[str, Dict[str, object]], missing: bool) -> PageItem:
    return PageItem({c: row.get(c, "") for c in key[:-1]}, row.get("document") or "", row.get("text", ""),
                    row.get("passage", ""), views.get(row.get("document") or ""), missing)


def _topic(topics: Optional[Topics], topic: str) -> Optional[Dict[str, object]]:
    found = topics.for_pool_topic(topic) if topics is not None else None
    if found is None:
        return None
    shown = found.as_json()
    shown["id"] = topic
    return shown


def _batch_title(batch: Batch) -> str:
    parts = []
    if batch.count > 1:
        parts.append("batch %d of %d" % (batch.index, batch.count))
    if batch.assessor:
        parts.append(batch.assessor)
    return ", ".join(parts)


def _organiser_view(output: str, task: Task, rows: Sequence[Dict[str, str]], key: Sequence[str],
                    views, missing, topics: Optional[Topics], documents, order: str = "") -> List[str]:
    """One page per topic with each item's runs, best rank and rank sum (the pool's informational columns)."""
    folder = os.path.join(output, ORGANISER_DIR)
    os.makedirs(folder, exist_ok=True)
    written = []
    for batch in make_batches(rows):
        stats = [_stats_line(row) for row in batch.rows]
        items = [_item(row, key, views, (row["topic"], row["item"]) in missing) for row in batch.rows]
        write_whole_texts(folder, "topic-%s" % batch.name, items, documents,
                          (_topic(topics, batch.topic) or {}).get("terms", ()))
        path = os.path.join(folder, "topic-%s.html" % batch.name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(page(task, batch.topic, _topic(topics, batch.topic), items, key,
                              "organiser-labels-%s.tsv" % batch.name, "organiser's view", stats, order))
        written.append(path)
    return written


def _stats_line(row: Dict[str, str]) -> str:
    parts = ["retrieved by %s run(s)" % row.get("runs", "?")]
    if row.get("best_rank"):
        parts.append("best rank %s, rank sum %s" % (row["best_rank"], row.get("rank_sum", "")))
    if row.get("run_names"):
        parts.append("runs: %s" % row["run_names"].replace(",", ", "))
    return "; ".join(parts)


def _write_table(path: str, header: List[str], rows: List[List[str]]) -> None:
    """A TAB-separated table, escaped and safe to open in a spreadsheet as the pool's tables are."""
    from .safe_output import neutralise_cell
    from .sheet import escape

    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for line in [header] + rows:
            handle.write("\t".join(neutralise_cell(escape(str(cell))) for cell in line) + "\n")
