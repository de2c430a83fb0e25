"""NTCIREVAL measures: the 5 fixture cases of pyNTCIREVAL (every value), hand-derived small cases for every
formula of ranking-measures.md B.2, the R2C2 equal-gain values, and a differential test against trec_eval 9
(pytrec-eval-terrier) where the definitions coincide."""
import math
import random

import pytest

from conftest import shared_path
from runscore.errors import ConfigError
from runscore.measures.names import compute, compute_all, from_ntcireval, from_trec_eval, parse_name, to_ntcireval
from runscore.measures.ntcireval import GradedRanking, NoRelevantDocuments, mean_over_topics, parse_gains
from runscore.ranking.ntcir_qrels import label, parse_rel_text
from runscore.textfile import read_text

FIXTURE = ("data", "ntcireval")


def _read_rel(name):
    path = shared_path(*FIXTURE, name)
    return parse_rel_text(read_text(path), path)


def _read_lab(name):
    """A labelled list: `docid [Lk]` a line; no label = unjudged."""
    rows = []
    for line in read_text(shared_path(*FIXTURE, name)).splitlines():
        fields = line.split()
        rows.append((fields[0], fields[1] if len(fields) > 1 else None))
    return rows


def _read_nev(name):
    """NTCIREVAL output: header comments `# key=value ...` and lines `Name= value`."""
    header, values = {}, []
    for line in read_text(shared_path(*FIXTURE, name)).splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            for item in line[1:].split():
                key, value = item.split("=")
                header[key] = int(value)
        else:
            key, value = line.split("=")
            values.append((key, value.strip()))
    return header, values


# ------------------------------------------------------------------------------------------ fixtures ---
def test_label_fixture_matches_sample_lab():
    rel = _read_rel("sample.rel")
    docids = read_text(shared_path(*FIXTURE, "sample.res")).split()
    expected = [(d, None if lab is None else int(lab[1:])) for d, lab in _read_lab("sample.lab")]
    got = [(d, rel.get(d)) for d in docids]
    assert got == expected
    assert label(docids, rel) == [0 if lvl is None else lvl for _, lvl in expected]


def test_condensed_label_fixture_matches_sample_j_lab():
    rel = _read_rel("sample.rel")
    docids = read_text(shared_path(*FIXTURE, "sample.res")).split()
    expected = [int(lab[1:]) for _, lab in _read_lab("sample-j.lab")]
    assert label(docids, rel, condensed=True) == expected


@pytest.mark.parametrize("lab, gains, result", [
    ("sample.lab", "1:2:3", "res_test_compute.txt"),
    ("sample.lab", "1:4:9", "res_test_compute_grade.txt"),
    ("sample.lab", "1:2:3", "res_test_compute_cutoff.txt"),
    ("sample-j.lab", "1:2:3", "res_test_compute_label_j.txt"),
])
def test_compute_fixture_every_value(lab, gains, result):
    rel = _read_rel("sample.rel")
    levels = [0 if lvl is None else int(lvl[1:]) for _, lvl in _read_lab(lab)]
    topic = GradedRanking(levels, list(rel.values()), parse_gains(gains))
    header, values = _read_nev(result)
    assert header == {"syslen": topic.syslen, "jrel": topic.R, "jnonrel": int(topic.level_counts[0]),
                      "r1": topic.first_relevant_rank(), "rp": topic.first_top_level_rank()}
    assert len(values) == 19
    for name, expected in values:
        measure = from_ntcireval(name)
        assert to_ntcireval(measure) == name
        assert "%.4f" % compute(measure, topic) == expected, name


# ------------------------------------------------------------------------------------------ hand cases ---
# gains 1:2; qrels a=L2, b=L1, c=L1, d=L0 (R = 3); system list d, b, x (unjudged), a -> levels 0 1 0 2.
# L = max(R, syslen) = 4; g = 0 1 0 2; count = 0 1 1 2; cg = 0 1 1 3; ideal g* = 2 1 1 0, cg* = 2 3 4 4.
HAND = GradedRanking([0, 1, 0, 2], [2, 1, 1, 0], (1.0, 2.0))
BR2 = (1 * 1 + 1) / (1 * 3 + 2)         # (β·cg(2) + count(2)) / (β·cg*(2) + 2) = 2/5
BR4 = (1 * 3 + 2) / (1 * 4 + 4)         # 5/8
S = [0, 1 / 3, 0, 2 / 3]                # s(r) = g(r)/(g_max + 1), g_max = 2
S_IDEAL = [2 / 3, 1 / 3, 1 / 3, 0]
IDEAL_DCG_B2 = 2 / 1 + 1 / 1 + 1 / math.log2(3)     # d(1) = d(2) = 1 (r <= b = 2), d(3) = log2 3

HAND_CASES = [
    ("AP", (1 / 2 + 2 / 4) / 3),
    ("AP@2", (1 / 2) / min(2, 3)),
    ("Q", (BR2 + BR4) / 3),
    ("Q@2", BR2 / 2),
    ("Q(beta=0)", (1 / 2 + 2 / 4) / 3),                          # β = 0: Q-measure is AP
    ("nDCG@3", (1 / 1) / IDEAL_DCG_B2),
    ("nDCG@10", (1 / 1 + 2 / math.log2(4)) / (IDEAL_DCG_B2 + 0)),  # l > L: value at L = 4
    ("nDCG@4(logb=0)", (1 / 1 + 2 / math.log(4)) / (2 / 1 + 1 / 1 + 1 / math.log(3))),   # natural log: r < e
    ("nDCG@4(logb=3)", (1 / 1 + 2 / math.log(4, 3)) / (2 / 1 + 1 / 1 + 1 / 1)),   # log_3(3) = 1 at r = b
    ("MSnDCG@4", (1 / math.log2(3) + 2 / math.log2(5)) / (2 / 1 + 1 / math.log2(3) + 1 / math.log2(4))),
    ("MSnDCG@1", 0 / 2),
    ("P@3", 1 / 3),
    ("P@10", 2 / 10),                                            # still divided by l beyond L
    ("Hit@1", 0.0),
    ("Hit@2", 1.0),
    ("RR", 1 / 2),
    ("ERR", (1 / 2) * S[1] + (1 / 4) * S[3] * (1 - S[1])),
    ("nERR@2", ((1 / 2) * S[1]) / (S_IDEAL[0] + (1 / 2) * S_IDEAL[1] * (1 - S_IDEAL[0]))),
    ("RBP", (1 - 0.95) / 2 * (1 * 0.95 ** 1 + 2 * 0.95 ** 3)),
    ("RBP(p=0.5)", (1 - 0.5) / 2 * (1 * 0.5 ** 1 + 2 * 0.5 ** 3)),
    ("nRBP", (1 * 0.95 + 2 * 0.95 ** 3) / (2 + 1 * 0.95 + 1 * 0.95 ** 2)),
    ("iRBU", 0.99 ** 2 * S[1] + 0.99 ** 4 * S[3] * (1 - S[1])),
    ("niRBU", (0.99 ** 2 * S[1] + 0.99 ** 4 * S[3] * (1 - S[1]))
     / (0.99 * S_IDEAL[0] + 0.99 ** 2 * S_IDEAL[1] * (1 - S_IDEAL[0])
        + 0.99 ** 3 * S_IDEAL[2] * (1 - S_IDEAL[0]) * (1 - S_IDEAL[1]))),
    ("Omeasure", BR2),                    # BR at r1 = 2
    ("Pmeasure", BR4),                    # BR at rp = 4 (first L2)
    ("Pplus", (BR2 + BR4) / 2),           # mean BR over relevant ranks <= rp
    ("NCUguP", (1 / 4) * (1 / 2) + (2 / 4) * (2 / 4)),   # stop values = gains; Σ over judged rel = 2+1+1
    ("NCUguBR", (1 / 4) * BR2 + (2 / 4) * BR4),
    ("NCUrbP", (1 * (1 / 2) + 0.95 * (2 / 4)) / (1 + 0.95 + 0.95 ** 2)),
    ("NCUrbBR", (1 * BR2 + 0.95 * BR4) / (1 + 0.95 + 0.95 ** 2)),
]


@pytest.mark.parametrize("name, expected", HAND_CASES)
def test_hand_derived(name, expected):
    assert compute(name, HAND) == pytest.approx(expected, abs=1e-12)


def test_every_family_has_a_hand_case():
    from runscore.measures.ntcireval import FAMILIES

    assert {parse_name(name).family for name, _ in HAND_CASES} == set(FAMILIES)


# ------------------------------------------------------------------------------ C's loops, bit for bit ---
def _c_loops(name: str, t: GradedRanking) -> float:
    """NTCIREVAL's loops in plain Python: libm's log2, log and pow (math.*) and every sum added left to right from
    0.0, term by term in the module's own expressions (gain times 1/discount, weight times stop times reach)."""
    g, ideal, rel, count = t.g.tolist(), t.g_ideal.tolist(), t.rel.tolist(), t.count.tolist()
    s_max = t.g_max + 1.0

    def total(terms):
        out = 0.0
        for term in terms:
            out += term
        return out

    def ratio(a, b):
        return a / b if b > 0 else 0.0

    def cascade(gains, weight, depth):
        out, reach = 0.0, 1.0
        for r in range(1, depth + 1):
            stop = gains[r - 1] / s_max
            out += weight(r) * stop * reach
            reach *= 1.0 - stop
        return out

    def log_discount(r, base):
        return 1.0 if r == 1 or r <= base else math.log(r) / math.log(base)

    depth = min(20, t.L)
    if name == "AP":
        return total(count[r - 1] / float(r) for r in range(1, t.L + 1) if rel[r - 1]) / t.R
    if name == "MSnDCG@20":
        return ratio(total(g[r - 1] * (1.0 / math.log2(r + 1.0)) for r in range(1, depth + 1)),
                     total(ideal[r - 1] * (1.0 / math.log2(r + 1.0)) for r in range(1, depth + 1)))
    if name in ("nDCG@20", "nDCG@20(logb=0)", "nDCG@20(logb=10)"):
        base = {"nDCG@20": 2.0, "nDCG@20(logb=0)": math.e, "nDCG@20(logb=10)": 10.0}[name]
        return ratio(total(g[r - 1] * (1.0 / log_discount(r, base)) for r in range(1, depth + 1)),
                     total(ideal[r - 1] * (1.0 / log_discount(r, base)) for r in range(1, depth + 1)))
    if name == "RBP":
        return (1.0 - 0.95) / t.g_max * total(g[r - 1] * math.pow(0.95, r - 1.0) for r in range(1, t.syslen + 1))
    if name == "ERR":
        return cascade(g, lambda r: 1.0 / r, t.syslen)
    if name == "iRBU":
        return cascade(g, lambda r: math.pow(0.99, r), t.L)
    if name == "NCUrbP":
        norm = total(math.pow(0.95, i) for i in range(t.R))
        return total((count[r - 1] / float(r)) * (math.pow(0.95, count[r - 1] - 1.0) / norm)
                     for r in range(1, t.L + 1) if rel[r - 1])
    raise KeyError(name)


C_LOOP_MEASURES = ["AP", "MSnDCG@20", "nDCG@20", "nDCG@20(logb=0)", "nDCG@20(logb=10)", "RBP", "ERR", "iRBU",
                   "NCUrbP"]


@pytest.mark.parametrize("seed", range(30))
def test_measures_are_c_loops_with_libm_bit_for_bit(seed):
    """Every value is what NTCIREVAL's C loops give, to the last bit and on every CPU: libm's log2, log and pow
    (numpy's log2 and log come from its own AVX-512 code on such CPUs, an ulp away at many ranks) and sums
    added left to right (np.sum regroups 8 terms and more). Long lists and many relevant documents, so that
    the ranks where numpy's functions differ and the regrouped sums are reached."""
    rng = random.Random(seed)
    gains = tuple(sorted(rng.choice([1.0, 2.0, 3.0, 0.7, 10.0 / 3]) for _ in range(rng.randint(1, 4))))
    top = len(gains)
    judged = [rng.randint(0, top) for _ in range(rng.randint(1, 120))] + [rng.randint(1, top)]
    levels = [rng.choice([0, 0, rng.randint(0, top)]) for _ in range(rng.randint(0, 150))]
    topic = GradedRanking(levels, judged, gains)
    for name in C_LOOP_MEASURES:
        assert compute(name, topic).hex() == _c_loops(name, topic).hex(), name


def test_empty_run_scores_zero_and_no_relevant_is_an_error():
    empty = GradedRanking([], [1, 0], (1.0,))
    values = compute_all(["AP", "Q", "MSnDCG@20", "nDCG@20", "P@20", "Hit@1", "RR", "ERR", "nERR@20", "RBP",
                          "iRBU", "Omeasure", "Pplus", "NCUguP"], empty)
    assert set(values.values()) == {0.0}
    with pytest.raises(NoRelevantDocuments):
        GradedRanking([0, 0], [0, 0], (1.0,))


def test_level_above_declared_gains_is_refused():
    with pytest.raises(ValueError, match="outside L0..L1"):
        GradedRanking([2], [1], (1.0,))
    with pytest.raises(ValueError, match="must not decrease"):
        parse_gains("2:1")


def test_nev2mean_counts_missing_topics_as_missing_value():
    per_topic = {"1": {"AP": 0.5}, "2": {"AP": 0.25}}
    assert mean_over_topics(per_topic, ["1", "2", "3"], ["AP"]) == {"AP": (0.5 + 0.25 + 0) / 3}


# ------------------------------------------------------------------------------------------ R2C2 B.3 ---
@pytest.mark.parametrize("rank, expected", [(1, "0.1420"), (2, "0.0896"), (20, "0.0323")])
def test_r2c2_equal_gain_values(rank, expected):
    # one relevant passage at `rank` of a 20-passage list; the ideal list is 20 equally graded passages
    levels = [1 if r == rank else 0 for r in range(1, 21)]
    topic = GradedRanking(levels, [1] * 20, (1.0,))
    assert "%.4f" % compute("MSnDCG@20", topic) == expected
    ideal = sum(1 / math.log2(r + 1) for r in range(1, 21))
    assert compute("MSnDCG@20", topic) == pytest.approx((1 / math.log2(rank + 1)) / ideal, abs=1e-12)


# ------------------------------------------------------------------------------------------ differential ---
def _random_case(rng, n_topics=30):
    qrels, run = {}, {}
    for t in range(n_topics):
        topic = "t%d" % t
        docs = ["d%d" % i for i in range(rng.randint(5, 60))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        qrels[topic] = {d: rng.randint(0, 3) for d in judged}
        if not any(qrels[topic].values()):
            qrels[topic][judged[0]] = rng.randint(1, 3)
        retrieved = rng.sample(docs, rng.randint(0, len(docs)))
        scores = rng.sample(range(10 ** 6), len(retrieved))      # distinct: no tie-breaking question
        run[topic] = {d: float(s) for d, s in zip(retrieved, scores)}
    return qrels, run


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_msndcg_equals_trec_eval_ndcg_cut_with_linear_gains(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_case(random.Random(seed))
    results = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut", "map", "P", "recip_rank", "success"}) \
        .evaluate({t: docs for t, docs in run.items() if docs})
    checked = 0
    for topic in qrels:
        ranked = sorted(run[topic], key=lambda d: -run[topic][d])
        graded = GradedRanking(label(ranked, qrels[topic]), list(qrels[topic].values()), (1.0, 2.0, 3.0))
        peer = results.get(topic)
        for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000):
            expected = peer["ndcg_cut_%d" % k] if peer else 0.0
            assert compute(from_trec_eval("ndcg_cut.%d" % k), graded) == pytest.approx(expected, abs=1e-9)
            checked += 1
        for trec_name in ("map", "P_5", "P_10", "P_30", "recip_rank", "success_1", "success_10"):
            expected = peer[trec_name] if peer else 0.0
            assert compute(from_trec_eval(trec_name), graded) == pytest.approx(expected, abs=1e-9), trec_name
    assert checked == 30 * 9


# ------------------------------------------------------------------------------------------ names ---
@pytest.mark.parametrize("name", ["AP", "Q", "P@20", "nDCG@20", "MSnDCG@20", "nERR@10", "Hit@1", "RR", "ERR",
                                  "ERR@5", "RBP(p=0.8)", "Q@10(beta=0.5)",
                                  "iRBU@10(p=0.9)", "NCUrbBR(beta=2,gamma=0.5)", "AP@1000"])
def test_canonical_names_round_trip(name):
    assert str(parse_name(name)) == name


@pytest.mark.parametrize("name, canonical", [("Q(beta=1)", "Q"), ("RBP(p=0.95)", "RBP"),
                                             ("NCUrbBR(gamma=0.5,beta=2)", "NCUrbBR(beta=2,gamma=0.5)")])
def test_default_parameters_are_dropped_and_sorted(name, canonical):
    assert str(parse_name(name)) == canonical


@pytest.mark.parametrize("ntcireval, canonical", [("MSnDCG@0020", "MSnDCG@20"), ("Q-measure", "Q"),
                                                   ("Q@0010", "Q@10"), ("Prec@0010", "P@10"),
                                                   ("NCUgu,BR", "NCUguBR"), ("P-plus", "Pplus"),
                                                   ("Hit@0001", "Hit@1")])
def test_ntcireval_names(ntcireval, canonical):
    assert str(from_ntcireval(ntcireval)) == canonical


@pytest.mark.parametrize("trec, canonical", [("map", "AP"), ("P_20", "P@20"), ("P.20", "P@20"),
                                             ("ndcg_cut.20", "MSnDCG@20"), ("recip_rank", "RR"),
                                             ("success_1", "Hit@1")])
def test_trec_eval_names(trec, canonical):
    assert str(from_trec_eval(trec)) == canonical


@pytest.mark.parametrize("bad, message", [
    ("MSNDCG@20", r"no measure family 'MSNDCG'.*did you mean MSnDCG@20"),
    ("nDCG", r"nDCG needs a cutoff"),
    ("RR@10", r"RR takes no cutoff"),
    ("P@0020", r"without leading zeros"),
    ("Q(gamma=1)", r"Q has no parameter 'gamma'"),
    ("Q(beta=x)", r"expected name=number"),
    ("AP@", r"expected FAMILY"),
])
def test_bad_names_are_config_errors_with_suggestions(bad, message):
    with pytest.raises(ConfigError, match=message):
        parse_name(bad)


def test_untranslatable_trec_eval_name():
    with pytest.raises(ConfigError, match="no NTCIREVAL equivalent"):
        from_trec_eval("bpref")
