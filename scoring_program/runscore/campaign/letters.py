"""Compact letter display: group letters that say which runs do not differ significantly.

Why a module of its own: an overview table marks every run with letters so that two runs sharing a letter do not
differ at the chosen alpha, and two runs that differ share none (Piepho 2004). Each letter is a set of runs that
pairwise do not differ (a clique of the "not significantly different" graph); every such pair must share one
letter, and each run needs at least one. The fewest letters is a minimum clique cover of that graph's edges and
vertices. It is found exactly: only maximal cliques are needed (a letter can always grow to one), cliques that are
the only ones covering some pair are taken first, and a branch-and-bound search settles the rest. For the
randomised Tukey HSD the p-value falls as |mean difference| grows, so the graph is an interval graph and the
first step alone settles it (every maximal clique is needed); the search matters only for other p-value sources.
"""
import string
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import numpy as np

from ..errors import ConfigError

LETTERS = string.ascii_lowercase + string.ascii_uppercase
_SEARCH_BUDGET = 200000          # branch-and-bound nodes before the best cover found so far is kept


def letter_name(index: int) -> str:
    """a..z, A..Z, then a1..Z1, a2..: the 53rd letter is `a1`."""
    return LETTERS[index % len(LETTERS)] + (str(index // len(LETTERS)) if index >= len(LETTERS) else "")


def _maximal_cliques(adjacent: List[Set[int]], order: Sequence[int]) -> List[FrozenSet[int]]:
    """Every maximal clique (Bron-Kerbosch with pivoting), iteratively (no recursion limit)."""
    found: List[FrozenSet[int]] = []
    stack: List[Tuple[Set[int], Set[int], Set[int]]] = [(set(), set(order), set())]
    while stack:
        r, p, x = stack.pop()
        if not p and not x:
            found.append(frozenset(r))
            continue
        pivot = max(p | x, key=lambda v: len(adjacent[v] & p))
        for v in sorted(p - adjacent[pivot]):
            stack.append((r | {v}, p & adjacent[v], x & adjacent[v]))
            p = p - {v}
            x = x | {v}
    return found


def minimum_cover(m: int, together: np.ndarray) -> List[FrozenSet[int]]:
    """The fewest cliques of the graph `together` (m x m booleans, symmetric) that cover every edge and vertex."""
    adjacent = [set(int(j) for j in np.flatnonzero(together[i]) if j != i) for i in range(m)]
    cliques = sorted(set(_maximal_cliques(adjacent, range(m))), key=lambda c: (min(c), sorted(c)))
    needs: List[Tuple[int, int]] = [(i, j) for i in range(m) for j in adjacent[i] if i < j] + [(i, i) for i in range(m)]
    covering: Dict[Tuple[int, int], List[int]] = {n: [] for n in needs}
    for k, clique in enumerate(cliques):
        for n in needs:
            if n[0] in clique and n[1] in clique:
                covering[n].append(k)
    chosen: Set[int] = set()
    for n in needs:                                  # cliques that alone cover some pair are in every cover
        if len(covering[n]) == 1:
            chosen.add(covering[n][0])
    covered = {n for n in needs if any(k in chosen for k in covering[n])}
    rest = [n for n in needs if n not in covered]
    best = _greedy(rest, covering, cliques)
    if rest:
        best = _branch_and_bound(rest, covering, cliques, best)
    return [cliques[k] for k in sorted(chosen | set(best), key=lambda k: (min(cliques[k]), sorted(cliques[k])))]


def _greedy(rest, covering, cliques) -> List[int]:
    """A cover of `rest`: repeatedly the clique covering most uncovered pairs (an upper bound for the search)."""
    left, picked = set(rest), []
    while left:
        counts: Dict[int, int] = {}
        for n in left:
            for k in covering[n]:
                counts[k] = counts.get(k, 0) + 1
        k = max(sorted(counts), key=lambda c: counts[c])
        picked.append(k)
        left = {n for n in left if k not in covering[n]}
    return picked


def _branch_and_bound(rest, covering, cliques, best: List[int]) -> List[int]:
    """Exact minimum cover of `rest`: branch on the cliques covering the uncovered pair with the fewest options."""
    best = list(best)
    nodes = 0
    stack: List[Tuple[List[int], frozenset]] = [([], frozenset(rest))]
    while stack and nodes < _SEARCH_BUDGET:
        picked, left = stack.pop()
        nodes += 1
        if not left:
            if len(picked) < len(best):
                best = picked
            continue
        if len(picked) + 1 >= len(best):
            continue
        pair = min(left, key=lambda n: (len(covering[n]), n))
        for k in covering[pair]:
            stack.append((picked + [k], frozenset(n for n in left if k not in covering[n])))
    return best


def compact_letters(p_values: np.ndarray, order: Sequence[int], alpha: float = 0.05) -> List[str]:
    """Group letters per run (indexed as p_values' rows): runs i, j share a letter exactly when p[i, j] >= alpha.

    Letters are named in `order` (best run first): the best run's first letter is `a`, and a letter's name comes
    from the best run it holds. Each run's letters are concatenated (`ab`).
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[0]
    if p.shape != (m, m):
        raise ConfigError("a p-value matrix is square, got %s" % (p.shape,))
    if not 0.0 < alpha < 1.0:
        raise ConfigError("alpha must be between 0 and 1, got %r" % alpha)
    together = (p >= alpha) | (p >= alpha).T
    np.fill_diagonal(together, True)
    position = {run: k for k, run in enumerate(order)}
    cover = minimum_cover(m, together)
    cover.sort(key=lambda c: sorted(position[r] for r in c))
    letters = [""] * m
    for index, clique in enumerate(cover):
        for run in clique:
            letters[run] += letter_name(index)
    return letters


def check_letters(p_values: np.ndarray, letters: Sequence[str], alpha: float) -> Optional[str]:
    """None when `letters` say exactly which pairs differ at alpha, else what is wrong (for tests and asserts)."""
    def tokens(text: str) -> Set[str]:
        out, k = set(), 0
        while k < len(text):
            j = k + 1
            while j < len(text) and text[j].isdigit():
                j += 1
            out.add(text[k:j])
            k = j
        return out

    sets = [tokens(t) for t in letters]
    for i in range(len(sets)):
        if not sets[i]:
            return "run %d has no letter" % i
        for j in range(i + 1, len(sets)):
            share = bool(sets[i] & sets[j])
            differ = p_values[i, j] < alpha
            if share == differ:
                return "runs %d and %d %s a letter but p = %g" % (i, j, "share" if share else "do not share",
                                                                 p_values[i, j])
    return None
