"""The competition's pages (Markdown for Codabench, HTML for CodaLab v1.5), written from the task registry.

Why generated: a page that restates a run format, an option default or a leaderboard key by hand drifts from
the code the day someone edits a task. Every fact here is read from the task declarations (runscore.tasks) and
from the task owners' docs/<task-id>.md, so regenerating the bundle is the only way to change them.
"""
import html
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from .. import __version__
from ..tasks.base import Task
from .admission import ADMIT_INTERVAL

SUBMISSION_RULES = """\
* A submission is **one zip file of run files** of this competition's task (the files themselves, not a folder
  holding them; a single top-level folder is tolerated). Each file is recognised as a run by its name or,
  failing that, by its content. A submission holding no run of this task is rejected, with a message naming
  the expected file names; runs of other tasks belong to those tasks' own competitions.
* **Result files only.** A file named `metadata` or `metadata.yaml` turns the upload into a program on
  Codabench: such a submission is rejected in every phase, never scored. `__MACOSX/`, `.DS_Store` and other
  dotfiles are ignored.
* **Strict validation:** if any run file breaks a rule of its format, the whole submission fails and nothing is
  scored. The scoring log (stderr) lists every error of every file as `FILE:LINE: error: message`. Warnings
  do not fail a submission; they are shown in the log and in the detailed results.
* **A submission is one team's.** Runs naming several teams or groups are an error, and the campaign's cap on
  runs counts the runs of the submission, whatever names the files hold.
* When a submission holds several runs, all of them are scored and shown in the detailed results. In the formal
  phase the leaderboard row shows the team's **primary run**, its lowest run number (`ntc1`, `TEAM-AC-1`,
  `tqic` run_id `run1`, `bigIR_run01.json`); in the dry run it shows the best run by the primary measure (the
  first column). The scoring log and the detailed results say which run it is.
* Check your submission before you upload it, with the same code: `runscore check submission.zip` (see the
  *Data and starting kit* page).
"""

TERMS = """\
# Terms and conditions

* The reference data (relevance judgements, gold answers, labels) of the formal phase are hidden and remain
  the property of the evaluation campaign that produced them; they are distributed by the campaign organisers
  under their own agreements. The sample data of the dry-run phase are synthetic, made up for this
  competition, and may be used freely.
* Submit only runs produced by your own systems. Do not try to obtain the hidden reference data from the
  platform or to infer it by repeated submissions; the organisers may cap the number of submissions and
  remove entries that break these terms.
* Scores shown on the leaderboard are computed by the open-source scoring program shipped with this
  competition (`runscore` %s); the program, not the leaderboard, is the reference for how each measure is
  computed. Report the runscore version together with any score you publish.
* By submitting you agree that your team name, your scores and the names of your runs are shown on the
  public leaderboard.
""" % __version__


LEADERBOARD_V2 = """\
Every submission that is scored (the scoring program exits 0) is **posted to the leaderboard at once**, one row
per submission: you do not add it by hand, and you cannot remove it (the leaderboard's submission rule is
`Force_Latest_Multiple`). So a team that wants each of its runs ranked submits each run on its own; a submission
of several runs takes one row, showing its primary run (the dry run: its best run). Every row fills every column. Rows are ordered by the
primary column, then by the other columns from left to right, then by submission time. A submission that fails
(exit 1) is never posted: its scoring error log lists every error.
"""

LEADERBOARD_V1 = """\
This competition runs on legacy CodaLab (v1.5 format). There **each participant has one row**: every scored
submission is posted at once and replaces your earlier row (`force_submission_to_leaderboard`), so the
leaderboard shows your latest scored submission, not your best. To rank another run, submit it; to go back to
an earlier run, submit it again. A submission of several runs shows its primary run (the dry run: its best
run). Rows are ordered by the
primary column. A submission that fails is never posted.
"""


def markdown_pages(tasks: Sequence[Task], title: str, docs_dir: Optional[str], v1: bool = False,
                   baselines: Optional[Sequence[str]] = None,
                   formal_detail: Optional[str] = "aggregate",
                   formal_data: str = "worker", schemas: Optional[Sequence[str]] = None) -> List[Tuple[str, str, str]]:
    """(page title, file name under pages/, Markdown text) for every page, overview first; `baselines`: the
    kit's baseline files (None: not known, described in general); formal_detail: what the formal phase shows
    (codabench/disclosure.py), said on the overview (None: the formal phase collects runs); formal_data: where
    its reference data is, "worker" (the organisers' machine) or "zip" (published with the competition)."""
    pages = [("Overview", "overview.md", overview_page(tasks, title, v1, formal_detail, formal_data)),
             ("Evaluation", "evaluation.md", evaluation_page(tasks)),
             ("Data and starting kit", "data.md", data_page(tasks, baselines, schemas))]
    for task in tasks:
        pages.append(("Task %s" % task.id, "task-%s.md" % task.id, task_page(task, docs_dir)))
    return pages


def overview_page(tasks: Sequence[Task], title: str, v1: bool = False,
                  formal_detail: Optional[str] = "aggregate", formal_data: str = "worker") -> str:
    from .disclosure import what_level_shows

    unit = _unit(tasks)
    if formal_detail is None:
        formal = ("* **Formal run**: your runs are checked as in the dry run and each gets a receipt (run name, "
                  "team, line count, SHA-256 of the file); nothing is scored until the campaign's judgements exist.")
    else:
        formal = ("* **Formal run**: scored against the campaign's hidden reference data. Its detailed results and "
                  "logs show %s.%s" % (what_level_shows(formal_detail, unit), "" if formal_detail == "full" else
                                       " Why: a page that showed per-question results would give the hidden "
                                       "answers away to anyone who submits a few probe runs."))

    lines = ["# %s" % title, "",
             "This competition validates and scores runs of one task of an information-retrieval or "
             "question-answering evaluation campaign exactly as the campaign's official tools do, with the "
             "open-source scoring program `runscore` %s. Each task of the campaign has its own competition." %
             __version__, "",
             "## Task", "", "| task id | task | what it scores |", "|---|---|---|"]
    for task in tasks:
        lines.append("| `%s` | %s | %s |" % (task.id, _cell(task.title), _cell(task.description)))
    lines += ["", "The task's page gives its run format, options and measures.", "",
              "## Phases", "",
              "* **Dry run**: scored against the small synthetic sample reference data shipped in the starting "
              "kit. Use it to check that your files are accepted and read the detailed results. Its detailed "
              "results show %s (its reference data is public)." % what_level_shows("full", unit),
              formal, ""] + ([] if v1 else ["## Who sees what", ""] + who_sees_what(formal_detail, formal_data)) + [
              "## How to submit", "", SUBMISSION_RULES,
              "## Leaderboard", "", LEADERBOARD_V1 if v1 else LEADERBOARD_V2,
              "The columns are listed on the *Evaluation* page. Each submission also gets a detailed results "
              "page: per run, its measures, its receipt and the validation warnings, with per-%s tables and "
              "charts where the phase shows them (above)." % unit, ""]
    return "\n".join(lines)


def _unit(tasks: Sequence[Task]) -> str:
    """What the competition's tasks call a topic (Task.topic_unit: item, question), when they agree; else topic."""
    units = {task.topic_unit for task in tasks}
    return units.pop() if len(units) == 1 else "topic"


def who_sees_what(formal_detail: Optional[str], formal_data: str) -> List[str]:
    """What Codabench lets each user fetch of this competition (docs/codabench.md, measured on its real code)."""
    data = ("is not in the competition's files: it stays on the organisers' machine" if formal_data == "worker"
            else "is in the competition's files, which anyone can download")
    lines = ["* **The leaderboard** (every row and value) can be read by anyone, through Codabench's API too.",
             "* **A submission's detailed results page** can be opened by any user who can see the competition "
             "(anyone, once it is published), yours included: it shows only what the phase shows (above), never "
             "more.",
             "* **A submission's zip, scoring logs and output files**: in every phase the logs and output files "
             "are for the organisers only and the zip for you and the organisers, so your detailed results page is "
             "where you read your receipt and the messages of the checks.",
             "* **Reference data**: the dry run's sample data is public (in the starting kit); the formal phase's "
             "%s." % (data if formal_detail is not None else "does not exist yet (its judgements are made from "
                                                              "the formal runs)")]
    if formal_detail is not None and formal_data == "worker":
        lines.append("* **Every submission is held until the organisers' gate starts it**, within %d seconds of "
                     "upload (its status reads *Submitting* until then), in every phase: the formal reference data "
                     "lies on the machine that scores, so no participant's program may run there. The gate starts "
                     "a zip of result files and cancels a zip holding a file named `metadata` or `metadata.yaml` "
                     "(which Codabench would run as a program) or that is no zip: its status reads *Cancelled*."
                     % ADMIT_INTERVAL)
    return lines + [""]


def evaluation_page(tasks: Sequence[Task]) -> str:
    lines = ["# Evaluation", "",
             "Every run file is checked against its task's format, then scored against the task's reference "
             "data. The leaderboard shows, per task, the columns below; the first column of a task is its "
             "primary measure, which picks the run shown when a submission holds several runs of that task.",
             "", "Scores are written with 10 decimals; the leaderboard rounds them to the precision shown.", ""]
    for task in tasks:
        lines += ["## %s (`%s`)" % (task.title, task.id), "",
                  "| column | score key | measure | better | precision |", "|---|---|---|---|---|"]
        for index, column in enumerate(task.columns):
            marker = " (primary)" if index == 0 else ""
            lines.append("| %s%s | `%s` | `%s` | %s | %d |" % (
                _cell(column.title), marker, task.leaderboard_key(column), column.measure,
                task.better(column.measure) or "neither (shown, not ranked)", column.precision))
        lines.append("")
    lines += ["## Exit status of the scoring program", "",
              "* 0: every run valid and scored.",
              "* 1: the submission is invalid (the log lists every error); nothing is scored.",
              "* 2: a problem of the competition's set-up or reference data (please tell the organisers).", ""]
    return "\n".join(lines)


def _baselines_item(baselines: Optional[Sequence[str]]) -> str:
    if baselines is None:
        return "* `baselines/`: simple baseline runs on the sample data and the scripts that make them."
    if not baselines:
        return "* no baseline: this task's kit has none (the sample submission is the example run)."
    return "* `baselines/`: simple baselines on the sample data (runs, and the scripts that make them): %s." % (
        ", ".join("`%s`" % name[len("baselines/"):] for name in baselines))


def _formal_data_sentence(tasks: Sequence[Task]) -> str:
    """Where the formal phase's reference data come from: the seed campaigns' data were obtained under their
    agreements; a form's (Task.form) are the organiser's own, and its pages say only what the form says."""
    if any(getattr(task, "form", None) is not None for task in tasks):
        return "The formal phase uses the organisers' hidden reference data."
    return ("The formal phase uses the campaigns' reference data, which the organisers obtained under the "
            "campaigns' agreements.")


def data_page(tasks: Sequence[Task], baselines: Optional[Sequence[str]] = None,
              schemas: Optional[Sequence[str]] = None) -> str:
    """`baselines`, `schemas`: the kit's files of each (None: not known, described in general; empty: the kit has
    none, and the page does not promise them)."""
    lines = ["# Data and starting kit", "",
             "The starting kit (downloadable from the *Files* tab of each phase) holds:", "",
             "* `README.md`: how to check and score a run locally, with the same program the platform runs;",
             "* `sample_submission/%s/`: a valid sample submission;" % "/, `sample_submission/".join(
                 t.id for t in tasks),
             "* `schemas/`: the JSON Schema of the task's run records (the structural rules; the semantic "
             "rules are listed on the task's page);" if schemas is None or schemas else None,
             "* `dry_run.py`: scores a submission laid out exactly as Codabench lays it out "
             "(`input/ref`, `input/res`, `output/`) and prints the leaderboard row;",
             "* `scoring_program/` and `reference_data/`: the scoring program this competition runs and the "
             "sample reference data of the dry-run phase;",
             _baselines_item(baselines), "",
             "The sample reference data of the dry-run phase are synthetic. %s" % _formal_data_sentence(tasks), "",
             "## Check a submission before uploading it", "",
             "`runscore check` runs exactly the platform's discovery and checks on the zip you will upload "
             "(which file is a run of the task, every error and warning), offline; `validate` and `score` work "
             "on one run file.", "", "```",
             "pip install numpy scipy PyYAML jsonschema      # Python 3.9 to 3.13",
             "cd scoring_program",
             "python3 -m runscore tasks                       # the task ids"]
    lines = [line for line in lines if line is not None]
    if tasks:
        task = tasks[0]
        lines += ["python3 -m runscore check --task %s ../submission.zip   # the zip you will upload" % task.id,
                  "python3 -m runscore validate --task %s RUN_FILE" % task.id,
                  "python3 -m runscore score --task %s --ref ../reference_data/%s RUN_FILE" % (task.id, task.id)]
    lines += ["```", "", "Run files expected, per task:", ""]
    for task in tasks:
        lines.append("* `%s`: %s" % (task.id, task.run_file_help))
    lines.append("")
    return "\n".join(lines)


def task_page(task: Task, docs_dir: Optional[str]) -> str:
    lines = ["# %s (`%s`)" % (task.title, task.id), "", task.description, "",
             "## Run files", "", task.run_file_help, ""]
    if task.max_runs_per_team is not None:
        lines += ["At most %d runs of this task in a submission, which is one team's (runs naming several teams "
                  "are an error)." % task.max_runs_per_team, ""]
    if task.max_runs_per_team is None:
        lines += ["At most %d runs of this task in a submission to the formal phase, whose reference data is hidden "
                  "(every run's scores are shown, and each one tells something of the hidden data)%s."
                  % (task.hidden_phase_cap, "" if task.max_runs_per_submission is None else
                     "; %d in the dry run" % task.max_runs_per_submission), ""]
    elif task.max_runs_per_submission is not None:
        lines += ["At most %d runs of this task in one submission." % task.max_runs_per_submission, ""]
    lines += ["## Leaderboard columns", "", "| column | score key | measure |", "|---|---|---|"]
    for column in task.columns:
        lines.append("| %s | `%s` | `%s` |" % (_cell(column.title), task.leaderboard_key(column), column.measure))
    lines.append("")
    if task.per_topic_measures:
        from .disclosure import effectiveness_keys

        unit = task.topic_unit
        lines += ["Per-%s values in the detailed results of a phase that shows everything: %s; of a phase that "
                  "shows per-%s values: %s; none in a phase that shows aggregates only (the Overview page says "
                  "which phase shows what)." % (unit, ", ".join("`%s`" % m for m in task.per_topic_measures), unit,
                                                ", ".join("`%s`" % m for m in effectiveness_keys(task)) or "none"),
                  ""]
    if task.options:
        lines += ["## Options", "",
                  "Set by the organisers in the reference data's `task.yaml` (`options:`); the values in force "
                  "are recorded in each scoring log, and the detailed results page says the rules they make. With "
                  "the defaults: %s." % task.rules_sentence({}), "",
                  "| option | default | choices | meaning |", "|---|---|---|---|"]
        for option in task.options:
            choices = ", ".join("`%s`" % _yaml_scalar(c) for c in option.choices) if option.choices else ""
            lines.append("| `%s` | `%s` | %s | %s |" % (option.name, _yaml_scalar(option.default), choices,
                                                      _cell(participant_text(option.help))))
        lines.append("")
    doc = os.path.join(docs_dir, "%s.md" % task.id) if docs_dir else None
    if doc and os.path.isfile(doc):
        with open(doc, encoding="utf-8") as handle:
            text = participant_doc(handle.read())
        lines += ["## Details", "", demote_headings(text, 1).rstrip("\n"), ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ the task owner's doc, as a participant reads it ---
# docs/<task-id>.md is written for the repository: it cites the specs and seeds under shared/, the modules and
# tests that implement a rule, and the other docs. A participant has only the bundle (its pages and the
# starting kit), so the task page keeps the sections that say what a run must be and how it is scored, and drops
# every citation of a file the participant does not have; a link is kept only when it is an absolute public URL.

# Sections of a task doc that are about the repository, not about a run (dropped from the task page): open
# questions of the spec, how runscore is verified, licences of test data, command-line usage and the starting
# kit's files (the *Data and starting kit* page says these for the bundle), options (the page's own table says
# them from the registry), and organiser-only commands.
REPOSITORY_SECTIONS = re.compile(r"(Open|Verification|Licences|Usage|Options|Starting kit|Sample data|Deriving)\b")
# A file of the repository that is not in the bundle: specs and seeds, docs, tests, benchmarks, the package's
# own modules (the kit holds them, but under another path), and paths that climb out of the repository.
REPOSITORY_PATH = re.compile(r"(\.\./|\b(?:shared|docs|tests|benchmarks|scoring_program|starting_kit)/|"
                             r"\brunscore/[\w/.*-]+|\b[\w/]+/[\w*]+\.py\b|\b[\w-]+\.md\b)")
# A citation of where a rule comes from, in a participant's terms meaningless: "(spec 1.1)", "(seed)", "(spec
# section 3; `runscore/measures/confidence.py`)", or a number on our own tracker ("issue" and its number).
CITATION = re.compile(r"\b(spec|specs|seed|seeds|issue \d+)\b")


def participant_doc(markdown: str) -> str:
    """The sections of a task doc a participant needs, without citations of repository files (see above)."""
    sections: List[List[str]] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            sections.append([line])
        elif sections:                       # the lead (before the first section) cites the sources: dropped
            sections[-1].append(line)
    kept = [s for s in sections if not REPOSITORY_SECTIONS.match(s[0][3:].strip())]
    out: List[str] = []
    for block in _blocks(line for section in kept for line in section):
        if block.startswith("```"):
            if not REPOSITORY_PATH.search(block):
                out.append(block)
            continue
        block = participant_text(_unlink_local(block))
        if not block.startswith("|"):
            block = _drop_repository_sentences(block)
        if block.startswith("|"):
            block = "\n".join(_escape_code_pipes(row) for row in block.split("\n"))
        out.append(block)
    return "\n".join(out) + "\n"


def _blocks(lines) -> List[str]:
    """Lines joined into blocks (a paragraph or list, a table, a fenced code block, a heading, a blank line),
    so that a parenthesis wrapped over two lines is seen whole."""
    blocks: List[str] = []
    kind = None
    for line in lines:
        if kind == "code":
            blocks[-1] += "\n" + line
            if line.lstrip().startswith("```"):
                kind = None
            continue
        if line.lstrip().startswith("```"):
            blocks.append(line)
            kind = "code"
            continue
        this = "blank" if not line.strip() else "heading" if line.startswith("#") else \
            "table" if line.startswith("|") else "text"
        if this == kind and this in ("table", "text") and not (this == "text" and re.match(r"[*-] ", line)):
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
        kind = this
    return blocks


# The campaign's run-submission instructions are "the seed" in the repository's docs.
SEED_WORDS = ((re.compile(r"\b([Tt])he seed's\b"), r"\1he campaign's"),
              (re.compile(r"\bas the seed says\b"), "as the campaign's instructions say"),
              (re.compile(r"\b([Tt])he seed allows\b"), r"\1he campaign's instructions allow"),
              (re.compile(r"\b([Tt])he seed\b"), r"\1he campaign's instructions"))
# A module of the package, which the participant has in the starting kit's scoring_program/ under another path.
PACKAGE_FILE = re.compile(r"`(?:scoring_program/)?runscore/(?:[\w.*-]+/)*([\w.*-]+)`")
# A file only the repository has (specs, seeds, docs, tests, benchmarks): the sentence citing it is dropped.
REPOSITORY_ONLY = re.compile(r"(\.\./shared|(?<![\w/.])(?:shared|docs|tests|benchmarks)/)")


def participant_text(text: str) -> str:
    """Text of the repository (a task doc, an option's help) in a participant's terms: no citations of
    sources they cannot read, a module named as the scoring program's file."""
    for pattern, replacement in SEED_WORDS:
        text = pattern.sub(replacement, text)
    text = _drop_citations(text)
    return PACKAGE_FILE.sub(r"`\1` of the scoring program", text)


def _drop_repository_sentences(block: str) -> str:
    """The sentences of a paragraph that cite a file only the repository has, removed."""
    parts = re.split(r"((?<=[.!?:])\s+(?=[A-Z`*(\"']))", block)
    kept = [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "")
            for i in range(0, len(parts), 2) if not REPOSITORY_ONLY.search(parts[i])]
    return "".join(kept).rstrip() if kept else ""


def _unlink_local(line: str) -> str:
    """[text](target): kept for an absolute http(s) URL, else the text alone (the target is not in the bundle)."""
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)",
                  lambda m: m.group(0) if re.match(r"https?://", m.group(2)) else m.group(1), line)


def _drop_citations(text: str) -> str:
    """Parentheses that cite a source or a repository file removed, nested ones too: "(a (b) spec 1)" goes
    whole, "(a (spec 1) b)" becomes "(a b)"."""
    def parenthesis(match):
        inner = match.group(0)
        if CITATION.search(inner) or REPOSITORY_PATH.search(inner):
            return ""
        return inner.replace("(", "\x01").replace(")", "\x02")     # kept: hidden while the outer ones are read
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\s?\([^()]*\)", parenthesis, text)
    return text.replace("\x01", "(").replace("\x02", ")")


def _escape_code_pipes(line: str) -> str:
    """A `|` inside a code span of a table row escaped (GFM splits cells before it reads code spans)."""
    return re.sub(r"`[^`]*`", lambda m: re.sub(r"(?<!\\)\|", r"\\|", m.group(0)), line)


def demote_headings(markdown: str, levels: int) -> str:
    """Shift every ATX heading down (# -> ###) so an included document nests under the page's own headings."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and re.match(r"#{1,6} ", line):
            line = "#" * min(6, levels) + line
        out.append(line)
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _yaml_scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


# --------------------------------------------------------------------------- Markdown -> HTML (v1.5) ---

def markdown_to_html(markdown: str, title: str) -> str:
    """The small Markdown subset the pages above use (headings, paragraphs, lists, tables, code) as HTML.

    Why our own: CodaLab v1.5 bundles need HTML pages, and the scoring program may not depend on a Markdown
    package. Anything outside the subset is shown as plain text, never dropped.
    """
    body: List[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            body.append("<pre><code>%s</code></pre>" % html.escape("\n".join(block)))
            i += 1
            continue
        heading = re.match(r"(#{1,6}) (.*)", line)
        if heading:
            level = len(heading.group(1))
            body.append("<h%d>%s</h%d>" % (level, _inline(heading.group(2)), level))
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i].strip()):
                    rows.append(_table_cells(lines[i]))
                i += 1
            head = "".join("<th>%s</th>" % _inline(c) for c in rows[0])
            rest = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % _inline(c) for c in r) for r in rows[1:])
            body.append("<div class=\"scroll\"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>"
                        % (head, rest))
            continue
        if re.match(r"[*-] ", line):
            items = []
            while i < len(lines) and (re.match(r"[*-] ", lines[i]) or (lines[i].startswith("  ") and items)):
                if re.match(r"[*-] ", lines[i]):
                    items.append(lines[i][2:].strip())
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            body.append("<ul>%s</ul>" % "".join("<li>%s</li>" % _inline(item) for item in items))
            continue
        if not line.strip():
            i += 1
            continue
        paragraph = []
        while i < len(lines) and lines[i].strip() and not re.match(r"(#{1,6} |[*-] |\||```)", lines[i]):
            paragraph.append(lines[i].strip())
            i += 1
        body.append("<p>%s</p>" % _inline(" ".join(paragraph)))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
            "content=\"width=device-width, initial-scale=1\"><title>%s</title><style>%s</style></head>\n<body>\n%s\n"
            "</body></html>\n" % (html.escape(title), PAGE_CSS, "\n".join(body)))


# Wide tables and code scroll inside their box, long words wrap: the page fits a 1280 px screen and a phone.
PAGE_CSS = ("body{max-width:60em;margin:0 auto;padding:0 .8em;overflow-wrap:anywhere;line-height:1.45}"
            ".scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse}"
            "th,td{border-bottom:1px solid #e3e7ee;padding:.25em .6em;text-align:left;overflow-wrap:normal}"
            "pre{overflow-x:auto;max-width:100%}")


def _table_cells(line: str) -> List[str]:
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def _inline(text: str) -> str:
    """`code`, **bold**, *emphasis* and [links](url) inside escaped text. Code spans are set aside first, so
    that a bold or a link around one (**Replay in `run_rank` mode.**) is still read; CodaLab v1.5 shows the
    HTML as it is, so a `**` left over would show."""
    codes: List[str] = []

    def keep(match) -> str:
        codes.append("<code>%s</code>" % html.escape(match.group(0)[1:-1]))
        return "\x00%d\x00" % (len(codes) - 1)

    part = re.sub(r"`[^`]+`", keep, text.replace("\x00", ""))
    part = html.escape(part, quote=False)
    part = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", part)
    part = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", part)
    part = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', part)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], part)


def page_file_map(pages: List[Tuple[str, str, str]]) -> Dict[str, str]:
    """{file name: text} of the pages."""
    return {name: text for _, name, text in pages}
