"""`runscore compare` on the ntcir1-adhoc sample, its JSON against `runscore score` and scipy, determinism,
a folder of runs, the figure, the results-page section, and bad usage (exit codes and messages)."""
import json
import os
import re
import shlex
import xml.dom.minidom

import pytest
from scipy import stats

from conftest import ROOT, run_cli

REF = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
SAMPLE = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")


def _variant(folder, run_id, similarity):
    """A copy of the sample run with another Run-ID and Similarity = similarity(line index, original)."""
    lines = []
    with open(SAMPLE, encoding="utf-8") as handle:
        for k, line in enumerate(handle.read().splitlines()):
            fields = line.split("\t")
            fields[4] = str(similarity(k, float(fields[4])))
            fields[5] = run_id
            lines.append("\t".join(fields))
    path = os.path.join(str(folder), run_id)
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return path


@pytest.fixture()
def runs(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    reversed_run = _variant(folder, "ntc2", lambda k, sim: -sim)              # every ranking reversed
    shuffled_run = _variant(folder, "ntc3", lambda k, sim: (k * 37) % 101)   # a fixed scramble
    (folder / ".hidden").write_text("not a run\n")
    return folder, reversed_run, shuffled_run


def _json(*args):
    code, out, err = run_cli("compare", "--task", "ntcir1-adhoc", "--ref", REF, "--json", *args)
    assert code == 0, err
    return json.loads(out), out


def test_json_per_topic_values_are_the_scored_ones_and_tests_match_scipy(runs):
    _, reversed_run, _ = runs
    data, _ = _json(SAMPLE, reversed_run, "--measure", "P_10_rel2")
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", REF, "--json", "--per-topic",
                             SAMPLE, reversed_run)
    assert code == 0, err
    scored = json.loads(out)
    topics = sorted(scored["ntc1"]["per_topic"])
    assert data["topics"] == topics
    for run in ("ntc1", "ntc2"):
        assert data["per_topic"][run] == {t: scored[run]["per_topic"][t]["P_10_rel2"] for t in topics}
        assert data["means"][run]["mean"] == pytest.approx(scored[run]["all"]["P_10_rel2"], abs=1e-12)
    (pair,) = data["pairs"]
    a = [scored[pair["run_a"]]["per_topic"][t]["P_10_rel2"] for t in topics]
    b = [scored[pair["run_b"]]["per_topic"][t]["P_10_rel2"] for t in topics]
    assert pair["difference"] == pytest.approx(sum(a) / len(a) - sum(b) / len(b), abs=1e-12)
    assert pair["t"]["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    assert pair["t"]["p_adjusted"] == pair["t"]["p"]                  # one pair: Holm changes nothing
    assert 0.0 <= pair["tukey_hsd_p"] <= 1.0
    assert pair["difference_ci"][0] <= pair["difference"] <= pair["difference_ci"][1]
    assert data["measure"] == "P_10_rel2" and data["settings"]["trials"] == 5000


def test_default_measure_is_the_primary_and_table_lists_every_part(runs):
    _, reversed_run, _ = runs
    code, out, err = run_cli("compare", "--task", "ntcir1-adhoc", "--ref", REF, SAMPLE, reversed_run)
    assert code == 0, err
    assert "Per-topic map_rel1" in out
    assert "Mean map_rel1 over 6 topics, 95% bootstrap CI (10000 samples)" in out
    header = next(line for line in out.splitlines() if line.startswith("run_a"))
    assert header.split() == ["run_a", "run_b", "diff", "ci_low", "ci_high", "w/l/t", "t", "p_t", "W",
                              "p_wilcoxon", "p_tukey", "d_z", "g_z", "ES_E"]
    assert "Traceback" not in err


def test_output_is_identical_for_a_seed_and_differs_for_another(runs):
    _, reversed_run, shuffled_run = runs
    args = (SAMPLE, reversed_run, shuffled_run, "--trials", "500", "--bootstrap", "500")
    first, first_text = _json(*args, "--seed", "3")
    _, second_text = _json(*args, "--seed", "3")
    other, _ = _json(*args, "--seed", "4")
    assert first_text == second_text
    assert [p["difference_ci"] for p in first["pairs"]] != [p["difference_ci"] for p in other["pairs"]]
    assert [p["difference"] for p in first["pairs"]] == [p["difference"] for p in other["pairs"]]


def test_runs_dir_compares_a_campaign_and_writes_a_figure(runs, tmp_path):
    folder, _, _ = runs
    figure = tmp_path / "cmp.svg"
    data, _ = _json("--runs-dir", str(folder), SAMPLE, "--trials", "200", "--figure", str(figure))
    assert sorted(data["runs"]) == ["ntc1", "ntc2", "ntc3"]            # .hidden is skipped
    assert len(data["pairs"]) == 3                                     # 3 runs: 3 * 2 / 2 pairs
    svg = xml.dom.minidom.parse(str(figure)).documentElement
    assert svg.tagName == "svg"
    titles = [t.firstChild.data for t in svg.getElementsByTagName("title")]
    assert any(t.startswith("0031: ") for t in titles)                 # a per-topic difference bar
    means = [c for c in svg.getElementsByTagName("circle") if c.getElementsByTagName("title")]
    assert len(means) == 3                                             # one mean per run
    # a legend says what the marks mean: the dot, the bars' colours, the dashed line, the band
    texts = " ".join(t.firstChild.data for t in svg.getElementsByTagName("text") if t.firstChild)
    for key in ("mean (dot) and its bootstrap CI (line)", "a topic where the first run scores higher",
                "where the second run scores higher", "mean difference", "CI of the mean difference"):
        assert key in texts


def test_the_same_run_twice_is_named_apart_and_shows_no_difference():
    data, _ = _json(SAMPLE, SAMPLE, "--trials", "100", "--bootstrap", "100")
    assert data["runs"] == ["ntc1@%s" % SAMPLE, "ntc1@%s'" % SAMPLE]     # same Run-ID and same file name
    (pair,) = data["pairs"]
    assert (pair["difference"], pair["t"]["p"], pair["wilcoxon"]["p"], pair["tukey_hsd_p"]) == (0.0, 1.0, 1.0, 1.0)


BAD_USAGE = [
    # (extra arguments, expected exit code, expected text on stderr)
    (["ONE", "TWO", "--measure", "map_rel"], 2, "(did you mean map_rel2, map_rel1"),
    (["ONE", "TWO", "--measure", "nDCG"], 2, "per-topic measures (`runscore score --json` names them all)"),
    (["ONE"], 2, "comparing needs at least 2 runs"),
    ([], 2, "no run files"),
    (["ONE", "missing-run-file"], 2, "run file 'missing-run-file' does not exist"),
    (["ONE", "TWO", "--trials", "0"], 2, "--trials and --bootstrap must be at least 1"),
    (["ONE", "TWO", "--confidence", "1.5"], 2, "--confidence must be between 0 and 1"),
    (["ONE", "TWO", "--correction", "sidak"], 2, "invalid choice: 'sidak'"),
    (["--runs-dir", "no-such-folder"], 2, "--runs-dir 'no-such-folder' is not a folder"),
    (["ONE", "TWO", "--figure", "no-such-folder/cmp.svg"], 2, "--figure 'no-such-folder/cmp.svg': its folder does not exist"),
    (["ONE", "TWO", "--option", "tie_order=random"], 2, "option tie_order = 'random' is not one of 'desc', 'asc'"),
    (["ONE", "BAD"], 1, "BAD:2: error: expected 6 TAB-separated fields"),
]


@pytest.mark.parametrize("extra,code,message", BAD_USAGE)
def test_bad_usage(extra, code, message, runs, tmp_path):
    _, reversed_run, _ = runs
    bad = tmp_path / "BAD"
    with open(SAMPLE, encoding="utf-8") as handle:
        first = handle.readline()
    bad.write_text(first + "0031\t0\tonly-three\n")
    names = {"ONE": SAMPLE, "TWO": reversed_run, "BAD": str(bad)}
    argv = [names.get(a, a) for a in extra]
    got, out, err = run_cli("compare", "--task", "ntcir1-adhoc", "--ref", REF, *argv, cwd=str(tmp_path))
    assert got == code, err
    assert message.replace("BAD", str(bad)) in err
    assert "Traceback" not in err and out == ""


def test_unknown_task_is_bad_usage():
    code, _, err = run_cli("compare", "--task", "ntcir1", "--ref", REF, SAMPLE, SAMPLE)
    assert code == 2 and "did you mean ntcir1-adhoc" in err


# ------------------------------------------------------------------------------------------ results page ---

def _scored(paths):
    from runscore.pipeline import check_file, load_reference, score_run
    from runscore.tasks import get_task

    task = get_task("ntcir1-adhoc")
    reference = load_reference(task, REF)
    out = []
    for path in paths:
        checked = check_file(task, path, os.path.basename(path), reference, reference.options)
        assert not checked.diags.has_errors
        out += [(run, score_run(reference, run)) for run in checked.runs]
    return task, out


def test_comparison_section_for_the_results_page(runs):
    from runscore.compare import comparison_section
    from runscore.report import detailed_html

    _, reversed_run, shuffled_run = runs
    task, scored = _scored([SAMPLE, reversed_run, shuffled_run])
    section = comparison_section(task, scored, trials=300, bootstrap=300)
    assert section["title"] == "Comparison of the ntcir1-adhoc runs (map_rel1)"
    assert section["text"].startswith("3 runs compared on map_rel1 over 6 topics.")
    means, pairs = section["tables"]
    assert [row[0] for row in means["rows"]] == section["charts"][0]["labels"]
    assert len(pairs["rows"]) == 3
    assert section["charts"][0]["svg"].startswith("<svg")
    page = detailed_html("results", [section])                       # the page renderer accepts the section
    assert "Comparison of the ntcir1-adhoc runs" in page
    assert comparison_section(task, scored[:1]) is None


def test_topic_set_follows_the_task_options(runs):
    # With exclude_topics_without_relevant the task leaves topics without a rigid-relevant document out of
    # map_rel1; the comparison must use the same topics, so its means are the official ones.
    _, reversed_run, _ = runs
    option = ("--option", "exclude_topics_without_relevant=true")
    data, _ = _json(SAMPLE, reversed_run, *option, "--trials", "100", "--bootstrap", "100")
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", REF, "--json", *option, SAMPLE, reversed_run)
    assert code == 0, err
    scored = json.loads(out)
    assert len(data["topics"]) == scored["ntc1"]["num_q_rel1"] < 6
    for run in ("ntc1", "ntc2"):
        assert data["means"][run]["mean"] == pytest.approx(scored[run]["map_rel1"], abs=1e-12)


# ------------------------------------------------------------------------------------------ the figure ---

def _synthetic_comparison(runs=3, topics=40):
    import numpy as np

    from runscore import compare as analysis

    rng = np.random.default_rng(7)
    values = rng.random((topics, runs)) * np.linspace(0.6, 1.0, runs)
    matrix = analysis.ScoreMatrix("map_rel1", ["%04d" % (31 + t) for t in range(topics)],
                                  ["run%d" % r for r in range(runs)], values)
    return analysis.compare(matrix, trials=100, bootstrap=100)


def _bars(svg_text):
    svg = xml.dom.minidom.parseString(svg_text).documentElement
    bars = [r for r in svg.getElementsByTagName("rect") if r.getElementsByTagName("title")]
    return svg, bars


@pytest.mark.parametrize("runs, topics", [(3, 6), (3, 40), (4, 300)])
def test_figure_draws_every_pair_with_bars_across_the_plot_and_named_topics(runs, topics):
    from runscore.compare import figure_svg

    comparison = _synthetic_comparison(runs, topics)
    svg, bars = _bars(figure_svg(comparison))
    panels = [t.firstChild.data for t in svg.getElementsByTagName("text") if " per topic: mean " in t.firstChild.data]
    assert len(panels) == runs * (runs - 1) // 2                      # every pair, not only best-vs-others
    pairs = {(p.run_a, p.run_b) for p in comparison.pairs}
    assert {tuple(t.split(" per topic")[0].split(" minus ")) for t in panels} == pairs
    assert len(bars) == topics * len(panels)
    xs = [float(b.getAttribute("x")) + float(b.getAttribute("width")) for b in bars]
    left, right = 170, 820 - 60
    assert min(float(b.getAttribute("x")) for b in bars) < left + 0.1 * (right - left)
    assert max(xs) > left + 0.9 * (right - left)                       # bars spread across the plot
    labels = [t.firstChild.data for t in svg.getElementsByTagName("text") if t.getAttribute("transform")]
    assert labels[:1] == ["0031"] and len(labels) >= len(panels) * min(topics, 40)
    assert len(labels) <= len(panels) * (topics if topics <= 45 else 60)   # thinned when too many to name


def test_figure_renders_in_chromium(tmp_path, chromium):
    from test_detailed_html import BAR_BLUE, _colours, _render
    from runscore.compare import figure_svg

    page = tmp_path / "figure.html"
    page.write_text("<!DOCTYPE html><html><body style=\"margin:0\">%s</body></html>"
                    % figure_svg(_synthetic_comparison(3, 40)), encoding="utf-8")
    rows, console = _render(chromium, page, width=820, height=1000, scale=0.5)
    assert console == []
    blue_columns = [x for x in range(len(rows[0])) if any(row[x] == BAR_BLUE for row in rows)]
    width = len(rows[0])
    assert blue_columns and blue_columns[0] < 0.3 * width and blue_columns[-1] > 0.85 * width
    blue_rows = [y for y, row in enumerate(rows) if BAR_BLUE in row]
    assert blue_rows[-1] - blue_rows[0] > 0.5 * len(rows) * (700 / 1000.0)   # three panels stacked
    assert len(_colours(rows)) > 20


def test_the_first_example_of_the_page_runs_as_written_from_the_repository_root():
    """docs/compare.md's first example names files a reader of a clone has (it named ntc1 and ntc2, which are
    nowhere in the repository, so copying it gave a missing-file error)."""
    text = open(os.path.join(ROOT, "docs", "compare.md"), encoding="utf-8").read()
    line = re.search(r"^runscore compare .*reference_data/.*$", text, re.M).group(0)
    code, out, err = run_cli(*shlex.split(line)[1:], cwd=ROOT)
    assert code == 0, err
    assert "Pairs: difference" in out and "map_rel1" in out
