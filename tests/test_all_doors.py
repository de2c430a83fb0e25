"""The same data gives the same answer through every door: `runscore trec_eval -q --full-precision` (in process),
runscore.api.trec_eval on files, on dicts and on pandas DataFrames, and the pytrec_eval drop-in; and
api.trec_eval(complete=True) with ir_measures names gives ir_measures' own iter_calc and calc_aggregate.

One corpus feeds every door: hand-made edge cases (infinite and NaN scores, a run topic without documents, a qrels
topic without judgements, qrels without any, no topic in common, -M 0, -J, ids that are not ASCII) and seeded
random cases with ties, scores equal only as C floats, negative grades and every option. RUNSCORE_DOORS_CASES sets
the number of random cases (30 in `make test`, 600 in `make fuzz-ci`).
"""
import contextlib
import io
import math
import os
import random
import warnings

import pytest

from runscore import api, cli
import runscore.pytrec_eval as dropin

CASES = int(os.environ.get("RUNSCORE_DOORS_CASES", "30"))  # 600 in make fuzz-ci
MEASURE_SETS = [["all_trec"], ["map", "P.5,10", "ndcg_cut.10", "iprec_at_recall", "11pt_avg", "num_q", "recip_rank",
                               "relstring.5", "gm_map"], None]
# (qrels, run, api.trec_eval options): what a file can hold (ids without white space, a score written by repr).
EDGE_CASES = [
    # infinite scores tie with each other and, in 9.0.8, with a double beyond a C float; NaN ranks below all
    ({"1": {"a": 1, "b": 0, "c": 2, "e": 1}}, {"1": {"a": math.inf, "b": -math.inf, "c": math.nan, "d": 1e39,
                                                     "e": 1.0}}, {"measures": ["all_trec"]}),
    ({"1": {"a": 1, "b": 0, "c": 2, "e": 1}}, {"1": {"a": math.inf, "b": -math.inf, "c": math.nan, "d": 1e39,
                                                     "e": 1.0}}, {"measures": ["all_trec"], "version": "10.0"}),
    ({"1": {"a": 1, "b": 1}}, {"1": {"a": math.inf, "b": math.inf, "c": math.inf}}, {"measures": ["all_trec"]}),
    # 0.0 and -0.0 tie (C compares them equal); the smallest and largest doubles
    ({"1": {"a": 1, "b": 0}}, {"1": {"a": -0.0, "b": 0.0, "c": 5e-324, "d": 1.7976931348623157e308}}, {}),
    # a run topic without documents (a file holds no line for it), first and later
    ({"1": {"a": 1}, "2": {"b": 1, "c": 0}}, {"1": {}, "2": {"b": 0.5, "c": 0.7}}, {"measures": ["all_trec"]}),
    ({"1": {"a": 1}, "2": {"b": 1, "c": 0}}, {"2": {"b": 0.5, "c": 0.7}, "1": {}}, {"complete": True}),
    # a qrels topic without judgements (a file holds no line for it), qrels without any, no topic in common
    ({"1": {"a": 1}, "2": {}}, {"1": {"a": 1.0}, "2": {"x": 1.0}}, {"measures": ["all_trec"], "complete": True}),
    ({"1": {}}, {"1": {"a": 1.0}}, {}),
    ({"1": {"a": 1}}, {"2": {"a": 1.0}}, {}),
    ({"1": {"a": 1}}, {"2": {"a": 1.0}}, {"complete": True}),
    # an empty ranking: every document cut by -M 0, or dropped by -J
    ({"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 1, "e": 1}}, {"1": {"a": 1.0}, "2": {"c": 1.0}},
     {"measures": ["all_trec"], "max_docs": 0}),
    ({"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 1, "e": 1}}, {"1": {"zz": 1.0}, "2": {"c": 1.0}},
     {"measures": ["iprec_at_recall", "11pt_avg", "map"], "judged_only": True}),
    ({"1": {"a": 0}, "2": {"c": 1}}, {"1": {"zz": 1.0}, "2": {"c": 1.0}},
     {"measures": ["iprec_at_recall.0,0.5,1", "11pt_avg"], "judged_only": True}),
    # only negative grades in the first topic evaluated: trec_eval stops; after another topic: scored
    ({"1": {"a": -1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"b": 1.0}}, {}),
    ({"1": {"a": -1}, "0": {"b": 1}}, {"1": {"a": 1.0}, "0": {"b": 1.0}}, {}),
    # ids that are not ASCII (one of them the Latin-1 reading of the other's UTF-8 bytes), or look like numbers
    ({"t\u00e9": {"a": 1}, "t\u00c3\u00a9": {"b": 1}, "007": {"\u00e9": 2}},
     {"t\u00e9": {"a": 1.0, "b": 2.0}, "t\u00c3\u00a9": {"b": 0.5}, "007": {"\u00e9": 1, "e": 1}},
     {"measures": ["all_trec"]}),
]


def random_case(seed):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(rng.randint(1, 5)):
        qid = "q%d" % rng.randint(0, 9) if rng.random() < 0.9 else "t\u00e9%d" % t
        docs = ["d%d" % i for i in range(rng.randint(1, 25))]
        kind = rng.random()
        if kind > 0.1:
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in judged} if rng.random() > 0.05 else {}
        if kind < 0.85:
            scores = {}
            for d in rng.sample(docs + ["x%d" % i for i in range(4)], rng.randint(int(rng.random() > 0.1),
                                                                                    len(docs))):
                roll = rng.random()
                scores[d] = (rng.choice([math.inf, -math.inf, 1e39, -1e39, math.nan]) if roll < 0.08 else
                             rng.choice([1, 2, 0.5, 2.0]) if roll < 0.4 else
                             round(rng.uniform(-3, 3), rng.choice([1, 4, 9])) + (1e-12 if rng.random() < 0.1 else 0))
            run[qid] = scores
    options = {"measures": rng.choice(MEASURE_SETS)}
    roll = rng.random()
    if roll < 0.15:
        options["complete"] = True
    elif roll < 0.25:
        options["max_docs"] = rng.choice([0, 1, 3])
    elif roll < 0.35:
        options["judged_only"] = True
    elif roll < 0.45:
        options["level"] = rng.choice([0, 2, 3])
    if rng.random() < 0.2:
        options["version"] = "10.0"
    return qrels, run, options


def corpus():
    return [(-1 - i, case) for i, case in enumerate(EDGE_CASES)] + [(seed, random_case(seed)) for seed in range(CASES)]


def write_files(qrels, run, folder):
    qrels_path, run_path = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    with open(qrels_path, "w", encoding="utf-8") as handle:
        handle.writelines("%s 0 %s %d\n" % (qid, doc, grade) for qid, judged in qrels.items()
                          for doc, grade in judged.items())
    with open(run_path, "w", encoding="utf-8") as handle:
        handle.writelines("%s Q0 %s %d %r tag\n" % (qid, doc, rank, score) for qid, docs in run.items()
                          for rank, (doc, score) in enumerate(docs.items(), 1))
    return qrels_path, run_path


def frames(qrels, run):
    pandas = pytest.importorskip("pandas", reason="pandas (test extra) is not installed")
    return (pandas.DataFrame([(q, d, g) for q, judged in qrels.items() for d, g in judged.items()],
                             columns=["query_id", "doc_id", "relevance"]),
            pandas.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                             columns=["qid", "docno", "score"]))


def cli_argv(options):
    argv = [a for m in options.get("measures") or () for a in ("-m", m)]
    argv += ["-c"] if options.get("complete") else []
    argv += ["-M", str(options["max_docs"])] if "max_docs" in options else []
    argv += ["-J"] if options.get("judged_only") else []
    argv += ["-l", str(options["level"])] if "level" in options else []
    return argv + (["--v10"] if options.get("version") == "10.0" else [])


def parse_cli(text):
    """`runscore trec_eval -q --full-precision` lines as api.trec_eval's {"all", "per_topic"} (ids are bytes read
    as Latin-1 characters on stdout: their UTF-8 text here)."""
    out = {"all": {}, "per_topic": {}}
    for line in text.splitlines():
        name, qid, value = [field.strip() for field in line.split("\t")]
        qid = qid.encode("latin-1").decode("utf-8")
        if name == "runid" or name.startswith("relstring"):
            parsed = value[1:-1] if name.startswith("relstring") else value
        elif name in ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"):
            parsed = int(value)
        else:
            parsed = float(value)               # (Python reads -nan and inf)
        (out["all"] if qid == "all" else out["per_topic"].setdefault(qid, {}))[name] = parsed
    return out


def through_cli(qrels_path, run_path, options):
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.main(["trec_eval", "-q", "--full-precision"] + cli_argv(options) + [qrels_path, run_path])
    return ("exit", code) if code else parse_cli(stdout.getvalue())


def through_api(qrels, run, options):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # the API says what it read oddly in "warnings", never on stderr
            out = api.trec_eval(qrels, run, run_id="tag", **options)
    except (api.RunError, api.ConfigError) as exc:
        return ("error", type(exc).__name__)
    return {"all": out["all"], "per_topic": out["per_topic"]}


def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b)


def first_difference(a, b, where=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return "%s/%s: only in %s" % (where, key, "the second" if key in b else "the first")
            found = first_difference(a[key], b[key], "%s/%s" % (where, key))
            if found:
                return found
        return None
    return None if same(a, b) else "%s: %r vs %r" % (where, a, b)


def every_door(qrels, run, options, folder):
    qrels_path, run_path = write_files(qrels, run, folder)
    return {"cli": through_cli(qrels_path, run_path, options), "files": through_api(qrels_path, run_path, options),
            "dicts": through_api(qrels, run, options), "frames": through_api(*frames(qrels, run), options),
            "file qrels, dict run": through_api(qrels_path, run, options)}


@pytest.mark.parametrize("block", range(4))
def test_every_door_gives_the_same_answer(block, tmp_path):
    for seed, (qrels, run, options) in corpus()[block::4]:
        doors = every_door(qrels, run, options, str(tmp_path))
        cli_out = doors.pop("cli")
        for door, got in doors.items():
            where = "case %d %r, %s" % (seed, options, door)
            if isinstance(cli_out, tuple):          # the command stops: every door refuses, the same way
                assert isinstance(got, tuple), "%s: the command exits %d, the API answers" % (where, cli_out[1])
                assert got == doors["files"], "%s: %r, files %r" % (where, got, doors["files"])
            else:
                assert not isinstance(got, tuple), "%s: the command answers, the API raises %s" % (where, got)
                assert same(cli_out, got), "%s: %s" % (where, first_difference(cli_out, got))


def dropin_measures(options):
    return set(options.get("measures") or ["official"])


def empty_ranking_values(qrels, topic, options):
    """What `runscore trec_eval -M 0` gives for `topic` (an empty ranking, as the binary prints it)."""
    return api.trec_eval({topic: qrels[topic]}, {topic: {"a-document": 0.0}}, max_docs=0,
                         **{k: v for k, v in options.items() if k != "complete"})["per_topic"][topic]


@pytest.mark.parametrize("block", range(2))
def test_the_pytrec_eval_drop_in_gives_the_same_answer(block):
    """Per topic, the drop-in equals api.trec_eval wherever pytrec_eval has the option (9.0.8 rules, no -M, no
    -c, a level of 1 or more); a run topic without documents, which pytrec_eval evaluates (a file cannot hold
    it), gets what trec_eval prints for an empty ranking (-M 0): NaN for iprec_at_recall and 11pt_avg at the
    recall points whose cutoff is 0."""
    compared = 0
    for seed, (qrels, run, options) in corpus()[block::2]:
        if options.get("version", "9.0.8") != "9.0.8" or options.get("max_docs") is not None or \
                options.get("complete") or options.get("level", 1) < 1:
            continue
        expected = through_api(qrels, run, options)
        evaluator_options = dict(relevance_level=options.get("level", 1),
                                 judged_docs_only_flag=int(options.get("judged_only", False)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")         # (the drop-in warns about infinite scores)
                got = dropin.RelevanceEvaluator(qrels, dropin_measures(options), **evaluator_options).evaluate(run)
        except (dropin.BadQrels, dropin.BadRun, api.RunError, api.ConfigError):
            assert isinstance(expected, tuple) or not any(run.get(q) for q in qrels if qrels[q]), seed
            continue
        if isinstance(expected, tuple):
            # trec_eval stops where pytrec_eval computes: nothing in common, or only negative grades first
            assert not any(run.get(q) for q in got) or any(min(j.values()) < 0 for j in qrels.values() if j), seed
            continue
        empty = {q for q in run if not run[q] and qrels.get(q)}
        assert set(got) == set(expected["per_topic"]) | empty, "case %d: topics" % seed
        for qid, row in got.items():
            want = expected["per_topic"][qid] if qid not in empty else empty_ranking_values(qrels, qid, options)
            for key, value in row.items():
                if key in want and not key.startswith(("gm_", "relstring")):
                    assert same(float(want[key]), value), "case %d topic %s %s: %r vs api %r" % (
                        seed, qid, key, value, want[key])
                    compared += 1
    assert compared > 100 * (CASES // 60 + 1)


# ------------------------------------------------------------------------------ complete=True vs ir_measures ---

IR_NAMES = [
    ["nDCG@10", "P@5", "P(rel=2)@5", "AP", "AP@10", "R@100", "RR", "RR@10", "RR(rel=2)@5", "Judged@10", "Judged",
     "NumQ", "NumRel", "NumRet", "NumRet(rel=2)", "SetP", "SetP(relative=True)", "SetR", "SetF", "SetF(beta=0.5)",
     "SetAP", "Success@5", "IPrec@0.5", "IPrec(rel=2)@0.0", "Rprec(rel=2)", "Rprec()", "Bpref", "infAP()", "nDCG"],
    # (apart: ir_measures computes NumRet, and nDCG without gains, in the first pytrec_eval call it builds, in an
    # order set by Python's string hashing: -J, or the gains, of another measure may then apply to them)
    ["nDCG(judged_only=True)@10", "P(judged_only=True)@5", "AP(rel=2, judged_only=True)@10", "NumQ", "R@5"],
    ["nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7})@10", "P@5", "AP", "RR@10"],
]


def ir_measures_case(qrels, run):
    """The corpus case as ir_measures can take it: NaN scores out (pytrec_eval's order of NaN is its C
    libraries'), a run topic without documents out (pytrec_eval crashes on one it evaluates first, and
    ir_measures' Judged divides by zero on it), and a qrels topic whose grades are all negative out (pytrec_eval
    reads outside an array there: it loops or crashes)."""
    run = {q: {d: s for d, s in docs.items() if not math.isnan(s)} for q, docs in run.items()}
    qrels = {q: judged for q, judged in qrels.items() if not judged or max(judged.values()) >= 0}
    return qrels, {q: docs for q, docs in run.items() if docs}


def test_complete_with_ir_measures_names_is_ir_measures_own_aggregation(tmp_path):
    """calc_aggregate and iter_calc of ir_measures (pytrec-eval-terrier behind it, its judged and MS MARCO
    providers) on every case of the corpus: empty qrels topics, topics missing from the run, qrels without
    judgements, no topic in common; equal bit for bit, topic by topic and in the aggregate. The same data as
    files gives the same (where files can hold it: no topic without judgements)."""
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
    pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")
    checked = 0
    for (seed, case), names in zip(corpus(), IR_NAMES * (len(corpus()) + 1)):
        parsed = {name: ir_measures.parse_measure(name) for name in names}
        qrels, run = ir_measures_case(*case[:2])
        ours = api.trec_eval(qrels, run, measures=names, complete=True)
        theirs_all = ir_measures.calc_aggregate(list(parsed.values()), qrels, run)
        theirs_topics = {}
        for metric in ir_measures.iter_calc(list(parsed.values()), qrels, run):
            theirs_topics.setdefault(metric.query_id, {})[metric.measure] = metric.value
        for name, measure in parsed.items():
            assert same(ours["all"][name], theirs_all[measure]), "case %d %s: %r, ir_measures %r" % (
                seed, name, ours["all"][name], theirs_all[measure])
        assert set(ours["per_topic"]) == set(theirs_topics), "case %d: topics" % seed
        if all(qrels.values()) and qrels and run:       # (an empty file is refused by the file reader)
            from_files = api.trec_eval(*write_files(qrels, run, str(tmp_path)), measures=names, complete=True)
            assert same({"all": from_files["all"], "per_topic": from_files["per_topic"]},
                        {"all": ours["all"], "per_topic": ours["per_topic"]}), "case %d: files" % seed
        for qid, values in theirs_topics.items():
            for measure, value in values.items():
                name = next(n for n, m in parsed.items() if m == measure)
                assert same(float(ours["per_topic"][qid][name]), float(value)), "case %d %s %s" % (seed, qid, name)
                checked += 1
    assert checked > 1000


def test_ir_measures_names_with_parameters_are_their_trec_eval_equivalents():
    """P(rel=2)@5 is P.5 at level 2, nDCG(dcg='exp-log2')@10 is ndcg_cut.10 on gains 2^grade - 1 (what ir_measures'
    pytrec_eval provider gives for those gains), RR@k the MS MARCO rule (ties by docno ascending, unlike RR's)."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "d": 3}, "2": {"e": 1, "f": 2}}
    run = {"1": {"b": 2.0, "a": 2.0, "x": 3.0, "c": 0.5, "d": 0.25}, "2": {"z": 1.0, "e": 1.0, "f": 0.1}}
    out = api.trec_eval(qrels, run, ["P(rel=2)@5", "nDCG(dcg='exp-log2')@10", "RR@10", "RR", "RR@1"])
    level2 = api.trec_eval(qrels, run, ["P.5"], level=2)
    assert out["all"]["P(rel=2)@5"] == level2["all"]["P_5"] and out["per_topic"]["2"]["P(rel=2)@5"] == 0.2
    exp = {q: {d: 2 ** g - 1 for d, g in judged.items()} for q, judged in qrels.items()}
    assert out["all"]["nDCG(dcg='exp-log2')@10"] == api.trec_eval(exp, run, ["ndcg_cut.10"])["all"]["ndcg_cut_10"]
    # topic 1: a and b tie at 2.0 below x; trec_eval ranks b before a (docno descending), MS MARCO a before b
    assert out["per_topic"]["1"]["RR"] == 1 / 3 and out["per_topic"]["1"]["RR@10"] == 1 / 2
    assert out["per_topic"]["2"]["RR@1"] == 1.0 and out["per_topic"]["1"]["RR@1"] == 0.0


@pytest.mark.parametrize("name, message", [
    ("P", None),                                        # trec_eval's P (every default cutoff)
    ("R", "needs a cutoff"),
    ("P(rel=2.5)@5", "rel=2.5 is not a whole number"),
    ("P(depth=3)@5", "P takes rel, judged_only in ir_measures, not depth"),
    ("nDCG(dcg='exp-log2', gains={1: 2})@5", "not both"),
    ("nDCG(gains={1: 0.5})@5", "whole grades to whole gains"),
    ("RR(judged_only=True)@5", "without judged_only"),
    ("Rprec@5", "no Rprec with a cutoff"),
    ("P(rel=__import__('os'))@5", "literal values"),
    ("IPrec@2", "between 0 and 1"),
    ("P(rel=0)@5", "rel is at least 1"),
    ("P@0", "whole number of at least 1"),
])
def test_ir_measures_names_are_taken_or_refused_with_a_reason(name, message):
    qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0, "b": 0.5}}
    if message is None:
        assert "P_5" in api.trec_eval(qrels, run, [name])["all"]
        return
    with pytest.raises(api.ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        api.trec_eval(qrels, run, [name])


def test_level_and_judged_only_are_for_trec_eval_names():
    """P@10 is ir_measures' relevance 1 whatever level= says: level= with an ir_measures name is refused rather
    than silently ignored or applied (ir_measures would give rel 1)."""
    qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0, "b": 0.5}}
    with pytest.raises(api.ConfigError, match="rel=2, judged_only=True"):
        api.trec_eval(qrels, run, ["P@10"], level=2)
    with pytest.raises(api.ConfigError, match="version= and max_docs= apply to trec_eval names"):
        api.trec_eval(qrels, run, ["P@10"], complete=True, version="10.0")
    assert api.trec_eval(qrels, run, ["P.10", "P(rel=2)@10"], level=2)["all"] == {"P_10": 0.1, "P(rel=2)@10": 0.1}


def test_where_ir_measures_fails_or_depends_on_the_other_measures_runscore_answers():
    """The differences from ir_measures left, each for its reason (docs/python-api.md): Judged@k of a run topic
    without documents (ir_measures divides by zero; 0 here, what it gives a topic missing from the run) and its
    IPrec at a recall point whose cutoff is 0 (trec_eval's NaN); NumRet asked with a judged_only measure
    (ir_measures computes NumRet in the first pytrec_eval call it builds, whose -J may be a judged_only
    measure's, in an order set by Python's string hashing; here always every document retrieved, as NumRet asked
    alone); a topic whose only grade is negative (pytrec_eval loops or crashes: not given to ir_measures here);
    NumRel(rel=2) (no ir_measures provider; trec_eval's num_rel at level 2 here); nDCG without gains asked with an
    nDCG with gains (ir_measures may compute it on the gains, as NumRet with -J)."""
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
    pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 2}, "3": {"e": -1}}
    run = {"2": {"c": 1.0, "unjudged": 2.0}, "1": {}, "3": {"e": 1.0}}
    # (topic 3 is never given to pytrec-eval-terrier: a topic whose grades are all negative corrupts its memory,
    # and a later evaluation in the process may then give garbage)
    ir_qrels, ir_run = {q: qrels[q] for q in ("1", "2")}, {"2": run["2"], "1": {}}
    with pytest.raises(ZeroDivisionError):
        ir_measures.calc_aggregate([ir_measures.parse_measure("Judged@10")], ir_qrels, ir_run)
    ours = api.trec_eval(qrels, run, ["Judged@10", "P(judged_only=True)@5", "NumRet", "IPrec@0.0", "NumRel(rel=2)"],
                         complete=True)
    assert ours["per_topic"]["1"]["Judged@10"] == 0.0 and ours["all"]["Judged@10"] == 1 / 3 * (0.5 + 1.0)
    assert math.isnan(ours["per_topic"]["1"]["IPrec@0.0"])          # an empty ranking, as trec_eval -M 0
    assert ours["per_topic"]["3"] == {"Judged@10": 1.0, "P(judged_only=True)@5": 0.0, "NumRet": 1.0,
                                      "IPrec@0.0": 0.0, "NumRel(rel=2)": 0.0}    # only a negative grade
    alone = ir_measures.calc_aggregate([ir_measures.NumRet], ir_qrels, ir_run)[ir_measures.NumRet]
    assert ours["all"]["NumRet"] == alone + 1 == 3.0
    # nDCG@10 asked with an nDCG with gains is nDCG@10, not the gains' (ir_measures' depends on the hash seed)
    mixed = api.trec_eval(ir_qrels, ir_run, ["nDCG@10", "nDCG(gains={2: 5})@10"], complete=True)["all"]
    assert mixed["nDCG@10"] == ir_measures.calc_aggregate([ir_measures.nDCG @ 10], ir_qrels, ir_run)[
        ir_measures.nDCG @ 10] != mixed["nDCG(gains={2: 5})@10"]
    assert ours["all"]["NumRel(rel=2)"] == 1 and ours["per_topic"]["2"]["NumRel(rel=2)"] == 1.0
    with pytest.raises(ValueError, match="Unsupported"):
        ir_measures.calc_aggregate([ir_measures.parse_measure("NumRel(rel=2)")], ir_qrels, ir_run)
