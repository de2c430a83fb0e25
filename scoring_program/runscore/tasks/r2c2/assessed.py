"""Fingerprints of the runs that were assessed: a replayed label applies only to the text it judged.

Why: R2C2 labels are keyed by (run name, question, nugget). Replayed by name alone, a file named like an
assessed run earns that run's labels whatever it holds (three made-up answers at confidence 100 named
`SAMPLE-AC-1` scored HMR 1.0). So the reference keeps, for each assessed run, a fingerprint (SHA-1) of every judged
part, derived from the assessed run files themselves (task.yaml `assessed_runs:`): the answer with its confidence
per question, and every nugget line (NuggetNum, cited PR run, PassageRank, text) of r2c2-ac; the passage (docID +
text) at each rank of r2c2-pr. A part of an uploaded run whose fingerprint differs is "changed": the label does
not apply there. Only digests are kept, so no message can quote the assessed text.
"""
import hashlib
import os
from collections import Counter
from typing import Any, Dict, Iterator, Optional, Tuple

from ...errors import ConfigError, Diagnostics, RunError
from .ac_format import parse_ac_run
from .pr_format import key_text, normalise_run_name, normalise_text, parse_pr_run

CHANGED_PARTS = ("error", "unjudged")
UNCHECKED_LABELS = ("error", "trust")


def _digest(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def answer_fingerprint(answer: Optional[str], confidence: Optional[float]) -> str:
    """The judged answer of one question: its whitespace-folded text and its Confidence (HMR is computed from it,
    so a changed confidence is a changed judged part)."""
    return _digest("answer", normalise_text(answer or ""), repr(float(confidence or 0.0)))


def nugget_fingerprint(number: int, pr_run: str, rank: int, text: str) -> str:
    """One judged nugget line: NuggetNum, the cited PR run (normalised), PassageRank and the nugget text."""
    return _digest("nugget", str(number), pr_run, str(rank), normalise_text(text))


class AssessedAC:
    """Per question of one assessed AC run: the answer's fingerprint, and a multiset of its nugget lines'."""

    def __init__(self) -> None:
        self.answers: Dict[str, str] = {}
        self.nuggets: Dict[str, Counter] = {}


def _assessed_runs(folder: str, parse) -> Iterator[Tuple[str, Any]]:
    """(run name, parsed run) of every run file of `folder`, read with the task's own parser; ConfigError if one
    is unreadable, invalid or named twice (the organiser's copy of what was assessed must be clean)."""
    seen = set()
    for entry, path in _files(folder):
        diags = Diagnostics(path)
        try:
            parsed = parse(path, entry, diags)
        except RunError as exc:
            raise ConfigError("assessed run is unreadable: %s" % exc.diagnostic.message, path)
        if diags.has_errors:
            raise ConfigError("assessed run is invalid (%d error(s)); first: %s"
                              % (diags.error_count, diags.first_error()), path)
        if parsed.name in seen:
            raise ConfigError("two assessed runs are named %s" % parsed.name, folder)
        seen.add(parsed.name)
        yield parsed.name, parsed


def read_assessed_ac_runs(folder: str, aliases: Optional[Dict[str, str]] = None) -> Dict[str, AssessedAC]:
    """Every AC run file of `folder` (named by its run id), fingerprinted."""
    runs: Dict[str, AssessedAC] = {}
    for name, parsed in _assessed_runs(folder, parse_ac_run):
        fingerprints = runs[name] = AssessedAC()
        for qid, block in parsed.blocks.items():
            if block.answered:
                fingerprints.answers[qid] = answer_fingerprint(block.answer, block.confidence)
            fingerprints.nuggets[qid] = Counter(
                nugget_fingerprint(n.number, normalise_run_name(n.pr_run, aliases), n.rank, n.text)
                for n in block.nuggets)
    return runs


def read_assessed_pr_runs(folder: str) -> Dict[str, Dict[tuple, str]]:
    """{run name: {(qID, PassageRank): content passage key text}} of every PR run file of `folder`."""
    return {name: {(qid, rank): key_text(parsed.key(qid, rank, "content"))
                   for qid in parsed.topics for rank, _ in parsed.passages(qid)}
            for name, parsed in _assessed_runs(folder, parse_pr_run)}


def _files(folder: str):
    if not os.path.isdir(folder):
        raise ConfigError("assessed_runs folder %r does not exist" % folder)
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if not entry.startswith(".") and os.path.isfile(path):
            yield entry, path
