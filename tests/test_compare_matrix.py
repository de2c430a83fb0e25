"""Building the topics x runs matrix from scored runs: topic set, missing values, names, usage errors."""
import numpy as np
import pytest

from runscore.compare import build_matrix, choose_measure, run_labels
from runscore.errors import ConfigError
from runscore.tasks.base import Column, ParsedRun, RunScores, Task


class _Task(Task):
    id = "toy"
    columns = (Column("ap", "AP", "AP"),)


def _scored(name, per_topic, path=None, overall=None):
    measures = {"AP": overall} if overall is not None else {}
    return ParsedRun(name, path or name, None), RunScores(measures, per_topic)


def test_topics_in_first_seen_order_and_missing_values_count_zero_with_a_note():
    scored = [_scored("a", {"1": {"AP": 0.5}, "2": {"AP": 0.25}}),
              _scored("b", {"2": {"AP": 0.75}, "3": {"AP": 1.0}})]
    matrix = build_matrix(scored, "AP")
    assert matrix.topics == ["1", "2", "3"]
    np.testing.assert_array_equal(matrix.values, [[0.5, 0.0], [0.25, 0.75], [0.0, 1.0]])
    assert matrix.notes == ["a: no AP value for 1 topic(s), counted as 0: 3",
                            "b: no AP value for 1 topic(s), counted as 0: 1"]


def test_a_topic_no_run_has_a_value_for_is_not_in_the_matrix():
    scored = [_scored("a", {"1": {"AP": 0.5}, "2": {"P_10": 0.1}}), _scored("b", {"1": {"AP": 0.5}, "2": {}})]
    assert build_matrix(scored, "AP").topics == ["1"]


def test_overall_value_that_is_not_the_per_topic_mean_is_noted():
    # (0.5 + 0.25) / 2 = 0.375, but the run says 0.3 (as a geometric mean would): the note says so.
    scored = [_scored("a", {"1": {"AP": 0.5}, "2": {"AP": 0.25}}, overall=0.3),
              _scored("b", {"1": {"AP": 0.5}, "2": {"AP": 0.25}}, overall=0.375)]
    notes = build_matrix(scored, "AP").notes
    assert notes == ["a: the run's overall AP (0.3000) is not the mean of its per-topic values (0.3750); "
                     "the tests compare per-topic means"]


def test_non_finite_values_are_refused():
    scored = [_scored("a", {"1": {"AP": float("nan")}}), _scored("b", {"1": {"AP": 0.5}})]
    with pytest.raises(ConfigError, match="not finite numbers .e.g. topic 1"):
        build_matrix(scored, "AP")


def test_run_labels_are_unique():
    scored = [_scored("r", {}, "x/r"), _scored("r", {}, "y/r"), _scored("s", {}), _scored("r", {}, "x/r")]
    assert run_labels(scored) == ["r@x/r", "r@y/r", "s", "r@x/r'"]


def test_choose_measure_defaults_to_the_primary_and_suggests_close_names():
    scored = [_scored("a", {"1": {"AP": 0.5, "P_10": 0.1}}), _scored("b", {"1": {"AP": 0.5}})]
    assert choose_measure(_Task(), scored, None) == "AP"
    assert choose_measure(_Task(), scored, "P_10") == "P_10"
    assert choose_measure(_Task(), scored, "P10") == "P_10"           # spellings of one name (squashed equal)
    assert choose_measure(_Task(), scored, "toy_ap") == "AP"            # the leaderboard key
    with pytest.raises(ConfigError, match=r"measure 'P_1O' for task toy \(did you mean P_10\?\)$"):
        choose_measure(_Task(), scored, "P_1O")
    with pytest.raises(ConfigError, match=r"measure 'xyz' for task toy; per-topic measures: AP, P_10$"):
        choose_measure(_Task(), scored, "xyz")
    with pytest.raises(ConfigError, match="primary measure 'AP' has no per-topic values"):
        choose_measure(_Task(), [_scored("a", {"1": {"P_10": 0.1}})], None)
