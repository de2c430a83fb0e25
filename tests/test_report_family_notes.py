"""`runscore report`: Tukey's HSD family chosen with --runs / --exclude and said; each note once, not once per
run; topic ids written as strings in a judgements task.yaml."""
import csv
import os

import pytest

from campaign_sim import ntcir1_campaign
from conftest import run_cli

TRIALS = "300"


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """3 teams x 2 runs, 6 topics; topic 0031 judged but with no relevant document."""
    folder = tmp_path_factory.mktemp("family")
    runs, ref, _ = ntcir1_campaign(str(folder), teams=3, runs_per_team=2, topics=6, seed=11)
    path = os.path.join(ref, "qrels.txt")
    lines = open(path).read().split("\n")
    with open(path, "w") as handle:
        handle.write("\n".join(l.rsplit(" ", 1)[0] + " 0" if l.startswith("0031 ") else l for l in lines))
    return {"runs": runs, "ref": ref, "folder": folder}


def report(campaign, name, *extra, runs=None):
    out = campaign["folder"] / name
    code, stdout, stderr = run_cli("report", "--task", "ntcir1-adhoc", "--ref", campaign["ref"], "--trials", TRIALS,
                                   "--tau-bootstrap", "0", *(runs or [campaign["runs"]]), "-o", str(out), *extra)
    return code, stdout, stderr, out


def test_a_note_every_run_carries_is_said_once(campaign):
    code, _, stderr, out = report(campaign, "notes")
    assert code == 0, stderr
    lines = [l for l in stderr.split("\n") if "without relevant documents" in l]
    assert len(lines) == 2, lines                  # rel1 and rel2, not 2 x 6 runs
    assert all(l.endswith("(every run)") for l in lines)
    page = open(os.path.join(str(out), "report.html"), encoding="utf-8").read()
    assert page.count("without relevant documents") == 2
    assert "note: Tukey's HSD family: all 6 runs" in stderr


def test_the_family_of_tukeys_hsd_is_chosen_and_said(campaign):
    files = sorted(os.listdir(campaign["runs"]))
    left_out = files[-1]
    code, _, stderr, out = report(campaign, "family", "--exclude", left_out)
    assert code == 0, stderr
    assert "Tukey's HSD family: 5 of 6 runs (left out, no group letters: %s)" % left_out in stderr
    means = {r["run"]: r for r in read_csv(out / "means.csv")}
    assert len(means) == 6 and means[left_out]["group"] == "" and all(r["group"] for n, r in means.items()
                                                                        if n != left_out)
    pairs = read_csv(out / "significance.csv")
    assert len(pairs) == 10 and all(left_out not in (p["run_a"], p["run_b"]) for p in pairs)
    # the same p-values as a report of the family's files alone (the runs in the same order, the same seed)
    code, _, stderr, alone = report(campaign, "alone", runs=[os.path.join(campaign["runs"], f) for f in files[:-1]])
    assert code == 0, stderr
    assert read_csv(alone / "significance.csv") == pairs
    code, _, stderr, only = report(campaign, "only", "--runs", ",".join(files[:-1]))
    assert read_csv(only / "significance.csv") == pairs


def test_a_pattern_that_matches_no_run_is_a_usage_error(campaign):
    code, _, stderr, _ = report(campaign, "typo", "--exclude", "nosuchrun*")
    assert code == 2 and "nosuchrun* matches no run" in stderr
    code, _, stderr, _ = report(campaign, "one", "--runs", sorted(os.listdir(campaign["runs"]))[0])
    assert code == 2 and "leave 1 run(s) for Tukey's HSD" in stderr


def test_topic_ids_are_quoted_strings_in_task_yaml(tmp_path):
    from runscore.cli import main

    (tmp_path / "ntc1").write_text("".join("%s\t0\tgakkai-%d\t%d\t%d\tntc1\n" % (t, d, d, 10 - d)
                                           for t in ("0001", "0008", "0010") for d in (1, 2)))
    pool = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "2", str(tmp_path / "ntc1"), "-o", pool]) == 0
    sheet = tmp_path / "s.tsv"
    sheet.write_text("topic\titem\tlabel\n" + "".join("%s\tgakkai-%d\tA\n" % (t, d) for t in ("0001", "0008", "0010")
                                                      for d in (1, 2)))
    assert main(["judgements", "--task", "ntcir1-adhoc", "--pool", os.path.join(pool, "pool.tsv"), str(sheet),
                 "-o", str(tmp_path / "ref")]) == 0
    written = (tmp_path / "ref" / "task.yaml").read_text()
    assert "- '0001'\n- '0008'\n- '0010'\n" in written


def test_the_report_says_which_rules_it_used(campaign):
    """NTCIR-1's rules (trec_eval 7.2's interpolation, double precision) stay its defaults, and the report says
    them, read from the task's options (so a form's own defaults are said the same way); a rule set by --option is
    marked."""
    import json

    code, stdout, stderr, out = report(campaign, "rules", "--option", "interp_cutoff=v9")
    assert code == 0, stderr
    line = [l for l in stdout.split("\n") if l.startswith("rules: ")]
    assert len(line) == 1
    assert "interp_cutoff=v9 (set)" in line[0] and "similarity_precision=double (default)" in line[0]
    assert "tie_order=desc (default)" in line[0]
    page = open(os.path.join(str(out), "report.html"), encoding="utf-8").read()
    assert 'id="rules">rules: tie_order=desc (default)' in page and "interp_cutoff=v9 (set)" in page
    settings = json.load(open(os.path.join(str(out), "report.json")))["settings"]
    assert settings["rules"]["interp_cutoff"] == "v9" and settings["rules"]["max_docs"] == 1000
    from runscore.tasks import get_task
    defaults = {o.name: o.default for o in get_task("ntcir1-adhoc").options}
    assert defaults["interp_cutoff"] == "ceil" and defaults["similarity_precision"] == "double"
