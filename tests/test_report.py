"""`runscore report`: every number checked against an independent computation.

means.csv against `runscore score --json` for every task; the Tukey HSD p-values against `runscore compare --json`
(same files, same seed); tau against scipy.stats.kendalltau; judged@k and the unique relevant documents recounted
from the run files; leave-one-team-out against qrels rebuilt by hand and scored by pytrec_eval, on a simulated
campaign whose qrels come from its own pool; the LaTeX tables parsed for balanced rows and groups; bad inputs.
"""
import csv
import io
import json
import os
import shutil
import zipfile

import numpy as np
import pytest
from scipy import stats

from campaign_sim import ntcir1_campaign
from conftest import ROOT, run_cli
from runscore import api
from runscore.cli import main
from runscore.campaign import agreement_tau

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
TRIALS = "300"


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """A simulated NTCIR-1 campaign (4 teams x 2 runs, 8 topics, qrels from the depth-20 pool) and its report."""
    folder = tmp_path_factory.mktemp("campaign")
    runs, ref, truth = ntcir1_campaign(str(folder), teams=4, runs_per_team=2, topics=8, seed=7)
    out = folder / "report"
    code, stdout, stderr = run_cli("report", "--task", "ntcir1-adhoc", "--ref", ref, "--pool-depth", "10",
                                   "--trials", TRIALS, "--seed", "3", "--measure", "P_10_rel2", "--discpower", "--tau-bootstrap",
                                   "200", runs,
                                   "-o", out)
    assert code == 0, stderr
    return {"runs": runs, "ref": ref, "out": out, "truth": truth, "stdout": stdout}


def run_files(folder):
    return [os.path.join(folder, name) for name in sorted(os.listdir(folder))]


# ------------------------------------------------------------------------------------------ means ---

def test_means_equal_runscore_score(campaign):
    code, stdout, stderr = run_cli("score", "--task", "ntcir1-adhoc", "--ref", campaign["ref"], "--json",
                                   *run_files(campaign["runs"]))
    assert code == 0, stderr
    scored = json.loads(stdout)
    rows = read_csv(campaign["out"] / "means.csv")
    assert sorted(r["run"] for r in rows) == sorted(scored)
    columns = list(rows[0])[3:]
    assert columns[0] == "map_rel1" and len(columns) == 8
    for row in rows:
        for measure in columns:
            assert float(row[measure]) == scored[row["run"]][measure], (row["run"], measure)
        assert row["team"] == row["run"].rstrip("0123456789")
    primary = [scored[r["run"]]["map_rel1"] for r in rows]
    assert primary == sorted(primary, reverse=True)


def _two_runs_of(task_id, folder):
    """The task's sample runs, plus a copy under a second team's name where the sample holds one run."""
    sample = os.path.join(SAMPLES, task_id)
    names = sorted(os.listdir(sample))
    copies = {"ntcir1-adhoc": None, "r2c2-pr": ("SAMPLE-PO-1.txt", "OTHER-PO-1.txt"),
              "qqa23-mrc": ("sample_run01.json", "other_run01.json"),
              "datasearch-qa": ("ds2qa_sample.tsv", "ds2qa_other.tsv")}
    paths = [os.path.join(sample, n) for n in names if not (task_id == "r2c2-ac" and "-PG-" in n)]
    if task_id == "ntcir1-adhoc":
        lines = open(paths[0], encoding="utf-8").read().splitlines()
        text = "".join("%s\n" % "\t".join(f[:4] + [str((k * 7919) % 1000), "ntc2"])
                       for k, f in enumerate((line.split("\t") for line in lines), 1))
        other = os.path.join(folder, "ntc2")
        open(other, "w", encoding="utf-8").write(text)
        paths.append(other)
    elif task_id in copies:
        source, target = copies[task_id]
        shutil.copy(os.path.join(sample, source), os.path.join(folder, target))
        paths.append(os.path.join(folder, target))
    return paths


TASKS = ["ntcir1-adhoc", "temporalia-tqic", "temporalia-tir", "r2c2-pr", "qqa23-mrc", "datasearch-qa", "r2c2-ac"]


@pytest.mark.parametrize("task_id", TASKS)
def test_every_task_means_equal_score(task_id, tmp_path):
    """In process (api.score is `runscore score --json`, api.report is `runscore report`): the CLI's code paths."""
    ref = os.path.join(ROOT, "reference_data", task_id)
    runs = _two_runs_of(task_id, str(tmp_path))
    scored = api.score(task_id, ref, runs).to_json()
    out = tmp_path / "report"
    api.report(task_id, ref, runs, out, trials=50, tau_bootstrap=20)
    rows = read_csv(out / "means.csv")
    assert len(rows) == len(scored)
    for row in rows:
        for measure in list(row)[3:]:
            expected = scored[row["run"]].get(measure)
            assert (row[measure] == "" if expected is None else float(row[measure]) == expected), (row, measure)
    ranking = task_id in ("ntcir1-adhoc", "temporalia-tir", "r2c2-pr")
    assert (out / "pool.csv").exists() == ranking
    assert not (out / "reusability.csv").exists()
    for name in ("significance.csv", "tau.csv", "means.tex", "significance.tex", "report.html", "report.json"):
        assert (out / name).exists()
    if len(rows) > 1 and task_id != "r2c2-ac":     # r2c2-ac's primary (HMR) is not a mean over topics
        assert all(row["group"] for row in rows)
        assert read_csv(out / "significance.csv")


# ------------------------------------------------------------------------------------------ significance ---

def test_tukey_p_values_equal_runscore_compare(campaign):
    """api.compare is `runscore compare --json` (the same files in the same order, the same seed)."""
    scored = api.score("ntcir1-adhoc", campaign["ref"], run_files(campaign["runs"]))
    for measure in ("map_rel1", "P_10_rel2"):
        compared = api.compare(scored, measure, trials=int(TRIALS), seed=3, bootstrap=10)
        expected = {(p["run_a"], p["run_b"]): (p["tukey_hsd_p"], p["difference"], p["effect_size"]["es_e"])
                    for p in compared["pairs"]}
        rows = [r for r in read_csv(campaign["out"] / "significance.csv") if r["measure"] == measure]
        assert len(rows) == len(expected) == 28
        for row in rows:
            p, diff, es_e = expected[(row["run_a"], row["run_b"])]
            assert float(row["p"]) == p and float(row["diff"]) == diff
            assert float(row["es_e"]) == pytest.approx(es_e, rel=1e-12)


def test_group_letters_follow_the_p_values(campaign):
    groups = {r["run"]: set(r["group"]) for r in read_csv(campaign["out"] / "means.csv")}
    rows = [r for r in read_csv(campaign["out"] / "significance.csv") if r["measure"] == "map_rel1"]
    assert any(float(r["p"]) < 0.05 for r in rows) and any(float(r["p"]) >= 0.05 for r in rows)
    for row in rows:
        share = bool(groups[row["run_a"]] & groups[row["run_b"]])
        assert share == (float(row["p"]) >= 0.05), row


def test_discpower_files(campaign):
    folder = campaign["out"] / "discpower"
    runs = (folder / "runs").read_text().split()
    matrix = np.loadtxt(str(folder / "map_rel1.test_data"))
    assert matrix.shape == (8, 8)
    means = {r["run"]: float(r["map_rel1"]) for r in read_csv(campaign["out"] / "means.csv")}
    assert np.allclose(matrix.mean(axis=0), [means[r] for r in runs], rtol=0, atol=1e-12)
    p = {(r["run_a"], r["run_b"]): float(r["p"]) for r in read_csv(campaign["out"] / "significance.csv")
         if r["measure"] == "map_rel1"}
    lines = (folder / ("map_rel1.test_data.pvalues.%s" % TRIALS)).read_text().splitlines()
    assert len(lines) == 28
    for line in lines:
        left, right, diff, value = line.split()
        assert float(value) == p.get((left, right), p.get((right, left)))
        assert float(diff) == pytest.approx(abs(means[left] - means[right]), abs=1e-12)


def test_same_seed_same_bytes_other_seed_other_p(campaign, tmp_path):
    again = tmp_path / "again"

    def report(seed, out):
        api.report("ntcir1-adhoc", campaign["ref"], [campaign["runs"]], out, pool_depth=10, trials=int(TRIALS),
                   measures=["P_10_rel2"], discpower=True, seed=seed, tau_bootstrap=200)

    report(3, again)
    for name in os.listdir(campaign["out"]):
        if os.path.isfile(campaign["out"] / name):
            assert (again / name).read_bytes() == (campaign["out"] / name).read_bytes(), name
    other = tmp_path / "other"
    report(4, other)
    assert (other / "significance.csv").read_text() != (again / "significance.csv").read_text()


# ------------------------------------------------------------------------------------------ tau ---

@pytest.mark.parametrize("seed", range(6))
def test_kendall_tau_b_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 30))
    x = np.round(rng.random(m), 1)            # ties on both sides
    y = np.round(x + rng.normal(0, 0.2, m), 1)
    ours = agreement_tau.kendall_tau_b(x, y)[0]
    assert ours == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)


def test_tau_csv_equals_scipy_on_the_means_and_intervals_stay_in_range(campaign):
    means = read_csv(campaign["out"] / "means.csv")
    rows = read_csv(campaign["out"] / "tau.csv")
    assert len(rows) == 28
    for row in rows:
        x = [float(r[row["measure_a"]]) for r in means]
        y = [float(r[row["measure_b"]]) for r in means]
        assert float(row["tau"]) == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
        low, high = float(row["ci_low"]), float(row["ci_high"])
        assert -1.0 <= low <= high <= 1.0


def test_tau_interval_of_perfectly_agreeing_measures_is_a_point():
    values = np.arange(12.0).reshape(4, 3) / 12.0
    rows = agreement_tau.tau_table({"a": values.mean(0), "b": values.mean(0) * 2}, {"a": values, "b": values * 2},
                                   200, 0)
    assert (rows[0].tau, rows[0].ci_low, rows[0].ci_high) == (1.0, 1.0, 1.0)


# ------------------------------------------------------------------------------------------ pool and reusability ---

def ranked(run_path, depth=None):
    """topic -> docnos by Similarity descending, ties by docno descending (trec_eval's rule), read by hand."""
    rows = {}
    for line in open(run_path, encoding="utf-8"):
        topic, _, doc, _, sim, _ = line.split("\t")
        rows.setdefault(topic, []).append((float(sim), doc))
    return {t: [d for _, d in sorted(v, key=lambda e: (-e[0], [-ord(c) for c in e[1]]))][:depth]
            for t, v in rows.items()}


def qrels_of(ref):
    out = {}
    for line in open(os.path.join(ref, "qrels.txt"), encoding="utf-8"):
        topic, _, doc, grade = line.split()
        out.setdefault(topic, {})[doc] = int(grade)
    return out


def test_pool_csv_recounted_by_hand(campaign):
    qrels = qrels_of(campaign["ref"])
    runs = {os.path.basename(p): ranked(p) for p in run_files(campaign["runs"])}
    rows = {r["run"]: r for r in read_csv(campaign["out"] / "pool.csv")}
    relevant_by = {}
    for name, ranking in runs.items():
        for topic, docs in ranking.items():
            for doc in docs[:10]:
                if qrels.get(topic, {}).get(doc, 0) >= 1:
                    relevant_by.setdefault((topic, doc), set()).add(name)
    for name, ranking in runs.items():
        judged = np.mean([sum(d in qrels[t] for d in ranking.get(t, [])[:10]) / 10.0 for t in sorted(qrels)])
        assert float(rows[name]["judged_at_10"]) == pytest.approx(judged, abs=1e-12)
        alone = sum(1 for owners in relevant_by.values() if owners == {name})
        assert int(rows[name]["unique_relevant"]) == alone


def test_leave_one_team_out_equals_pytrec_eval(campaign):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (test extra) is not installed")
    qrels = qrels_of(campaign["ref"])
    topics = sorted(qrels)
    files = {os.path.basename(p): p for p in run_files(campaign["runs"])}
    team = {name: name.rstrip("0123456789") for name in files}
    pooled_by = {}
    for name, path in files.items():
        for topic, docs in ranked(path, 10).items():
            for doc in docs:
                pooled_by.setdefault((topic, doc), set()).add(team[name])
    rows = read_csv(campaign["out"] / "reusability.csv")
    assert len(rows) == 8
    full_scores = {}
    reduced_scores = {}
    for row in rows:
        left_out = row["team"]
        reduced = {t: {d: g for d, g in docs.items() if pooled_by.get((t, d)) != {left_out}} for t, docs in qrels.items()}
        run = {}
        for line in open(files[row["run"]], encoding="utf-8"):
            topic, _, doc, _, sim, _ = line.split("\t")
            run.setdefault(topic, {})[doc] = float(sim)
        scores = []
        for judgements in (qrels, reduced):
            per_topic = pytrec_eval.RelevanceEvaluator(judgements, {"map"}, relevance_level=2).evaluate(run)
            scores.append(sum(per_topic.get(t, {}).get("map", 0.0) for t in topics) / len(topics))
        assert float(row["full"]) == pytest.approx(scores[0], abs=1e-12)
        assert float(row["reduced"]) == pytest.approx(scores[1], abs=1e-12)
        assert int(row["removed"]) == sum(1 for (t, d), teams in pooled_by.items()
                                          if teams == {left_out} and d in qrels.get(t, {}))
        full_scores[row["run"]], reduced_scores[row["run"]] = scores
    assert any(float(r["reduced"]) < float(r["full"]) for r in rows)
    for row in rows:
        others = [v for k, v in full_scores.items() if k != row["run"]]
        assert int(row["rank_full"]) == 1 + sum(v > full_scores[row["run"]] for v in others)
        assert int(row["rank_reduced"]) == 1 + sum(v > reduced_scores[row["run"]] for v in others)
    summary = read_csv(campaign["out"] / "reusability_summary.csv")[0]
    names = sorted(full_scores)
    assert float(summary["tau"]) == pytest.approx(stats.kendalltau([full_scores[n] for n in names],
                                                                   [reduced_scores[n] for n in names])[0], abs=1e-12)
    assert int(summary["largest_rank_change"]) == max(abs(int(r["rank_full"]) - int(r["rank_reduced"])) for r in rows)


def test_when_no_run_moves_no_run_is_named(tmp_path):
    """Every run retrieves all 20 documents, so no team put an item in the pool alone: nothing is removed, no rank
    changes, and the summary names no run (it named the first one)."""
    runs, ref, _ = ntcir1_campaign(str(tmp_path), teams=3, runs_per_team=1, topics=4, docs=20, run_length=20,
                                   judged_depth=20, seed=2)
    api.report("ntcir1-adhoc", ref, [runs], tmp_path / "out", pool_depth=20, trials=20, tau_bootstrap=0)
    assert {r["removed"] for r in read_csv(tmp_path / "out" / "reusability.csv")} == {"0"}
    summary = read_csv(tmp_path / "out" / "reusability_summary.csv")[0]
    assert (summary["largest_rank_change"], summary["run"]) == ("0", "")
    assert "largest rank change: 0 (no run moved)" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------ LaTeX ---

def columns_of(spec):
    """The number of columns of a tabular specification (l, c, r and p{...}; @{...}, >{...} and <{...} add none)."""
    import re
    bare = re.sub(r"[@<>]\{(?:[^{}]|\{[^{}]*\})*\}", "", spec)
    bare = re.sub(r"p\{(?:[^{}]|\{[^{}]*\})*\}", "p", bare)
    return sum(1 for ch in bare if ch in "lcrp")


def latex_problems(text):
    """Unbalanced braces, environments that do not close, and table rows whose cell count differs from their
    table's column specification; [] when the tables are well formed."""
    import re
    problems = []
    depth = 0
    clean = text.replace("\\\\", "  ").replace("\\{", "  ").replace("\\}", "  ").replace("\\&", "  ")
    for ch in clean:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            problems.append("a } closes nothing")
    if depth:
        problems.append("%d braces left open" % depth)
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+\*?)\}", text):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            problems.append("\\end{%s} without its begin" % name)
    if stack:
        problems.append("not closed: %s" % stack)
    width = None
    for line in text.splitlines():
        found = re.match(r"\\begin\{x?tabular\}\{(.*)\}$", line)
        if found:
            width = columns_of(found.group(1))
        elif line.endswith("\\\\") and "\\multicolumn" not in line:
            cells = len(re.findall(r"(?<!\\)&", line)) + 1
            if width is None or cells != width:
                problems.append("%d cells for %s columns: %s" % (cells, width, line))
    if width is None:
        problems.append("no table")
    return problems


def test_latex_tables_are_balanced(campaign):
    means = (campaign["out"] / "means.tex").read_text()
    assert latex_problems(means) == []
    assert "\\toprule" in means and "\\bottomrule" in means and "\\textbf{" in means
    assert "\\textsuperscript{a}" in means
    pairs = (campaign["out"] / "significance.tex").read_text()
    assert latex_problems(pairs) == []
    rows = [r for r in read_csv(campaign["out"] / "significance.csv") if float(r["p"]) < 0.05]
    assert sum(1 for line in pairs.splitlines() if line.count("&") == 4 and not line.startswith("\\table")) == len(rows)


def test_latex_escapes_names():
    from runscore.campaign.latex import escape

    assert escape("a_b&c%d$e#f{g}h~i^j\\k") == ("a\\_b\\&c\\%d\\$e\\#f\\{g\\}h\\textasciitilde{}i"
                                                "\\textasciicircum{}j\\textbackslash{}k")


# ------------------------------------------------------------------------------------------ inputs and errors ---

def test_submission_zips_and_the_per_team_cap(tmp_path, capsys):
    """qqa23 submissions as Codabench downloads them: each is its owner's; user1's second submission holds a second
    run, over the campaign's cap of 1 per team counted over all of an owner's submissions: it is left out with a
    warning naming it (the report, like the pool, keeps the lowest run number)."""
    sample = os.path.join(SAMPLES, "qqa23-mrc", "sample_run01.json")
    ref = os.path.join(ROOT, "reference_data", "qqa23-mrc")
    zips = []
    for number, owner, name in ((1, "user1", "sample_run01.json"), (2, "user2", "other_run01.json"),
                                (3, "user1", "sample_run02.json")):
        path = tmp_path / ("%d_%s_PhaseId1_2026-05-01:10-22_sub.zip" % (number, owner))
        with zipfile.ZipFile(str(path), "w") as archive:
            archive.write(sample, name)
        zips.append(path)
    code = main(["report", "--task", "qqa23-mrc", "--ref", ref, "--trials", "20"] + [str(z) for z in zips[:2]] +
                ["-o", str(tmp_path / "ok")])
    assert code == 0, capsys.readouterr().err
    assert [r["team"] for r in read_csv(tmp_path / "ok" / "means.csv")] == ["user1", "user2"]
    code = main(["report", "--task", "qqa23-mrc", "--ref", ref, "--trials", "20"] + [str(z) for z in zips] +
                ["-o", str(tmp_path / "capped")])
    stderr = capsys.readouterr().err
    assert code == 0, stderr
    assert "run sample_run02 of user1 left out: user1 sent 2 runs of qqa23-mrc in submissions 1, 3 and at most 1 " \
           "is taken (kept: sample_run01" in stderr
    assert [r["run"] for r in read_csv(tmp_path / "capped" / "means.csv")] == ["sample_run01", "other_run01"]


def test_an_invalid_run_writes_nothing(campaign, tmp_path):
    bad = tmp_path / "bad1"
    bad.write_text("0031\t0\tgakkai-1\t1\tabc\tbad1\n")
    code, _, stderr = run_cli("report", "--task", "ntcir1-adhoc", "--ref", campaign["ref"], campaign["runs"], bad,
                              "-o", tmp_path / "out")
    assert code == 1
    assert "bad1:1: error:" in stderr and "no report written" in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("settings, message", [
    ({"trials": 0}, "--trials must be at least 1"),
    ({"alpha": 1.5}, "--alpha must be between 0 and 1"),
    ({"confidence": 0.0}, "--confidence must be between 0 and 1"),
    ({"pool_depth": 0}, "--pool-depth must be at least 1"),
    ({"measures": ["nDCG@99"]}, "unknown measure"),
    ({"tau_bootstrap": -1}, "--tau-bootstrap must be at least 0"),
])
def test_bad_settings_are_usage_errors(campaign, tmp_path, settings, message):
    with pytest.raises(api.ConfigError, match=message):
        api.report("ntcir1-adhoc", campaign["ref"], [campaign["runs"]], tmp_path / "out", **settings)
    assert not (tmp_path / "out").exists()


def test_missing_things_are_usage_errors(campaign, tmp_path):
    with pytest.raises(api.ConfigError, match="does not exist"):
        api.report("ntcir1-adhoc", campaign["ref"], [tmp_path / "nothing"], tmp_path / "out")
    with pytest.raises(api.ConfigError, match="parent folder does not exist"):
        api.report("ntcir1-adhoc", campaign["ref"], [campaign["runs"]], tmp_path / "no" / "such" / "folder")
    (tmp_path / "file").write_text("x")
    with pytest.raises(api.ConfigError, match="is not a folder"):
        api.report("ntcir1-adhoc", campaign["ref"], [campaign["runs"]], tmp_path / "file")


def test_cli_exit_2_for_bad_usage_without_a_traceback(campaign, tmp_path):
    code, _, stderr = run_cli("report", "--task", "ntcir1-adhoc", "--ref", campaign["ref"], "--trials", "0",
                              campaign["runs"], "-o", tmp_path / "out")
    assert code == 2 and "--trials must be at least 1" in stderr and "Traceback" not in stderr
    code, _, stderr = run_cli("report", "--task", "ntcir1-adhoc", "--ref", campaign["ref"], campaign["runs"])
    assert code == 2 and "-o" in stderr


def test_api_report_returns_the_overview(campaign, tmp_path):
    result = api.report("ntcir1-adhoc", campaign["ref"], [campaign["runs"]], tmp_path / "api", trials=50,
                        tau_bootstrap=10)
    assert result.runs == 8 and "means.csv" in result.files and "reusability.csv" not in result.files
    rows = read_csv(tmp_path / "api" / "means.csv")
    assert [r.label for r in result.overview.runs] == [r["run"] for r in rows]
    assert io.StringIO((tmp_path / "api" / "report.json").read_text()).read().startswith("{")


def test_tir_per_class_measures_get_tau_intervals(tmp_path):
    """TIR's P@20 per temporal class is P@20 averaged over that class's subtopics: resampled as such (the check that
    the class means are the official ones passes), so every pair of measures gets an interval (two runs: tau is
    +-1, and a note says how the interval is made there)."""
    ref = os.path.join(ROOT, "reference_data", "temporalia-tir")
    api.report("temporalia-tir", ref, [os.path.join(SAMPLES, "temporalia-tir", "tir_sample")], tmp_path / "tir",
               trials=50, tau_bootstrap=50)
    rows = read_csv(tmp_path / "tir" / "tau.csv")
    assert len(rows) == 21
    for row in rows:
        assert row["ci_low"] != "" and float(row["ci_low"]) <= float(row["tau"]) <= float(row["ci_high"])
        assert row["note"] == "" or row["note"].startswith("tau is %d: " % float(row["tau"]))


def test_discpower_files_keep_their_columns_with_spaces_in_run_names():
    """Discpower splits its files on whitespace: a run named 'my run' was written as is, read as two runs, and every
    pair's line had five fields. Whitespace becomes '_', and a name that then meets another gets '#2'."""
    from types import SimpleNamespace
    from runscore.campaign.report_files import discpower_files, discpower_names

    assert discpower_names(["a b", "a_b", "c\td", "e"]) == ["a_b#2", "a_b", "c_d", "e"]
    runs = ["my run", "my_run", "other\u3000run"]
    test = SimpleNamespace(measure="map", matrix=SimpleNamespace(runs=runs, values=np.array([[0.5, 0.25, 0.0]])),
                           means=np.array([0.5, 0.25, 0.0]), p=np.full((3, 3), 0.5))
    files = discpower_files(SimpleNamespace(settings={"trials": 100}, significance=[test]))
    names = files["discpower/runs"].split()
    assert len(names) == 3 and len(set(names)) == 3
    assert all(len(line.split()) == 4 for line in files["discpower/map.test_data.pvalues.100"].splitlines())
    assert all(line.split()[0] in names and line.split()[1] in names
               for line in files["discpower/map.test_data.pvalues.100"].splitlines())
