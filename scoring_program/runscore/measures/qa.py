"""Short-answer QA measures: named normalisers, tokenisers, exact match, set F1, and a SQuAD v1.1 mode.

Why here and why so small: a QA score is only as trustworthy as its normaliser, so every step is a named pure
function that a reader can check by eye (as with the SQuAD v1.1 script). Two families live here:

* the Data Search 2 definitions (shared/specs/datasearch-qa.md): `strict` / `squad` normalisers, optional
  digit-grouping removal, word SETS for F1 (the task page: "Let X be a set of words ..."), English words or
  Japanese characters, max over several gold answers;
* a SQuAD v1.1-compatible mode (`squad11_*`, five functions) that behaves like the official
  `evaluate-v1.1.py`: ASCII punctuation only, bag-of-words F1, F1 = 0 whenever nothing is shared (even when
  both sides are empty), max over golds, missing predictions score 0, results x100.
"""
import re
import string
import unicodedata
from collections import Counter
from typing import Callable, Dict, FrozenSet, Iterable, List, Mapping, Sequence

# ------------------------------------------------------------------------------ normalisers ---

_WHITESPACE_RUN = re.compile(r"\s+")
_ASCII_PUNCTUATION = frozenset(string.punctuation)
_ENGLISH_ARTICLE = re.compile(r"\b(a|an|the)\b")
# A comma between digits that is followed by exactly three digits: 13,510,000 -> 13510000; 1,5 and 1,2345 stay.
_DIGIT_GROUP_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def normalize_strict(text: str) -> str:
    """Unicode NFKC (full-width -> half-width: '１２３' -> '123', '，' -> ','), strip, collapse whitespace runs.

    The closest reading of "exactly match" that does not punish a full-width/half-width variant.
    """
    return _WHITESPACE_RUN.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def squad11_normalize_answer(text: str) -> str:
    """SQuAD v1.1's normalize_answer: lower-case, drop ASCII punctuation, drop English articles, fix spaces.

    Non-ASCII punctuation ('、', '。', '「') is kept, exactly as in the official script.
    """
    lowered = text.lower()
    no_punctuation = "".join(ch for ch in lowered if ch not in _ASCII_PUNCTUATION)
    no_articles = _ENGLISH_ARTICLE.sub(" ", no_punctuation)
    return " ".join(no_articles.split())


def normalize_squad(text: str) -> str:
    """The `squad` normaliser of the spec: `strict`, then SQuAD's normalize_answer."""
    return squad11_normalize_answer(normalize_strict(text))


def strip_digit_grouping(text: str) -> str:
    """Remove a ',' between digits when exactly three digits follow it ('13,510,000' -> '13510000')."""
    return _DIGIT_GROUP_COMMA.sub("", text)


NORMALIZERS: Dict[str, Callable[[str], str]] = {"strict": normalize_strict, "squad": normalize_squad}


def make_normalizer(name: str, digit_grouping: bool = False) -> Callable[[str], str]:
    """A named normaliser, optionally followed by digit-grouping removal (done after NFKC, so '１３，５１０'
    loses its comma too)."""
    base = NORMALIZERS[name]
    if not digit_grouping:
        return base
    return lambda text: strip_digit_grouping(base(text))


# ------------------------------------------------------------------------------ tokenisers ---

def words(normalized: str) -> List[str]:
    """Words of an already normalised string: split on whitespace."""
    return normalized.split()


def characters(normalized: str) -> List[str]:
    """Characters of an already normalised string, spaces left out (Japanese has no word spaces)."""
    return [ch for ch in normalized if not ch.isspace()]


TOKENIZERS: Dict[str, Callable[[str], List[str]]] = {"whitespace": words, "char": characters}


def make_tokenizer(lang: str, ja_tokenizer: str = "char", digit_grouping: bool = False) -> Callable[[str], List[str]]:
    """The words of an answer for F1, by language (Data Search 2, Proposed): English (`E`) = the `squad`-normalised
    answer split on whitespace; Japanese (`J`) = the `strict`-normalised answer cut by `ja_tokenizer`
    (`char`: its non-space characters, as Japanese has no word spaces; `whitespace`)."""
    if lang == "E":
        normalize, cut = make_normalizer("squad", digit_grouping), words
    elif lang == "J":
        normalize, cut = make_normalizer("strict", digit_grouping), TOKENIZERS[ja_tokenizer]
    else:
        raise ValueError("language %r: expected E or J" % lang)
    return lambda text: cut(normalize(text))


def normalize_characters(text: str) -> str:
    """For Japanese and Chinese (no word spaces): NFKC, lower case, every Unicode punctuation mark and space removed,
    so that 'ＴＯＫＹＯ。' and 'tokyo' are one answer; F1 then counts characters (bag_f1 of its characters)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in folded if not ch.isspace() and not unicodedata.category(ch).startswith("P"))


def bag_f1(predicted: Sequence[str], gold: Sequence[str]) -> float:
    """SQuAD v1.1's F1 of two token lists as bags (a token counts as often as it occurs); 0 when nothing is shared,
    also when both are empty."""
    shared = sum((Counter(predicted) & Counter(gold)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(predicted), shared / len(gold)
    return 2 * precision * recall / (precision + recall)


# ------------------------------------------------------------------------------ Data Search 2 measures ---

def exact_match(prediction: str, golds: Sequence[str], normalize: Callable[[str], str]) -> float:
    """1.0 when the normalised prediction equals some normalised gold answer, else 0.0."""
    predicted = normalize(prediction)
    return 1.0 if any(predicted == normalize(gold) for gold in golds) else 0.0


def set_f1(predicted: FrozenSet[str], gold: FrozenSet[str], both_empty: float = 1.0) -> float:
    """F1 of two word SETS (Data Search 2): P = |X∩Y|/|X|, R = |X∩Y|/|Y|, F1 = 2PR/(P+R).

    Edge cases (Proposed, spec 4.5): both sets empty -> `both_empty` (1.0, as SQuAD v2.0; SQuAD v1.1 gives 0.0);
    exactly one empty -> 0.0; nothing shared -> 0.0.
    """
    if not predicted and not gold:
        return float(both_empty)
    common = len(predicted & gold)
    if common == 0:
        return 0.0
    precision = common / len(predicted)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


def max_set_f1(prediction: str, golds: Sequence[str], tokens: Callable[[str], Iterable[str]],
               both_empty: float = 1.0) -> float:
    """Set F1 against each gold answer; the best one counts. `tokens` = normalise then tokenise."""
    predicted = frozenset(tokens(prediction))
    return max(set_f1(predicted, frozenset(tokens(gold)), both_empty) for gold in golds)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0.0 for no values (a language without questions scores 0, and a note says so)."""
    return sum(values) / len(values) if values else 0.0


# ------------------------------------------------------------------------------ SQuAD v1.1 mode ---

def squad11_f1(prediction: str, ground_truth: str) -> float:
    """SQuAD v1.1 F1: bag of normalised tokens; 0 when no token is shared (also when both are empty)."""
    predicted = squad11_normalize_answer(prediction).split()
    gold = squad11_normalize_answer(ground_truth).split()
    shared = sum((Counter(predicted) & Counter(gold)).values())
    if shared == 0:
        return 0.0
    precision = shared / len(predicted)
    recall = shared / len(gold)
    return 2 * precision * recall / (precision + recall)


def squad11_exact_match(prediction: str, ground_truth: str) -> float:
    """SQuAD v1.1 EM: equality of the normalised strings."""
    return 1.0 if squad11_normalize_answer(prediction) == squad11_normalize_answer(ground_truth) else 0.0


def squad11_max_over_golds(metric: Callable[[str, str], float], prediction: str, golds: Sequence[str]) -> float:
    """The best score over the gold answers, separately for each metric."""
    return max(metric(prediction, gold) for gold in golds)


def squad11_evaluate(golds: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> Dict[str, float]:
    """{"exact_match", "f1"} x100 over ALL gold questions; an unanswered question scores 0 (v1.1 rule)."""
    exact = f1 = 0.0
    for qid, answers in golds.items():
        if qid not in predictions:
            continue
        exact += squad11_max_over_golds(squad11_exact_match, predictions[qid], answers)
        f1 += squad11_max_over_golds(squad11_f1, predictions[qid], answers)
    total = len(golds)
    return {"exact_match": 100.0 * exact / total if total else 0.0, "f1": 100.0 * f1 / total if total else 0.0}
