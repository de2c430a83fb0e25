"""The receipt of a run: what the platform received, told back to the participant (issue 22).

Why: in a phase whose reference data is hidden the participant sees little beyond the aggregates, so the page
and the log say exactly which bytes were scored: the run's name, its team, its line count and the SHA-256 of its
file. A participant compares it with `sha256sum` and `wc -l` on their side; an organiser's collection phase
(the campaign wing) gives the same receipt for a run it only stores. It is computed from the file's bytes
alone, never from the reference, so it is shown at every disclosure level.
"""
import hashlib
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Sequence, Tuple

CHUNK = 1 << 20


@dataclass(frozen=True)
class Receipt:
    """name: the run's name; team: its team ("" when the run does not tell); lines: physical lines of the file
    (a LF, CRLF or lone CR ends one; a last line without an end counts); sha256: hex digest of the file's bytes;
    file: the file's name as the submission shows it."""

    name: str
    team: str
    lines: int
    sha256: str
    file: str = ""


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


def receipts_of(runs: Iterable[Tuple[str, str, str, str]]) -> List[Receipt]:
    """The receipts of (path, run name, team, file) in order, each file read and hashed once however many runs it
    holds (a file of 100 runs would otherwise be hashed 100 times)."""
    by_path: Dict[str, Receipt] = {}
    out = []
    for path, run_name, team, file in runs:
        if path not in by_path:
            by_path[path] = receipt_of(path, run_name, team, file)
        out.append(replace(by_path[path], name=run_name, team=team, file=file))
    return out


def receipt_line(receipt: Receipt) -> str:
    """One line for a log: `receipt: run NAME, team TEAM, N lines, sha256 HEX (file F)`."""
    return "receipt: run %s, team %s, %d line%s, sha256 %s%s" % (
        receipt.name, receipt.team or "(not named in the run)", receipt.lines, "" if receipt.lines == 1 else "s",
        receipt.sha256, " (file %s)" % receipt.file if receipt.file else "")


def receipt_table(receipts: Sequence[Receipt]) -> Dict:
    """A table of the detailed results page (report.detailed_html's table form)."""
    return {"caption": "Receipt: what was received (compare with sha256sum and wc -l on your copy)",
            "header": ["run", "team", "file", "lines", "SHA-256"],
            "rows": [[r.name, r.team or "\u2014", r.file, r.lines, r.sha256] for r in receipts]}
