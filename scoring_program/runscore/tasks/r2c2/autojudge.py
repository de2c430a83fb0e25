"""NON-OFFICIAL automatic answer-correctness judge for R2C2 AC: a normalised match against the gold answers.

Why it exists: official correctness comes from LLM judges whose labels exist only for assessed runs, while
the gold answers were released after the evaluation ("r2c2topics-and-goldanswers"). For a run without labels
this judge gives a rough, reproducible correctness signal. Its results are always reported under separate
`auto_*` keys and never fill the label-based measures.

Normalisation (named, so a reader can check it by eye): Unicode NFKC; case folding; every Unicode
punctuation character (category P*) becomes a space; the English articles a/an/the are dropped; whitespace
runs fold to one space. Match rules: `contains` (default) - some normalised gold answer occurs as a whole-word
sequence inside the normalised answer (real answers are sentences: "Bor Gullet, a Partisan ..."); `exact` -
the normalised answer equals a normalised gold answer. An empty answer never matches. Known limits: a
negated answer ("not Bor Gullet") still contains the gold; a one-word gold ("1") matches any answer holding it.
"""
import re
import unicodedata
from typing import Dict, List, Sequence

from ...errors import ConfigError
from .pr_format import qid_tsv_rows

MATCH_RULES = ("contains", "exact")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalise_answer(text: str) -> str:
    """NFKC, casefold, punctuation -> space, drop a/an/the, fold whitespace."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    no_punctuation = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in folded)
    return " ".join(_ARTICLES.sub(" ", no_punctuation).split())


def matches(answer: str, golds: Sequence[str], rule: str = "contains") -> bool:
    """Is `answer` correct by `rule` against any of `golds` (all raw text)?"""
    said = normalise_answer(answer)
    if not said:
        return False
    padded = " %s " % said
    for gold in golds:
        wanted = normalise_answer(gold)
        if not wanted:
            continue
        if rule == "exact" and said == wanted:
            return True
        if rule == "contains" and " %s " % wanted in padded:
            return True
    return False


def read_gold_answers(path: str) -> Dict[str, List[str]]:
    """`qID<TAB>answer` lines (an optional header line starting with `qID`); several lines of one qID are
    alternative gold answers. ConfigError on defects."""
    golds: Dict[str, List[str]] = {}
    for line_no, qid, fields in qid_tsv_rows(path, "gold answer", ("qID", "answer")):
        if not normalise_answer(fields[1]):
            raise ConfigError("gold answer of question %s is empty after normalisation" % qid, path, line_no)
        golds.setdefault(qid, []).append(fields[1].strip())
    return golds
