"""`runscore trec_eval` against the real trec_eval 9.0.8 and 10.0 binaries, byte for byte (stdout and exit code).

Seeded tricky qrels/run pairs (trec_eval_peer.pair: C-isspace separators and the bytes that are not, BOM,
CRLF, non-ASCII and long docnos, lenient scores and grades, duplicates, one-sided topics, malformed lines) x
the option sets users run trec_eval with x both versions. The suite runs a few seconds' worth; `make fuzz` sets
RUNSCORE_FUZZ_TREC_EVAL_PAIRS for the long run. Skips (with the reason) where ../shared or a C compiler is
absent.
"""
import os

import pytest

import trec_eval_peer as peer

PAIRS = int(os.environ.get("RUNSCORE_FUZZ_TREC_EVAL_PAIRS", "2"))  # 4 in make fuzz-ci, 600 in make fuzz
VERSIONS = ("9.0.8", "10.0")


def _need(version):
    path, why = peer.binary(version)
    if path is None:
        pytest.skip(why)


@pytest.mark.parametrize("path", ["exact", "fast"])
@pytest.mark.parametrize("version", VERSIONS)
def test_random_tricky_pairs_match_trec_eval_byte_for_byte(tmp_path, monkeypatch, version, path):
    """Both readers: the exact one, and the columnar fast path forced on (it declines what it cannot take)."""
    _need(version)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1" if path == "fast" else "0")
    failures = []
    for seed in range(PAIRS):
        qrels, run = peer.pair(seed, version == "10.0")
        for options in peer.OPTION_SETS:
            problem = peer.compare(qrels, run, options, version, str(tmp_path))
            if problem:
                failures.append("seed %d: %s" % (seed, problem))
    assert not failures, "%d mismatches; first:\n%s" % (len(failures), failures[0])


# Hand-made cases, each a (qrels, run, options) that once differed.
CASES = [
    ("set_map arithmetic: rel_ret**2 / (ret * R)",
     b"".join(b"1 0 r%d 1\n" % i for i in range(10)),
     b"".join(b"1 Q0 %s %d %d r\n" % (b"r%d" % i if i < 3 else b"n%d" % i, i, 100 - i) for i in range(16)),
     ["-m", "set_map", "-q"]),
    ("-nan for an empty ranking after -M 0", b"1 0 a 1\n1 0 b 0\n", b"1 Q0 a 1 0.5 r\n", ["-M", "0", "-q"]),
    ("-nan for an empty ranking after -J", b"1 0 a 1\n", b"1 Q0 x 1 0.5 r\n", ["-J", "-q", "-m", "all_trec"]),
    ("9.0.8 -c with no common topic: exit 7", b"1 0 a 1\n", b"2 Q0 a 1 0.5 r\n", ["-c"]),
    ("-l -1", b"1 0 a 1\n1 0 b -1\n", b"1 Q0 a 1 0.5 r\n1 Q0 c 2 0.4 r\n", ["-l", "-1", "-q", "-m", "all_trec"]),
    ("qrels blank line: Malformed line", b"1 0 a 1\n\n1 0 b 0\n", b"1 Q0 a 1 0.5 r\n", []),
    ("qrels 5 fields: Malformed line", b"1 0 a 1 x\n", b"1 Q0 a 1 0.5 r\n", []),
    ("NBSP is not a separator", b"1 0 d2\xc2\xa0x 1\n", b"1 Q0 d2\xc2\xa0x 2 0.5 r\n", ["-q"]),
    ("BOM kept in the first topic id", b"\xef\xbb\xbf1 0 a 1\n1 0 b 1\n", b"\xef\xbb\xbf1 Q0 a 1 0.5 r\n", ["-q"]),
    ("CR-only run is one line", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\r1 Q0 b 2 0.4 r\r", ["-q"]),
    ("CR-only qrels is malformed", b"1 0 a 1\r1 0 b 1\r", b"1 Q0 a 1 0.5 r\n", []),
    ("10.0 missing topic without -c: exit 4 after partial output", b"1 0 a 1\n2 0 b 1\n", b"1 Q0 a 1 0.5 r\n",
     ["-q"]),
    ("duplicate judgement: exit 4", b"1 0 a 1\n1 0 a 0\n", b"1 Q0 a 1 0.5 r\n", []),
    ("duplicate docno within -M: exit 4", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n1 Q0 a 2 0.4 r\n", ["-q"]),
    ("duplicate docno beyond -M: no error", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n1 Q0 a 3 0.1 r\n",
     ["-M", "2"]),
    ("duplicate docno in a topic without qrels: no error", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n2 Q0 b 1 1 r\n2 Q0 b 2 1 r\n",
     []),
    ("malformed run line: exit 2", b"1 0 a 1\n", b"1 Q0 a 1 0.5\n", []),
    ("empty run: exit 2", b"1 0 a 1\n", b"", []),
    ("scores atof reads", b"1 0 a 1\n1 0 b 1\n1 0 c 0\n1 0 d 0\n1 0 e 1\n1 0 f 0\n",
     b"1 Q0 a 1 abc r\n1 Q0 b 2 0x1A r\n1 Q0 c 3 inf r\n1 Q0 d 4 1e400 r\n1 Q0 e 5 1.5x r\n1 Q0 f 6 -inf r\n",
     ["-q", "-m", "all_trec"]),
    ("grades atol reads", b"1 0 a 1.5\n1 0 b rel\n1 0 c +2\n", b"1 Q0 a 1 1 r\n1 Q0 b 2 2 r\n1 Q0 c 3 3 r\n",
     ["-q", "-m", "all_trec"]),
    ("usage: exit 1", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n", ["-m", "mapp"]),
    ("-v: the version on stderr, nothing on stdout", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n", ["-v"]),
    ("9.0.8 has no rbp (10.0 has)", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n", ["-m", "rbp"]),
    ("first topic with only negative grades: exit 4", b"1 0 a -1\n2 0 b 1\n", b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n", []),
    ("-c summary num_rel counts grades > 0 whatever -l", b"1 0 a 1\n1 0 b 2\n2 0 c 1\n", b"1 Q0 a 1 1 r\n",
     ["-c", "-l", "2"]),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name,qrels,run,options", CASES, ids=[c[0] for c in CASES])
def test_hand_made_cases_match_trec_eval(tmp_path, monkeypatch, version, name, qrels, run, options):
    _need(version)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")
    problem = peer.compare(qrels, run, options, version, str(tmp_path))
    assert problem is None, problem


def test_long_and_non_ascii_ids_take_the_fast_path_and_match_trec_eval(tmp_path, monkeypatch):
    """Long ids (sharing long prefixes, one equal to another's first 256 bytes, tied scores so the
    docno order decides) and non-ASCII bytes: the columnar reader keeps them (no fallback, no widened rows)
    and the output is trec_eval's."""
    _need("9.0.8")
    from runscore.ranking import fastpath
    base = b"L" * 256
    ids = [base, base + b"a", base + b"b", base + b"ab", b"L" * 300, b"short", b"caf\xc3\xa9", b"\xe2\x80\x80x"]
    qrels = b"".join(b"1 0 %s %d\n" % (d, i % 3) for i, d in enumerate(ids[::2] + [base + b"zz", b"Z" * 400]))
    run = b"".join(b"1 Q0 %s %d %s r\n" % (d, i, b"0.5" if i % 2 else b"0.25") for i, d in enumerate(ids))
    run += b"2 Q0 x 1 1 r\n"
    seen = []
    real = fastpath.read
    monkeypatch.setattr(fastpath, "read", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1")
    for options in (["-q", "-m", "all_trec"], ["-q", "-M", "3", "-m", "relstring", "-m", "map"]):
        problem = peer.compare(qrels, run, options, "9.0.8", str(tmp_path))
        assert problem is None, problem
        assert seen[-1] is not None and seen[-1].long_ids is not None      # the columnar reader took it
        assert seen[-1].docno.shape[1] <= 2                        # one word of id + the long-id code


BIG = os.environ.get("RUNSCORE_FUZZ_TREC_EVAL_BIG", "0") == "1"


@pytest.mark.skipif(not BIG, reason="a 40 MB run: make fuzz sets RUNSCORE_FUZZ_TREC_EVAL_BIG=1")
@pytest.mark.parametrize("version", VERSIONS)
def test_a_big_tricky_run_read_in_chunks_and_two_parts_matches_trec_eval(tmp_path, monkeypatch, version):
    """A 40 MB run (several chunks, read in two parts at once) mixing TAB and space separators, CRLF, long and
    non-ASCII ids and ties: the fast path reads it and prints trec_eval's bytes."""
    _need(version)
    import random
    rng = random.Random(19)
    ids = [b"d%05d" % i for i in range(3000)] + [b"caf\xc3\xa9%d" % i for i in range(50)] + \
        [b"L" * 70 + b"%d" % i for i in range(50)] + [b"L" * 300]
    qrels, run = [], []
    for topic in range(1, 421):
        for d in rng.sample(ids, 60):
            qrels.append(b"%d 0 %s %d" % (topic, d, rng.choice([0, 0, 1, 2, 3])))
        for rank, d in enumerate(rng.sample(ids, 3000), 1):
            sep = rng.choice([b"\t", b" ", b"  "])
            run.append(sep.join([b"%d" % topic, b"Q0", d, b"%d" % rank, b"%.2f" % rng.random(), b"big"]) +
                       (b"\r" if rng.random() < 0.01 else b""))
    rng.shuffle(run)
    from runscore.ranking import fastpath
    seen = []
    real = fastpath.read
    monkeypatch.setattr(fastpath, "read", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    options = ["-q", "-m", "all_trec"]
    data = b"\n".join(run) + b"\n"
    assert len(data) > 32 * 1024 * 1024           # columnar.PARALLEL_MIN_BYTES: read in two parts
    problem = peer.compare(b"\n".join(qrels) + b"\n", data, options, version, str(tmp_path))
    assert problem is None, problem[:3000]
    assert seen and seen[-1] is not None and seen[-1].long_ids is not None     # the fast path read it


# Parameter forms after `-m name.`: odd cutoffs, duplicates, unsorted lists, pairs whose level is not an integer
# (9.0.8 reads it with atol, 10.0 skips it), parameters of measures without any, wrong coefficient counts.
PARAMETER_SPECS = [
    "P.0", "utility.1,2", "map.5", "relstring.0", "ndcg.1", "P.", "ndcg.1=2,x=3", "ndcg.a=2", "G.1=2=3",
    "11pt_avg.0.5,0.5", "iprec_at_recall.0.5,0.5", "P.3.5", "relstring.5,10", "map_cut.0", "Rprec_mult.1,1",
    "P.abc", "success.1,1", "ndcg_cut.5.5", "recall.-1", "iprec_at_recall.-0.5", "iprec_at_recall.1.5",
    "Rprec_mult.-1", "ndcg.0=0", "ndcg.2=-1", "Rndcg.1=0", "binG.3", "num_ret.7", "set_F.0", "set_F.2.5",
    "set_F.-1", "utility.1,2,3,4,5", "relstring.abc", "ndcg_rel.1=1", "P.5,3,5", "iprec_at_recall.0.3,0.1",
    "11pt_avg.0.9,0.1", "Rprec_mult.2,0.5", "infAP.3", "bpref.x", "ndcg.1=1.5,2=0.1", "ndcg.1=5,2=5",
    "ndcg.3=1,1=3", "G.1=0.3,2=0.7", "rbp.0.5", "rbp.p=0.5", "rbp.p=0.5,1=2", "unj.3", "unj.0",
    # Hostile parameters: huge, infinite and NaN multiples and recall points (C's (long) gives LONG_MIN; Python's int()
    # raised OverflowError), one beside an ordinary one, names cut as snprintf cuts them, hex and strtod forms.
    "Rprec_mult.1e308", "iprec_at_recall.1e308", "Rprec_mult.1e300", "iprec_at_recall.-1e300", "Rprec_mult.0.5,1e20",
    "iprec_at_recall.0.5,1e20", "iprec_at_recall.nan", "Rprec_mult.nan,0.2", "iprec_at_recall.inf,0.1",
    "Rprec_mult.-inf", "Rprec_mult.12345.678", "Rprec_mult.0x1p3", "P.0x10", "11pt_avg.1e308",
    # Gains more than 2 ** 31 apart: trec_eval sorts its gain levels by (int)(gain1 - gain2), INT_MIN beyond int's
    # range (runscore took Python's int() of the difference and ordered them otherwise).
    "ndcg.1=3e9,2=1", "ndcg.2=3e9", "ndcg.1=-3e9,2=5", "Rndcg.1=3e9,2=1", "G.1=3e9", "ndcg_rel.1=3e9",
    "ndcg.1=1e10,2=-1e10",
]


@pytest.mark.parametrize("version", VERSIONS)
def test_measure_parameter_forms_match_trec_eval(tmp_path, monkeypatch, version):
    _need(version)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")
    failures = []
    qrels, run = peer.pair(1, version == "10.0")
    for spec in PARAMETER_SPECS:
        problem = peer.compare(qrels, run, ["-q", "-m", spec], version, str(tmp_path))
        if problem:
            failures.append(problem)
    assert not failures, "%d mismatches; first:\n%s" % (len(failures), failures[0])


# Edge classes (trec_eval 10.0 -c, rbp_resid, -l far above the grades, ...). Where trec_eval prints, the bytes
# must be its bytes; where it crashes (a signal), runscore
# prints values and must say why on stderr (docs/trec_eval.md, "Differences left").
EDGE_CLASSES = [
    ("--v10 -c: a missing topic keeps parameterised utility and relstring values",
     b"1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 2\n", b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n",
     ["-q", "-c", "-m", "utility.2,-1,0,0", "-m", "relstring.3", "-m", "relstring", "-m", "utility", "-m", "map"]),
    ("--v10 rbp_resid parameters (and -c's missing topic)", b"1 0 a 1\n1 0 b 0\n2 0 c 1\n",
     b"1 Q0 a 1 1 r\n1 Q0 x 2 0.5 r\n1 Q0 b 3 0.2 r\n",
     ["-q", "-c", "-m", "rbp_resid.p=0.5", "-m", "rbp_resid", "-m", "rbp_resid.p=0.7,1=2", "-m", "unj.1"]),
    # (not all_trec: its gain-level measures loop over all 40,001 grades in Python, a minute; the random pairs
    # below run -l 30000 with all_trec)
    ("-l 30000 with grades that high", b"1 0 a 1\n1 0 b 40000\n1 0 c 30000\n",
     b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n1 Q0 c 3 0.2 r\n",
     ["-q", "-l", "30000", "-m", "bpref", "-m", "gm_bpref", "-m", "map", "-m", "P.5", "-m", "num_rel", "-m", "ndcg_cut.5", "-m", "relstring", "-m", "infAP"]),
    ("-l 40000 with grades that high", b"1 0 a 1\n1 0 b 40000\n1 0 c 30000\n",
     b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n1 Q0 c 3 0.2 r\n",
     ["-q", "-l", "40000", "-m", "bpref", "-m", "gm_bpref", "-m", "map", "-m", "P.5", "-m", "num_rel", "-m", "ndcg_cut.5", "-m", "relstring", "-m", "infAP"]),
]
CRASHES = [
    ("a topic whose highest grade is <= -2 after another topic", b"1 0 a 1\n2 0 b -2\n2 0 c -3\n",
     b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n2 Q0 c 2 0.5 r\n", ["-q", "-m", "all_trec"], "trec_eval crashes on such a topic"),
    ("bpref with -l far above the highest grade", b"1 0 a 1\n1 0 b 0\n2 0 c 2\n",
     b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n2 Q0 c 1 1 r\n", ["-q", "-l", "500000", "-m", "bpref", "-m", "gm_bpref"],
     "can crash trec_eval"),
    ("a negative -M", b"1 0 a 1\n", b"1 Q0 a 1 0.5 r\n", ["-M", "-1"], "trec_eval crashes on a negative -M"),
]


def _crash_or_same(qrels, run, options, version, folder, because):
    """None when runscore prints trec_eval's bytes and exit code, or trec_eval died of a signal and runscore's
    stderr names the reason `because`; else a description."""
    problem = peer.compare(qrels, run, options, version, folder)
    if problem is None:
        return None
    path, _ = peer.binary(version)
    want = peer.run_peer(path, options + [os.path.join(folder, "qrels"), os.path.join(folder, "run")], folder)
    got = peer.run_runscore(options + (["--v10"] if version == "10.0" else []) +
                            [os.path.join(folder, "qrels"), os.path.join(folder, "run")])
    if want[1] < 0 and because in got[2].decode("utf-8", "replace"):
        return None
    return problem + "\n--- runscore stderr:\n" + got[2].decode("utf-8", "replace")[-800:]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name,qrels,run,options", EDGE_CLASSES, ids=[c[0] for c in EDGE_CLASSES])
def test_the_edge_classes_match_trec_eval(tmp_path, monkeypatch, version, name, qrels, run, options):
    _need(version)
    for fast in ("0", "1"):
        monkeypatch.setenv("RUNSCORE_FAST_PATH", fast)
        problem = peer.compare(qrels, run, options, version, str(tmp_path))
        assert problem is None, problem


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name,qrels,run,options,because", CRASHES, ids=[c[0] for c in CRASHES])
def test_where_trec_eval_crashes_runscore_says_why(tmp_path, monkeypatch, version, name, qrels, run, options,
                                                   because):
    _need(version)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1")        # the fast path must leave these to the exact path
    problem = _crash_or_same(qrels, run, options, version, str(tmp_path), because)
    assert problem is None, problem


# Random pairs with those classes' option sets (make fuzz runs RUNSCORE_FUZZ_TREC_EVAL_PAIRS of them): a crash of
# trec_eval is explained only by the warning of its class.
EDGE_OPTION_SETS = [
    (["-q", "-l", "30000", "-m", "all_trec"], "can crash trec_eval"),
    (["-q", "-c", "-m", "utility.2,-1,0,0", "-m", "relstring.3", "-m", "map"], "trec_eval crashes on such a topic"),
    (["-q", "-c", "-m", "rbp_resid.p=0.5", "-m", "rbp.p=0.5", "-m", "unj.3"], "trec_eval crashes on such a topic"),
]


@pytest.mark.parametrize("version", VERSIONS)
def test_random_pairs_with_the_edge_classes_options_match_trec_eval(tmp_path, monkeypatch, version):
    _need(version)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")
    failures = []
    for seed in range(PAIRS):
        qrels, run = peer.pair(seed, version == "10.0")
        for options, because in EDGE_OPTION_SETS:
            problem = _crash_or_same(qrels, run, options, version, str(tmp_path), because)
            if problem:
                failures.append("seed %d: %s" % (seed, problem))
    assert not failures, "%d mismatches; first:\n%s" % (len(failures), failures[0])


# The id layouts of benchmarks/shapes.py's sweep, where long ids once fell off a cliff: lengths around the reader's
# thresholds (8 bytes, a word; 128 bytes, columnar.LONG_ID_BYTES), distinguishing bytes first, last, in the middle or
# random, URL-like ids of mixed lengths, about one distinct id a line with ids shared by neighbouring topics.
# `make fuzz` sets RUNSCORE_FUZZ_TREC_EVAL_SWEEP_LINES for runs of a million lines (chunks, two parts at once).
SWEEP_LINES = int(os.environ.get("RUNSCORE_FUZZ_TREC_EVAL_SWEEP_LINES", "3000"))


def _sweep_id(length: int, layout: str, d: int, rng) -> bytes:
    core = b"%09d" % d
    if layout == "url":
        head = b"http://www.site%d.example.com/" % (d % 7)
        return head + b"p\xc3\xa9/" * rng.randrange(0, 40) + core
    if length <= 9:
        return core[-length:]
    if layout == "first":
        return (core + b"-" * length)[:length]
    if layout == "last":
        return b"L" * (length - 9) + core
    if layout == "middle":
        half = (length - 9) // 2
        return b"m" * half + core + b"\xff" * (length - 9 - half)
    seeded = __import__("random").Random(d)
    return bytes(seeded.choice(b"abcXYZ019\x80\xfe") for _ in range(length - 1)) + core[-1:]


@pytest.mark.parametrize("layout,lengths", [("first", (8, 64, 128, 129)), ("last", (63, 65, 128, 129, 300)),
                                            ("middle", (80, 136, 512)), ("random", (72, 130, 200)), ("url", (0,))])
def test_the_id_length_sweep_matches_trec_eval(tmp_path, monkeypatch, layout, lengths):
    """Ids of every length and layout, many distinct, shared across topics, ties in the scores: the fast path
    reads them and prints trec_eval's bytes."""
    _need("9.0.8")
    import random
    rng = random.Random(45)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1")
    per_topic = 50
    topics = max(SWEEP_LINES // per_topic, 2)
    qrels, run = [], []
    for topic in range(1, topics + 1):
        numbers = rng.sample(range(topic * 40, topic * 40 + 100), per_topic)
        ids = [_sweep_id(rng.choice(lengths), layout, d, rng) for d in numbers]
        ids = list(dict.fromkeys(ids))          # one line an id a topic
        for d in rng.sample(ids, 10) + [_sweep_id(lengths[0], layout, topic * 40 + 500, rng)]:
            qrels.append(b"%d 0 %s %d\n" % (topic, d, rng.choice([0, 1, 2])))
        for rank, d in enumerate(ids, 1):
            run.append(b"%d Q0 %s %d %s r\n" % (topic, d, rank, rng.choice([b"1", b"0.5", b"0.25"])))
    from runscore.ranking import fastpath
    seen = []
    real = fastpath.read
    monkeypatch.setattr(fastpath, "read", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    for options in (["-q", "-m", "all_trec"], ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]):
        problem = peer.compare(b"".join(qrels), b"".join(run), options, "9.0.8", str(tmp_path))
        assert problem is None, problem[:3000]
        assert seen and seen[-1] is not None      # the columnar reader took it
