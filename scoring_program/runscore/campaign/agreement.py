"""Inter-assessor agreement on the items two or more assessors labelled: Cohen's kappa for two assessors,
Krippendorff's alpha for more (specs/campaign.md 2.3), both on nominal labels and on binary relevance at each
level of the scale, overall, per topic and (kappa) for each pair of assessors.

Why nominal: the scales differ per task (S/A/B/C, L0-L2, 0/1) and the question the organiser asks is "did the
assessors give the same label"; a disagreement of one grade counts as much as one of two. Both return None when
undefined (every label the same: no chance agreement to beat, the formulas divide by zero), never a made-up 1.

kappa = (p_o - p_e) / (1 - p_e), p_o the share of items with equal labels, p_e = sum over labels of the product of
the two assessors' label shares (Cohen 1960).
alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k, with the coincidence matrix o_ck = sum over items
labelled by m >= 2 assessors of (ordered pairs of its labels with values c, k) / (m - 1), n_c = sum_k o_ck and
n = sum_c n_c (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", nominal metric).
"""
import itertools
from collections import Counter
from typing import Callable, Dict, List, Optional, Sequence, Tuple


def cohen_kappa(pairs: Sequence[Tuple[str, str]]) -> Optional[float]:
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[c] * second[c] for c in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def krippendorff_alpha(units: Sequence[Sequence[str]]) -> Optional[float]:
    """units: the labels each item got (items with fewer than two labels are not pairable and are left out)."""
    coincidence: Counter = Counter()
    for labels in units:
        m = len(labels)
        if m < 2:
            continue
        counts = Counter(labels)
        for c in counts:
            for k in counts:
                pairs = counts[c] * (counts[k] - (1 if c == k else 0))
                if pairs:
                    coincidence[(c, k)] += pairs / (m - 1)
    totals: Counter = Counter()
    for (c, _), value in coincidence.items():
        totals[c] += value
    n = sum(totals.values())
    disagreement = sum(v for (c, k), v in coincidence.items() if c != k)
    chance = sum(totals[c] * totals[k] for c in totals for k in totals if c != k)
    if n <= 1 or chance == 0:
        return None
    return 1 - (n - 1) * disagreement / chance


def _pair_value(shared, keys, first, second) -> Optional[float]:
    return cohen_kappa([(shared[k][first], shared[k][second]) for k in keys
                        if first in shared[k] and second in shared[k]])


def _value(measure: str, shared, keys, assessors) -> Optional[float]:
    if measure == "cohen_kappa":
        return _pair_value(shared, keys, assessors[0], assessors[1])
    return krippendorff_alpha([list(shared[k].values()) for k in keys])


def agreement(labels: Dict[Tuple[str, str], Dict[str, str]], assessors: List[str],
              scale: Optional[Callable[[Tuple[str, str]], Sequence[str]]] = None) -> Dict[str, object]:
    """Per topic, overall and for each pair of assessors, over the items labelled by two or more of them.

    labels: (topic, item) -> {assessor: label}: the assessor is a person, not a file, so the figures do not depend
    on how the labels are split into sheets. Two assessors: Cohen's kappa; more: Krippendorff's alpha (nominal:
    items need not have the same number of labels); each pair of assessors also gets its kappa over the items both
    labelled. With `scale` (the labels of an item's scale, lowest first), the same figures on binary relevance at
    each level (relevant = a label at or above it: what overview papers print), keyed by that level's label.
    Returns {"measure", "assessors", "overall", "items", "disagreements", "per_topic": {topic: {"value",
    "items"}}, "pairs": [{"assessors", "items", "equal", "kappa", "binary"}], "binary": {level: value}}.
    """
    measure = "cohen_kappa" if len(assessors) == 2 else "krippendorff_alpha"
    shared = {key: given for key, given in labels.items() if len(given) >= 2}
    topics: Dict[str, List[Tuple[str, str]]] = {}
    for key in shared:
        topics.setdefault(key[0], []).append(key)
    binary: Dict[str, Dict[Tuple[str, str], Dict[str, str]]] = {}
    if scale is not None:
        for key, given in shared.items():
            ordered = list(scale(key))
            for position, level in enumerate(ordered[1:], start=1):
                binary.setdefault(level, {})[key] = {who: "1" if ordered.index(label) >= position else "0"
                                                     for who, label in given.items()}
    pairs = []
    for first, second in itertools.combinations(assessors, 2):
        both = [k for k, given in shared.items() if first in given and second in given]
        if not both:
            continue
        pairs.append({"assessors": [first, second], "items": len(both),
                      "equal": sum(1 for k in both if shared[k][first] == shared[k][second]),
                      "kappa": _pair_value(shared, both, first, second),
                      "binary": {level: _pair_value(by_key, both, first, second)
                                 for level, by_key in binary.items()}})
    return {"measure": measure, "assessors": list(assessors), "overall": _value(measure, shared, list(shared),
                                                                               assessors),
            "items": len(shared), "disagreements": sum(1 for given in shared.values() if len(set(given.values())) > 1),
            "per_topic": {t: {"value": _value(measure, shared, keys, assessors), "items": len(keys)}
                          for t, keys in topics.items()},
            "pairs": pairs,
            "binary": {level: _value(measure, by_key, list(by_key), assessors) for level, by_key in binary.items()}}
