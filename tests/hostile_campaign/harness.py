"""What every hostile input of the campaign commands must get, for the checked-in corpus and for the fuzzing.

The campaign wing's commands (`runscore pool`, `judgements`, `report`) read what participants sent and what
organisers edited. Whatever they are given, each command answers with exit 0, 1 (a participant's submission is
at fault) or 2 (the organiser's files or usage), never a traceback or a hang; a refusal names a file (FILE:LINE
messages) and writes nothing; and what it writes is safe to open: no spreadsheet cell that starts a formula, no
embedded JSON that the HTML tokenizer could read as markup, no LaTeX outside printable ASCII. A case is a list of
commands run in order in one folder: `runscore` subcommands (in process, through runscore.cli.main) and two
helpers an organiser's hands would do: `fill-sheet POOL SHEET LABEL` and `replace FILE OLD NEW`.
"""
import csv
import io
import os
import re
from contextlib import redirect_stderr, redirect_stdout
from typing import List, Optional, Tuple

from hostile.harness import Hang, time_limit

ERROR_LINE = re.compile(r"^\S.*?(:\d+)?: (error|warning|note): \S")
ARCHIVES = (".zip", ".tar", ".tgz", ".tar.gz", ".tar.bz2", ".tbz2")     # a member is named ARCHIVE/MEMBER
MESSAGE_FILE = re.compile(r"^(\S.*?)(?::\d+)?: (?:error|warning|note): ")
USAGE_LINE = re.compile(r"^(error|usage): \S")         # a usage error names no file
SUMMARIES = ("pool refused:", "no report written")
CLI_PREFIX = "runscore: "
SECONDS_PER_COMMAND = 20


def fill_sheet(pool_path: str, sheet_path: str, label: str) -> int:
    """An assessor's sheet: every row of the pool labelled `label` (r2c2-ac answers get 1 when the label is 2)."""
    from runscore.campaign.sheet import read_sheet, write_sheet

    columns, rows = read_sheet(pool_path)
    values = []
    for row in rows:
        chosen = "1" if label == "2" and row.values.get("unit") == "answer" else label
        values.append(dict(row.values, label=chosen))
    write_sheet(sheet_path, columns, values)
    return 0


def replace_in(path: str, old: str, new: str) -> int:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text.replace(old, new.replace("\\n", "\n")))
    return 0


def run_command(argv: List[str]) -> Tuple[int, str, str]:
    """(exit code, stdout, stderr) of one command of a case; a crash or a hang is an exit code of its own."""
    from runscore.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(SECONDS_PER_COMMAND), redirect_stdout(out), redirect_stderr(err):
            if argv[0] == "fill-sheet":
                code = fill_sheet(*argv[1:])
            elif argv[0] == "replace":
                code = replace_in(*argv[1:])
            else:
                code = main(argv)
    except Hang as exc:
        return -2, out.getvalue(), "hang: %s" % exc
    except BaseException as exc:         # noqa: B902 - a crash is the finding, whatever it is
        return -1, out.getvalue(), "crash: %s: %s" % (type(exc).__name__, str(exc)[:500])
    return code, out.getvalue(), err.getvalue()


def output_of(argv: List[str]) -> Optional[str]:
    """The folder a command writes (-o), if any."""
    return argv[argv.index("-o") + 1] if "-o" in argv else None


def problems(argv: List[str], code: int, stdout: str, stderr: str, existed_before: bool) -> List[str]:
    """What is wrong with one command's answer (an empty list: nothing)."""
    found = []
    if code not in (0, 1, 2):
        return ["exit %r: %s" % (code, stderr[-600:])]
    if "Traceback" in stdout + stderr or "internal error" in stderr:
        found.append("a traceback or internal error: %s" % stderr[-600:])
    told = False
    for line in stderr.split("\n"):          # not splitlines(): a file name may hold U+2028
        line = line[len(CLI_PREFIX):] if line.startswith(CLI_PREFIX) else line
        if line.startswith(SUMMARIES):
            told = True
            continue
        if "error:" in line or ": warning:" in line:
            told = told or "error:" in line
            if not (ERROR_LINE.match(line) or USAGE_LINE.match(line)):
                found.append("not a FILE:LINE message: %r" % line[:300])
            elif ERROR_LINE.match(line) and not names_a_real_file(line):
                found.append("the message names no file that exists: %r" % line[:300])
    if code != 0 and not told:
        found.append("exit %d without an error message: %r" % (code, stderr[-300:]))
    out = output_of(argv)
    if out and code != 0 and not existed_before and argv[0] in ("pool", "report", "judgements"):
        if os.path.isdir(out) and any(name in os.listdir(out) for name in ("pool.tsv", "means.csv", "task.yaml")):
            found.append("exit %d but %s was written" % (code, out))
    if out and code == 0 and os.path.isdir(out):
        found.extend(unsafe_outputs(out))
    return found


def names_a_real_file(line: str) -> bool:
    """A message's FILE is a file or folder that exists, or MEMBER inside an archive that exists (`X.zip/run`,
    the convention of `runscore validate` too; a collection's `docs.tgz/part/one.jsonl`): never a temporary copy or
    a name without its folder."""
    path = MESSAGE_FILE.match(line).group(1)
    if os.path.exists(path):
        return True
    parts = path.split("/")
    return any(os.path.isfile("/".join(parts[:k])) and parts[k - 1].lower().endswith(ARCHIVES)
               for k in range(len(parts) - 1, 0, -1))


def starts_a_formula(cell: str) -> bool:
    """A text cell that a spreadsheet runs, also once split at a comma, a semicolon or a quote by a spreadsheet
    set to another separator (OWASP's CSV injection page)."""
    starts = ("=", "+", "-", "@", "\t", "\r")
    if cell[:1] not in starts and not any(cell[at + 1:at + 2] in starts for at, ch in enumerate(cell)
                                          if ch in ',;"'):
        return False
    try:
        float(cell)
        return False
    except ValueError:
        return True


def unsafe_outputs(folder: str) -> List[str]:
    """Cells, page data and LaTeX that are not safe to open, in every file a command wrote into `folder`."""
    found = []
    for where, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(where, name)
            shown = os.path.relpath(path, folder)
            if "/runs/" in "/" + shown or shown.startswith(("pr_runs", "assessed_runs")):
                continue                    # the participants' own files, kept as they were sent
            if name.endswith((".tsv", ".csv")) and not name.startswith(("ac_", "pr_qrels")):
                with open(path, encoding="utf-8", newline="") as handle:
                    text = handle.read()
                rows = csv.reader(io.StringIO(text)) if name.endswith(".csv") else \
                    (line.split("\t") for line in text.split("\n"))
                bad = [c for row in rows for c in row if starts_a_formula(c)]
                if bad:
                    found.append("%s: a cell starts a formula: %r" % (shown, bad[0][:80]))
            elif name.endswith(".html"):
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                for data in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S):
                    if set(data) & set("<>&\u2028\u2029"):
                        found.append("%s: embedded JSON holds a character the HTML tokenizer reads" % shown)
                if "<script" in text and 'id="pool-data"' not in text:
                    found.append("%s: a script element in a page that has none" % shown)
            elif name.endswith(".tex"):
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                if any(not (" " <= ch <= "~" or ch == "\n") for ch in text):
                    found.append("%s: a character outside printable ASCII" % shown)
                lines = text.split("\n")
                for before, line in zip(lines, lines[1:]):
                    if (before.endswith("\\\\") or before.endswith("\\midrule")) and line.lstrip()[:1] in "[*" \
                            and line.strip():
                        found.append("%s: a row starts with %r after a row command" % (shown, line[:1]))
    return found


def first_finding(stdout: str, stderr: str, case_dir: str) -> str:
    """The first error line (else warning, else the first line of output), the case's folder cut off."""
    lines = stderr.splitlines()
    chosen = [l for l in lines if ": error:" in l] or [l for l in lines if ": warning:" in l] or \
        [l for l in lines + stdout.splitlines() if l.strip()]
    line = chosen[0] if chosen else ""
    return line.replace(case_dir.rstrip("/") + "/", "").replace(case_dir, "").replace("\t", " ")[:300]
