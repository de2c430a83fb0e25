"""Inter-assessor agreement on the items two or more sheets labelled: Cohen's kappa for two assessors,
Krippendorff's alpha for more (specs/campaign.md 2.3), both on nominal labels.

Why nominal: the scales differ per task (S/A/B/C, L0-L2, 0/1) and the question the organiser asks is "did the
assessors give the same label"; a disagreement of one grade counts as much as one of two. Both return None when
undefined (every label the same: no chance agreement to beat, the formulas divide by zero), never a made-up 1.

kappa = (p_o - p_e) / (1 - p_e), p_o the share of items with equal labels, p_e = sum over labels of the product of
the two assessors' label shares (Cohen 1960).
alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k, with the coincidence matrix o_ck = sum over items
labelled by m >= 2 assessors of (ordered pairs of its labels with values c, k) / (m - 1), n_c = sum_k o_ck and
n = sum_c n_c (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", nominal metric).
"""
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple


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


def agreement(labels: Dict[Tuple[str, str], Dict[str, str]], assessors: List[str]) -> Dict[str, object]:
    """Per topic and overall, over the items labelled by two or more assessors.

    labels: (topic, item) -> {assessor: label}. Two assessors: Cohen's kappa; more: Krippendorff's alpha.
    Returns {"measure", "overall", "items", "per_topic": {topic: {"value", "items"}}}.
    """
    measure = "cohen_kappa" if len(assessors) == 2 else "krippendorff_alpha"
    shared = {key: given for key, given in labels.items() if len(given) >= 2}

    def value(keys):
        if measure == "cohen_kappa":
            return cohen_kappa([(shared[k][assessors[0]], shared[k][assessors[1]]) for k in keys])
        return krippendorff_alpha([list(shared[k].values()) for k in keys])

    topics: Dict[str, List[Tuple[str, str]]] = {}
    for key in shared:
        topics.setdefault(key[0], []).append(key)
    return {"measure": measure, "overall": value(list(shared)), "items": len(shared),
            "per_topic": {t: {"value": value(keys), "items": len(keys)} for t, keys in topics.items()}}
