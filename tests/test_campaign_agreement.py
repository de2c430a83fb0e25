"""Agreement of assessors, not of files: the same labels split into one sheet per topic or into
one sheet per assessor give the same figures; each pair of assessors gets its kappa on the labels and on binary
relevance at each level (checked against scikit-learn's cohen_kappa_score), more assessors Krippendorff's alpha
(checked against the krippendorff package); disagreements without --resolve are one summary line, and
--disagreements writes them as a sheet a third assessor fills in."""
import json
import os
import random

import pytest

from runscore.campaign.agreement import agreement
from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main
from test_campaign_judgements import fill, make_pool

LEVELS = ("L0", "L1", "L2")


def labeller(seed, truth):
    rng = random.Random(seed)
    return lambda v: truth(v) if rng.random() < 0.7 else rng.choice(LEVELS)


def truth(values):
    return LEVELS[(int(values["item"][1:]) + len(values["topic"])) % 3]


def split_by_topic(pool, folder, label_of):
    """One assessor's labels as one sheet per topic (NTCIR's practice), in their own folder."""
    os.makedirs(str(folder))
    columns, rows = read_sheet(pool)
    paths = []
    for topic in sorted({r.values["topic"] for r in rows}):
        path = os.path.join(str(folder), "%s.tsv" % topic)
        write_sheet(path, columns, [dict(r.values, label=label_of(r.values)) for r in rows
                                    if r.values["topic"] == topic])
        paths.append(path)
    return paths


def test_the_file_split_does_not_change_the_figures(tmp_path, capsys):
    pool = make_pool(tmp_path, depth=5)
    ann, ben = labeller(1, truth), labeller(2, truth)
    whole = [fill(pool, tmp_path / "ann.tsv", ann), fill(pool, tmp_path / "ben.tsv", ben)]
    ann, ben = labeller(1, truth), labeller(2, truth)         # the same labels again, split per topic
    split = split_by_topic(pool, tmp_path / "ann", ann) + split_by_topic(pool, tmp_path / "ben", ben)
    assert len(split) == 4
    reports = []
    for name, sheets in (("whole", whole), ("split", ["--assessor-by-folder"] + split),
                         ("named", ["ann=%s" % p for p in split[:2]] + ["ben=%s" % p for p in split[2:]])):
        report = str(tmp_path / ("%s.json" % name))
        assert main(["judgements", "--task", "temporalia-tir", "--pool", pool] + sheets +
                    ["--resolve", "max", "-o", str(tmp_path / ("ref-" + name)), "--agreement", report]) == 0
        reports.append(json.load(open(report)))
    out = capsys.readouterr().out
    assert "of 2 assessor(s)" in out and "krippendorff" not in out
    for found in reports:
        assert found["measure"] == "cohen_kappa"
        for key in ("overall", "binary", "items", "disagreements", "per_topic"):
            assert found[key] == reports[0][key]


def test_pairs_and_binary_levels_against_scikit_learn():
    sklearn = pytest.importorskip("sklearn.metrics")
    rng = random.Random(4)
    items = [("t%d" % (k % 5), "d%d" % k) for k in range(120)]
    given = {}
    for key in items:
        true = rng.choice(LEVELS)
        given[key] = {who: true if rng.random() < 0.6 else rng.choice(LEVELS) for who in ("ann", "ben", "cy")
                      if rng.random() < 0.85}
    found = agreement(given, ["ann", "ben", "cy"], lambda key: LEVELS)
    assert len(found["pairs"]) == 3 and set(found["binary"]) == {"L1", "L2"}
    for pair in found["pairs"]:
        a, b = pair["assessors"]
        both = [k for k in items if a in given[k] and b in given[k]]
        assert pair["items"] == len(both)
        assert pair["kappa"] == pytest.approx(sklearn.cohen_kappa_score([given[k][a] for k in both],
                                                                        [given[k][b] for k in both]), abs=1e-12)
        for level in ("L1", "L2"):
            cut = LEVELS.index(level)
            expected = sklearn.cohen_kappa_score([LEVELS.index(given[k][a]) >= cut for k in both],
                                                 [LEVELS.index(given[k][b]) >= cut for k in both])
            assert pair["binary"][level] == pytest.approx(expected, abs=1e-12)


def test_binary_alpha_of_three_against_the_krippendorff_package():
    kd = pytest.importorskip("krippendorff")
    import numpy as np

    rng = random.Random(8)
    given = {}
    for k in range(60):
        true = rng.choice(LEVELS)
        given[("t", "d%d" % k)] = {who: true if rng.random() < 0.6 else rng.choice(LEVELS)
                                   for who in ("a", "b", "c") if rng.random() < 0.8}
    found = agreement(given, ["a", "b", "c"], lambda key: LEVELS)
    assert found["measure"] == "krippendorff_alpha"
    for level, cut in (("L1", 1), ("L2", 2)):
        matrix = np.array([[float(LEVELS.index(given[key][who]) >= cut) if who in given[key] else np.nan
                            for key in given] for who in ("a", "b", "c")])
        assert found["binary"][level] == pytest.approx(kd.alpha(reliability_data=matrix,
                                                                level_of_measurement="nominal"), abs=1e-10)
    matrix = np.array([[float(LEVELS.index(given[key][who])) if who in given[key] else np.nan for key in given]
                       for who in ("a", "b", "c")])
    assert found["overall"] == pytest.approx(kd.alpha(reliability_data=matrix, level_of_measurement="nominal"),
                                             abs=1e-10)


def test_disagreements_are_one_line_and_a_sheet_for_a_third_assessor(tmp_path, capsys):
    pool = make_pool(tmp_path, depth=5)
    a = fill(pool, tmp_path / "a.tsv", lambda v: "L1")
    b = fill(pool, tmp_path / "b.tsv", lambda v: "L2" if v["item"] in ("D2", "D3", "D4") else "L1")
    adjudicate = str(tmp_path / "adjudicate.tsv")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, "ann=" + a, "ben=" + b,
                 "-o", str(tmp_path / "ref"), "--disagreements", adjudicate]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "6 item(s) are labelled differently by the sheets, the first" in err
    assert not os.path.exists(str(tmp_path / "ref"))
    columns, rows = read_sheet(adjudicate)
    assert columns[-2:] == ["labels", "label"] and len(rows) == 6
    assert rows[0].values["labels"] == "ann: L1; ben: L2"
    third = [dict(r.values, label="L2" if r.values["item"] == "D2" else "L1") for r in rows]
    write_sheet(str(tmp_path / "cy.tsv"), columns, third)
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, a, b, str(tmp_path / "cy.tsv"),
                 "--resolve", "majority", "-o", str(tmp_path / "ref")]) == 0
    qrels = set(open(str(tmp_path / "ref" / "qrels.txt")).read().split("\n"))
    assert {"001p D2 L2", "001p D3 L1", "002f D4 L1"} <= qrels


def test_the_disagreements_sheet_never_overwrites_an_input(tmp_path, capsys):
    pool = make_pool(tmp_path)
    a = fill(pool, tmp_path / "a.tsv", lambda v: "L1")
    b = fill(pool, tmp_path / "b.tsv", lambda v: "L2")
    before = open(pool).read()
    for target in (pool, a):
        assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, a, b, "-o", str(tmp_path / "ref"),
                     "--disagreements", target]) == 2
        assert "would overwrite the pool or a sheet" in capsys.readouterr().err
    assert open(pool).read() == before and open(a).read().count("L1") > 0
