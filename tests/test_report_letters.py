"""Compact letter display: runs share a letter exactly when they do not differ at alpha, and the letters are the
fewest that say it, checked against a brute-force search over every set of cliques on small cases."""
import itertools

import numpy as np
import pytest

from runscore import compare
from runscore.campaign import letters


def brute_force_minimum(together):
    """The fewest cliques (sets of pairwise 'together' runs) covering every together pair and every run: all
    cliques enumerated, then every combination of 1, 2, ... of them tried (independent of letters.py's search)."""
    m = together.shape[0]
    cliques = [set(c) for size in range(1, m + 1) for c in itertools.combinations(range(m), size)
               if all(together[i, j] for i, j in itertools.combinations(c, 2))]
    needs = [(i, j) for i in range(m) for j in range(i, m) if together[i, j]]
    for count in range(1, len(needs) + 1):
        for chosen in itertools.combinations(cliques, count):
            if all(any(i in c and j in c for c in chosen) for i, j in needs):
                return count
    raise AssertionError("no cover")


def random_p(rng, m, density):
    p = np.zeros((m, m))
    for i, j in itertools.combinations(range(m), 2):
        p[i, j] = p[j, i] = rng.uniform(0.05, 1.0) if rng.random() < density else rng.uniform(0.0, 0.0499)
    np.fill_diagonal(p, 1.0)
    return p


def count_letters(found):
    return len({token for text in found for token in letters_tokens(text)})


def letters_tokens(text):
    tokens, k = [], 0
    while k < len(text):
        j = k + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        tokens.append(text[k:j])
        k = j
    return tokens


@pytest.mark.parametrize("seed", range(60))
def test_fewest_letters_on_random_graphs(seed):
    """Any p-value pattern (not only the interval graphs a Tukey HSD gives): correct and minimal."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 6))
    p = random_p(rng, m, rng.uniform(0.2, 0.9))
    order = list(rng.permutation(m))
    found = letters.compact_letters(p, order, 0.05)
    assert letters.check_letters(p, found, 0.05) is None
    assert count_letters(found) == brute_force_minimum(p >= 0.05)


@pytest.mark.parametrize("seed", range(8))
def test_fewest_letters_on_tukey_hsd_p_values(seed):
    """Tukey HSD p-values of simulated runs (an interval graph): correct and minimal; the best run has `a`."""
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(3, 6))
    values = rng.random((15, m)) * 0.5 + np.linspace(0, 0.4, m)[None, :]
    p = compare.randomised_tukey_hsd(values, 400, seed)
    means = values.mean(axis=0)
    order = sorted(range(m), key=lambda r: -means[r])
    found = letters.compact_letters(p, order, 0.05)
    assert letters.check_letters(p, found, 0.05) is None
    assert count_letters(found) == brute_force_minimum(p >= 0.05)
    assert found[order[0]].startswith("a")


def test_a_graph_that_needs_the_search():
    """The 5-cycle of 'together' pairs: no clique larger than 2, five letters, each run two of them."""
    p = np.full((5, 5), 0.01)
    for i in range(5):
        p[i, (i + 1) % 5] = p[(i + 1) % 5, i] = 0.5
    np.fill_diagonal(p, 1.0)
    found = letters.compact_letters(p, list(range(5)), 0.05)
    assert letters.check_letters(p, found, 0.05) is None
    assert count_letters(found) == 5 and all(len(text) == 2 for text in found)


def test_all_different_and_all_alike():
    alike = np.ones((4, 4))
    assert letters.compact_letters(alike, [0, 1, 2, 3], 0.05) == ["a"] * 4
    differ = np.eye(4)
    assert letters.compact_letters(differ, [2, 0, 1, 3], 0.05) == ["b", "c", "a", "d"]


def test_more_than_52_letters_are_numbered():
    assert [letters.letter_name(k) for k in (0, 25, 26, 51, 52, 53)] == ["a", "z", "A", "Z", "a1", "b1"]
    p = np.eye(60)
    found = letters.compact_letters(p, list(range(60)), 0.05)
    assert len(set(found)) == 60 and letters.check_letters(p, found, 0.05) is None


def test_bad_inputs():
    with pytest.raises(letters.ConfigError):
        letters.compact_letters(np.ones((2, 3)), [0, 1], 0.05)
    with pytest.raises(letters.ConfigError):
        letters.compact_letters(np.ones((2, 2)), [0, 1], 1.5)
