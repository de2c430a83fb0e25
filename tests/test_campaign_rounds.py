"""Judging in rounds: a qrels file is a sheet (an earlier round, or released qrels); `judgements --partial` writes
the reference of the topics whose items are all labelled and lists the rest; `pool --judged QRELS` leaves judged
items out of the pages, and `judgements` merges the rounds."""
import os

from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main
from test_campaign_judgements import fill, make_pool


def qrels_lines(ref):
    return set(l for l in open(os.path.join(ref, "qrels.txt")).read().split("\n") if l)


def test_a_qrels_file_is_a_sheet_in_either_format(tmp_path, capsys):
    pool = make_pool(tmp_path)
    _, rows = read_sheet(pool)
    keys = [r.key for r in rows]
    trec = tmp_path / "round1.qrels"
    trec.write_text("".join("%s 0 %s %d\n" % (t, i, n % 3) for n, (t, i) in enumerate(keys)) + "009x 0 D1 1\n")
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(trec), "-o", ref]) == 0
    assert qrels_lines(ref) == {"%s %s L%d" % (t, i, n % 3) for n, (t, i) in enumerate(keys)}
    assert "1 judgement(s) of this qrels file are of items the pool does not hold; left out" in capsys.readouterr().err
    ntcir = tmp_path / "round1.ntcir"
    ntcir.write_text("".join("%s %s L%d\n" % (t, i, n % 3) for n, (t, i) in enumerate(keys)))
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(ntcir), "-o", str(tmp_path / "r2")]) == 0
    assert qrels_lines(str(tmp_path / "r2")) == qrels_lines(ref)
    bad = tmp_path / "bad.qrels"
    bad.write_text("%s 0 %s 7\n" % keys[0])
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(bad), "-o", str(tmp_path / "r3")]) == 2
    assert "bad.qrels:1: error: topic %s item %s: label '7' is not on the scale" % keys[0] in capsys.readouterr().err


def test_partial_writes_the_complete_topics_and_lists_the_rest(tmp_path, capsys):
    pool = make_pool(tmp_path)
    sheet = fill(pool, tmp_path / "a.tsv", lambda v: ("L1" if v["item"] == "D2" else "L0")
                 if v["topic"] == "001p" or v["item"] != "D3" else "")
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, sheet, "-o", ref]) == 2
    capsys.readouterr()
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, sheet, "-o", ref, "--partial"]) == 0
    out = capsys.readouterr().out
    assert "--partial: 1 topic(s) left out" in out and "002f\t1\t" in out
    assert {l.split()[0] for l in qrels_lines(ref)} == {"001p"}
    assert main(["score", "--task", "temporalia-tir", "--ref", ref, str(tmp_path / "runs" / "tir_g")]) == 0
    nothing = fill(pool, tmp_path / "none.tsv", lambda v: "")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, nothing, "-o", str(tmp_path / "r0"),
                 "--partial"]) == 2
    assert "no topic has every pooled item labelled" in capsys.readouterr().err


def test_pool_judged_leaves_judged_items_out_of_the_pages_and_judgements_merge_the_rounds(tmp_path, capsys):
    first = make_pool(tmp_path, depth=2)
    round1 = str(tmp_path / "round1")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", first,
                 fill(first, tmp_path / "r1.tsv", lambda v: "L2" if v["item"] == "D2" else "L0"), "-o", round1]) == 0
    judged = os.path.join(round1, "qrels.txt")
    out = str(tmp_path / "pool2")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "4", str(tmp_path / "runs" / "tir_g"), "-o", out,
                 "--judged", judged]) == 0
    said = capsys.readouterr().out
    _, pooled = read_sheet(os.path.join(out, "pool.tsv"))
    before = {(l.split()[0], l.split()[1]) for l in qrels_lines(round1)}
    assert before < {r.key for r in pooled}
    new = {r.key for r in pooled} - before
    assert "judged before: %d pooled item(s) judged in %s are left out of the pages (%d left to judge)" % (
        len(before), judged, len(new)) in said
    on_pages = set()
    for topic in ("001p", "002f"):
        columns, rows = read_sheet(os.path.join(out, "assess", "sheet-%s.tsv" % topic))
        on_pages |= {r.key for r in rows}
        page = open(os.path.join(out, "assess", "topic-%s.html" % topic)).read()
        assert all('"item": "%s"' % item not in page for t, item in before if t == topic)
        assert all('"item": "%s"' % item in page for t, item in new if t == topic)
    assert on_pages == new
    filled = []
    for topic in ("001p", "002f"):
        columns, rows = read_sheet(os.path.join(out, "assess", "sheet-%s.tsv" % topic))
        path = str(tmp_path / ("r2-%s.tsv" % topic))
        write_sheet(path, columns, [dict(r.values, label="L1") for r in rows])
        filled.append(path)
    merged = str(tmp_path / "merged")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), judged]
                + filled + ["-o", merged]) == 0
    lines = qrels_lines(merged)
    assert qrels_lines(round1) <= lines and {"%s %s L1" % key for key in new} <= lines
    assert len(lines) == len(pooled)


def test_sheets_that_share_no_item_print_no_agreement(tmp_path, capsys):
    """One sheet a topic (each its own assessor) share no item: an empty agreement table ('over 0 item(s)',
    'labels n/a', two headers and nothing under them) said nothing; with --agreement the JSON is still written."""
    pool = make_pool(tmp_path)
    label = lambda v: "L1" if v["item"] == "D2" else "L0"      # noqa: E731
    first = fill(pool, tmp_path / "t1.tsv", lambda v: label(v) if v["topic"] == "001p" else "")
    second = fill(pool, tmp_path / "t2.tsv", lambda v: label(v) if v["topic"] == "002f" else "")
    figures = tmp_path / "agreement.json"
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, first, second, "-o", str(tmp_path / "ref"),
                 "--agreement", str(figures)]) == 0
    out = capsys.readouterr().out
    assert "agreement" not in out and "assessor\tassessor" not in out, out
    assert figures.exists()
