"""runscore.api: the command line's numbers from Python.

score(): every task's shipped sample scored through the API (paths and in-memory text) equals `runscore score
--json --per-topic` on the same files; five teams' r2c2-ac runs scored in one call; errors raised as the CLI's exit
codes. trec_eval(): equals `runscore trec_eval -q --full-precision` (parsed) on trec_eval's own test files for
paths, dicts and pandas DataFrames, 9.0.8 and 10.0 rules, -c -M -l -J. compare(): equals `runscore compare --json`.
"""
import json
import os

import pytest

from conftest import ROOT, run_cli, shared_path
from runscore import api
from runscore.errors import ConfigError, RunError
from runscore.tasks import all_tasks

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFERENCES = os.path.join(ROOT, "reference_data")


def sample_files(task):
    """(runs, companions) of a task's sample submission: companions are files the task reads beside its runs."""
    folder = os.path.join(SAMPLES, task.id)
    runs, companions = [], []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        (companions if task.claims_companion(name) and not task.claims_name(name) else runs).append(path)
    return runs, companions


def read_bytes(path):
    with open(path, "rb") as handle:
        return handle.read()


# ------------------------------------------------------------------------------------------- score() ---

@pytest.mark.parametrize("task", all_tasks(), ids=lambda t: t.id)
def test_api_score_equals_the_cli_on_every_tasks_sample(task):
    runs, companions = sample_files(task)
    ref = os.path.join(REFERENCES, task.id)
    code, out, err = run_cli("score", "--task", task.id, "--ref", ref, *runs, "--json", "--per-topic")
    assert code == 0, err
    cli = json.loads(out)
    by_path = api.score(task.id, ref, runs)
    assert by_path.to_json(per_topic=True) == cli
    # the same runs as in-memory text (bytes), with their companions, against a reference loaded once
    reference = api.load_reference(task.id, ref)
    in_memory = api.score(task.id, reference, {os.path.basename(p): read_bytes(p) for p in runs},
                          companions={os.path.basename(p): read_bytes(p) for p in companions})
    assert in_memory.to_json(per_topic=True) == cli
    for name, values in cli.items():
        assert in_memory.measures[name] == values["all"] and in_memory.per_topic[name] == values["per_topic"]


TEAMS = ["BITEM-AC-2.txt", "Error404-AC-3.txt", "WaterlooClarke-AC-2.txt", "hit-u-AC-1.txt", "slr2c2-AC-4.txt"]
TOPICS = ["0001", "0002", "0003", "0004"]


def team_run(team_index):
    """A run shaped like the official ones: an answer per question with a confidence, nuggets citing the pool."""
    blocks = []
    for k, qid in enumerate(TOPICS):
        confidence = 50 + 10 * ((team_index + k) % 5)
        nuggets = "".join("%d;ORG-PO-1;%d;nugget %d\n" % (n + 1, n + 1, n) for n in range(1 + (team_index + k) % 2))
        blocks.append("<D%s>answer %d to %s;%d\n%s</D%s>\n" % (qid, team_index, qid, confidence, nuggets, qid))
    return "".join(blocks)


def five_team_reference(tmp_path):
    ref = tmp_path / "ref"
    (ref / "pool").mkdir(parents=True)
    (ref / "pool" / "ORG-PO-1").write_text("".join("%s;%d;D%s;passage %d\n" % (q, r, q, r) for q in TOPICS
                                                   for r in (1, 2)), encoding="utf-8")
    (ref / "topics.txt").write_text("".join(q + "\n" for q in TOPICS), encoding="utf-8")
    answers = ["run_id\tqID\tcorrect"] + ["%s\t%s\t%d" % (name[:-4], q, (i + k) % 2)
                                         for i, name in enumerate(TEAMS) for k, q in enumerate(TOPICS)]
    (ref / "answers.tsv").write_text("\n".join(answers) + "\n", encoding="utf-8")
    (ref / "assessed").mkdir()      # the runs as assessed: replayed labels apply only to them
    for i, name in enumerate(TEAMS):
        (ref / "assessed" / name).write_text(team_run(i), encoding="utf-8")
    (ref / "task.yaml").write_text(json.dumps({"task": "r2c2-ac", "topics": "topics.txt", "pr_runs": "pool",
                                               "answer_labels": "answers.tsv", "assessed_runs": "assessed"}),
                                   encoding="utf-8")
    return ref


def test_five_teams_r2c2_ac_runs_in_one_call(tmp_path):
    """A researcher rescores several teams' official AC runs at once; the per-team cap of a platform
    submission (4 AC runs) does not apply to that (submission_rules is off)."""
    ref = five_team_reference(tmp_path)
    result = api.score("r2c2-ac", str(ref), {name: team_run(i) for i, name in enumerate(TEAMS)})
    assert list(result.measures) == [name[:-4] for name in TEAMS]
    for i, name in enumerate(TEAMS):
        values = result.measures[name[:-4]]
        confidences = [(50 + 10 * ((i + k) % 5)) / 100.0 for k in range(len(TOPICS))]
        correct = [(i + k) % 2 for k in range(len(TOPICS))]
        assert values["avconf"] == pytest.approx(sum(confidences) / 4, abs=1e-15)
        assert values["accuracy"] == sum(correct) / 4 and values["n_answered"] == 4
        assert result.files[name[:-4]] == name
    # written to files, the five runs score the same through paths
    for i, name in enumerate(TEAMS):
        (tmp_path / name).write_text(team_run(i), encoding="utf-8")
    by_path = api.score("r2c2-ac", str(ref), [str(tmp_path / name) for name in TEAMS])
    assert by_path.measures == result.measures


def test_submission_rules_apply_the_platforms_rules_on_request(tmp_path):
    """submission_rules=True judges as the platform does (one verdict at every door): a submission is one team's and the cap
    counts every run of it; off, a researcher scores five teams' runs in one call."""
    ref = five_team_reference(tmp_path)
    five_teams = {name: team_run(i) for i, name in enumerate(TEAMS)}
    api.score("r2c2-ac", str(ref), five_teams)
    with pytest.raises(api.InvalidRunsError) as caught:
        api.score("r2c2-ac", str(ref), five_teams, submission_rules=True)
    assert "a submission is one team's" in str(caught.value)
    one_team = {"T-AC-%d" % k: team_run(0) for k in range(1, 5)}
    one_team["T-AC-1.txt"] = team_run(0)
    runs = api.score("r2c2-ac", str(ref), one_team, options={"unlabelled_runs": "auto_only"})
    assert len(runs.measures) == 4            # T-AC-1 twice: one name
    with pytest.raises(api.InvalidRunsError) as caught:
        api.score("r2c2-ac", str(ref), one_team, options={"unlabelled_runs": "auto_only"}, submission_rules=True)
    assert "5 runs of task r2c2-ac in the submission" in str(caught.value)
    assert "at most 4 are allowed in a submission" in str(caught.value)
    four = dict(list(one_team.items())[:4])
    assert len(api.score("r2c2-ac", str(ref), four, options={"unlabelled_runs": "auto_only"},
                         submission_rules=True).measures) == 4


def test_invalid_runs_raise_with_every_diagnostic(tmp_path):
    runs = {"bad-AC-1": "<D0001>no confidence here\n</D0001>\n", "worse-AC-1": "text outside any block\n"}
    with pytest.raises(api.InvalidRunsError) as caught:
        api.score("r2c2-ac", os.path.join(REFERENCES, "r2c2-ac"), runs)
    error = caught.value
    assert isinstance(error, RunError)
    assert set(error.diagnostics) == {"bad-AC-1", "worse-AC-1"}
    assert all(any(d.severity == "error" for d in items) for items in error.diagnostics.values())
    assert str(error).count(": error:") >= 2


@pytest.mark.parametrize("call, message", [
    (lambda: api.score("r2c2-xx", REFERENCES, ["x"]), "unknown task 'r2c2-xx'"),
    (lambda: api.score("r2c2-ac", os.path.join(REFERENCES, "r2c2-ac"), ["/nonexistent/SAMPLE-AC-1"]),
     "does not exist"),
    (lambda: api.score("r2c2-ac", os.path.join(REFERENCES, "r2c2-ac"), {"../x": "t"}), "plain file name"),
    (lambda: api.score("r2c2-ac", os.path.join(REFERENCES, "r2c2-ac"), ["x"], options={"nope": 1}),
     "unknown option 'nope'"),
    (lambda: api.score("r2c2-ac", api.load_reference("r2c2-ac", os.path.join(REFERENCES, "r2c2-ac")), ["x"],
                       options={"ece_bins": 5}), "pass them to load_reference"),
])
def test_usage_and_reference_problems_are_config_errors(call, message):
    with pytest.raises(ConfigError, match=message):
        call()


def test_options_change_the_scores_as_the_cli_option_does(tmp_path):
    ref = os.path.join(REFERENCES, "r2c2-ac")
    runs, _ = sample_files(api.get_task("r2c2-ac"))
    code, out, err = run_cli("score", "--task", "r2c2-ac", "--ref", ref, *runs, "--json", "--option", "ece_bins=4",
                             "--option", "empty_block=wrong")
    assert code == 0, err
    result = api.score("r2c2-ac", ref, runs, options={"ece_bins": 4, "empty_block": "wrong"})
    assert result.to_json() == json.loads(out)
    assert result.to_json() != api.score("r2c2-ac", ref, runs).to_json()


# ------------------------------------------------------------------------------------------- trec_eval() ---

def parse_cli_output(text):
    """`runscore trec_eval -q --full-precision` lines as {"all": {...}, "per_topic": {qid: {...}}}."""
    out = {"all": {}, "per_topic": {}}
    for line in text.splitlines():
        name, qid, value = [field.strip() for field in line.split("\t")]
        if name == "runid" or value.startswith("'"):
            parsed = value.strip("'")
        elif name in ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"):
            parsed = int(value)
        else:
            parsed = float(value)
        (out["all"] if qid == "all" else out["per_topic"].setdefault(qid, {}))[name] = parsed
    return out


def read_dicts(qrels_path, run_path):
    """The two files as dicts, read here independently of runscore's readers."""
    qrels, run = {}, {}
    with open(qrels_path) as handle:
        for line in handle:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                qrels.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    with open(run_path) as handle:
        for line in handle:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
                run_id = fields[5]
    return qrels, run, run_id


CASES = [
    ([], {}),
    (["-m", "all_trec"], {"measures": ["all_trec"]}),
    (["-c", "-m", "official", "-m", "ndcg_cut.5,10", "-m", "utility.2,-1,0,0"],
     {"complete": True, "measures": ["official", "ndcg_cut.5,10", "utility.2,-1,0,0"]}),
    (["-M", "20", "-l", "2", "-m", "all_trec"], {"max_docs": 20, "level": 2, "measures": ["all_trec"]}),
    (["-J", "-m", "map", "-m", "P.5,30", "-m", "bpref"], {"judged_only": True, "measures": ["map", "P.5,30", "bpref"]}),
    (["--v10", "-c", "-m", "all_trec"], {"version": "10.0", "complete": True, "measures": ["all_trec"]}),
    # parameterised measures trec_eval 10.0 does not clear for a missing topic (its placeholder ranking's values)
    (["--v10", "-c", "-m", "map", "-m", "utility.2,-1,0,0", "-m", "relstring.3", "-m", "rbp_resid.p=0.5", "-m", "unj.3"],
     {"version": "10.0", "complete": True, "measures": ["map", "utility.2,-1,0,0", "relstring.3", "rbp_resid.p=0.5",
                                                       "unj.3"]}),
]


@pytest.mark.parametrize("argv, kwargs", CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_api_trec_eval_equals_the_cli_for_paths_dicts_and_dataframes(argv, kwargs):
    qrels_path = shared_path("data", "trec_eval", "qrels.test")
    run_path = shared_path("data", "trec_eval", "results.test")
    code, out, err = run_cli("trec_eval", "-q", "--full-precision", *argv, qrels_path, run_path)
    assert code == 0, err
    cli = parse_cli_output(out)
    assert len(cli["per_topic"]) > 1 and len(cli["all"]) > 3
    by_path = api.trec_eval(qrels_path, run_path, **kwargs)
    assert {"all": by_path["all"], "per_topic": by_path["per_topic"]} == cli
    qrels, run, run_id = read_dicts(qrels_path, run_path)
    by_dict = api.trec_eval(qrels, run, run_id=run_id, **kwargs)
    assert {"all": by_dict["all"], "per_topic": by_dict["per_topic"]} == cli
    mixed = api.trec_eval(qrels_path, run, run_id=run_id, **kwargs)
    assert mixed["all"] == cli["all"]
    pandas = pytest.importorskip("pandas")
    qrels_frame = pandas.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                                   columns=["query_id", "doc_id", "relevance"])
    run_frame = pandas.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                                 columns=["qid", "docno", "score"])
    by_frame = api.trec_eval(qrels_frame, run_frame, run_id=run_id, **kwargs)
    assert {"all": by_frame["all"], "per_topic": by_frame["per_topic"]} == cli


def test_api_trec_eval_equals_the_cli_on_the_fast_path(tmp_path, monkeypatch):
    """A run file the fast path reads (RUNSCORE_FAST_PATH=1) gives the API the CLI's numbers too."""
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "1")
    qrels_path = shared_path("data", "trec_eval", "qrels.test")
    run_path = shared_path("data", "trec_eval", "results.test")
    code, out, err = run_cli("trec_eval", "-q", "--full-precision", "-m", "all_trec", qrels_path, run_path)
    assert code == 0, err
    result = api.trec_eval(qrels_path, run_path, measures=["all_trec"])
    assert {"all": result["all"], "per_topic": result["per_topic"]} == parse_cli_output(out)


@pytest.mark.parametrize("qrels, run, kwargs, error, message", [
    ({"1": {"a": 1}}, {"1": {"a": "x"}}, {}, RunError, "the score must be a number"),
    ({"1": {"a": 1.5}}, {"1": {"a": 1.0}}, {}, ConfigError, "the grade must be an integer"),
    ({"1": {"a": 1}}, {"2": {"a": 1.0}}, {}, RunError, "no topic of the run is in the qrels"),
    ({"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}}, {"version": "10.0"}, RunError, "topic 2 of the qrels"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, {"measures": ["mapp"]}, ConfigError, "illegal measure 'mapp'"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}}, {"version": "11"}, ConfigError, "version is"),
    ({"1": {"a": 1}}, [1, 2], {}, RunError, "the run must be a dict"),
])
def test_api_trec_eval_errors(qrels, run, kwargs, error, message):
    with pytest.raises(error, match=message):
        api.trec_eval(qrels, run, **kwargs)


def test_api_trec_eval_reports_a_bad_run_file_with_its_lines(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 a 2 1.0 r\n1 Q0 b 3 abc r\n")
    with pytest.raises(api.InvalidRunsError) as caught:
        api.trec_eval(str(qrels), str(run), strict=True)
    assert len([line for line in caught.value.lines if ": error:" in line]) == 2
    assert all(line.startswith(str(run) + ":") for line in caught.value.lines)
    with pytest.raises(api.RunError, match="run:2: error: duplicate docno a in topic 1"):
        api.trec_eval(str(qrels), str(run))         # trec_eval stops on it (exit 4), so does the command


LENIENT = [  # (qrels, run, what `runscore trec_eval` warns about): trec_eval reads each silently
    (b"1 0 a 1\n1 0 b 0\n", b"1 Q0 a 1 abc r\n1 Q0 b 2 1.0 r\n", "score"),
    (b"1 0 a 1.5\n1 0 b 0\n", b"1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n", "grade"),
    (b"\xef\xbb\xbf1 0 a 1\n1 0 b 0\n", b"\xef\xbb\xbf1 Q0 a 1 2.0 r\n", "byte order mark"),
    (b"1 0 a 1\n", b"1 Q0 a 1 2.0 r\r\n1 Q0 c 2 1.0 r\r\n", ""),       # CRLF: read as trec_eval does, silently
]


@pytest.mark.parametrize("qrels_bytes, run_bytes, word", LENIENT)
def test_api_trec_eval_reads_files_as_the_command_does(tmp_path, qrels_bytes, run_bytes, word):
    """The same values and the same warnings as `runscore trec_eval -q --full-precision`; strict=True refuses
    what the command refuses with --strict."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(qrels_bytes)
    run.write_bytes(run_bytes)
    code, out, err = run_cli("trec_eval", "-q", "--full-precision", "-m", "all_trec", str(qrels), str(run))
    assert code == 0, err
    result = api.trec_eval(str(qrels), str(run), measures=["all_trec"])
    printed = {}
    for line in out.splitlines():
        name, topic, value = [f.strip() for f in line.split("\t")]
        printed[(topic, name)] = value
    for (topic, name), value in printed.items():
        got = result["all"][name] if topic == "all" else result["per_topic"][topic][name]
        if isinstance(got, str):
            assert value in (got, "'%s'" % got), (topic, name, got, value)       # relstring is quoted
        else:
            assert float(value) == got, (topic, name, got, value)
    warned = [line for line in err.splitlines() if ": warning: " in line]
    assert result["warnings"] == warned and (word in " ".join(warned) if word else not warned)
    if not word:
        return
    strict_code, _, _ = run_cli("trec_eval", "--strict", str(qrels), str(run))
    with pytest.raises((api.RunError, api.ConfigError)) as caught:
        api.trec_eval(str(qrels), str(run), strict=True)
    assert strict_code == (2 if isinstance(caught.value, api.ConfigError) else 1)


# ------------------------------------------------------------------------------------------- compare() ---

def test_api_compare_equals_the_cli(tmp_path):
    ref = five_team_reference(tmp_path)
    for i, name in enumerate(TEAMS):
        (tmp_path / name).write_text(team_run(i), encoding="utf-8")
    files = [str(tmp_path / name) for name in TEAMS]
    args = ["--trials", "300", "--bootstrap", "300", "--seed", "7"]
    for measure in ("confidence", "nugprec"):
        code, out, err = run_cli("compare", "--task", "r2c2-ac", "--ref", ref, "--measure", measure, "--json",
                                 *args, *files)
        assert code == 0, err
        cli = json.loads(out)
        result = api.score("r2c2-ac", str(ref), files)
        assert api.compare(result, measure=measure, trials=300, bootstrap=300, seed=7) == cli
        # the same matrix given as plain per-topic values
        rows = {run: {t: v[measure] for t, v in topics.items() if measure in v}
                for run, topics in result.per_topic.items()}
        plain = api.compare(rows, measure=measure, trials=300, bootstrap=300, seed=7)
        assert {k: v for k, v in plain.items() if k != "task"} == {k: v for k, v in cli.items() if k != "task"}


def test_api_compare_from_a_matrix():
    values = [[0.1, 0.3, 0.2], [0.4, 0.6, 0.1], [0.5, 0.9, 0.3], [0.2, 0.3, 0.2]]
    out = api.compare(values, runs=["a", "b", "c"], topics=["t1", "t2", "t3", "t4"], trials=200, bootstrap=200)
    assert out["runs"][0] == "b" and out["means"]["b"]["mean"] == pytest.approx((0.3 + 0.6 + 0.9 + 0.3) / 4)
    assert len(out["pairs"]) == 3 and out["per_topic"]["c"]["t3"] == 0.3
    with pytest.raises(ConfigError, match="2 runs"):
        api.compare({"a": {"t": 1.0}})
    with pytest.raises(ConfigError, match="which to compare"):
        api.compare({"a": {"t": {"x": 1.0}}, "b": {"t": {"x": 2.0}}})


def test_api_trec_eval_takes_ir_measures_names_with_ir_measures_values():
    """nDCG@10, P@10, AP, R@100, RR and Judged@10 asked by their ir_measures names come back under those names,
    per topic equal to ir_measures' (pytrec-eval-terrier backend; its judged provider for Judged@10) bit for bit,
    and in the summary to its means (up to the order of the sum)."""
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
    import math
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from adopter_side import case
    names = ["nDCG@10", "P@10", "AP", "R@100", "RR", "Judged@10"]
    for seed in range(40):
        qrels, run = case(seed)
        run = {q: {d: (v if math.isfinite(v) else 9.5 if v > 0 else -9.5) for d, v in docs.items()}
               for q, docs in run.items()}
        # ir_measures scores a qrels topic missing from the run 0 and averages over every qrels topic: -c
        result = api.trec_eval(qrels, run, measures=names, complete=True)
        assert sorted(result["all"]) == sorted(names)
        measures = [ir_measures.parse_measure(n) for n in names]
        theirs = {}
        for metric in ir_measures.iter_calc(measures, qrels, run):
            theirs.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
        assert {q: theirs[q] for q in result["per_topic"]} == result["per_topic"], "seed %d" % seed
        assert all(set(theirs[q].values()) == {0} for q in set(theirs) - set(result["per_topic"])), seed
        for measure, value in ir_measures.calc_aggregate(measures, qrels, run).items():
            assert math.isclose(result["all"][str(measure)], value, rel_tol=1e-12, abs_tol=1e-15), (seed, measure)
    both = api.trec_eval(qrels, run, measures=["map", "P.5", "P@10", "Judged@5"])
    assert sorted(both["all"]) == ["Judged@5", "P@10", "P_5", "map"]
    assert api.trec_eval(qrels, run, measures=["P(rel=2)@10"])["all"]["P(rel=2)@10"] == \
        api.trec_eval(qrels, run, measures=["P.10"], level=2)["all"]["P_10"]
    with pytest.raises(api.ConfigError, match="needs a cutoff"):
        api.trec_eval(qrels, run, measures=["R"])


def test_api_report_takes_runs_in_memory_as_api_score_does(tmp_path):
    """(name, text) pairs and {name: text} dicts, as api.score takes them, give the report the same files give."""
    ref = os.path.join(ROOT, "reference_data", "temporalia-tir")
    path = os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tir", "tir_sample")
    text = open(path, "rb").read()
    settings = dict(trials=20, tau_bootstrap=10)
    from_file = api.report("temporalia-tir", ref, [path], tmp_path / "file", **settings)
    for name, runs in (("dict", {"tir_sample": text}), ("pairs", [("tir_sample", text.decode("utf-8"))])):
        result = api.report("temporalia-tir", ref, runs, tmp_path / name, **settings)
        assert result.runs == from_file.runs and result.files == from_file.files
        for written in ("means.csv", "tau.csv"):
            assert (tmp_path / name / written).read_bytes() == (tmp_path / "file" / written).read_bytes()
    with pytest.raises(ConfigError, match="plain file name"):
        api.report("temporalia-tir", ref, {"../x": text}, tmp_path / "bad", **settings)
    with pytest.raises(ConfigError, match="no run to report"):
        api.report("temporalia-tir", ref, {}, tmp_path / "none", **settings)


def test_complete_takes_bare_rprec_and_infap_as_ir_measures_does():
    """With complete=True, `Rprec` and `infAP` written bare are ir_measures' names (its answer, as for `AP`): every
    qrels topic per topic (0 where the run has none), zeros when run and qrels share no topic, equal to
    ir_measures' iter_calc and calc_aggregate; `trec_eval:Rprec` is still trec_eval's -c Rprec."""
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
    import math
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from adopter_side import case
    names = ["Rprec", "infAP"]
    measures = [ir_measures.parse_measure(n) for n in names]
    cases = [case(seed) for seed in range(12)]
    cases.append(({"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}, {"q9": {"a": 2.0, "c": 1.0}}))     # nothing shared
    cases.append(({"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}, {"q1": {"b": 2.0, "a": 1.0}}))     # q2 missed
    for number, (qrels, run) in enumerate(cases):
        run = {q: {d: (v if math.isfinite(v) else 9.5 if v > 0 else -9.5) for d, v in docs.items()}
               for q, docs in run.items()}
        result = api.trec_eval(qrels, run, measures=names, complete=True)
        theirs = {}
        for metric in ir_measures.iter_calc(measures, qrels, run):
            theirs.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
        assert result["per_topic"] == theirs, number
        for measure, value in ir_measures.calc_aggregate(measures, qrels, run).items():
            assert math.isclose(result["all"][str(measure)], value, rel_tol=1e-12, abs_tol=1e-15), (number, measure)
    assert set(result["per_topic"]) == {"q1", "q2"} and result["per_topic"]["q2"] == {"Rprec": 0.0, "infAP": 0.0}
    nothing = api.trec_eval(cases[-2][0], cases[-2][1], measures=names, complete=True)
    assert nothing["all"] == {"Rprec": 0.0, "infAP": 0.0} and set(nothing["per_topic"]) == {"q1", "q2"}
    spelt = api.trec_eval(qrels, run, measures=["trec_eval:Rprec", "Rprec"], complete=True)
    official = api.trec_eval(qrels, run, measures=["official"], complete=True)
    assert spelt["all"]["trec_eval:Rprec"] == official["all"]["Rprec"]
    assert {q: row["trec_eval:Rprec"] for q, row in spelt["per_topic"].items() if "trec_eval:Rprec" in row} == \
        {q: row["Rprec"] for q, row in official["per_topic"].items()}
    # without complete, bare names stay trec_eval's (the topics of both only)
    assert set(api.trec_eval(qrels, run, measures=["Rprec"])["per_topic"]) == {"q1"}


def test_api_trec_eval_scores_a_missing_topic_as_trec_eval_10_does_with_complete(tmp_path):
    """--v10 -c: the placeholder ranking's values for a topic missing from the run, cleared only where trec_eval
    clears them (exact names), for files and dicts alike."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 2\n")
    run.write_text("1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n")
    measures = ["map", "utility.2,-1,0,0", "relstring.3", "rbp_resid.p=0.5", "unj.3", "num_ret", "relstring"]
    argv = [a for m in measures for a in ("-m", m)]
    code, out, err = run_cli("trec_eval", "-q", "--full-precision", "--v10", "-c", *argv, str(qrels), str(run))
    assert code == 0, err
    cli = parse_cli_output(out)
    assert cli["per_topic"]["2"]["relstring_3"] == "-" and cli["per_topic"]["2"]["utility_2,-1,0,0"] == -1.0
    for given in ((str(qrels), str(run)), ({"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 2}},
                                           {"1": {"a": 1.0, "b": 0.5}})):
        result = api.trec_eval(*given, measures=measures, version="10.0", complete=True, run_id="r")
        assert {"all": result["all"], "per_topic": result["per_topic"]} == cli
