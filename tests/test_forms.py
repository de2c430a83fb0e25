"""An organiser's own ranking task from a form (tasks/forms/, docs/own-campaign.md): new-task writes a valid form with
the common defaults, --form works wherever --task does, the values equal trec_eval 9.0.8's (the binary built from
../shared, and pytrec-eval-terrier to the last bit) on a four-grade example, the whole campaign (pool, pages with
the form's labels, graded judgements, score, report) and the competition (bundle, dry run) go through in the form's
own words, and hostile forms get `FORM:LINE: error: field: ...`, never a traceback.

The example is generated here, seeded: eight topics of TREC qrels graded 0-3 (one topic with no relevant
document), three runs with tied scores, a topic left out and a topic the reference does not have.
"""
import html
import json
import os
import random
import re
import subprocess

import pytest

from conftest import ROOT, run_cli
from runscore import tasks

import trec_eval_peer

TOPICS = ["%d" % t for t in range(1, 9)]
DOCS = ["d%03d" % i for i in range(60)]


pytestmark = pytest.mark.usefixtures("task_registry_restored")


def make_example(folder):
    """qrels.txt under folder/ref, runs alpha1, alpha2, beta1 under folder/runs; the qrels as a dict."""
    rnd = random.Random(44)
    (folder / "ref").mkdir()
    (folder / "runs").mkdir()
    qrels = {}
    lines = []
    for topic in TOPICS:
        for doc in rnd.sample(DOCS, 25):
            grade = 0 if topic == "8" else rnd.choice([0, 0, 1, 2, 3])
            qrels.setdefault(topic, {})[doc] = grade
            lines.append("%s 0 %s %d" % (topic, doc, grade))
    (folder / "ref" / "qrels.txt").write_text("\n".join(lines) + "\n")
    runs = []
    for name in ("alpha1", "alpha2", "beta1"):
        out = []
        topics = TOPICS[:-1] + ["99"] if name == "beta1" else TOPICS
        for topic in topics:
            for rank, doc in enumerate(rnd.sample(DOCS, 30), 1):
                score = rnd.choice(["1.5", "2", "0.25", "%.3f" % rnd.random(), "0.30000001", "0.3"])
                out.append("%s Q0 %s %d %s %s" % (topic, doc, rank, score, name))
        (folder / "runs" / name).write_text("\n".join(out) + "\n")
        runs.append(str(folder / "runs" / name))
    return qrels, runs


def new_form(tmp_path, name="demo", edit=None):
    code, out, err = run_cli("new-task", "trec-ranking", name, cwd=str(tmp_path))
    assert code == 0, err
    path = tmp_path / ("%s.yaml" % name)
    if edit:
        path.write_text(edit(path.read_text()))
    return str(path)


def test_new_task_writes_the_common_case(tmp_path):
    path = new_form(tmp_path)
    from runscore.tasks.forms import load_form

    task = load_form(path)
    assert [c.title for c in task.columns] == ["nDCG@10", "MAP", "P@10"]
    assert task.primary.measure == "ndcg_cut_10" and task.leaderboard_key(task.primary) == "demo_ndcg_cut_10"
    assert task.max_docs == 1000 and task.level == 1 and [g["grade"] for g in task.grades] == [0, 1, 2, 3]
    code, _, err = run_cli("new-task", "trec-ranking", "demo", cwd=str(tmp_path))
    assert code == 2 and "exists" in err, "an existing form is never overwritten"
    code, _, err = run_cli("new-task", "trec-ranking", "Bad_Name", cwd=str(tmp_path))
    assert code == 2 and "lower-case" in err
    code, _, err = run_cli("new-task", "qa", "datasearch-qa", cwd=str(tmp_path))      # a form no command would take
    assert code == 2 and "is a task of runscore" in err and not (tmp_path / "datasearch-qa.yaml").exists()
    asc = new_form(tmp_path, "asc", edit=lambda t: t.replace("tie_order: desc", "tie_order: asc"))
    code, out, _ = run_cli("options", "--form", asc)
    assert code == 0 and "tie_order = 'asc'" in out and "max_docs = 1000" in out


def test_scores_equal_trec_eval_on_four_grades(tmp_path):
    qrels, runs = make_example(tmp_path)
    form = new_form(tmp_path, edit=lambda t: t.replace("  - {measure: P@10}", "  - {measure: P@10}\n"
                                                       "  - {measure: Rprec}\n  - {measure: bpref}\n"
                                                       "  - {measure: RR}\n  - {measure: recall.20}\n"
                                                       "  - {measure: ndcg}"))
    code, out, err = run_cli("score", "--form", form, "--ref", tmp_path / "ref", *runs, "--json")
    assert code == 0, err
    ours = json.loads(out)
    assert err.count("1 of 8 topic(s) have no document relevant") == 1, "the reference's note, once for %d runs" % (
        len(runs))
    names = ["ndcg_cut_10", "map", "P_10", "Rprec", "bpref", "recip_rank", "recall_20", "ndcg"]
    binary, why = trec_eval_peer.binary("9.0.8")
    pytrec_eval = pytest.importorskip("pytrec_eval") if binary is None else None
    if binary is not None:
        for run in runs:
            done = subprocess.run([binary, "-c", "-M", "1000", "-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", "-m",
                                   "Rprec", "-m", "bpref", "-m", "recip_rank", "-m", "recall.20", "-m", "ndcg",
                                   str(tmp_path / "ref" / "qrels.txt"), run], capture_output=True, text=True)
            theirs = {f[0]: f[2] for f in (line.split() for line in done.stdout.splitlines()) if f[1] == "all"}
            for name in names:
                assert "%.4f" % ours[os.path.basename(run)][name] == theirs[name], (run, name)
    pytrec_eval = pytrec_eval or _maybe("pytrec_eval")
    if pytrec_eval is not None:     # every bit: pytrec_eval averages over the topics the run has, so fill them in
        for run in runs:
            ranked = {}
            for line in open(run):
                topic, _, doc, _, score, _ = line.split()
                if topic in qrels:
                    ranked.setdefault(topic, {})[doc] = float(score)
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.10", "bpref"})
            values = evaluator.evaluate(ranked)
            for name in ("ndcg_cut_10", "map", "P_10", "bpref"):
                total = 0.0
                for topic in sorted(qrels):
                    total += values.get(topic, {}).get(name, 0.0)
                assert ours[os.path.basename(run)][name] == total / len(qrels), (run, name)


def _maybe(module):
    try:
        return __import__(module)
    except ImportError:
        return None


def test_validate_and_check_with_a_form(tmp_path):
    _, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    code, out, err = run_cli("validate", "--form", form, "--ref", tmp_path / "ref", runs[2])
    assert code == 0 and "topic 99 is not a topic of demo" in err
    bad = tmp_path / "bad1"
    bad.write_text("1 Q0 d001 1 abc bad\n1 Q0 d001 2 0.5 bad\n")
    code, out, err = run_cli("validate", "--form=%s" % form, str(bad))
    assert code == 1 and "bad1:1: error: score (field 5) 'abc' is not a number" in err
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "alpha1").write_text(open(runs[0]).read())
    code, out, err = run_cli("check", "--form", form, "--ref", tmp_path / "ref", tmp_path / "submission")
    assert code == 0 and "submission accepted" in out, out + err


def test_grades_outside_the_scale_are_refused_at_their_line(tmp_path):
    _, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    with open(str(tmp_path / "ref" / "qrels.txt"), "a") as handle:
        handle.write("1 0 extra 4\n")
    code, _, err = run_cli("score", "--form", form, "--ref", tmp_path / "ref", runs[0])
    assert code == 2
    assert "qrels.txt:201: error: grade 4 is not on the form's scale: 0 (not relevant), 1 (partially relevant), " \
           "2 (relevant), 3 (highly relevant)" in err


def test_the_whole_campaign_in_the_forms_words(tmp_path):
    """pool (pages with the form's labels) -> graded judgements -> score (equal to the truth's on the judged
    documents) -> report (nDCG@10 in columns and LaTeX)."""
    qrels, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    pool = tmp_path / "pool"
    code, out, err = run_cli("pool", "--form", form, "--depth", "5", *runs, "-o", pool, "--html")
    assert code == 0, err
    page = (pool / "assess" / "topic-1.html").read_text()
    assert "highly relevant" in page and "answers the topic" in page and "NTCIR" not in page
    from runscore.campaign.sheet import read_sheet, write_sheet

    columns, rows = read_sheet(str(pool / "pool.tsv"))
    labels = {r.key: str(qrels.get(r.values["topic"], {}).get(r.values["item"], 0)) for r in rows}
    write_sheet(str(tmp_path / "sheet.tsv"), columns, [dict(r.values, label=labels[r.key]) for r in rows])
    judged = tmp_path / "judged"
    code, out, err = run_cli("judgements", "--form", form, "--pool", pool / "pool.tsv", tmp_path / "sheet.tsv",
                             "-o", judged)
    assert code == 0, err
    written = sorted(line.split() for line in (judged / "qrels.txt").read_text().splitlines())
    assert written == sorted([t, "0", d, g] for (t, d), g in labels.items())
    assert {g for _, _, _, g in written} == {"0", "1", "2", "3"}, "graded qrels on the form's scale"
    # the pooled qrels, restricted to what was judged, score as trec_eval scores the same qrels
    (tmp_path / "truth").mkdir()
    (tmp_path / "truth" / "qrels.txt").write_text("".join("%s 0 %s %s\n" % tuple(w[i] for i in (0, 2, 3))
                                                          for w in written))
    code, mine, err = run_cli("score", "--form", form, "--ref", judged, *runs, "--json")
    code2, theirs, err2 = run_cli("score", "--form", form, "--ref", tmp_path / "truth", *runs, "--json")
    assert code == code2 == 0 and json.loads(mine) == json.loads(theirs)
    report = tmp_path / "report"
    code, out, err = run_cli("report", "--form", form, "--ref", judged, "--pool-depth", "5", "--trials", "50",
                             "--tau-bootstrap", "0", *runs, "-o", report)
    assert code == 0, err
    latex = (report / "means.tex").read_text()
    assert "nDCG@10 & MAP & P@10" in latex and "by nDCG@10" in latex and "NTCIR" not in latex
    # what a reader sees names the form's title and the measures' names, not the task id and measure keys
    title = re.search(r"^title: (.*)$", open(form).read(), re.M).group(1)
    assert "Mean scores of the %s runs" % title in latex and "Tukey HSD on nDCG@10," in latex
    assert "Pairs of %s runs" % title in (report / "significance.tex").read_text()
    page = (report / "report.html").read_text()
    assert "Tukey HSD on nDCG@10 over" in page and "Per-topic nDCG@10" in page


def test_a_forms_competition_and_its_dry_run(tmp_path):
    _, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    zip_path = tmp_path / "demo.zip"
    code, out, err = run_cli("bundle", "--form", form, "-o", zip_path, "--reference", tmp_path / "ref")
    assert code == 0, err
    assert "Formal run scores against %s, kept on your compute worker" % (tmp_path / "ref") in out
    assert (tmp_path / "demo.worker-data").is_dir()
    import zipfile

    with zipfile.ZipFile(str(zip_path)) as archive:
        names = archive.namelist()
        assert "scoring_program/runscore/tasks/forms/installed/demo.yaml" in names
        assert "reference_data/demo/qrels.txt" in names and "starting_kit/sample_submission/demo/sample1" in names
        assert not [n for n in names if n.startswith("reference_data_formal/") and n.endswith("qrels.txt")], \
            "the real qrels stay on the worker"
        assert archive.read("reference_data/demo/qrels.txt") != (tmp_path / "ref" / "qrels.txt").read_bytes()
        text = " ".join(archive.read(n).decode("utf-8", "replace") for n in names
                        if n.startswith("pages/") or n in ("competition.yaml", "starting_kit/README.md"))
        assert "demo_ndcg_cut_10" in text and "highly relevant" in text and "NTCIR" not in text
        # the kit holds no schema and no baseline of a form's task: neither its README nor the Data page says so
        assert not [n for n in names if n.startswith(("starting_kit/schemas/", "starting_kit/baselines/"))]
        said = archive.read("starting_kit/README.md").decode() + archive.read("pages/data.md").decode()
        assert "`schemas/`" not in said and "schema and baselines" not in said, said
    tasks._TASKS.pop("demo")          # a new process: lint-bundle knows the task from the form the zip carries
    code, out, err = run_cli("lint-bundle", zip_path)
    assert code == 0 and "bundle ok" in out, out + err
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "alpha1").write_text(open(runs[0]).read())
    done = subprocess.run(["python3", os.path.join(ROOT, "starting_kit", "dry_run.py"), str(tmp_path / "sub"),
                           "--bundle", str(zip_path), "--phase", "formal", "--workdir", str(tmp_path / "work")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout
    code, mine, _ = run_cli("score", "--form", form, "--ref", tmp_path / "ref", runs[0], "--json")
    assert "nDCG@10: %s" % str(round(json.loads(mine)["alpha1"]["ndcg_cut_10"], 4)) in done.stdout
    page = open(os.path.join(str(tmp_path / "work"), "demo", "output", "detailed_results.html")).read()
    assert "0.%s" % ("%.4f" % json.loads(mine)["alpha1"]["ndcg_cut_10"])[2:] in page
    assert "num_rel" not in page and ">7<" not in page, "a hidden phase shows no per-topic value of the form's task"
    # the dry-run phase's sample reference is public: its page shows everything, as the Overview page promises
    done = subprocess.run(["python3", os.path.join(ROOT, "starting_kit", "dry_run.py"), "--bundle", str(zip_path),
                           "--workdir", str(tmp_path / "dry")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout
    from runscore.codabench.disclosure import FULL, phase_sentence

    page = open(os.path.join(str(tmp_path / "dry"), "demo", "output", "detailed_results.html")).read()
    assert phase_sentence(FULL) in page and "num_rel" in page


def test_the_channel_table_counts_a_forms_hidden_reference(tmp_path):
    from runscore.codabench.channel import channels, table
    from runscore.tasks.forms import load_form

    task = tasks.register(load_form(new_form(tmp_path)))
    row = [line for line in table(channels([task])).splitlines() if line.startswith("| demo |")]
    assert row and "| 1 | 5 / 100 |" in row[0] and "4 levels, 2.00 bits" in row[0] and "(3 columns)" in row[0]


def hostile(tmp_path, old, new):
    return new_form(tmp_path, edit=lambda t: t.replace(old, new) if old in t else pytest.fail(old))


@pytest.mark.parametrize("old, new, expected", [
    ("kind: trec-ranking", "kind: trec-rank", "demo.yaml:3: error: kind: 'trec-rank' is not a kind of form (did "
                                              "you mean trec-ranking?)"),
    ("{measure: MAP}", "{measure: nDGC@10}", "demo.yaml:40: error: columns[1].measure: unknown measure 'nDGC@10' "
                                            "(did you mean"),
    ("{grade: 1, label", "{grade: 0, label", "demo.yaml:30: error: grades[1].grade: grade 0 is also grade 0's"),
    ('key: "1"', 'key: "0"', "demo.yaml:30: error: grades[1].key: key 0 is also grade 0's"),
    ('key: "1"', 'key: "n"', "demo.yaml:30: error: grades[1].key: key n is the assessment page's own"),
    ("primary: nDCG@10", "primary: nDCG@20", "demo.yaml:42: error: primary: 'nDCG@20' is no column"),
    ("max_docs: 1000", "max_docs: 100000000000000000000000", "demo.yaml:11: error: runs.max_docs: "
                                                              "100000000000000000000000 must be at most 1000000"),
    ("precision: 4", "precison: 4", "demo.yaml:43: error: precison: unknown field; did you mean precision?"),
    ("relevance_level: 1", "relevance_level: 4", "demo.yaml:34: error: relevance_level: no grade of the scale is at "
                                                 "least 4"),
    ("name: demo", "name: ntcir1-adhoc", "a form may not be named ntcir1-adhoc"),
    ("title: Demo", "title: [unclosed", "demo.yaml:7: error: not YAML:"),
    ("title: Demo", "title: &a Demo\ndescription: *a", "YAML aliases (*a) are not accepted in a form"),
    ("title: Demo", "title: Demo\ntitle: Other", "demo.yaml:7: error: key 'title' is given twice"),
    ("{measure: P@10}", "{measure: 'P.5,10'}", "columns[2].measure: P.5,10 gives 2 values"),
])
def test_hostile_forms_get_clear_errors(tmp_path, old, new, expected):
    form = hostile(tmp_path, old, new)
    code, out, err = run_cli("options", "--form", form)
    assert code == 2 and expected in err, err
    assert "Traceback" not in err


def test_the_keys_a_form_may_not_take_are_the_assessment_pages_own():
    from runscore.campaign import assess_page
    from runscore.tasks.assessing import PAGE_KEYS

    source = open(assess_page.__file__, encoding="utf-8").read()
    handler = source[source.index("document.addEventListener('keydown'"):]
    handler = handler[:handler.index("});")]
    taken = set(re.findall(r"k==='([a-z])'", handler))
    assert taken == set(PAGE_KEYS)


def test_a_leaderboard_key_longer_than_codabench_takes(tmp_path):
    form = new_form(tmp_path, edit=lambda t: t.replace("name: demo", "name: a-very-long-name-of-24xy")
                    .replace("{measure: MAP}", "{measure: nDCG@1000}"))
    code, out, err = run_cli("options", "--form", form)
    assert code == 2 and "demo.yaml:40: error: columns[1].measure: leaderboard key " \
        "a_very_long_name_of_24xy_ndcg_cut_1000 is longer than 36 characters" in err, err


def test_a_yaml_bomb_and_a_huge_form_are_not_read(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text('a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
                    'c: [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n')
    code, _, err = run_cli("options", "--form", bomb)
    assert code == 2 and "aliases" in err
    huge = tmp_path / "huge.yaml"
    huge.write_text("kind: trec-ranking\n" + "# padding\n" * 40000)
    code, _, err = run_cli("options", "--form", huge)
    assert code == 2 and "bigger than" in err
    code, _, err = run_cli("options", "--form", tmp_path / "none.yaml")
    assert code == 2 and "does not exist" in err


def test_the_walkthrough_of_own_campaign_md_runs_as_written(tmp_path):
    """Every command of docs/own-campaign.md's sh blocks, in order, in an empty folder; before `judgements` the
    assessors' sheets are filled in with the example's qrels (what the page says they stand for)."""
    import re
    import shlex
    import sys

    from runscore.campaign.sheet import read_sheet, write_sheet

    text = open(os.path.join(ROOT, "docs", "own-campaign.md"), encoding="utf-8").read()
    commands = [line for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines()]
    assert len(commands) >= 10
    for line in commands:
        argv = shlex.split(line.split("  #")[0])
        if argv[0] == "runscore":
            if argv[1] == "judgements":
                truth = {tuple(f[i] for i in (0, 2)): f[3] for f in (l.split() for l in
                         (tmp_path / "example" / "qrels" / "qrels.txt").read_text().splitlines())}
                for sheet in argv:
                    if sheet.endswith(".tsv") and "sheet-" in sheet:
                        columns, rows = read_sheet(str(tmp_path / sheet))
                        write_sheet(str(tmp_path / sheet), columns, [dict(
                            r.values, label=truth.get((r.values["topic"], r.values["item"]), "0")) for r in rows])
            code, out, err = run_cli(*argv[1:], cwd=str(tmp_path))
            assert code == 0, (line, err)
        else:
            assert argv[0] == "python3"
            if argv[1].endswith("dry_run.py"):
                argv += ["--workdir", str(tmp_path / "work")]
            done = subprocess.run([sys.executable, os.path.join(ROOT, argv[1])] + argv[2:], cwd=str(tmp_path),
                                  capture_output=True, text=True)
            assert done.returncode == 0, (line, done.stderr + done.stdout)
    assert "nDCG@10 & MAP & P@10" in (tmp_path / "report" / "means.tex").read_text()
    assert {line.split()[3] for line in (tmp_path / "judged" / "qrels.txt").read_text().splitlines()} == \
        {"0", "1", "2", "3"}


@pytest.mark.parametrize("order", ["docid", "ntcirpool"])
def test_the_forms_pool_order_is_the_pools_default(tmp_path, order):
    """`pooling: order:` of a form is what `runscore pool` uses without --order, and what its summary says."""
    _, runs = make_example(tmp_path)
    form = new_form(tmp_path, edit=lambda text: text.replace("  order: random ", "  order: %s " % order))
    code, out, err = run_cli("pool", "--form", form, "--depth", "5", *runs, "-o", tmp_path / "pool")
    assert code == 0, err
    stats = json.loads((tmp_path / "pool" / "pool_stats.json").read_text())
    assert order in json.dumps(stats.get("order")), stats.get("order")


def test_the_report_of_one_teams_runs_has_no_leave_one_team_out(tmp_path):
    """Runs of one team: leaving it out emptied the qrels, and report.html showed every reduced score 0, Kendall's
    tau n/a and 'largest rank change: 2'; now no reusability table, and a note says why."""
    _, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    report = tmp_path / "report"
    code, out, err = run_cli("report", "--form", form, "--ref", tmp_path / "ref", "--pool-depth", "5", "--trials",
                             "50", "--tau-bootstrap", "0", runs[0], runs[1], "-o", report)
    assert code == 0, err
    assert not (report / "reusability.csv").exists()
    assert "no leave-one-team-out reusability: it needs runs of two teams or more, and every run is of team alpha" \
        in (report / "report.html").read_text()


@pytest.mark.parametrize("rule, teams", [
    (None, "1 team(s) found in the runs' names: run (run1, run2, run3); a run's team is the run's name without its "
           "trailing number"),
    ("name", "3 team(s) found in the runs' names: run1 (run1); run2 (run2); run3 (run3); a run's team is the "
             "run's whole name"),
    ("'r(un)[0-9]'", "1 team(s) found in the runs' names: un (run1, run2, run3); a run's team is the first group "
                     "of the form's runs.team r(un)[0-9]"),
])
def test_a_forms_team_rule_is_stated_and_said_by_pool_and_report(tmp_path, rule, teams):
    """Runs run1, run2, run3 of a TREC organiser were credited to one team "run" by NTCIR's rule, and only a long
    note about Codabench file names hinted at it: a form states its rule (runs.team), pool and report say the
    teams they found and by which rule."""
    _, runs = make_example(tmp_path)
    renamed = []
    for number, run in enumerate(runs, 1):
        os.rename(run, os.path.join(os.path.dirname(run), "run%d" % number))
        renamed.append(os.path.join(os.path.dirname(run), "run%d" % number))
    form = new_form(tmp_path, edit=None if rule is None else
                    lambda text: text.replace("  team: name-without-number", "  team: %s" % rule))
    assert "team: name-without-number" in open(new_form(tmp_path, name="other")).read()
    code, out, err = run_cli("pool", "--form", form, "--depth", "5", *renamed, "-o", tmp_path / "pool")
    assert code == 0 and teams in out, out
    assert json.loads((tmp_path / "pool" / "pool_stats.json").read_text())["team_rule"]
    code, out, err = run_cli("report", "--form", form, "--ref", tmp_path / "ref", "--trials", "50",
                             "--tau-bootstrap", "0", *renamed, "-o", tmp_path / "report")
    assert code == 0, err
    assert teams in html.unescape((tmp_path / "report" / "report.html").read_text())


@pytest.mark.parametrize("rule, expected", [
    ("'run[0-9]'", "runs.team: 'run[0-9]' is not name-without-number or name, and as a regular expression it has "
                   "no group"),
    ("'(run'", "runs.team: not name-without-number, name, or a regular expression"),
])
def test_a_bad_team_rule_is_refused_at_its_line(tmp_path, rule, expected):
    form = new_form(tmp_path, edit=lambda text: text.replace("  team: name-without-number", "  team: %s" % rule))
    line = [n for n, text in enumerate(open(form), 1) if text.startswith("  team: ")][0]
    code, out, err = run_cli("options", "--form", form)
    assert code == 2 and "demo.yaml:%d: error: %s" % (line, expected) in err, err


def test_unknown_topics_are_counted_as_topics_and_lines(tmp_path):
    """'topic 420 is not a topic of mytrack ... (and 4 more lines like it)' counted 4 more topics of about 100
    lines each as 4 lines: the warning counts topics and lines."""
    _, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    extra = "".join("%s Q0 d%03d %d 1.0 x\n" % (topic, i, i + 1) for topic in ("420", "421") for i in range(30))
    run = tmp_path / "runs" / "gamma1"
    run.write_text(open(runs[0]).read() + extra)
    code, out, err = run_cli("validate", "--form", form, "--ref", tmp_path / "ref", run)
    assert code == 0 and "2 topics are not topics of demo (420, 421); their 60 lines are ignored" in err, err
    assert "more line" not in err
    code, out, err = run_cli("validate", "--form", form, "--ref", tmp_path / "ref", runs[2])
    assert code == 0 and "topic 99 is not a topic of demo; its 30 lines are ignored" in err, err


def test_every_problem_of_a_form_is_told_at_once_each_at_its_line(tmp_path):
    """An unknown column measure and a primary that is no column were told one at a time: the second only once
    the first was mended. Now both, with a bad team rule and a grade given twice, each at its line."""
    form = new_form(tmp_path, edit=lambda t: t.replace("{measure: MAP}", "{measure: nDGC@10}")
                    .replace("primary: nDCG@10", "primary: nDCG@20").replace("{grade: 1, label", "{grade: 0, label")
                    .replace("  team: name-without-number", "  team: 'run'"))
    code, out, err = run_cli("options", "--form", form)
    assert code == 2 and "Traceback" not in err
    for expected in ("demo.yaml:19: error: runs.team: 'run' is not name-without-number or name",
                     "demo.yaml:30: error: grades[1].grade: grade 0 is also grade 0's",
                     "demo.yaml:40: error: columns[1].measure: unknown measure 'nDGC@10'",
                     "demo.yaml:42: error: primary: 'nDCG@20' is no column"):
        assert expected in err, err


def test_the_agreement_names_a_forms_binary_levels_by_its_grade_labels(tmp_path):
    """The agreement of two assessors labelled the binary levels 'relevant from 1': now in the form's words."""
    qrels, runs = make_example(tmp_path)
    form = new_form(tmp_path)
    pool = tmp_path / "pool"
    code, out, err = run_cli("pool", "--form", form, "--depth", "5", *runs, "-o", pool)
    assert code == 0, err
    from runscore.campaign.sheet import read_sheet, write_sheet

    columns, rows = read_sheet(str(pool / "pool.tsv"))
    truth = {r.key: str(qrels.get(r.values["topic"], {}).get(r.values["item"], 0)) for r in rows}
    write_sheet(str(tmp_path / "ann.tsv"), columns, [dict(r.values, label=truth[r.key]) for r in rows])
    write_sheet(str(tmp_path / "bob.tsv"), columns, [dict(r.values, label=truth[r.key] if n % 4 else "2")
                                                     for n, r in enumerate(rows)])
    code, out, err = run_cli("judgements", "--form", form, "--pool", pool / "pool.tsv", "ann=%s" % (tmp_path / "ann.tsv"),
                             "bob=%s" % (tmp_path / "bob.tsv"), "--resolve", "max", "-o", tmp_path / "judged")
    assert code == 0, err
    assert "; relevant: 1 (partially relevant) and above " in out and \
        "kappa relevant: 3 (highly relevant) and above" in out and "relevant from" not in out, out
