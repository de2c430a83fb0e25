"""r2c2-ac's part of the campaign: its pool of units and the reference folder its labels become (tasks/pooling.py).

Why units and no depth: an AC run answers each question with one answer and a few nugget lines, so every unit of
every run is judged: each distinct answer (whitespace-normalised text; judged correct or not) and each distinct
nugget with the passage it cites (passage content key + nugget text; judged for entailment and help). The same
text is judged once however many runs gave it. A nugget cites a passage of a PR run: the organiser's official PR
runs (`runscore pool --pr-runs`, copied into the pool folder's pr_runs/) first, then the PR runs its own submission
sent beside it (never another submission's copy), as the platform resolved them. A nugget citing no such passage
is not pooled: the scorer counts it as not entailed whatever a label says (option unresolved_nuggets).

The reference folder (specs/r2c2.md 2): `ac_answer_labels.tsv` and `ac_nugget_labels.tsv` (keyed by the cited
passage: a repeated NuggetNum cites several passages), the AC runs as they were assessed (`assessed_runs/`) and
the official PR runs (`pr_runs/`), from the pool folder. A nugget unit labelled 1 is entailed; 2 is entailed and
helpful, which makes it relevant in a run whose answer to that question is labelled correct; a nugget whose
passage could not be resolved was not pooled and gets entailed = relevant = 0, as the scorer counts it.
"""
import os
import shutil
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from ...errors import ConfigError, Diagnostics, RunError
from ..pooling import JudgedPool, Pooling, PoolUnit, text_hash, write_lines
from .ac_format import parse_ac_run
from .passages import PassagePool, submission_pr_runs
from .pr_format import key_text, normalise_run_name, parse_pr_run

ANSWER = "answer"
NUGGET = "nugget"
PR_RUNS = "pr_runs"


def answer_item(answer: str) -> str:
    """The pool's key of an answer: its whitespace-normalised text, hashed."""
    return "%s:%s" % (ANSWER, text_hash(" ".join(answer.split())))


def nugget_item(pr_run, qid: str, nugget) -> str:
    """The pool's key of a nugget: the content key of the passage it cites, and its text hashed."""
    return "%s:%s::%s" % (NUGGET, key_text(pr_run.key(qid, nugget.rank, "content")),
                          text_hash(" ".join(nugget.text.split())))


class ACPooling(Pooling):
    ranked = False
    columns_after_runs = ("unit",)
    columns_after_text = ("passage",)
    items_have_text = True
    official_folder = PR_RUNS
    units_pooled = "every answer and nugget"

    def read_official(self, paths: Sequence[str]) -> Dict[str, Any]:
        """The official PR runs the nuggets cite, by normalised name, read by the PR task's own reader; an invalid
        one, or two files of one name, is the organiser's problem (exit 2)."""
        files = []
        for path in paths:
            if os.path.isdir(path):
                files.extend(os.path.join(path, f) for f in sorted(os.listdir(path)) if not f.startswith("."))
            elif os.path.isfile(path):
                files.append(path)
            else:
                raise ConfigError("PR run %r does not exist" % path)
        runs: Dict[str, Any] = {}
        for path in files:
            diags = Diagnostics(path)
            pr_run = parse_pr_run(path, path, diags)
            if diags.has_errors:
                raise ConfigError("PR run is invalid: %s" % diags.first_error(), path)
            if pr_run.name in runs:
                raise ConfigError("two official PR runs are named %s (%s and this file)"
                                  % (pr_run.name, runs[pr_run.name].path), path)
            runs[pr_run.name] = pr_run
        return runs

    def units(self, run, path: str, official: Mapping[str, Any]) -> Tuple[List[PoolUnit], int]:
        """The answers and resolved nuggets of one AC run (module docstring), and how many nuggets cite nothing."""
        pr_runs = _pr_runs_beside(path, official)
        units: List[PoolUnit] = []
        unresolved = 0
        for qid, block in run.data.run.blocks.items():
            if not block.answered:
                continue
            answer = " ".join(block.answer.split())
            units.append(PoolUnit(qid, answer_item(answer), answer, None, (), (("unit", ANSWER),)))
            for nugget in block.nuggets:
                pr_name = normalise_run_name(nugget.pr_run)
                pr_run = pr_runs.get(pr_name)
                passage = pr_run.passage(qid, nugget.rank) if pr_run is not None else None
                if passage is None:
                    unresolved += 1
                    continue
                units.append(PoolUnit(qid, nugget_item(pr_run, qid, nugget), " ".join(nugget.text.split()),
                                      passage.doc_id, (nugget.number, pr_name, nugget.rank),
                                      (("unit", NUGGET), ("passage", passage.text))))
        return units, unresolved

    def write_reference(self, judged: JudgedPool, folder: str) -> Dict[str, Any]:
        pool_dir = judged.pool_dir
        pr_dir = os.path.join(pool_dir, PR_RUNS)
        official = {}
        if os.path.isdir(pr_dir):
            for name in sorted(os.listdir(pr_dir)):
                path = os.path.join(pr_dir, name)         # named so in messages: a path that exists
                official[name] = parse_pr_run(path, path, Diagnostics(path))
        shutil.copytree(pr_dir, os.path.join(folder, PR_RUNS)) if os.path.isdir(pr_dir) else \
            os.makedirs(os.path.join(folder, PR_RUNS))
        os.makedirs(os.path.join(folder, "assessed_runs"))
        labels = judged.labels
        answers = ["run_id\tqID\tcorrect"]
        nuggets = ["run_id\tqID\tNuggetNum\tPRrunname\tPassageRank\tentailed\trelevant"]
        used = set()
        assessed: Dict[str, str] = {}
        for name, path in judged.pooled_runs():
            ac_path = os.path.join(pool_dir, path)
            try:
                ac_run = parse_ac_run(ac_path, os.path.basename(path), Diagnostics(name), check_name=False)
            except RunError as exc:       # the pool's copy no longer reads: the pool folder was changed
                raise ConfigError("the pooled run cannot be read again: %s" % exc.diagnostic.message, ac_path,
                                  exc.diagnostic.line)
            if ac_run.name in assessed:
                raise ConfigError("two pooled runs are named %s (%s and %s): the r2c2-ac reference keys labels by "
                                  "run name, so it cannot hold both; pool again without --allow-same-names once the "
                                  "teams have settled the name" % (ac_run.name, assessed[ac_run.name], name),
                                  os.path.join(pool_dir, "runs.tsv"))
            assessed[ac_run.name] = name
            pr_runs = _pr_runs_beside(ac_path, official)
            shutil.copyfile(ac_path, os.path.join(folder, "assessed_runs", ac_run.name))
            for qid, block in ac_run.blocks.items():
                if not block.answered:
                    continue
                key = (qid, answer_item(block.answer))
                correct = labels.get(key)
                if correct is None:
                    raise ConfigError("run %s question %s: the answer has no label; the pool folder does not match "
                                      "the pool sheet" % (ac_run.name, qid), ac_path)
                used.add(key)
                answers.append("%s\t%s\t%s" % (ac_run.name, qid, correct))
                written: Dict[tuple, Tuple[int, int]] = {}
                for nugget in block.nuggets:
                    pr_name = normalise_run_name(nugget.pr_run)
                    pr_run = pr_runs.get(pr_name)
                    entailed = relevant = 0
                    if pr_run is not None and pr_run.passage(qid, nugget.rank) is not None:
                        key = (qid, nugget_item(pr_run, qid, nugget))
                        label = labels.get(key)
                        used.add(key)
                        if label is None:
                            raise ConfigError("run %s question %s nugget %d has no label; the pool folder does not "
                                              "match the pool sheet" % (ac_run.name, qid, nugget.number), ac_path)
                        entailed = int(label in ("1", "2"))
                        relevant = int(label == "2" and correct == "1")
                    cited = (nugget.number, pr_name, nugget.rank)
                    if cited in written:     # the same NuggetNum citing the same passage twice: one label line,
                        entailed = min(entailed, written[cited][0])     # the stricter reading when texts differ
                        relevant = min(relevant, written[cited][1])
                    written[cited] = (entailed, relevant)
                for (number, pr_name, rank), (entailed, relevant) in written.items():
                    nuggets.append("%s\t%s\t%d\t%s\t%d\t%d\t%d" % (ac_run.name, qid, number, pr_name, rank,
                                                                   entailed, relevant))
        unused = [key for key in labels if key not in used]
        if unused:
            raise ConfigError("%d labelled unit(s) belong to no pooled run, e.g. topic %s item %s: the pool folder's "
                              "runs (runs.tsv, pr_runs/) do not match its pool sheet"
                              % (len(unused), unused[0][0], unused[0][1]), pool_dir)
        write_lines(os.path.join(folder, "ac_answer_labels.tsv"), answers)
        write_lines(os.path.join(folder, "ac_nugget_labels.tsv"), nuggets)
        return {"topics": judged.topics, "pr_runs": PR_RUNS, "answer_labels": "ac_answer_labels.tsv",
                "nugget_labels": "ac_nugget_labels.tsv", "assessed_runs": "assessed_runs"}


def _pr_runs_beside(path: str, official: Mapping[str, Any]) -> Dict[str, Any]:
    """The PR runs the nuggets of the AC run in file `path` are resolved against, as the platform resolved them:
    the official ones first, then the PR runs its own submission holds beside it (never another submission's)."""
    merged = dict(submission_pr_runs(path, path, Diagnostics(path), PassagePool(dict(official))))
    merged.update(official)
    return merged


POOLING = ACPooling()
