"""Farasa-style segmentation of a text, token by token (`والكتاب` -> `و+ال+كتاب`), pluggable.

Why pluggable: the official scorer calls the Farasa jar (farasapy), which needs Java and a download at first
use, so it cannot run offline or inside Codabench. The default is a table of the few tokens whose clitics
change a pAP@10 value on QRCD v1.2 (package data `qqa23_segmentation_table.tsv`); "none" leaves every token
whole; "farasapy" calls the real segmenter when it is installed (offline comparisons only). A segmenter takes
a whole text, as the official scorer hands Farasa whole passages and answers, and returns the segmented tokens
separated by whitespace.
"""
import os
from functools import lru_cache
from typing import Callable, Dict

from ...errors import ConfigError

Segmenter = Callable[[str], str]
TABLE_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data",
                          "qqa23_segmentation_table.tsv")


@lru_cache(maxsize=None)
def load_table(path: str = TABLE_FILE) -> Dict[str, str]:
    """token -> segmentation, from a TSV file (`#` lines are comments)."""
    table = {}
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) < 2 or fields[1].replace("+", "") != fields[0]:
                raise ConfigError("a segmentation must be the token with '+' inserted", path, line_no)
            table[fields[0]] = fields[1]
    return table


def prefix_table_segmenter() -> Segmenter:
    table = load_table()
    return lambda text: " ".join(table.get(token, token) for token in text.split())


def identity_segmenter() -> Segmenter:
    return lambda text: text


def farasapy_segmenter() -> Segmenter:
    """The real Farasa segmenter (farasapy, Java). Not available in the scoring image."""
    try:
        from farasa.segmenter import FarasaSegmenter  # type: ignore
    except ImportError:
        raise ConfigError("option segmentation = farasapy needs the farasapy package and Java "
                          "(pip install farasapy==0.0.14); use prefix_table for offline scoring")
    farasa = FarasaSegmenter(interactive=True)      # as the official scorer
    cache: Dict[str, str] = {}

    def segment(text: str) -> str:
        if text not in cache:
            cache[text] = farasa.segment(text)
        return cache[text]
    return segment


SEGMENTERS = {"prefix_table": prefix_table_segmenter, "none": identity_segmenter, "farasapy": farasapy_segmenter}


def get_segmenter(name: str) -> Segmenter:
    if name not in SEGMENTERS:
        raise ConfigError("unknown segmentation %r; known: %s" % (name, ", ".join(SEGMENTERS)))
    return SEGMENTERS[name]()
