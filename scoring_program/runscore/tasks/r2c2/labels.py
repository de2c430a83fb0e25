"""R2C2 AC judgement labels (reference input): answer correctness per (run, question), and per nugget line
whether its passage entails it and whether it helped derive a correct answer.

Why labels are an input: the official judges are LLMs (Qwen-3.5 and GPT-5.5) whose combination is not
published, so the scorer replays labels and computes the deterministic part exactly (spec section 5, the
format proposed there). Files are UTF-8, TAB-separated, with a header line naming the columns:

* answer labels: `run_id  qID  correct`
* nugget labels: `run_id  qID  NuggetNum  entailed  relevant`, optionally with `PRrunname  PassageRank`.
  Without them a label applies to every line of that NuggetNum (the spec's format); with them it applies to
  the one line citing that passage (a repeated NuggetNum cites several passages, and entailment is judged
  per (passage, nugget) pair).

Rules: values in {0, 1}; relevant = 1 requires entailed = 1 and correct = 1 for the question; no key twice.
Any defect is the organiser's (ConfigError, exit 2).
"""
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from ...errors import ConfigError
from ...numeric import FieldError, read_int
from .pr_format import normalise_qid, normalise_run_name
from ...textfile import numbered_lines, read_text

ANSWER_COLUMNS = ("run_id", "qid", "correct")
NUGGET_COLUMNS = ("run_id", "qid", "nuggetnum", "entailed", "relevant")
PASSAGE_COLUMNS = ("prrunname", "passagerank")


class AnswerLabel(NamedTuple):
    correct: int
    line: int


class NuggetLabel(NamedTuple):
    entailed: int
    relevant: int
    line: int


class Labels:
    """Answer and nugget labels keyed by normalised run name and 4-digit qID.

    nuggets key: (run, qid, NuggetNum) or, when keyed_by_passage, (run, qid, NuggetNum, PR run name, rank).
    """

    def __init__(self, answers: Dict[Tuple[str, str], AnswerLabel], nuggets: Dict[tuple, NuggetLabel],
                 keyed_by_passage: bool, answer_path: str, nugget_path: str):
        self.answers = answers
        self.nuggets = nuggets
        self.keyed_by_passage = keyed_by_passage
        self.answer_path = answer_path
        self.nugget_path = nugget_path
        self.runs = {run for run, _ in answers} | {key[0] for key in nuggets}

    def has_run(self, run: str) -> bool:
        return run in self.runs

    def nugget_key(self, run: str, qid: str, number: int, pr_run: str, rank: int) -> tuple:
        """The key of one nugget line (pr_run already normalised)."""
        return (run, qid, number, pr_run, rank) if self.keyed_by_passage else (run, qid, number)


def _header(line: str, required: Sequence[str], optional: Sequence[str], path: str) -> Dict[str, int]:
    names = [f.strip().lower() for f in line.split("\t")]
    missing = [c for c in required if c not in names]
    if missing:
        raise ConfigError("the header line must name the columns %s (TAB-separated); missing: %s"
                          % (", ".join(required), ", ".join(missing)), path, 1)
    unknown = [n for n in names if n not in required and n not in optional]
    if unknown or len(set(names)) != len(names):
        raise ConfigError("unexpected or repeated header column(s): %s" % ", ".join(unknown or names), path, 1)
    return {name: i for i, name in enumerate(names)}


def _binary(text: str, column: str, path: str, line: int) -> int:
    value = text.strip()
    if value not in ("0", "1"):
        raise ConfigError("%s must be 0 or 1, found %r" % (column, value), path, line)
    return int(value)


def _rows(path: str, required: Sequence[str], optional: Sequence[str]):
    """The header's column names, and (line number, {column: field}) of each data line."""
    lines = list(numbered_lines(read_text(path, error_class=ConfigError)))
    if not lines:
        raise ConfigError("label file is empty (a header line is required)", path)
    columns = _header(lines[0][1], required, optional, path)
    rows = []
    for line_no, line in lines[1:]:
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(columns):
            raise ConfigError("%d TAB-separated fields, the header has %d" % (len(fields), len(columns)),
                              path, line_no)
        rows.append((line_no, {name: fields[i].strip() for name, i in columns.items()}))
    return set(columns), rows


def _qid(raw: str, path: str, line: int) -> str:
    qid = normalise_qid(raw)
    if qid is None:
        raise ConfigError("qID %r is not a question id" % raw, path, line)
    return qid


def _run(raw: str, path: str, line: int) -> str:
    if not raw:
        raise ConfigError("empty run_id", path, line)
    return normalise_run_name(raw)


def read_labels(answer_path: str, nugget_path: Optional[str],
                aliases: Optional[Dict[str, str]] = None) -> Labels:
    """Both label files (the nugget file may be absent: every nugget then counts as not relevant)."""
    answers: Dict[Tuple[str, str], AnswerLabel] = {}
    for line_no, row in _rows(answer_path, ANSWER_COLUMNS, ())[1]:
        key = (_run(row["run_id"], answer_path, line_no), _qid(row["qid"], answer_path, line_no))
        if key in answers:
            raise ConfigError("second answer label for run %s question %s (first at line %d)"
                              % (key[0], key[1], answers[key].line), answer_path, line_no)
        answers[key] = AnswerLabel(_binary(row["correct"], "correct", answer_path, line_no), line_no)

    nuggets: Dict[tuple, NuggetLabel] = {}
    keyed_by_passage = False
    if nugget_path:
        nuggets, keyed_by_passage = read_nugget_labels(nugget_path, aliases, answers, answer_path)
    return Labels(answers, nuggets, keyed_by_passage, answer_path, nugget_path or "")


def read_nugget_labels(nugget_path: str, aliases: Optional[Dict[str, str]] = None,
                       answers: Optional[Dict[Tuple[str, str], AnswerLabel]] = None,
                       answer_path: str = "") -> Tuple[Dict[tuple, NuggetLabel], bool]:
    """The nugget label file: {key: NuggetLabel} (see Labels for the key) and whether it is keyed by passage.

    With `answers`, a relevant nugget must belong to an answer labelled correct (Stage B sees only those).
    Also read on its own by `runscore r2c2-qrels`, which needs no answer labels.
    """
    nuggets: Dict[tuple, NuggetLabel] = {}
    header, rows = _rows(nugget_path, NUGGET_COLUMNS, PASSAGE_COLUMNS)
    keyed_by_passage = all(c in header for c in PASSAGE_COLUMNS)
    if not keyed_by_passage and any(c in header for c in PASSAGE_COLUMNS):
        raise ConfigError("the header names only one of PRrunname, PassageRank; give both or neither",
                          nugget_path, 1)
    for line_no, row in rows:
        run = _run(row["run_id"], nugget_path, line_no)
        qid = _qid(row["qid"], nugget_path, line_no)
        try:
            key: tuple = (run, qid, read_int(row["nuggetnum"], "NuggetNum"))
            if keyed_by_passage:
                rank = read_int(row["passagerank"], "PassageRank", signed=True)
                key = key + (normalise_run_name(row["prrunname"], aliases), rank)
        except FieldError as exc:
            raise ConfigError(str(exc), nugget_path, line_no)
        if key in nuggets:
            raise ConfigError("second label for the same nugget %s (first at line %d)"
                              % (" ".join(str(k) for k in key), nuggets[key].line), nugget_path, line_no)
        entailed = _binary(row["entailed"], "entailed", nugget_path, line_no)
        relevant = _binary(row["relevant"], "relevant", nugget_path, line_no)
        if relevant and not entailed:
            raise ConfigError("relevant = 1 requires entailed = 1 (Stage B sees entailed nuggets only)",
                              nugget_path, line_no)
        if answers is not None:
            answer = answers.get((run, qid))
            if relevant and (answer is None or not answer.correct):
                raise ConfigError("relevant = 1 requires the answer of run %s to question %s to be labelled "
                                  "correct = 1 in %s" % (run, qid, answer_path), nugget_path, line_no)
        nuggets[key] = NuggetLabel(entailed, relevant, line_no)
    return nuggets, keyed_by_passage


def unused_labels(labels: Labels, run: str, used_answers: set, used_nuggets: set) -> List[str]:
    """Counts of the labels of `run` that match no answered question or no nugget line of the run.

    Counts only: a message shown to a participant never names a reference file, a line of it, or what the
    labels hold beyond what the participant sent."""
    answers = sum(1 for key in labels.answers if key[0] == run and key not in used_answers)
    nuggets = sum(1 for key in labels.nuggets if key[0] == run and key not in used_nuggets)
    out = []
    if answers:
        out.append("%d answer label(s) of run %s match no question this run answers" % (answers, run))
    if nuggets:
        out.append("%d nugget label(s) of run %s match no nugget line of this run" % (nuggets, run))
    return out
