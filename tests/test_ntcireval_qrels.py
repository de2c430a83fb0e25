"""Graded qrels readers (NTCIR `topic docid Lk`, per-topic `.rel`, TREC with integer grades) and labelling:
every defect is a ConfigError naming file and line."""
import re

import pytest

from runscore.errors import ConfigError
from runscore.ranking.ntcir_qrels import highest_level, label, parse_rel_text, read_graded_qrels


def _read(tmp_path, text, fmt="auto", max_level=None):
    path = tmp_path / "qrels"
    path.write_text(text, encoding="utf-8")
    return read_graded_qrels(str(path), fmt, max_level)


def test_ntcir_and_trec_formats_give_the_same_qrels(tmp_path):
    ntcir = _read(tmp_path, "0001 d1 L2\n0001 d2 L0\n\n0002 d3 L1\n")
    trec = _read(tmp_path, "0001 0 d1 2\n0001 0 d2 0\n0002 0 d3 1\n")
    assert ntcir == trec == {"0001": {"d1": 2, "d2": 0}, "0002": {"d3": 1}}
    assert list(ntcir["0001"]) == ["d1", "d2"]          # file order kept
    assert highest_level(ntcir) == 2


def test_rel_file():
    assert parse_rel_text("d1 L3\nd2 L0\n", "x.rel") == {"d1": 3, "d2": 0}


@pytest.mark.parametrize("text, fmt, max_level, message", [
    ("0001 d1 L2 extra\n", "ntcir", None, r"qrels:1: error: NTCIR qrels line has 4 fields, expected 3"),
    ("0001 d1 2\n", "ntcir", None, r"qrels:1: error: relevance level '2' is not of the form Lk"),
    ("0001 d1 L16\n", "ntcir", None, r"qrels:1: error: relevance level L16 is above the highest declared level L15"),
    ("0001 d1 L%s\n" % ("9" * 5000), "ntcir", None, r"qrels:1: error: relevance level L9999.* is above the highest"),
    ("0001 d1 L1\n0001 d2 L3\n", "auto", 2, r"qrels:2: error: relevance level L3 is above the highest declared "
                                            r"level L2"),
    ("0001 d1 L1\n0001 d1 L0\n", "auto", None, r"qrels:2: error: duplicate judgement of document d1 for topic 0001"),
    ("0001 0 d1 x\n", "trec", None, r"qrels:1: error: grade 'x' is not an integer"),
    ("0001 0 d1 -1\n", "trec", None, r"qrels:1: error: grade -1 is outside the task's scale 0\.\.15"),
    ("0001 d1\n", "auto", None, r"qrels: error: cannot tell the qrels format"),
    ("\n\n", "auto", None, r"qrels: error: the qrels file is empty"),
    ("0001 d1 L1\n", "xml", None, r"qrels format 'xml' is not one of auto, ntcir, trec"),
])
def test_bad_qrels(tmp_path, text, fmt, max_level, message):
    with pytest.raises(ConfigError) as info:
        _read(tmp_path, text, fmt, max_level)
    assert re.search(message, str(info.value)), str(info.value)


def test_bad_rel_line():
    with pytest.raises(ConfigError, match=r"x.rel:2: error: .rel line has 3 fields"):
        parse_rel_text("d1 L1\nd2 L1 extra\n", "x.rel")


def test_label_keeps_run_order_and_condensed_mode_drops_unjudged():
    qrels = {"a": 2, "b": 0}
    assert label(["x", "b", "a", "x2"], qrels) == [0, 0, 2, 0]
    assert label(["x", "b", "a", "x2"], qrels, condensed=True) == [0, 2]
