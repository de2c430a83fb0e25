"""`runscore pool`'s verdict on what it could build: a collection that yields none of the
pooled documents (or less than --min-found) refuses the pool, exit 2, nothing written, saying what was read; the
pages' order is chosen knowingly and said."""
import os

import pytest

from runscore.cli import main
from test_campaign_pool_command import tir_file


def collection(folder, ids):
    path = os.path.join(folder, "docs.sgml")
    with open(path, "w") as handle:
        handle.write("".join("<DOC>\n<DOCNO>%s</DOCNO>\n<TEXT>text of %s</TEXT>\n</DOC>\n" % (d, d) for d in ids))
    return path


def pool(tmp_path, ids, *extra):
    run = tir_file(str(tmp_path), "ga", [1, 2])        # pools D2 .. D5 (depth 3)
    out = str(tmp_path / "pool")
    code = main(["pool", "--task", "temporalia-tir", "--depth", "3", run, "-o", out,
                 "--collection", collection(str(tmp_path), ids)] + list(extra))
    return code, out


def test_a_collection_yielding_none_of_the_pooled_documents_refuses_the_pool(tmp_path, capsys):
    code, out = pool(tmp_path, ["X1", "X2"])
    err = capsys.readouterr().err
    assert code == 2 and not os.path.exists(os.path.join(out, "pool.tsv"))
    assert "the collection yielded 0 of the 4 pooled document(s) (0.0%); nothing was written" in err
    assert "read: %s (trec ascii, 0 found)" % os.path.join(str(tmp_path), "docs.sgml") in err
    assert "pooled ids not found, e.g. D2, D3, D4: check --collection-format, --encoding and --id-field" in err


@pytest.mark.parametrize("share, code", [("0.9", 2), ("0.75", 0), ("0", 0)])
def test_min_found_sets_the_share(tmp_path, capsys, share, code):
    found, out = pool(tmp_path, ["D2", "D3", "D4"], "--min-found", share)
    assert found == code and os.path.exists(os.path.join(out, "pool.tsv")) == (code == 0)
    if code:
        assert "yielded 3 of the 4 pooled document(s) (75.0%), less than --min-found 0.9" in capsys.readouterr().err


def test_min_found_zero_accepts_an_empty_yield_and_bad_shares_are_usage_errors(tmp_path, capsys):
    assert pool(tmp_path, ["X1"], "--min-found", "0")[0] == 0
    assert main(["pool", "--task", "temporalia-tir", "--depth", "3", "x", "-o", str(tmp_path / "p2"),
                 "--min-found", "1.5", "--html"]) == 2
    assert "--min-found is a share" in capsys.readouterr().err


def consensus_share(rows):
    """How far the sheet's order follows the number of runs that retrieved each item (1: NTCIRPOOL's)."""
    counts = [int(r.values["runs"]) for r in rows if r.values["topic"] == "001p"]
    pairs = [(i, j) for i in range(len(counts)) for j in range(i + 1, len(counts)) if counts[i] != counts[j]]
    return sum(counts[i] > counts[j] for i, j in pairs) / len(pairs)


def test_the_default_order_is_blind_and_every_page_says_its_order(tmp_path, capsys):
    """NTCIRPOOL's order, the old default, put the items most runs retrieved first: it told the assessor the
    systems' consensus while the page called itself blind. The default is now a seeded shuffle, and the page,
    pool_stats.json and the summary say which order and why."""
    from runscore.campaign.sheet import read_sheet
    import json

    runs = [tir_file(str(tmp_path), "g%d" % n, [1, 2], docs=8, shift=n) for n in range(4)]
    orders = {}
    for order in (None, "ntcirpool", "docid"):
        out = str(tmp_path / ("pool-%s" % order))
        assert main(["pool", "--task", "temporalia-tir", "--depth", "8", "--html", "-o", out] + runs +
                    (["--order", order] if order else [])) == 0
        said = capsys.readouterr().out
        _, rows = read_sheet(os.path.join(out, "pool.tsv"))
        shown = order or "random"
        assert json.load(open(os.path.join(out, "pool_stats.json")))["order"] == shown
        assert "order of the items: %s" % shown in said
        page = open(os.path.join(out, "assess", "topic-001p.html")).read()
        assert '<div class="keys" id="order">Order of the items: %s' % shown in page
        orders[shown] = (rows, page)
    assert consensus_share(orders["ntcirpool"][0]) == 1.0
    assert "tells the assessor what the systems agreed on" in orders["ntcirpool"][1]
    assert consensus_share(orders["random"][0]) < 1.0
    assert "random (seed 0): shuffled" in orders["random"][1]
    items = [r.values["item"] for r in orders["docid"][0] if r.values["topic"] == "001p"]
    assert items == sorted(items)
