"""Kind `trec-ranking`: an organiser's ranking task from a form: TREC runs, TREC qrels on the form's grade scale,
leaderboard columns from trec_eval's or ir_measures' names, pooled and assessed with the form's labels.

Why these rules: a form's numbers are trec_eval 9.0.8's (scores compared as C floats, ties by docno descending,
at most `max_docs` documents a topic kept after sorting, interpolated recall points by 9.0.8's rule, relevance at
`relevance_level` as `-l`), averaged over every topic of the reference as `trec_eval -c` does, so that a run that
leaves a topic out scores 0 there instead of being averaged over fewer topics. The readers (ranking/trec_format.py,
ranking/qrels.py), the ranking and labelling (ranking/rankeval.py) and the measures (measures/trec.py) are the ones
`runscore trec_eval` uses; nothing here computes a measure.
"""
import json
import os
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from ...errors import ConfigError, ConfigErrors, Diagnostics
from ...measures.trec_measure import LONG_CUTOFFS, Params, TrecOptions
from ...ranking.qrels import read_qrels
from ...ranking.rankeval import evaluate_rankings, ranked_docnos
from ...ranking.trec_format import parse_trec_run
from ...textfile import numbered_lines, read_text
from ..assessing import PAGE_KEYS, AssessmentForm, LabelScale
from ..base import (DUPLICATES_SAYS, INTERP_SAYS, MAX_DOCS_SAYS, PRECISION_SAYS, TIE_ORDER_SAYS, Column, Option,
                    ParsedRun, RankedItem, ReferenceSize, RunScores, Task, first_line, read_task_yaml)
from ..pooling import JudgedPool, Pooling, as_dicts, drop_items, write_lines
from . import common_fields, primary_first, primary_named

# Leaderboard keys are `<name>_<column>` in [a-z0-9_], at most this long (Codabench's column key).
MAX_KEY = 36
# Counted for every run and shown per topic; not leaderboard columns unless the form asks.
COUNTS = ("num_ret", "num_rel", "num_rel_ret")


class FormReference:
    """topic -> docno -> grade, and the topics a run is averaged over (sorted as trec_eval sorts its queries)."""

    def __init__(self, qrels: Dict[str, Dict[str, int]], topics: List[str]):
        self.qrels = qrels
        self.topics = topics


class FormRun:
    def __init__(self, run_id: str, topics):
        self.run_id = run_id
        self.topics = topics


# ------------------------------------------------------------------------------ measures by name ---
def trec_measure(text: str) -> Tuple[str, Params, str]:
    """(trec_eval measure, its parameters, the name of its one value) that a column's measure names: trec_eval's
    `-m` spelling (`ndcg_cut.10`, `P.10`, `map`) or an ir_measures name (`nDCG@10`, `P@10`, `AP`, `RR`, `R@100`).
    ConfigError with the close names when it names none, or names a measure a column cannot show."""
    from ...measures import ir_measures_names
    from ...measures.names import close_names, ir_measures_to_trec_eval
    from ...measures.trec import REGISTRY

    ir = ir_measures_names.parse(text)
    if ir is not None:
        if ir.kind != "trec":
            raise ConfigError("%s is not a trec_eval measure (ir_measures computes it itself); use e.g. P@10, "
                              "nDCG@10, MAP, Rprec, bpref, recall@100, RR" % text)
        if ir.rel != 1 or ir.judged_only or ir.gains:
            raise ConfigError("%s: write the measure without parameters; the form's relevance_level is the level "
                              "of every measure and its grades are the gains" % text)
        arg = ir.trec_arg
    else:
        arg = ir_measures_to_trec_eval(text) or text.strip()
    base, dot, written = arg.partition(".")
    measure = REGISTRY.get(base)
    if measure is None:
        close = close_names(text, list(REGISTRY) + ["nDCG@10", "P@10", "MAP", "RR", "R@100"], n=3)
        raise ConfigError("unknown measure %r%s" % (text, " (did you mean %s?)" % ", ".join(close) if close
                                                    else "; `runscore trec_eval -h` lists trec_eval's measures"))
    if measure.is_string or measure.summary == "none":
        raise ConfigError("%s has no value over the topics; a column shows a mean" % text)
    try:
        params = measure.parse_params(written) if dot else measure.params
    except ValueError as exc:
        raise ConfigError("%s: %s" % (text, exc))
    names = measure.value_names(params)
    if len(names) != 1:
        raise ConfigError("%s gives %d values (%s); a column shows one: give each its own column"
                          % (text, len(names), ", ".join(names)))
    return base, params, names[0]


def _column_key(value_name: str) -> str:
    return "".join(c if c.isalnum() and c.isascii() else "_" for c in value_name.lower()).strip("_")


# ------------------------------------------------------------------------------ pooling and assessing ---
class FormPooling(Pooling):
    """A depth-k pool of the rankings; one grade per pooled document becomes graded TREC qrels on the form's scale,
    in the file the form names."""

    def __init__(self, qrels_name: str, level: int):
        self.qrels_name = qrels_name
        self.level = level

    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        write_lines(os.path.join(folder, self.qrels_name),
                    ["%s 0 %s %s" % (topic, item, label) for (topic, item), label in judged.labels.items()])
        return {"topics": list(judged.topics)}

    def relevant(self, reference: FormReference) -> Dict[str, Set[str]]:
        return {topic: {doc for doc, grade in docs.items() if grade >= self.level}
                for topic, docs in as_dicts(reference.qrels).items()}

    def without(self, reference: FormReference, removed) -> FormReference:
        return FormReference(drop_items(reference.qrels, removed), list(reference.topics))


# ------------------------------------------------------------------------------ the task ---
class TrecRankingTask(Task):
    """A ranking task built from a form (module docstring); one instance a form."""

    def __init__(self, form: Dict[str, Any], path: str, lines):
        runs = form.get("runs") or {}
        self.max_docs = runs.get("max_docs", 1000)
        # every problem of the form at once, each at its line (an unknown measure and a primary that is no column
        # were told one at a time, the second only once the first was mended)
        problems = ConfigErrors()
        with problems.catch():
            common_fields(self, form, path, lines, "a file in TREC format (the run's name is the file's name), "
                          "whitespace-separated lines 'topic Q0 docno rank score run_tag', at most %d documents a "
                          "topic" % self.max_docs)
        if "description" not in form:
            self.description = "%s (TREC runs, graded qrels)" % form["title"]
        reference = form.get("reference") or {}
        self.qrels_name = reference.get("qrels", "qrels.txt")
        self.listed_topics = [str(t) for t in reference.get("topics") or ()]
        self.level = form.get("relevance_level", 1)
        for grade in form["grades"]:
            grade["key"] = str(grade["key"])          # `key: 1` is the key 1
        self.grades = sorted(form["grades"], key=lambda g: g["grade"])
        with problems.catch():
            self._check_grades(lines)
        with problems.catch():
            self._check_names(form.get("collection") or {}, lines)
        with problems.catch():
            self._measures, self._params, self.columns = self._read_columns(form, lines)
        problems.check()
        self.hidden_reference = ReferenceSize(None, len(self.grades), len(self.listed_topics) or None,
                                              "judged documents (a grade of %d)" % len(self.grades),
                                              "the form %s" % os.path.basename(path))
        self.per_topic_measures = COUNTS + tuple(c.measure for c in self.columns if c.measure not in COUNTS)
        self.per_topic_effectiveness = tuple(c.measure for c in self.columns if c.measure not in COUNTS)
        self.options = (
            Option("max_docs", self.max_docs, "Documents kept per topic, after sorting (trec_eval -M); the form "
                   "sets %d." % self.max_docs, minimum=1, maximum=10 ** 6, says=MAX_DOCS_SAYS),
            Option("tie_order", runs.get("tie_order", "desc"), "Order of documents with equal scores: docno "
                   "descending (trec_eval) or ascending.", ("desc", "asc"), says=TIE_ORDER_SAYS),
            Option("score_precision", "single", "Precision at which scores are compared: single (a C float, as "
                   "trec_eval 9.0.8 stores them) or double.", ("single", "double"), says=PRECISION_SAYS),
            Option("duplicates", "error", "A repeated (topic, docno): an error, or keep the first line and warn.",
                   ("error", "keep_first"), says=DUPLICATES_SAYS),
        )
        self.fixed_rules = (INTERP_SAYS["v9"],)           # the form's scoring interpolates as trec_eval 9 and 10
        self.rules_presets = (("trec_eval 9.0.8", {"tie_order": "desc", "score_precision": "single",
                                                   "max_docs": 1000}),)
        pooling = form.get("pooling") or {}
        self.pool_depth = pooling.get("depth", 100)
        collection = form.get("collection") or {}
        self.assessment = AssessmentForm(
            scales={"": LabelScale(tuple(str(g["grade"]) for g in self.grades), tuple(g["key"] for g in self.grades),
                                   tuple(g["label"] for g in self.grades),
                                   tuple(g.get("meaning", g["label"]) for g in self.grades),
                                   # a sheet's `2.0` (as a spreadsheet saves 2) is grade 2 when grades are positions
                                   numbered=[g["grade"] for g in self.grades] == list(range(len(self.grades))))},
            encoding=collection.get("encoding", "utf-8"))
        self.pooling = FormPooling(self.qrels_name, self.level)
        self.pooling.depth = self.pool_depth
        self.pooling.order = pooling.get("order", self.pooling.order)

    # ---------------------------------------------------------------------------- the form, checked ---
    def _check_grades(self, lines) -> None:
        problems = ConfigErrors()
        seen: Dict[Any, int] = {}
        for what in ("grade", "key", "label"):
            seen = {}
            for index, grade in enumerate(self.form["grades"]):
                value = grade[what].lower() if isinstance(grade[what], str) else grade[what]
                if value in seen:
                    problems.add(lines.error(["grades", index, what], "%s %s is also grade %d's; each grade has its "
                                             "own" % (what, grade[what], seen[value])))
                seen.setdefault(value, index)
        for index, grade in enumerate(self.form["grades"]):
            if grade["key"] in PAGE_KEYS:
                problems.add(lines.error(["grades", index, "key"], "key %s is the assessment page's own (%s move "
                                         "and show the topic); choose another" % (grade["key"], ", ".join(PAGE_KEYS))))
        if not any(g["grade"] >= self.level for g in self.grades):
            problems.add(lines.error(["relevance_level"], "no grade of the scale is at least %d: nothing would be "
                                     "relevant" % self.level))
        if not any(g["grade"] < self.level for g in self.grades):
            problems.add(lines.error(["relevance_level"], "every grade of the scale is at least %d: nothing would "
                                     "be judged not relevant" % self.level))
        problems.check()

    def _check_names(self, collection, lines) -> None:
        import codecs

        try:
            codecs.lookup(collection.get("encoding", "utf-8"))
        except LookupError:
            raise lines.error(["collection", "encoding"], "Python knows no encoding %r" % collection["encoding"])

    def _read_columns(self, form, lines):
        problems = ConfigErrors()
        measures: List[str] = list(COUNTS)
        params: Dict[str, Params] = {}
        columns: List[Column] = []
        keys: Dict[str, int] = {}
        prefix = self.id.replace("-", "_")
        for index, column in enumerate(form["columns"]):
            with problems.catch():
                try:
                    base, param, value_name = trec_measure(column["measure"])
                except ConfigError as exc:
                    raise lines.error(["columns", index, "measure"], exc.args[0])
                key = _column_key(value_name)
                if key in keys:
                    raise lines.error(["columns", index, "measure"], "the same measure as column %d" % keys[key])
                if len(prefix) + 1 + len(key) > MAX_KEY:
                    raise lines.error(["columns", index, "measure"], "leaderboard key %s_%s is longer than %d "
                                      "characters; shorten the form's name" % (prefix, key, MAX_KEY))
                keys[key] = index
                if base not in measures:
                    measures.append(base)
                if param is not None and base in params and tuple(params[base]) != tuple(param):
                    if _merge_kind(base) != LONG_CUTOFFS:
                        raise lines.error(["columns", index, "measure"], "%s with other parameters is already "
                                          "a column" % base)
                    param = Params.of(sorted(set(params[base]) | set(param)))      # P.5 and P.10: P.5,10
                if param is not None:
                    params[base] = param
                columns.append(Column(key, column.get("title") or column["measure"], value_name,
                                      precision=column.get("precision", form.get("precision", 4))))
        if problems.found:      # the primary checked against the columns as written, to be told with their problems
            with problems.catch():
                primary_named(form, lines)
        problems.check()
        columns = primary_first(columns, form, lines)
        return measures, params, columns

    # ---------------------------------------------------------------------------- discovery ---
    def sniff(self, head: str) -> bool:
        line = first_line(head)
        return line is not None and len(line.split()) == 6 and not line.lstrip().startswith("<")

    def answered_topics(self, run: ParsedRun) -> Optional[List[str]]:
        return list(run.data.topics)

    # ---------------------------------------------------------------------------- reference ---
    def public_reference(self, reference: FormReference) -> FormReference:
        """The topics only: they are given to participants, the judgements are not."""
        return FormReference({}, list(reference.topics))

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> FormReference:
        topics = list(self.listed_topics)
        if os.path.isfile(ref_path):
            path = ref_path
        else:
            config = read_task_yaml(ref_path)
            listed = config.get("topics")
            if listed is not None:
                if not isinstance(listed, list) or not listed:
                    raise ConfigError("topics must be a non-empty list of topic ids",
                                      os.path.join(ref_path, "task.yaml"))
                topics = [str(t) for t in listed]
            path = os.path.join(ref_path, self.qrels_name)
            if not os.path.isfile(path):
                raise ConfigError("the qrels file %s that the form %s names (reference: qrels:) is not in the "
                                  "reference folder" % (self.qrels_name, self.form_path), ref_path)
        qrels = read_qrels(path)
        self._check_scale(path, qrels)
        return FormReference(qrels, sorted(set(topics or qrels)))

    def _check_scale(self, path: str, qrels) -> None:
        """A grade outside the form's scale, at its line, naming the scale (a typo such as 5 for 3 would count as a
        very relevant document in nDCG)."""
        scale = {g["grade"] for g in self.grades}
        if all(grade in scale for docs in qrels.values() for grade in docs.values()):
            return
        problems = ConfigErrors()
        named = ", ".join("%d (%s)" % (g["grade"], g["label"]) for g in self.grades)
        for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
            fields = line.split()
            if len(fields) >= 4 and int(fields[3]) not in scale:
                problems.add(ConfigError("grade %s is not on the form's scale: %s" % (fields[3], named), path,
                                         line_no))
        problems.check()

    # ---------------------------------------------------------------------------- runs ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[FormReference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)           # the size cap and the submission's budget (textfile.py)
        if self.wrong_layout(text, diags, None, 6):
            return []
        run, found = parse_trec_run(text.encode("utf-8"), display, max_errors=diags.max_errors,
                                    keep_first_duplicate=options["duplicates"] == "keep_first")
        for item in found.items:
            diags.add(item)
        if found.has_errors:
            return []
        max_docs = options["max_docs"]
        for topic, topic_run in run.topics.items():
            if len(topic_run.docnos) > max_docs:
                diags.warning_once("max_docs", topic_run.lines[0], "topic %s has %d documents; the %d best by score "
                                   "are evaluated" % (topic, len(topic_run.docnos), max_docs))
        if reference is not None:
            known = set(reference.topics)
            unknown = [(topic, topic_run) for topic, topic_run in run.topics.items() if topic not in known]
            if unknown:     # counted in topics and lines: "4 more lines like it" said 4 topics of 100 lines each
                lines = sum(len(topic_run.docnos) for _, topic_run in unknown)
                first, first_run = unknown[0]
                if len(unknown) == 1:
                    message = "topic %s is not a topic of %s; its %d line%s %s ignored" % (
                        first, self.id, lines, "" if lines == 1 else "s", "is" if lines == 1 else "are")
                else:
                    message = "%d topics are not topics of %s (%s%s); their %d lines are ignored" % (
                        len(unknown), self.id, ", ".join(t[:40] for t, _ in unknown[:5]),
                        ", ..." if len(unknown) > 5 else "", lines)
                diags.warning(first_run.lines[0], message, "unknown_topic")
        name = os.path.basename(display.rstrip("/")) or run.run_id
        return [ParsedRun(name, display, FormRun(run.run_id, run.topics))]

    def _dtype(self, options):
        return np.float32 if options["score_precision"] == "single" else np.float64

    def score(self, run: ParsedRun, reference: FormReference, options: Dict[str, Any]) -> RunScores:
        per_topic, summary = evaluate_rankings(run.data.topics, reference.qrels, reference.topics, self._measures,
                                               self.level, TrecOptions(interp_cutoff="v9"), options["tie_order"],
                                               options["max_docs"], self._params, self._dtype(options))
        summary["num_q"] = float(len(reference.topics))
        notes = []
        without = [t for t in reference.topics
                   if not any(g >= self.level for g in reference.qrels.get(t, {}).values())]
        if without:
            notes.append("%d of %d topic(s) have no document relevant at level %d; every measure is 0 on them "
                         "(trec_eval -c)" % (len(without), len(reference.topics), self.level))
        return RunScores(summary, per_topic, notes)

    def ranked_lists(self, run: ParsedRun, options: Dict[str, Any],
                     depth: Optional[int] = None) -> Dict[str, List[RankedItem]]:
        out = {}
        for topic, topic_run in run.data.topics.items():
            docnos = ranked_docnos(topic_run, options["tie_order"], options["max_docs"], self._dtype(options))
            out[topic] = [RankedItem(doc, None, doc) for doc in docnos[:depth]]
        return out

    # ---------------------------------------------------------------------------- the competition's pages ---
    def about(self) -> str:
        """What a participant reads of the form on the task page: the grade scale and how runs are scored."""
        lines = ["## Relevance grades", "",
                 "The assessors grade each judged document on this scale; grades of %d and above count as relevant "
                 "for the binary measures (MAP, P@k, recall, R-precision), and the grades themselves are the gains "
                 "of nDCG." % self.level, "", "| grade | label | meaning |", "|---|---|---|"]
        lines += ["| %d | %s | %s |" % (g["grade"], _cell(g["label"]), _cell(g.get("meaning", ""))) for g in self.grades]
        lines += ["", "## Scoring", "",
                  "Runs are scored as trec_eval 9.0.8 scores them: documents are ranked by score (compared as a C "
                  "float), ties by document id in descending order, and the first %d of a topic are evaluated. Every "
                  "measure is averaged over every topic of the reference data (trec_eval -c): a topic a run leaves "
                  "out counts 0, and a topic without a relevant document counts 0 in every measure." % self.max_docs,
                  ""]
        return "\n".join(lines)

    # ---------------------------------------------------------------------------- the competition's samples ---
    def sample_files(self) -> Tuple[Dict[str, str], Dict[str, str]]:
        """(sample reference folder, sample submission folder) as {file name: text}, made from the form alone: two
        topics with a document of every grade of the scale, and a run that retrieves them in another order. What
        the dry-run phase and the starting kit score, so that an organiser's real data never reaches the kit."""
        topics = [str(t) for t in (self.listed_topics[:2] or ["1", "2"])]
        qrels, run = [], []
        for t_index, topic in enumerate(topics):
            docs = ["doc-%s-%d" % (topic, i) for i in range(len(self.grades) + 2)]
            for d_index, doc in enumerate(docs[:len(self.grades)]):
                qrels.append("%s 0 %s %d" % (topic, doc, self.grades[(d_index + t_index) % len(self.grades)]["grade"]))
            for rank, doc in enumerate(reversed(docs), 1):
                run.append("%s Q0 %s %d %.1f sample" % (topic, doc, rank, float(len(docs) - rank + 1)))
        config = "task: %s\ntopics: %s\n" % (self.id, json.dumps(topics))
        name = "sample1"
        if self.name_pattern and not self.claims_name(name):
            name = next((n for n in ("run1", "sample_run1", "sample-1", "SAMPLE1") if self.claims_name(n)), name)
        return ({self.qrels_name: "\n".join(qrels) + "\n", "task.yaml": config},
                {name: "\n".join(run) + "\n"})


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _merge_kind(base: str) -> Optional[str]:
    from ...measures.trec import REGISTRY

    return REGISTRY[base].param_kind


def build(form: Dict[str, Any], path: str, lines) -> Task:
    return TrecRankingTask(form, path, lines)


TEMPLATE = """\
# A ranking task of your own: TREC runs scored against graded TREC qrels (docs/own-campaign.md).
# Check it with `runscore validate --form {name}.yaml RUN`; every command that takes --task takes --form.
kind: trec-ranking
# The task's id: lower-case letters, digits and '-'. Leaderboard keys are <name>_<column> (at most 36 characters).
name: {name}
title: {title}
description: {title}, scored with trec_eval 9.0.8's measures

runs:
  # Documents of a topic that are evaluated, best score first (trec_eval -M); more are a warning.
  max_docs: 1000
  # Documents of equal score: docno descending, as trec_eval ranks them (desc), or ascending (asc).
  tie_order: desc
  # Runs of one submission a hidden phase scores (what a team may learn of the hidden qrels grows with it).
  runs_per_submission: 1
  # name_pattern: "[A-Za-z0-9_-]+"      # a regular expression run file names must match (optional)
  # A run's team when the platform does not say whose it is (pool and report of run files): name-without-number
  # (run1, run2 -> run), name (each run its own team), or a regular expression whose first group is the team.
  team: name-without-number

reference:
  # The qrels file in the reference folder (--ref DIR), TREC format: topic 0 docno grade.
  qrels: qrels.txt
  # topics: [1, 2, 3]                   # the topics a run is averaged over (default: every topic of the qrels)

# The grade scale, lowest first: every grade of the qrels must be one of these. `key` types the grade on the
# assessment pages (not j, k, n or t: the page's own); `label` and `meaning` are what assessors and readers see.
grades:
  - {grade: 0, label: not relevant, key: "0", meaning: "nothing of the topic"}
  - {grade: 1, label: partially relevant, key: "1", meaning: "touches the topic"}
  - {grade: 2, label: relevant, key: "2", meaning: "answers part of the topic"}
  - {grade: 3, label: highly relevant, key: "3", meaning: "answers the topic"}
# Grades at or above this count as relevant for binary measures (MAP, P@k, recall): trec_eval -l.
relevance_level: 1

# Leaderboard columns: trec_eval names (ndcg_cut.10, P.10, map, Rprec, bpref, recip_rank, recall.100) or
# ir_measures names (nDCG@10, P@10, AP, RR, R@100). The primary column ranks the leaderboard.
columns:
  - {measure: nDCG@10}
  - {measure: MAP}
  - {measure: P@10}
primary: nDCG@10
precision: 4

pooling:
  depth: 100                          # ranks 1..depth of every run are judged (runscore pool --depth)
  order: random                       # of the items on the assessors' pages: random (seeded; tells nothing of the
                                      # systems), docid, or ntcirpool (most-retrieved first: tells the consensus)

collection:
  encoding: utf-8                     # of the collection's documents shown to assessors
"""
