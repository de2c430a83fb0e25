"""The NTCIR-19 R2C2 PR-run format, shared by the tasks r2c2-pr and r2c2-ac.

Why a module of its own: AC nuggets cite passages of PR runs by (PRrunname, PassageRank), so the AC scorer must
read PR runs, name them and identify their passages exactly as the PR scorer does. Seed:
shared/seeds/000_13a97d0348fb03bd.txt; spec: shared/specs/r2c2.md sections 1.1, 4.3 and 8.

Stable API (r2c2-ac builds on it):

* ``RUN_NAME_PATTERN``, ``parse_run_name(name) -> RunName | None``, ``normalise_run_name(name, aliases)``:
  the file-name rule ``[TeamName]-{PG|PO}-[1-4]``; a ``.txt`` suffix, a directory part and surrounding spaces
  are dropped, display names are mapped through an alias table.
* ``normalise_qid(raw) -> str | None``: ``0001``, ``D001``, ``D0001`` (the seed's spellings) -> ``0001``.
* ``parse_pr_run(path, display, diags) -> PRRun``: every rule of the seed checked, problems reported to
  ``diags``; ``PRRun.topics[qid]`` is an ordered mapping PassageRank -> ``Passage(doc_id, text, line)``,
  ranks ascending.
* ``passage_key(qid, doc_id, text)`` / ``PRRun.key(qid, rank, mode)``: the identity of a passage used by the
  PR qrels (content identity by default, or (run name, rank)).
"""
import hashlib
import re
from collections import OrderedDict
from typing import Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from ...errors import ConfigError, Diagnostics
from ...textfile import numbered_lines, read_text
from ...validate import record_schema

MAX_PASSAGES = 20          # "For each question, up to 20 passages may be returned."
RUN_KINDS = ("PG", "PO")   # PG: own passages; PO: the organisers' passages
RUN_NAME_PATTERN = r"(?P<team>\S(?:.*\S)?)-(?P<kind>PG|PO)-(?P<number>[1-4])"
KEY_MODES = ("content", "run_rank")

_QID = re.compile(r"[Dd]?([0-9]{3,4})")
_TYPO_QID_RANK = re.compile(r"([Dd]?[0-9]{3,4}):(\S+)")   # the seed's own typo line `D005:1;docID;text`


class RunName(NamedTuple):
    """The parts of a PR run name `[TeamName]-{PG|PO}-[RunNumber]`."""

    team: str
    kind: str
    number: int

    def __str__(self) -> str:
        return "%s-%s-%d" % (self.team, self.kind, self.number)


class Passage(NamedTuple):
    """One returned passage: docID and PassageText verbatim, and the physical line it came from."""

    doc_id: str
    text: str
    line: int


class PRRun:
    """A parsed PR run.

    name: the normalised run name (file base name without `.txt`);
    path: the name used in messages;
    topics: normalised qID -> OrderedDict PassageRank -> Passage, ranks ascending, in topic order of the file.
    """

    def __init__(self, name: str, path: str, topics: "Dict[str, OrderedDict[int, Passage]]"):
        self.name = name
        self.path = path
        self.topics = topics

    def passages(self, qid: str) -> Iterator[Tuple[int, Passage]]:
        """(PassageRank, Passage) of one question in rank order (nothing for a question the run lacks)."""
        return iter(self.topics.get(qid, {}).items())

    def passage(self, qid: str, rank: int) -> Optional[Passage]:
        """The passage a PassageKey (this run, rank) names, or None (AC: such a nugget is bogus)."""
        return self.topics.get(qid, {}).get(rank)

    def key(self, qid: str, rank: int, mode: str = "content") -> Tuple[str, ...]:
        """The qrels key of the passage at `rank` of question `qid` (see passage_key)."""
        if mode == "run_rank":
            return run_rank_key(qid, self.name, rank)
        found = self.topics[qid][rank]
        return passage_key(qid, found.doc_id, found.text)


# ------------------------------------------------------------------------------------ names ---
def parse_run_name(name: str) -> Optional[RunName]:
    """RunName of a normalised name matching `[TeamName]-{PG|PO}-[1-4]`, else None."""
    match = re.fullmatch(RUN_NAME_PATTERN, name)
    if match is None:
        return None
    return RunName(match.group("team"), match.group("kind"), int(match.group("number")))


def normalise_run_name(name: str, aliases: Optional[Dict[str, str]] = None) -> str:
    """A run name as written in a file name or an AC nugget -> the name runs are known by.

    Drops a directory part, surrounding spaces and a `.txt` suffix (`retrank-PG-1.txt` -> `retrank-PG-1`; seen
    in assessed AC runs), then maps display names through `aliases` (reference data, e.g.
    `Hitotsubashi University Keyaki Lab Team-PO-4` -> `hit-u-PO-4`).
    """
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if base.lower().endswith(".txt"):
        base = base[:-4].rstrip()
    if aliases:
        base = aliases.get(base, base)
    return base


def run_name_problem(name: str) -> Optional[str]:
    """Why `name` (already normalised) breaks the file-name rule, or None when it follows it."""
    if parse_run_name(name) is not None:
        return None
    match = re.fullmatch(r"(.+)-([A-Za-z]+)-([0-9]+)", name)
    if match and match.group(2).upper() in RUN_KINDS and match.group(2) not in RUN_KINDS:
        return "run name %r: write the run type in capitals (%s-%s-%s)" % (
            name, match.group(1), match.group(2).upper(), match.group(3))
    if match and match.group(2) in RUN_KINDS:
        return "run name %r: the RunNumber must be an integer in the [1-4] range" % name
    if match and match.group(2) == "AC":
        return "run name %r is an AC run name; a PR run is named [TeamName]-{PG|PO}-[RunNumber]" % name
    return ("run name %r does not follow [TeamName]-{PG|PO}-[RunNumber] (e.g. WASEDA-PO-3; RunNumber 1-4)"
            % name)


def bounded_int(text: str, limit: int = 10 ** 9) -> int:
    """An integer string as int, clamped to +-limit without converting a huge digit string (Python refuses
    strings of more than 4300 digits, and a run may hold anything)."""
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    return sign * (limit if len(digits) > len(str(limit)) else min(int(digits), limit))


def qid_tsv_rows(path: str, what: str, columns: Sequence[str]) -> Iterator[Tuple[int, str, List[str]]]:
    """(line number, normalised qID, fields) of a reference TSV whose first column is a qID.

    Shared by the R2C2 reference files keyed by question (gold answers, PR qrels): blank lines and a header line
    starting with `qID` are skipped; a wrong field count or a bad qID is a ConfigError naming the line.
    """
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip() or (line_no == 1 and line.split("\t")[0].strip().lower() == "qid"):
            continue
        fields = line.split("\t")
        if len(fields) != len(columns):
            raise ConfigError("%s line has %d TAB-separated fields, expected %d: %s"
                              % (what, len(fields), len(columns), " ".join(columns)), path, line_no)
        qid = normalise_qid(fields[0])
        if qid is None:
            raise ConfigError("qID %r is not a question id" % fields[0], path, line_no)
        yield line_no, qid, fields


def short(text: str, width: int = 40) -> str:
    """A field as shown in a message: cut (with its length) when a fuzzer or a bug made it huge."""
    return text if len(text) <= width else "%s... (%d characters)" % (text[:width], len(text))


# ------------------------------------------------------------------------------------ ids ---
def normalise_qid(raw: str) -> Optional[str]:
    """`0001` (real runs), `D001` or `D0001` (the seed's examples) -> `0001`; None if not a question id."""
    match = _QID.fullmatch(raw.strip())
    return match.group(1).zfill(4) if match else None


def normalise_text(text: str) -> str:
    """PassageText with runs of whitespace folded to one space and the ends trimmed (for content identity)."""
    return " ".join(text.split())


def passage_key(qid: str, doc_id: str, text: str) -> Tuple[str, str, str]:
    """Content identity of a passage: (qID, docID, SHA-1 hex of the whitespace-normalised PassageText).

    Why content: organiser passages recur across PO runs, and the same docID has several passages, so neither
    the docID alone nor the (run, rank) identifies a passage across runs (spec 4.3, `content` mode).
    """
    digest = hashlib.sha1(normalise_text(text).encode("utf-8")).hexdigest()
    return (qid, doc_id, digest)


def run_rank_key(qid: str, run_name: str, rank: int) -> Tuple[str, str, str]:
    """The alternative identity (spec 4.3, `run_rank` mode): the PassageKey of the seed."""
    return (qid, run_name, str(rank))


def key_text(key: Tuple[str, ...]) -> str:
    """The passage key as written in a PR qrels line (its second column): `docID::sha1` or `run::rank`."""
    return "%s::%s" % (key[1], key[2])


# ------------------------------------------------------------------------------------ parsing ---
def parse_pr_run(path: str, display: str, diags: Diagnostics, check_name: bool = True,
                 max_passages: int = MAX_PASSAGES, task=None) -> PRRun:
    """Read and check one PR run file; every problem goes to `diags` (the run is valid iff none is an error).

    Rules (seed, then the spec's Proposed parsing): UTF-8; lines `qID;PassageRank;docID;PassageText` split on
    the first three `;` (the text may hold `;`); qID in a spelling of the seed; PassageRank an integer in
    1..max_passages; no repeated rank and no repeated passage (same docID and text) within a question; at most
    max_passages passages per question; a non-empty docID. The seed's own typo `D005:1;...` is read with a
    warning. A bad file name is an error when `check_name` (the seed's file-name rule).
    """
    name = normalise_run_name(display)
    if check_name:
        problem = run_name_problem(name)
        if problem:
            diags.error(0, problem)
    text = read_text(path, display)
    if task is not None and task.wrong_layout(text, diags, ";", 3):     # comma-separated, JSON, another task's run
        return PRRun(name, display, OrderedDict())
    schema = record_schema("r2c2-pr.record")
    topics: "Dict[str, OrderedDict[int, Passage]]" = OrderedDict()
    by_content: Dict[Tuple[str, str, str], int] = {}
    blank_lines = []
    typo_lines = []
    for line_no, line in numbered_lines(text):
        if not line.strip():
            blank_lines.append(line_no)
            continue
        fields = line.split(";", 3)
        typo = _TYPO_QID_RANK.fullmatch(fields[0].strip())
        if typo and len(fields) >= 3:
            typo_lines.append(line_no)
            fields = [typo.group(1), typo.group(2)] + line.split(";", 2)[1:]
        if len(fields) < 4:
            diags.error(line_no, "expected 4 ';'-separated fields 'qID;PassageRank;docID;PassageText', found %d"
                        % len(fields))
            continue
        record = {"qID": fields[0].strip(), "PassageRank": fields[1].strip(), "docID": fields[2].strip()}
        problems = schema.errors(record)
        if problems:
            diags.error(line_no, "; ".join(problems))
            continue
        qid, passage_text, doc_id = normalise_qid(record["qID"]), fields[3], record["docID"]
        rank = bounded_int(record["PassageRank"])
        if not 1 <= rank <= max_passages:
            diags.error(line_no, "PassageRank %s is outside the range [1-%d]"
                        % (short(record["PassageRank"]), max_passages))
            continue
        if not passage_text.strip():
            diags.warning(line_no, "PassageText is empty")
        ranks = topics.setdefault(qid, OrderedDict())
        if rank in ranks:
            diags.error(line_no, "duplicate PassageRank %d for question %s (first seen at line %d)"
                        % (rank, qid, ranks[rank].line))
            continue
        content = passage_key(qid, doc_id, passage_text)
        if content in by_content:
            diags.error(line_no, "the same passage (docID %s, same text) is returned twice for question %s "
                        "(first at line %d)" % (doc_id, qid, by_content[content]))
            continue
        if len(ranks) == max_passages:
            diags.error(line_no, "question %s has more than %d passages (at most %d may be returned)"
                        % (qid, max_passages, max_passages))
            continue
        by_content[content] = line_no
        ranks[rank] = Passage(doc_id, passage_text, line_no)
    if blank_lines:
        diags.warning(blank_lines[0], "blank line ignored" + _more(blank_lines))
    if typo_lines:
        diags.warning(typo_lines[0], "':' after the qID instead of ';' (a typo in the task's own format description); read as "
                      "qID;PassageRank" + _more(typo_lines))
    if not topics and not diags.has_errors:
        diags.error(0, "the file holds no passage lines")
    for qid, ranks in topics.items():
        _check_rank_order(qid, ranks, diags)
        topics[qid] = OrderedDict(sorted(ranks.items()))
    return PRRun(name, display, topics)


def _check_rank_order(qid: str, ranks: "OrderedDict[int, Passage]", diags: Diagnostics) -> None:
    """Gaps in the ranks are legal (ranking = PassageRank ascending) but usually a bug: warn once per question."""
    present = sorted(ranks)
    if present != list(range(1, len(present) + 1)):
        missing = sorted(set(range(1, present[-1] + 1)) - set(present))
        diags.warning(ranks[present[0]].line, "question %s: PassageRank %s missing; passages are ranked by "
                      "PassageRank" % (qid, ", ".join(str(r) for r in missing[:5]) +
                                       (" ..." if len(missing) > 5 else "")))


def _more(lines) -> str:
    return " (and %d more lines like it)" % (len(lines) - 1) if len(lines) > 1 else ""

