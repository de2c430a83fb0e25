"""The receipt of a run: what the platform received, told back to the participant (issue 22).

Why: in a phase whose reference data is hidden the participant sees little beyond the aggregates, so the page
and the log say exactly which bytes were scored: the run's name, its team, its line count and the SHA-256 of its
file. A participant compares it with `sha256sum` and `wc -l` on their side; an organiser's collection phase
(the campaign wing) gives the same receipt for a run it only stores. It is computed from the file's bytes
alone, never from the reference, so it is shown at every disclosure level.

The team is the one the pool and the report credit the run to when the platform does not say whose it is
(Task.inferred_team): the team the run names, else its name without the run number (NTCIR-1's `ntc1` -> `ntc`,
said "from the run name"). A file holding several runs (a Temporalia file of three run_ids) gives each run its own
line count beside the file's, and the file's SHA-256.
"""
import hashlib
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

CHUNK = 1 << 20


@dataclass(frozen=True)
class Receipt:
    """name: the run's name; team: its team ("" when unknown); lines: physical lines of the file (a LF, CRLF or
    lone CR ends one; a last line without an end counts), or the run's own lines when the file holds several runs;
    sha256: hex digest of the file's bytes; file: the file's name as the submission shows it; inferred: the team
    is read from the run's name, not named in the run; file_lines: the file's lines when `lines` are the run's."""

    name: str
    team: str
    lines: int
    sha256: str
    file: str = ""
    inferred: bool = False
    file_lines: Optional[int] = None


def receipt_of(path: str, run_name: str, team: str = "", file: str = "") -> Receipt:
    """The receipt of the run `run_name` read from `path` (read in chunks: any size, bounded memory)."""
    digest = hashlib.sha256()
    lines = 0
    previous = b""          # the last byte of the previous chunk: a CRLF split across two chunks is one end
    last = b""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(CHUNK)
            if not chunk:
                break
            digest.update(chunk)
            lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
            if previous == b"\r" and chunk[:1] == b"\n":
                lines -= 1
            previous = last = chunk[-1:]
    if last and last not in (b"\n", b"\r"):
        lines += 1
    return Receipt(run_name, team, lines, digest.hexdigest(), file)


Team = Union[str, Tuple[str, bool]]       # a team, or (team, inferred from the run's name)


def team_of_run(task, run) -> Tuple[str, bool]:
    """(team, inferred) of a run for its receipt: named in the run, else read from its name (module docstring)."""
    named = task.team_of(run)
    return (named, False) if named else (task.inferred_team(run), True)


def receipts_of(runs: Iterable[Tuple]) -> List[Receipt]:
    """The receipts of (path, run name, team, file[, the run's own lines]) in order, each file read and hashed once
    however many runs it holds (a file of 100 runs would otherwise be hashed 100 times). team: a name, or
    (name, inferred) from team_of_run; own lines: ParsedRun.lines (None: the whole file is the run)."""
    by_path: Dict[str, Receipt] = {}
    out = []
    for entry in runs:
        path, run_name, team, file = entry[:4]
        own = entry[4] if len(entry) > 4 else None
        if path not in by_path:
            by_path[path] = receipt_of(path, run_name, "", file)
        whole = by_path[path]
        name, inferred = team if isinstance(team, tuple) else (team, False)
        lines = whole.lines if own is None else own
        out.append(replace(whole, name=run_name, team=name, file=file, inferred=inferred and bool(name),
                           lines=lines, file_lines=whole.lines if lines != whole.lines else None))
    return out


def team_text(receipt: Receipt) -> str:
    if not receipt.team:
        return "(not named in the run)"
    return receipt.team + (" (from the run name)" if receipt.inferred else "")


def lines_text(receipt: Receipt) -> str:
    text = "%d line%s" % (receipt.lines, "" if receipt.lines == 1 else "s")
    return text + (" (of %d in the file)" % receipt.file_lines if receipt.file_lines is not None else "")


def receipt_line(receipt: Receipt) -> str:
    """One line for a log: `receipt: run NAME, team TEAM, N lines, sha256 HEX (file F)`."""
    return "receipt: run %s, team %s, %s, sha256 %s%s" % (
        receipt.name, team_text(receipt), lines_text(receipt), receipt.sha256,
        " (file %s)" % receipt.file if receipt.file else "")


def receipt_table(receipts: Sequence[Receipt]) -> Dict:
    """A table of the detailed results page (report.detailed_html's table form)."""
    return {"caption": "Receipt: what was received (compare with sha256sum and wc -l on your copy)",
            "header": ["run", "team", "file", "lines", "SHA-256"],
            "rows": [[r.name, team_text(r) if r.team else "\u2014", r.file,
                      r.lines if r.file_lines is None else "%d of %d" % (r.lines, r.file_lines), r.sha256]
                     for r in receipts]}
