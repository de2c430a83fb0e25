"""The official answer normalisation of Qur'an QA 2023 Task B: clitic removal, punctuation and stop words.

Why separate: the same two functions decide which passage tokens vanish (shifting every token position) and
when two answers count as the same text; the scorer and the checker's warnings both need them.
"""
import string
from typing import List

from .segment import Segmenter

STOP_WORDS = frozenset(("من", "الى", "إلى", "عن", "على", "في", "حتى"))
PUNCTUATION = frozenset(string.punctuation) | frozenset("،؛؟")   # ASCII plus Arabic comma, semicolon, question mark
# Clitics removed at the start of a segmented token, each at most once, in this order.
CLITIC_PREFIXES = ("و+", "ف+", "ب+", "ك+", "ل+", "لل+", "ال+")


def strip_clitic_prefixes(segmented: str) -> str:
    """`و+ال+كتاب` -> `كتاب`: drop the listed prefixes in order (each once), then every remaining `+`."""
    for prefix in CLITIC_PREFIXES:
        if segmented.startswith(prefix):
            segmented = segmented[len(prefix):]
    return segmented.replace("+", "")


def strip_clitics(text: str, segment: Segmenter) -> str:
    """The text segmented, each segmented token stripped of its prefixes, joined by one space."""
    return " ".join(strip_clitic_prefixes(token) for token in segment(text).split())


def normalise(text: str) -> str:
    """Delete punctuation characters, drop stop-word tokens, single spaces (no letter normalisation)."""
    without_punctuation = "".join(ch for ch in text if ch not in PUNCTUATION)
    return " ".join(token for token in without_punctuation.split() if token not in STOP_WORDS)


def answer_text(text: str, segment: Segmenter) -> str:
    """The text an answer is compared by: clitics stripped, then normalised."""
    return normalise(strip_clitics(text, segment))


def is_removed_token(token: str) -> bool:
    """A token of the clitic-stripped passage that normalisation deletes: a stop word or a lone punctuation mark."""
    return token in STOP_WORDS or token in PUNCTUATION


def passage_tokens(passage: str, segment: Segmenter) -> List[str]:
    return strip_clitics(passage, segment).split()
