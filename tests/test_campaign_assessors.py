"""What assessors get from `runscore pool` (campaign/assessment.py, batches.py): blind pages and sheets (no run,
team, rank or count of runs, not even in the embedded data), the organiser's own view apart, batches for several
assessors with overlap, the documents of a collection with the missing ones listed, the topic; and the leniency
of `runscore judgements` on what assessors send back (CSV, numbers, sheets without the pool's columns)."""
import codecs
import json
import os
import re

import pytest

from runscore.campaign.batches import make_batches, read_assessors
from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main
from runscore.errors import ConfigError

RUNS = ("zqxalpha1", "zqxalpha2", "vwybeta1")          # run names (teams zqxalpha, vwybeta) found nowhere else


def ntcir_runs(tmp_path, topics=("0031", "0032"), docs=12, depth=6):
    folder = tmp_path / "runs"
    folder.mkdir()
    for k, run in enumerate(RUNS):
        lines = ["%s\t0\tFT-%03d\t%d\t%d\t%s" % (t, (d + 3 * k) % docs, r, 100 - r, run)
                 for t in topics for r, d in enumerate(range(depth), 1)]
        (folder / run).write_text("\n".join(lines) + "\n")
    return folder


def collection(tmp_path, ids, skip=()):
    path = tmp_path / "collection.sgml"
    path.write_text("".join("<DOC>\n<DOCNO> %s </DOCNO>\n<HEADLINE>Bridge news %s</HEADLINE>\n<TEXT>\nThe harbour "
                            "bridge %s was repaired.\n</TEXT>\n</DOC>\n" % (d, d, d) for d in ids if d not in skip))
    return str(path)


def topic_file(tmp_path):
    path = tmp_path / "topics.ntcir"
    path.write_text("<TOPIC q=0031>\n<TITLE>\nharbour bridge\n</TITLE>\n<DESCRIPTION>\nBridge repairs.\n"
                    "</DESCRIPTION>\n<NARRATIVE>\nRepairs of harbour bridges are relevant.\n</NARRATIVE>\n</TOPIC>\n")
    return str(path)


def files_under(folder):
    return [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names]


def embedded(page_path):
    text = open(page_path, encoding="utf-8").read()
    return json.loads(text.split('id="pool-data">', 1)[1].split("</script>", 1)[0])


def test_the_assessors_files_name_no_run_team_rank_or_count(tmp_path):
    """Every page and sheet handed to assessors, including the data embedded in the pages, is free of run and
    team names and of the pool's counts and ranks; the organiser's view (positive control) shows them. Before,
    each card said "retrieved by N run(s), best rank R" and the embedded rows carried run_names."""
    runs = ntcir_runs(tmp_path)
    out = str(tmp_path / "pool")
    ids = ["FT-%03d" % d for d in range(12)]
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "6", str(runs), "-o", out, "--collection",
                 collection(tmp_path, ids), "--topics", topic_file(tmp_path), "--batch-size", "4",
                 "--assessors", "ann,ben", "--show-pool-stats"]) == 0
    assessed = files_under(os.path.join(out, "assess"))
    assert len([p for p in assessed if p.endswith(".html")]) >= 4
    teams = {"zqxalpha", "vwybeta"}
    for path in assessed:
        text = open(path, encoding="utf-8").read()
        assert not any(name in text for name in RUNS + tuple(teams)), path
        assert not re.search(r"retrieved by|rank[ _]sum|best[ _]rank|run_names", text), path
    for path in (p for p in assessed if p.endswith(".html")):
        data = embedded(path)
        assert "stats" not in data
        for row in data["rows"]:
            assert set(row) <= {"topic", "item", "label", "doc", "view", "missing"}, row
    for path in (p for p in assessed if p.endswith(".tsv") and "sheet-" in p):
        assert open(path, encoding="utf-8").readline().split() == ["topic", "item", "label"]
    organiser = files_under(os.path.join(out, "organiser"))
    shown = "".join(open(p, encoding="utf-8").read() for p in organiser)
    assert all(run in shown for run in RUNS) and "best rank" in shown


def test_batches_go_to_assessors_in_turn_with_overlap(tmp_path):
    rows = [{"topic": t, "item": "d%d" % i} for t in ("a", "b") for i in range(5)]
    batches = make_batches(rows, 2, ["x", "y", "z"], overlap=1)
    assert [(b.topic, b.index, b.count, b.assessor, len(b.rows)) for b in batches[:6]] == [
        ("a", 1, 3, "x", 2), ("a", 1, 3, "y", 2), ("a", 2, 3, "y", 2), ("a", 2, 3, "z", 2),
        ("a", 3, 3, "z", 1), ("a", 3, 3, "x", 1)]
    assert [b.name for b in batches[:2]] == ["a-b1-x", "a-b1-y"]
    assert [b.name for b in make_batches(rows)] == ["a", "b"]
    with pytest.raises(ConfigError, match="name at least that many"):
        make_batches(rows, 2, ["x"], overlap=1)
    assert read_assessors("ann, ben") == ["ann", "ben"]
    for bad in ("ann,,ben", "ann,ann", "a b,a_b"):
        with pytest.raises(ConfigError, match="--assessors"):
            read_assessors(bad)
    (tmp_path / "names").write_text("ann\nben\n\n")
    assert read_assessors("@%s" % (tmp_path / "names")) == ["ann", "ben"]


def test_assignments_missing_documents_and_every_sheet_imported(tmp_path, capsys):
    """Three assessors, batches of 4, overlap 1: the assignments name every batch twice; a document the collection
    lacks is listed (not fatal) and said on its card; the blind sheets, filled, import with --resolve majority."""
    runs = ntcir_runs(tmp_path)
    out = str(tmp_path / "pool")
    ids = ["FT-%03d" % d for d in range(12)]
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "6", str(runs), "-o", out, "--collection",
                 collection(tmp_path, ids, skip={"FT-000"}), "--batch-size", "4", "--assessors", "ann,ben,cy",
                 "--overlap", "1"]) == 0
    said = capsys.readouterr().out
    assert "1 document(s) of 2 pooled item(s) not found" in said
    missing = open(os.path.join(out, "assess", "missing_documents.tsv")).read().split("\n")
    assert missing[0] == "topic\titem\tdocument" and {"0031\tFT-000\tFT-000", "0032\tFT-000\tFT-000"} <= set(missing)
    assignments = [line.split("\t") for line in open(os.path.join(out, "assess", "assignments.tsv")).read().split("\n")[1:]
                   if line]
    _, pool_rows = read_sheet(os.path.join(out, "pool.tsv"))
    per_topic = {t: sum(1 for r in pool_rows if r.values["topic"] == t) for t in ("0031", "0032")}
    for topic, count in per_topic.items():
        given = [a for a in assignments if a[1] == topic]
        assert sum(int(a[3]) for a in given) == 2 * count            # every item to two assessors
    cards = [c for p in files_under(os.path.join(out, "assess")) if p.endswith(".html") for c in embedded(p)["rows"]]
    lacking = [c for c in cards if c["item"] == "FT-000"]
    assert len(lacking) == 4 and all(c.get("missing") and "view" not in c for c in lacking)    # 2 topics x 2 copies
    assert all(c["view"]["title"] == "Bridge news %s" % c["item"] for c in cards if c["item"] != "FT-000")
    sheets = [p for p in files_under(os.path.join(out, "assess")) if os.path.basename(p).startswith("sheet-")]
    for sheet in sheets:
        columns, rows = read_sheet(sheet)
        write_sheet(sheet, columns, [dict(r.values, label="A" if r.values["item"] < "FT-006" else "C")
                                     for r in rows])
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "ntcir1-adhoc", "--pool", os.path.join(out, "pool.tsv")] + sheets +
                ["--resolve", "majority", "-o", ref]) == 0
    rel1 = {line.split("\t")[2] for line in open(os.path.join(ref, "rel1")).read().split("\n")
            if line.endswith("\t1")}
    assert rel1 == {r.values["item"] for r in pool_rows if r.values["item"] < "FT-006"}


def test_usage_errors_before_anything_is_read(tmp_path, capsys):
    runs = ntcir_runs(tmp_path)
    base = ["pool", "--task", "ntcir1-adhoc", "--depth", "6", str(runs)]
    for extra, message in ((["--overlap", "1"], "name them with --assessors"),
                           (["--collection", str(tmp_path / "none")], "does not exist"),
                           (["--topics", str(tmp_path / "none")], "does not exist"),
                           (["--batch-size", "0"], "at least 1")):
        assert main(base + ["-o", str(tmp_path / "out")] + extra) == 2
        assert message in capsys.readouterr().err
        assert not os.path.exists(str(tmp_path / "out"))


# ------------------------------------------------------------------------------------ import, lenient ---
def tir_pool(tmp_path):
    folder = tmp_path / "tir"
    folder.mkdir()
    (folder / "tir_g").write_text("".join("%s\t%d\tD%d\tg\tg_run1\n" % (s, r, r) for s in ("001p", "002f")
                                          for r in range(1, 4)))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "3", str(folder / "tir_g"), "-o", out,
                 "--order", "docid"]) == 0
    return os.path.join(out, "pool.tsv")


def qrels(ref):
    return sorted(open(os.path.join(ref, "qrels.txt")).read().split("\n"))


def test_csv_utf16_and_key_only_sheets_give_the_tsv_reference(tmp_path):
    """A spreadsheet's CSV (comma, or semicolon with a BOM), its UTF-16 "Unicode text", and a sheet of topic, item
    and label only, give the reference the pool's own TSV gives. Before, each was refused: only TAB-separated
    sheets with every pool column were read."""
    pool = tir_pool(tmp_path)
    columns, rows = read_sheet(pool)
    label = {"D1": "L2", "D2": "L0", "D3": "L1"}
    write_sheet(str(tmp_path / "full.tsv"), columns, [dict(r.values, label=label[r.values["item"]]) for r in rows])
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "full.tsv"),
                 "-o", str(tmp_path / "ref-tsv")]) == 0
    expected = qrels(str(tmp_path / "ref-tsv"))
    keys = [(r.values["topic"], r.values["item"]) for r in rows]
    variants = {
        "comma.csv": ("topic,item,label,note\r\n" + "".join('%s,%s,%s,"a, quoted\r\nnote"\r\n' % (t, i, label[i])
                                                             for t, i in keys)).encode("utf-8"),
        "semicolon.csv": codecs.BOM_UTF8 + ("runs;topic;item;label\n" + "".join("1;%s;%s;%s\n" % (t, i, label[i])
                                                                               for t, i in keys)).encode("utf-8"),
        "unicode.txt": codecs.BOM_UTF16_LE + ("topic\titem\tlabel\r\n" + "".join(
            "%s\t%s\t%s\r\n" % (t, i, label[i]) for t, i in keys)).encode("utf-16-le"),
        "key-only.tsv": ("topic\titem\tlabel\n" + "".join("%s\t%s\t%s\n" % (t, i, label[i])
                                                          for t, i in keys)).encode("utf-8"),
    }
    for name, data in variants.items():
        (tmp_path / name).write_bytes(data)
        ref = str(tmp_path / ("ref-" + name))
        assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / name), "-o", ref]) == 0
        assert qrels(ref) == expected, name


def test_numeric_labels_where_the_reference_loader_reads_numbers(tmp_path, capsys):
    """NTCIR-1's graded qrels read 3/2/1/0 for S/A/B/C and TIR's TREC qrels read grades 0/1/2, so a sheet may write
    them (a spreadsheet may save 2 as 2.0); R2C2's PR qrels read Lk only, so a number is refused there, naming the
    line and the scale. Before, every number was refused."""
    pool = tir_pool(tmp_path)
    _, rows = read_sheet(pool)
    text = "topic\titem\tlabel\n" + "".join("%s\t%s\t%s\n" % (r.values["topic"], r.values["item"], n)
                                            for r, n in zip(rows, ["2", "0", "1.0", "2", "0", "1"]))
    (tmp_path / "numbers.tsv").write_text(text)
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "numbers.tsv"),
                 "-o", str(tmp_path / "ref")]) == 0
    assert {"001p D1 L2", "001p D2 L0", "001p D3 L1"} <= set(qrels(str(tmp_path / "ref")))
    (tmp_path / "three.tsv").write_text(text.replace("\t1.0\n", "\t3\n"))
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "three.tsv"),
                 "-o", str(tmp_path / "ref3")]) == 2
    assert "three.tsv:4: error: topic 001p item D3: label '3' is not on the scale of temporalia-tir (L0, L1, L2 " \
           "or 0-2)" in capsys.readouterr().err
    # NTCIR-1: the numbers give the same rel1/rel2 as the letters
    (tmp_path / "ntc1").write_text("".join("0031\t0\tgakkai-%d\t%d\t%d\tntc1\n" % (d, d, 10 - d) for d in range(1, 5)))
    out = str(tmp_path / "npool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "4", str(tmp_path / "ntc1"), "-o", out]) == 0
    for name, labels in (("letters", "SABC"), ("numbers", "3210")):
        (tmp_path / name).write_text("topic,item,label\n" + "".join("0031,gakkai-%d,%s\n" % (d, labels[d - 1])
                                                                    for d in range(1, 5)))
        assert main(["judgements", "--task", "ntcir1-adhoc", "--pool", os.path.join(out, "pool.tsv"),
                     str(tmp_path / name), "-o", str(tmp_path / ("ref-" + name))]) == 0
    for level in ("rel1", "rel2"):
        assert open(str(tmp_path / "ref-letters" / level)).read() == open(str(tmp_path / "ref-numbers" / level)).read()
    # R2C2 PR: Lk only
    (tmp_path / "A-PO-1").write_text("0001;1;d1;a passage\n")
    out = str(tmp_path / "ppool")
    assert main(["pool", "--task", "r2c2-pr", "--depth", "20", str(tmp_path / "A-PO-1"), "-o", out]) == 0
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    write_sheet(str(tmp_path / "pr.tsv"), columns, [dict(r.values, label="2") for r in rows])
    assert main(["judgements", "--task", "r2c2-pr", "--pool", os.path.join(out, "pool.tsv"), str(tmp_path / "pr.tsv"),
                 "-o", str(tmp_path / "ref-pr")]) == 2
    assert "pr.tsv:2: error: topic 0001 item d1::" in capsys.readouterr().err


def test_csv_refusals_name_the_line_a_record_starts_on(tmp_path, capsys):
    pool = tir_pool(tmp_path)
    (tmp_path / "bad.csv").write_text('topic,item,label,note\n001p,D1,L2,"two\nlines"\n001p,D2,L9,x\n'
                                      '001p,D3,L1,x,extra\n')
    assert main(["judgements", "--task", "temporalia-tir", "--pool", pool, str(tmp_path / "bad.csv"),
                 "-o", str(tmp_path / "ref")]) == 2
    err = capsys.readouterr().err
    assert "bad.csv:4: error: topic 001p item D2: label 'L9' is not on the scale" in err    # after a 2-line record
    assert "bad.csv:5: error: expected 4 fields separated by ','" in err


def test_keys_that_name_runs_are_said_to_unblind_the_pages(tmp_path, capsys):
    """R2C2's passage_key_mode run_rank keys a passage by its run and rank: the pool says the pages cannot be blind
    (the task's form tells why), naming the reference's task.yaml."""
    import shutil

    from conftest import ROOT

    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", "r2c2-pr"), str(ref))
    text = (ref / "task.yaml").read_text().replace("passage_key_mode: content", "passage_key_mode: run_rank\n"
                                                   "  unchecked_labels: trust")
    (ref / "task.yaml").write_text(text)
    run = os.path.join(ROOT, "starting_kit", "sample_submission", "r2c2-pr", "SAMPLE-PO-1.txt")
    for mode, ref_args in (("content", []), ("run_rank", ["--ref", str(ref)])):
        out = str(tmp_path / mode)
        assert main(["pool", "--task", "r2c2-pr", "--depth", "20", run, "-o", out, "--html"] + ref_args) == 0
        err = capsys.readouterr().err
        said = "%s: warning: passage_key_mode run_rank" % (ref / "task.yaml") in err
        assert said == (mode == "run_rank"), err
