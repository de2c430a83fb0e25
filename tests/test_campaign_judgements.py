"""`runscore judgements`: sheets -> reference folder; every bad sheet class named by topic and item, nothing
written; agreement against scikit-learn and the krippendorff package (test-only oracles) and a hand derivation."""
import os
import random

import pytest

from runscore.campaign.agreement import agreement, cohen_kappa, krippendorff_alpha
from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main


def make_pool(tmp_path, depth=3):
    folder = tmp_path / "runs"
    folder.mkdir()
    lines = []
    for n in (1, 2):
        for s in ("001p", "002f"):
            for rank in range(1, 6):
                lines.append("%s\t%d\tD%d\tg\tg_run%d" % (s, rank, rank + n, n))
    (folder / "tir_g").write_text("\n".join(lines) + "\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", str(depth), str(folder / "tir_g"), "-o", out]) == 0
    return os.path.join(out, "pool.tsv")


def fill(pool, path, label_of):
    columns, rows = read_sheet(pool)
    out = []
    for row in rows:
        values = dict(row.values)
        values["label"] = label_of(values)
        out.append(values)
    write_sheet(str(path), columns, out)
    return str(path)


def test_filled_sheet_becomes_a_reference_that_scores(tmp_path, capsys):
    pool = make_pool(tmp_path)
    sheet = fill(pool, tmp_path / "a.tsv", lambda v: "L2" if v["item"] == "D3" else "L0")
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, sheet, "-o", ref]) == 0
    qrels = open(os.path.join(ref, "qrels.txt")).read().split("\n")
    assert "001p D3 L2" in qrels and "001p D2 L0" in qrels
    assert main(["score", "--task", "temporalia-tir", "--ref", ref, str(tmp_path / "runs" / "tir_g"), "--json"]) == 0


def test_every_bad_sheet_class_is_named_and_nothing_is_written(tmp_path, capsys):
    pool = make_pool(tmp_path)
    columns, rows = read_sheet(pool)
    good = [dict(r.values, label="L1") for r in rows]
    bad = [dict(v) for v in good]
    bad[0]["label"] = ""                                   # unlabelled
    bad[1]["label"] = "L7"                                 # outside the scale
    bad.append(dict(good[2], item="D99"))                  # item not in the pool
    bad.append(dict(good[2], topic="777a"))                # topic not in the pool
    bad.append(dict(good[3], label="L0"))                  # the same item twice, differently, in one sheet
    write_sheet(str(tmp_path / "bad.tsv"), columns, bad)
    other = [dict(v) for v in good]
    other[4]["label"] = "L2"                               # conflicts with bad.tsv's L1
    write_sheet(str(tmp_path / "other.tsv"), columns, other[4:5])
    ref = str(tmp_path / "ref")
    code = main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "bad.tsv"),
                 str(tmp_path / "other.tsv"), "-o", ref])
    err = capsys.readouterr().err
    assert code == 2 and not os.path.exists(ref)
    r = [v for v in good]
    expected = [
        "bad.tsv:2: error: topic %s item %s: the pooled item has no label" % (r[0]["topic"], r[0]["item"]),
        "bad.tsv:3: error: topic %s item %s: label 'L7' is not on the scale" % (r[1]["topic"], r[1]["item"]),
        "error: topic %s item D99: the item is not in the pool" % r[2]["topic"],
        "error: topic 777a item %s: topic 777a is not in the pool" % r[2]["item"],
        "error: topic %s item %s: labelled L0 here and L1 at line 5" % (r[3]["topic"], r[3]["item"]),
        "other.tsv:2: error: 1 item(s) are labelled differently by the sheets, the first topic %s item %s: L1 in"
        % (r[4]["topic"], r[4]["item"]),
    ]
    for text in expected:
        assert text in err, (text, err)
    # the conflict is resolved on request, the rest still fails
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, fill(pool, tmp_path / "x.tsv",
                 lambda v: "L1"), str(tmp_path / "other.tsv"), "--resolve", "max", "-o", ref]) == 0
    assert "%s %s L2" % (r[4]["topic"], r[4]["item"]) in open(os.path.join(ref, "qrels.txt")).read()


def test_a_changed_text_hash_is_refused(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "A-PO-1").write_text("0001;1;d1;first passage\n0001;2;d2;second\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-pr", "--depth", "20", str(folder / "A-PO-1"), "-o", out]) == 0
    pool = os.path.join(out, "pool.tsv")
    columns, rows = read_sheet(pool)
    values = [dict(r.values, label="L1") for r in rows]
    values[1]["text_sha1"] = "0" * 40
    write_sheet(str(tmp_path / "s.tsv"), columns, values)
    assert main(["judgements", "--task", "r2c2-pr", "--pool", pool, str(tmp_path / "s.tsv"), "-o",
                 str(tmp_path / "ref")]) == 2
    assert "s.tsv:3: error: topic 0001 item %s: text_sha1 0000" % rows[1].values["item"] in capsys.readouterr().err
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "s.tsv"), "-o",
                 str(tmp_path / "ref")]) == 2        # the pool was built for another task


def test_rows_are_found_by_key_not_position(tmp_path):
    pool = make_pool(tmp_path)
    columns, rows = read_sheet(pool)
    values = [dict(r.values, label="L2" if r.values["item"] == "D4" else "L0") for r in rows]
    random.Random(3).shuffle(values)                       # a sorted or shuffled sheet means the same
    write_sheet(str(tmp_path / "s.tsv"), columns, values)
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "s.tsv"), "-o", ref]) == 0
    lines = open(os.path.join(ref, "qrels.txt")).read().split("\n")
    assert {l for l in lines if l.endswith("L2")} == {"001p D4 L2", "002f D4 L2"}


# ---------------------------------------------------------------------------------- agreement ---
def test_kappa_hand_derivation_and_sklearn():
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("b", "b"), ("a", "a"), ("b", "a")]
    # p_o = 4/6; first: a 3, b 3; second: a 3, b 3; p_e = (9 + 9) / 36 = 1/2; kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert cohen_kappa(pairs) == pytest.approx(1 / 3, abs=1e-15)
    sklearn = pytest.importorskip("sklearn.metrics")
    rng = random.Random(5)
    for _ in range(50):
        n = rng.randint(2, 40)
        a = [rng.choice("ABC") for _ in range(n)]
        b = [x if rng.random() < 0.6 else rng.choice("ABC") for x in a]
        mine = cohen_kappa(list(zip(a, b)))
        if mine is None:
            continue
        assert mine == pytest.approx(sklearn.cohen_kappa_score(a, b), abs=1e-12)
    assert cohen_kappa([("a", "a"), ("a", "a")]) is None


def test_alpha_against_the_krippendorff_package():
    kd = pytest.importorskip("krippendorff")
    import numpy as np

    rng = random.Random(9)
    for _ in range(40):
        coders, items = rng.randint(3, 5), rng.randint(3, 30)
        matrix = np.full((coders, items), np.nan)
        units = []
        for i in range(items):
            truth = rng.randint(0, 2)
            given = []
            for c in range(coders):
                if rng.random() < 0.8:
                    value = truth if rng.random() < 0.7 else rng.randint(0, 2)
                    matrix[c, i] = value
                    given.append(str(value))
            units.append(given)
        mine = krippendorff_alpha(units)
        if mine is None:
            continue
        assert mine == pytest.approx(kd.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-10)


def test_alpha_hand_derivation():
    # two items, two coders: (a, a) and (a, b). o_aa = 2, o_ab = o_ba = 1, n_a = 3, n_b = 1, n = 4.
    # alpha = 1 - (n - 1) * (o_ab + o_ba) / (n_a n_b + n_b n_a) = 1 - 3 * 2 / 6 = 0
    assert krippendorff_alpha([["a", "a"], ["a", "b"]]) == pytest.approx(0.0, abs=1e-15)


def test_two_sheets_report_kappa_per_topic_and_overall(tmp_path, capsys):
    pool = make_pool(tmp_path)
    a = fill(pool, tmp_path / "a.tsv", lambda v: "L1" if v["item"] in ("D2", "D3") else "L0")
    b = fill(pool, tmp_path / "b.tsv", lambda v: "L1" if v["item"] in ("D2", "D4") else "L0")
    ref = str(tmp_path / "ref")
    report = str(tmp_path / "agreement.json")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, a, b, "--resolve", "max", "-o", ref,
                 "--agreement", report]) == 0
    out = capsys.readouterr().out
    assert "agreement (cohen_kappa)" in out
    import json
    found = json.load(open(report))
    _, rows = read_sheet(pool)
    given = {r.key: {"a": "L1" if r.values["item"] in ("D2", "D3") else "L0",
                     "b": "L1" if r.values["item"] in ("D2", "D4") else "L0"} for r in rows}
    expected = agreement(given, ["a", "b"])
    assert found["overall"] == pytest.approx(expected["overall"]) and set(found["per_topic"]) == {"001p", "002f"}


def test_majority_resolution_and_its_tie_rule(tmp_path, capsys):
    """Majority decides; a tie goes to the median of the labels given (the lower middle one for an even count), so
    two assessors who disagree give one label and three always do. Before, every tie refused the import."""
    pool = make_pool(tmp_path)
    sheets = {lab + n: fill(pool, tmp_path / ("%s%s.tsv" % (lab, n)), lambda v, lab=lab: lab)
              for lab in ("L0", "L1", "L2") for n in ("a", "b")}

    def labels(names, rule, ref):
        assert main(["judgements", "--task", "temporalia-tir", "--pool", pool] + [sheets[n] for n in names] +
                    ["--resolve", rule, "-o", str(tmp_path / ref)]) == 0
        return set(l.split()[-1] for l in open(str(tmp_path / ref / "qrels.txt")).read().split("\n") if l)

    assert labels(["L1a", "L1b", "L2a"], "majority", "r1") == {"L1"}
    assert "krippendorff_alpha" in capsys.readouterr().out
    assert labels(["L1a", "L2a"], "majority", "r2") == {"L1"}                 # a tie of two: the lower
    assert labels(["L0a", "L1a", "L2a"], "majority", "r3") == {"L1"}          # three different: the middle
    assert labels(["L0a", "L0b", "L2a", "L2b"], "majority", "r4") == {"L0"}   # 2 against 2: the lower middle
    assert labels(["L0a", "L2a", "L2b"], "median", "r5") == {"L2"}
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, sheets["L1a"], sheets["L2a"],
                 "-o", str(tmp_path / "r6")]) == 2                           # no rule named: still an error
    assert "choose --resolve majority, median, max or min" in capsys.readouterr().err
    assert not os.path.exists(str(tmp_path / "r6"))


def test_ntcir1_grade_letters_any_case_become_rel1_and_rel2(tmp_path):
    (tmp_path / "ntc1").write_text("0031\t0\tgakkai-1\t1\t9\tntc1\n0031\t0\tgakkai-2\t2\t8\tntc1\n"
                                   "0031\t0\tgakkai-3\t3\t7\tntc1\n0031\t0\tgakkai-4\t4\t6\tntc1\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "10", str(tmp_path / "ntc1"), "-o", out]) == 0
    grades = {"gakkai-1": "s", "gakkai-2": "A", "gakkai-3": "b", "gakkai-4": "C"}
    sheet = fill(os.path.join(out, "pool.tsv"), tmp_path / "s.tsv", lambda v: grades[v["item"]])
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "ntcir1-adhoc", "--pool", os.path.join(out, "pool.tsv"), sheet,
                 "-o", ref]) == 0
    rel1 = sorted(open(os.path.join(ref, "rel1")).read().split("\n"))[1:]
    rel2 = sorted(open(os.path.join(ref, "rel2")).read().split("\n"))[1:]
    assert rel1 == ["0031\tA\tgakkai-2\t1", "0031\tB\tgakkai-3\t0", "0031\tC\tgakkai-4\t0", "0031\tS\tgakkai-1\t1"]
    assert rel2 == ["0031\tA\tgakkai-2\t1", "0031\tB\tgakkai-3\t1", "0031\tC\tgakkai-4\t0", "0031\tS\tgakkai-1\t1"]


def test_a_pool_file_that_no_longer_reads_is_named_by_a_path_that_exists(tmp_path, capsys):
    """An official PR run of the pool folder changed after pooling: the refusal names it by its path in the pool
    folder (before: by its bare file name, which exists nowhere from where the organiser stands)."""
    from conftest import ROOT

    kit = os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-ac")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-ac", os.path.join(kit, "SAMPLE-AC-1"), "--pr-runs",
                 os.path.join(kit, "SAMPLE-PG-1.txt"), "-o", out]) == 0
    sheet = str(tmp_path / "sheet.tsv")
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    write_sheet(sheet, columns, [dict(r.values, label="1") for r in rows])
    damaged = os.path.join(out, "pr_runs", "SAMPLE-PG-1")
    with open(damaged, "ab") as handle:
        handle.write(b"\xff\xfe not UTF-8\n")
    capsys.readouterr()
    assert main(["judgements", "--task", "r2c2-ac", "--pool", os.path.join(out, "pool.tsv"), sheet,
                 "-o", str(tmp_path / "ref")]) == 2
    err = [line for line in capsys.readouterr().err.split("\n") if ": error:" in line][0]
    named = err.split(": error:", 1)[0].replace("runscore: ", "").rsplit(":", 1)[0]
    assert os.path.samefile(named, damaged), err
