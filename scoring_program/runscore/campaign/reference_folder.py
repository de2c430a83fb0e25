"""Checked judgements -> the task's reference folder, in the task's documented formats, with its task.yaml.

Why a module of its own: the folder must be exactly what `runscore score --ref` and `make bundle REFERENCE=` read,
so each writer below follows its task's loader (tasks/*), and the folder is loaded by that very loader before it
is moved into place: a folder that the scorer would refuse is never written.

* ntcir1-adhoc: `rel1` (S, A relevant) and `rel2` (S, A, B relevant), `topic<TAB>grade<TAB>doc<TAB>0|1` as the
  NII files write them (specs/ntcir1-adhoc.md 1).
* temporalia-tir: `qrels.txt`, NTCIREVAL `subtopic doc_id Lk` (specs/temporalia.md 2.5).
* r2c2-pr: `pr_qrels.tsv`, `qID<TAB>passage_key<TAB>Lk` with a header (specs/r2c2.md 4.3).
* r2c2-ac: `ac_answer_labels.tsv` and `ac_nugget_labels.tsv` (keyed by the cited passage: a repeated NuggetNum
  cites several passages), the AC runs as they were assessed (`assessed_runs/`) and the official PR runs
  (`pr_runs/`), from the pool folder. A nugget is resolved as the pool resolved it: against the official PR runs
  first, then the PR runs its own submission sent beside it (kept beside the run in the pool's runs/NN/), never
  another submission's copy. A nugget unit labelled 1 is entailed; 2 is entailed and helpful, which
  makes it relevant in a run whose answer to that question is labelled correct (specs/r2c2.md 2); a nugget whose
  passage could not be resolved was not pooled and gets entailed = relevant = 0, as the scorer counts it.
"""
import os
import shutil
import tempfile
from typing import Dict, List

import yaml

from ..errors import ConfigError, Diagnostics, RunError
from ..textfile import numbered_lines, read_text
from .judgements import Judgements
from .pool import ANSWER, NUGGET, text_hash

NTCIR1_RELEVANT = {"rel1": ("S", "A"), "rel2": ("S", "A", "B")}


def write_reference(judgements: Judgements, pool_dir: str, target: str) -> List[str]:
    """Write the reference folder `target` (which must not exist or be empty); returns the files written."""
    if os.path.exists(target) and (not os.path.isdir(target) or os.listdir(target)):
        raise ConfigError("%s exists and is not an empty folder; write the reference folder to a new path" % target)
    parent = os.path.dirname(os.path.abspath(target))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".reference-", dir=parent)
    try:
        writer = {"ntcir1-adhoc": _ntcir1, "temporalia-tir": _tir, "r2c2-pr": _pr, "r2c2-ac": _ac}[judgements.task_id]
        try:
            config = writer(judgements, pool_dir, staging)
        except RunError as exc:      # a file of the pool folder no longer reads: the organiser's folder (exit 2)
            raise ConfigError("a file of the pool folder cannot be read again: %s" % exc.diagnostic.message,
                              exc.diagnostic.path, exc.diagnostic.line)
        config = dict([("task", judgements.task_id)] + list(config.items()))
        with open(os.path.join(staging, "task.yaml"), "w", encoding="utf-8") as handle:
            handle.write("# written by `runscore judgements` from %d sheet(s); see docs/campaign.md\n"
                         % len(judgements.sheets))
            yaml.safe_dump(config, handle, sort_keys=False, allow_unicode=True)
        _check_loads(judgements.task_id, staging)
        if os.path.isdir(target):
            os.rmdir(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(os.path.relpath(os.path.join(d, f), target) for d, _, fs in os.walk(target) for f in fs)


def _check_loads(task_id: str, folder: str) -> None:
    from ..pipeline import load_reference
    from ..tasks import get_task

    try:
        load_reference(get_task(task_id), folder)
    except ConfigError as exc:
        raise ConfigError("the reference folder written would not load (a defect of runscore, please report it): "
                          "%s" % exc.one_line())


def _write(path: str, lines: List[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(line + "\n" for line in lines))


def _ntcir1(j: Judgements, pool_dir: str, out: str) -> Dict:
    for level, relevant in NTCIR1_RELEVANT.items():
        _write(os.path.join(out, level), ["%s\t%s\t%s\t%d" % (topic, label, item, int(label in relevant))
                                          for (topic, item), label in j.labels.items()])
    return {"qrels": {"rel1": "rel1", "rel2": "rel2"}, "topics": j.topics}


def _tir(j: Judgements, pool_dir: str, out: str) -> Dict:
    _write(os.path.join(out, "qrels.txt"), ["%s %s %s" % (topic, item, label)
                                            for (topic, item), label in j.labels.items()])
    return {"qrels": "qrels.txt", "options": {"qrels_format": "ntcir"}}


def _pr(j: Judgements, pool_dir: str, out: str) -> Dict:
    _write(os.path.join(out, "pr_qrels.tsv"), ["qID\tpassage_key\tLk"] +
           ["%s\t%s\t%s" % (topic, item, label) for (topic, item), label in j.labels.items()])
    return {"qrels": "pr_qrels.tsv", "topics": j.topics}


def _ac(j: Judgements, pool_dir: str, out: str) -> Dict:
    from ..tasks.r2c2.ac_format import parse_ac_run
    from ..tasks.r2c2.passages import PassagePool, submission_pr_runs
    from ..tasks.r2c2.pr_format import key_text, normalise_run_name, parse_pr_run

    pr_dir = os.path.join(pool_dir, "pr_runs")
    official = {}
    if os.path.isdir(pr_dir):
        for name in sorted(os.listdir(pr_dir)):
            path = os.path.join(pr_dir, name)         # named so in messages: a path that exists
            official[name] = parse_pr_run(path, path, Diagnostics(path))
    shutil.copytree(pr_dir, os.path.join(out, "pr_runs")) if os.path.isdir(pr_dir) else \
        os.makedirs(os.path.join(out, "pr_runs"))
    os.makedirs(os.path.join(out, "assessed_runs"))
    answers = ["run_id\tqID\tcorrect"]
    nuggets = ["run_id\tqID\tNuggetNum\tPRrunname\tPassageRank\tentailed\trelevant"]
    used = set()
    assessed: Dict[str, str] = {}
    for name, path in _pooled_files(pool_dir):
        ac_path = os.path.join(pool_dir, path)
        try:
            ac_run = parse_ac_run(ac_path, os.path.basename(path), Diagnostics(name), check_name=False)
        except RunError as exc:       # the pool's copy no longer reads: the pool folder was changed
            raise ConfigError("the pooled run cannot be read again: %s" % exc.diagnostic.message, ac_path,
                              exc.diagnostic.line)
        if ac_run.name in assessed:
            raise ConfigError("two pooled runs are named %s (%s and %s): the r2c2-ac reference keys labels by run "
                              "name, so it cannot hold both; pool again without --allow-same-names once the teams "
                              "have settled the name" % (ac_run.name, assessed[ac_run.name], name),
                              os.path.join(pool_dir, "runs.tsv"))
        assessed[ac_run.name] = name
        pr_runs = dict(submission_pr_runs(ac_path, ac_path, Diagnostics(ac_path), PassagePool(official)))
        pr_runs.update(official)
        shutil.copyfile(ac_path, os.path.join(out, "assessed_runs", ac_run.name))
        for qid, block in ac_run.blocks.items():
            if not block.answered:
                continue
            correct = j.labels.get((qid, "%s:%s" % (ANSWER, text_hash(" ".join(block.answer.split())))))
            if correct is None:
                raise ConfigError("run %s question %s: the answer has no label; the pool folder does not match "
                                  "the pool sheet" % (ac_run.name, qid), os.path.join(pool_dir, path))
            used.add((qid, "%s:%s" % (ANSWER, text_hash(" ".join(block.answer.split())))))
            answers.append("%s\t%s\t%s" % (ac_run.name, qid, correct))
            written = {}
            for nugget in block.nuggets:
                pr_name = normalise_run_name(nugget.pr_run)
                pr_run = pr_runs.get(pr_name)
                entailed = relevant = 0
                if pr_run is not None and pr_run.passage(qid, nugget.rank) is not None:
                    item = "%s:%s::%s" % (NUGGET, key_text(pr_run.key(qid, nugget.rank, "content")),
                                          text_hash(" ".join(nugget.text.split())))
                    label = j.labels.get((qid, item))
                    used.add((qid, item))
                    if label is None:
                        raise ConfigError("run %s question %s nugget %d has no label; the pool folder does not "
                                          "match the pool sheet" % (ac_run.name, qid, nugget.number),
                                          os.path.join(pool_dir, path))
                    entailed = int(label in ("1", "2"))
                    relevant = int(label == "2" and correct == "1")
                key = (nugget.number, pr_name, nugget.rank)
                if key in written:       # the same NuggetNum citing the same passage twice: one label line,
                    entailed = min(entailed, written[key][0])     # the stricter reading when texts differ
                    relevant = min(relevant, written[key][1])
                written[key] = (entailed, relevant)
            for (number, pr_name, rank), (entailed, relevant) in written.items():
                nuggets.append("%s\t%s\t%d\t%s\t%d\t%d\t%d" % (ac_run.name, qid, number, pr_name, rank, entailed,
                                                               relevant))
    unused = [key for key in j.labels if key not in used]
    if unused:
        raise ConfigError("%d labelled unit(s) belong to no pooled run, e.g. topic %s item %s: the pool folder's runs "
                          "(runs.tsv, pr_runs/) do not match its pool sheet" % (len(unused), unused[0][0], unused[0][1]),
                          pool_dir)
    _write(os.path.join(out, "ac_answer_labels.tsv"), answers)
    _write(os.path.join(out, "ac_nugget_labels.tsv"), nuggets)
    return {"topics": j.topics, "pr_runs": "pr_runs", "answer_labels": "ac_answer_labels.tsv",
            "nugget_labels": "ac_nugget_labels.tsv", "assessed_runs": "assessed_runs"}


def _pooled_files(pool_dir: str):
    """(run name, file relative to the pool folder) from the pool's runs.tsv, split on \\n only (a team name may
    hold U+2028 or another character str.splitlines() would end a line at), its cells read as the pool wrote them
    (campaign/sheet.py's escaping and spreadsheet quoting)."""
    from .sheet import read_cell

    path = os.path.join(pool_dir, "runs.tsv")
    if not os.path.isfile(path):
        raise ConfigError("the pool folder has no runs.tsv (written by `runscore pool`)", pool_dir)
    lines = list(numbered_lines(read_text(path, error_class=ConfigError)))
    if not lines or lines[0][1].split("\t") != ["run", "team", "file", "submission"]:
        raise ConfigError("the first line must be run, team, file, submission (TAB-separated), as `runscore pool` "
                          "writes it", path, 1)
    out = []
    for line_no, line in lines[1:]:
        fields = [read_cell(f) for f in line.split("\t")]
        if len(fields) != 4:
            raise ConfigError("expected run, team, file, submission", path, line_no)
        if os.path.isabs(fields[2]) or ".." in fields[2].replace("\\", "/").split("/"):
            raise ConfigError("file %r is not inside the pool folder" % fields[2][:80], path, line_no)
        if not os.path.isfile(os.path.join(pool_dir, fields[2])):
            raise ConfigError("file %r is not in the pool folder" % fields[2][:80], path, line_no)
        out.append((fields[0], fields[2]))
    return out
