"""The assessment page in headless Chromium: label items with keys, save the sheet, import it.

Skips without Chromium, chromedriver or selenium (a test-only dependency).
"""
import os
import re
import time

import pytest

from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main


@pytest.fixture
def browser(selenium_chromium):
    """The worker's headless Chromium (conftest's selenium_chromium, started once), as a new one would be: its
    downloads folder empty and the pages' storage (the labels kept under a page's hash) cleared."""
    driver = selenium_chromium
    for name in os.listdir(driver.downloads):
        os.remove(os.path.join(driver.downloads, name))
    driver.get(driver.blank_page)
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    return driver


def press(driver, keys):
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def saved_sheet(driver, name, timeout=15.0):
    path = os.path.join(driver.downloads, name)
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path) and not os.path.exists(path + ".crdownload"):
            return path
        time.sleep(0.1)
    pytest.fail("the page saved no %s (found: %s)" % (name, os.listdir(driver.downloads)))


def test_label_with_keys_save_and_import(tmp_path, browser):
    runs = tmp_path / "runs"
    runs.mkdir()
    lines = ["%s\t%d\tD%d\tg\tg_run1" % (s, r, r) for s in ("001p", "002f") for r in range(1, 5)]
    (runs / "tir_g").write_text("\n".join(lines) + "\n")
    (tmp_path / "topics.tsv").write_text("001p\tpast events of the topic\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "4", "--order", "item", str(runs / "tir_g"),
                 "-o", out, "--html", "--topics", str(tmp_path / "topics.tsv")]) == 0
    page = os.path.join(out, "assess", "topic-001p.html")
    browser.get("file://" + page)
    assert "past events of the topic" in browser.page_source
    assert browser.find_element("id", "count").text == "0 / 4 labelled"
    # D1 -> L2, D2 -> L0, then k back to D2 and relabel it L1, j to D3 -> L1, D4 -> L0 by clicking its button
    press(browser, ["2", "0", "k", "1", "1"])
    assert browser.find_element("id", "count").text == "3 / 4 labelled"
    browser.find_element("css selector", '#item-3 button[data-label="L0"]').click()
    assert browser.find_element("id", "count").text == "4 / 4 labelled"
    browser.save_screenshot(str(tmp_path / "page.png"))
    browser.find_element("id", "save").click()
    sheet = saved_sheet(browser, "labels-001p.tsv")
    columns, rows = read_sheet(sheet)
    pool_columns, pool_rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert columns == ["topic", "item", "label"]          # blind: the key and the label, nothing about the runs
    assert {r.values["item"]: r.values["label"] for r in rows} == {"D1": "L2", "D2": "L1", "D3": "L1", "D4": "L0"}
    # the other topic comes from a spreadsheet; both sheets make the reference
    other = [dict(r.values, label="L0") for r in pool_rows if r.values["topic"] == "002f"]
    write_sheet(str(tmp_path / "002f.tsv"), pool_columns, other)
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), sheet,
                 str(tmp_path / "002f.tsv"), "-o", ref]) == 0
    qrels = open(os.path.join(ref, "qrels.txt")).read().split("\n")
    assert {"001p D1 L2", "001p D2 L1", "001p D3 L1", "001p D4 L0", "002f D1 L0"} <= set(qrels)


def test_the_page_needs_no_network_and_escapes_text(tmp_path, browser):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "A-PO-1").write_text("0001;1;d1;a </script><b>bold</b> passage\twith a tab\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-pr", "--depth", "20", str(runs / "A-PO-1"), "-o", out, "--html"]) == 0
    text = open(os.path.join(out, "assess", "topic-0001.html"), encoding="utf-8").read()
    assert "http://" not in text and "https://" not in text
    browser.get("file://" + os.path.join(out, "assess", "topic-0001.html"))
    shown = browser.find_element("css selector", "#item-0 .text").text
    assert "</script><b>bold</b> passage" in shown
    press(browser, ["2"])
    browser.find_element("id", "save").click()
    columns, rows = read_sheet(saved_sheet(browser, "labels-0001.tsv"))
    _, pooled = read_sheet(os.path.join(out, "pool.tsv"))
    assert columns == ["topic", "item", "text_sha1", "label"]            # the key of the row and its label
    assert rows[0].values["text_sha1"] == pooled[0].values["text_sha1"] and rows[0].values["label"] == "L2"


def test_items_that_open_a_comment_or_a_script_are_cards_and_formulas_stay_text(tmp_path, browser):
    """A document id `<!--<script>` used to empty the topic's page (0 cards): the JSON inside the <script> element
    was not escaped for the HTML tokenizer's script states. Ids that a spreadsheet would run as formulas are saved
    with a quote in front, and `runscore judgements` reads the original ids back."""
    ids = ["<!--<script>", "</script><script>alert(1)</script>", "=HYPERLINK(\"http://x\")", "+1+1", "@SUM(1)",
           "plain", "x;=HYPERLINK(\"http://x\")", 'y,"@SUM(1)']
    run = tmp_path / "tir_g"
    # a topic of its own: the browser's download folder is shared with the other tests, and a sheet saved twice
    # under one name would be renamed
    run.write_text("".join("007f\t%d\t%s\tg\tg_run1\n" % (rank, doc) for rank, doc in enumerate(ids, 1)))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "10", "--order", "item", str(run), "-o", out,
                 "--html"]) == 0
    page = os.path.join(out, "assess", "topic-007f.html")
    embedded = open(page, encoding="utf-8").read().split('id="pool-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in embedded and ">" not in embedded and "&" not in embedded
    browser.get("file://" + page)
    cards = browser.find_elements("css selector", "#items .card")
    assert sorted(c.get_attribute("data-item") for c in cards) == sorted(ids)
    assert browser.find_element("id", "count").text == "0 / 8 labelled"
    browser.save_screenshot(str(tmp_path / "hostile-page.png"))
    press(browser, ["2"] * len(ids))
    browser.find_element("id", "save").click()
    saved = saved_sheet(browser, "labels-007f.tsv")
    cells = [line.split("\t") for line in open(saved, encoding="utf-8").read().split("\n")[1:] if line]
    assert all(c[1][:1] not in "=+-@" for c in cells), cells
    # nor after a separator a spreadsheet may split at (Excel's `;` in many locales), as the pool's own sheet
    from runscore.campaign.sheet import write_cell

    assert sorted(c[1] for c in cells) == sorted(write_cell(doc) for doc in ids)
    assert not [c for c in cells if any(c[1][at + 1:at + 2] in "=+-@" for at, ch in enumerate(c[1]) if ch in ',;"')]
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), saved,
                 "-o", ref]) == 0
    qrels = open(os.path.join(ref, "qrels.txt"), encoding="utf-8").read().split("\n")
    assert {"007f %s L2" % doc for doc in ids if " " not in doc} <= set(qrels)


# ------------------------------------------------------------------------------------ with documents ---
NTCIR_TOPIC = ("<TOPIC q=0031>\n<TITLE>\nharbour bridge repairs\n</TITLE>\n<DESCRIPTION>\nReports on repairs to "
               "harbour bridges.\n</DESCRIPTION>\n<NARRATIVE>\nA relevant document names a harbour bridge and its "
               "repair.\n</NARRATIVE>\n<FIELD>\n1. Civil engineering\n</FIELD>\n</TOPIC>\n")


def grade_of(doc):
    return "cbas"[int(doc[-2:]) % 4]


def count_once_settled(browser, expected, timeout=10.0):
    """The page's count, read again until it says `expected` or `timeout` passes: on a loaded machine the count was
    once read before the page had put back the labels it keeps (a whole-suite run; alone it always passed)."""
    end = time.time() + timeout
    while True:
        text = browser.find_element("id", "count").text
        if text == expected or time.time() > end:
            return text
        time.sleep(0.05)


def label_and_read(browser, keys):
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(keys).perform()
    return browser.find_element("id", "count").text


def test_a_depth_100_ntcir_topic_with_a_trec_collection_judged_by_keyboard(tmp_path, browser):
    """An NTCIR-style topic pooled at depth 100 from two runs, its documents from a gzip TREC SGML collection:
    the page shows the topic (not its FIELD) and each document's headline, date and text with the query terms
    marked; labels typed with c/b/a/s survive a reload (the page resumes at the first unlabelled item); the saved
    sheet imports into exactly the reference the blind spreadsheet route gives."""
    import gzip

    docs = ["FT%04d" % d for d in range(160)]
    with gzip.open(str(tmp_path / "ft.gz"), "wt", encoding="utf-8") as handle:
        for d in docs:
            handle.write("<DOC>\n<DOCNO> %s </DOCNO>\n<DATE>1991-05-14</DATE>\n<HEADLINE>Headline of %s</HEADLINE>\n"
                         "<TEXT>\n<P>The harbour bridge was repaired (%s).</P>\n</TEXT>\n</DOC>\n" % (d, d, d))
    (tmp_path / "topics").write_text(NTCIR_TOPIC)
    runs = tmp_path / "runs"
    runs.mkdir()
    for run, chosen in (("teamx1", docs[:100]), ("teamy1", docs[40:140])):
        (runs / run).write_text("".join("0031\t0\t%s\t%d\t%d\t%s\n" % (d, r, 1000 - r, run)
                                        for r, d in enumerate(chosen, 1)))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "100", str(runs), "-o", out, "--collection",
                 str(tmp_path / "ft.gz"), "--topics", str(tmp_path / "topics")]) == 0
    page = os.path.join(out, "assess", "topic-0031.html")
    browser.get("file://" + page)
    assert browser.find_element("id", "count").text == "0 / 140 labelled"
    topic = browser.find_element("id", "topic-box").text
    assert "harbour bridge repairs" in topic and "Reports on repairs" in topic and "Civil engineering" not in topic
    first = browser.find_element("id", "item-0")
    assert "Headline of" in first.find_element("css selector", "h2.title").text and "1991-05-14" in first.text
    assert [m.text for m in first.find_elements("css selector", "mark")][:3] == ["harbour", "bridge", "repaired"]
    order = [c.get_attribute("data-item") for c in browser.find_elements("css selector", "#items .card")]
    keys = "".join(grade_of(d) for d in order)
    assert label_and_read(browser, keys[:60]) == "60 / 140 labelled"
    browser.get("file://" + page)                              # a reload: nothing lost, back at item 61
    assert count_once_settled(browser, "60 / 140 labelled") == "60 / 140 labelled"
    assert [c.get_attribute("id") for c in browser.find_elements("css selector", ".card.current")] == ["item-60"]
    assert label_and_read(browser, keys[60:]) == "140 / 140 labelled"
    browser.find_element("id", "save").click()
    from_page = saved_sheet(browser, "labels-0031.tsv")
    columns, rows = read_sheet(os.path.join(out, "assess", "sheet-0031.tsv"))
    write_sheet(str(tmp_path / "spreadsheet.tsv"), columns,
                [dict(r.values, label=grade_of(r.values["item"]).upper()) for r in rows])
    for name, sheet in (("ref-page", from_page), ("ref-sheet", str(tmp_path / "spreadsheet.tsv"))):
        assert main(["judgements", "--task", "ntcir1-adhoc", "--pool", os.path.join(out, "pool.tsv"), sheet,
                     "-o", str(tmp_path / name)]) == 0
    for level in ("rel1", "rel2"):
        assert open(str(tmp_path / "ref-page" / level)).read() == open(str(tmp_path / "ref-sheet" / level)).read()


def test_temporalia_batches_from_a_jsonl_collection_for_two_assessors(tmp_path, browser):
    """A JSONL collection, a Temporalia topic file, batches of 5 for two assessors with overlap: a batch page
    shows the subtopic's question first; both assessors' saved sheets, with the other batches from their blind
    sheets, import with --resolve majority into the reference the spreadsheets alone give."""
    import json

    docs = ["lk-20120101000000_%d" % d for d in range(12)]
    (tmp_path / "lk.jsonl").write_text("".join(json.dumps({"id": d, "title": "News %s" % d, "date": "2012-01-01",
                                                          "contents": "The bridge closed for repairs."}) + "\n"
                                               for d in docs))
    (tmp_path / "topics.xml").write_text(
        "<topic><id>001</id><title>Harbour bridge</title><description>Bridge works.</description>"
        "<query_issue_time>Mar 30, 2013</query_issue_time><subtopics><subtopic id=\"001p\" type=\"past\">When was "
        "the bridge closed?</subtopic></subtopics></topic>")
    (tmp_path / "tir_g").write_text("".join("001p\t%d\t%s\tg\tg_run1\n" % (r, d) for r, d in enumerate(docs[:10], 1)))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "10", "--order", "item", str(tmp_path / "tir_g"),
                 "-o", out, "--collection", str(tmp_path / "lk.jsonl"), "--topics", str(tmp_path / "topics.xml"),
                 "--batch-size", "5", "--assessors", "ann,ben", "--overlap", "1"]) == 0

    def level(doc):
        return "L%d" % (int(doc.rsplit("_", 1)[1]) % 3)

    saved = []
    for who in ("ann", "ben"):
        page = os.path.join(out, "assess", who, "topic-001p-b1-%s.html" % who)
        browser.get("file://" + page)
        assert browser.find_element("css selector", "#topic-box h2").text == "When was the bridge closed?"
        assert "batch 1 of 2, %s" % who in browser.find_element("tag name", "h1").text
        order = [c.get_attribute("data-item") for c in browser.find_elements("css selector", "#items .card")]
        assert label_and_read(browser, "".join(level(d)[1] for d in order)) == "5 / 5 labelled"
        browser.find_element("id", "save").click()
        saved.append(saved_sheet(browser, "labels-001p-b1-%s.tsv" % who))
    others = [os.path.join(out, "assess", who, "sheet-001p-b2-%s.tsv" % who) for who in ("ann", "ben")]
    every = [os.path.join(out, "assess", who, "sheet-001p-b%d-%s.tsv" % (b, who)) for who in ("ann", "ben")
             for b in (1, 2)]
    for sheet in every:
        columns, rows = read_sheet(sheet)
        write_sheet(sheet, columns, [dict(r.values, label=level(r.values["item"])) for r in rows])
    refs = {}
    for name, sheets in (("page", saved + others), ("sheets", every)):
        refs[name] = str(tmp_path / ("ref-" + name))
        assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv")] + sheets +
                    ["--resolve", "majority", "-o", refs[name]]) == 0
    assert open(os.path.join(refs["page"], "qrels.txt")).read() == open(os.path.join(refs["sheets"],
                                                                                     "qrels.txt")).read()


def test_hostile_document_and_topic_text_stays_text(tmp_path, browser):
    """Markup, script ends, comment starts, line separators and regex characters in documents and in the topic are
    shown as text: every card is there, nothing runs, no element is made from them, and highlighting terms full of
    regex characters still works."""
    from selenium.common.exceptions import NoAlertPresentException

    hostile = ["&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;", "<img src=x onerror=alert(2)>",
               "&lt;!--&lt;script&gt;", "line\u2028sep\u2029para", "c++ (bridge) [x] $1 \\d*"]
    docs = ["H%d" % k for k in range(len(hostile))]
    (tmp_path / "c.sgml").write_text("".join("<DOC>\n<DOCNO>%s</DOCNO>\n<HEADLINE>%s</HEADLINE>\n<TEXT>%s bridge "
                                             "c++ text</TEXT>\n</DOC>\n" % (d, h, h) for d, h in zip(docs, hostile)),
                                     encoding="utf-8")
    (tmp_path / "topics").write_text("0031\t</script><b>c++ (bridge) [x]</b>\n")
    (tmp_path / "ntc1").write_text("".join("0031\t0\t%s\t%d\t%d\tntc1\n" % (d, r, 10 - r) for r, d in enumerate(docs, 1)))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "10", str(tmp_path / "ntc1"), "-o", out,
                 "--collection", str(tmp_path / "c.sgml"), "--topics", str(tmp_path / "topics")]) == 0
    browser.get("file://" + os.path.join(out, "assess", "topic-0031.html"))
    cards = browser.find_elements("css selector", "#items .card")
    assert len(cards) == len(docs)
    assert browser.find_elements("css selector", "#items img, #items script, #items b, #topic-box b") == []
    titles = [t.text for c in cards for t in c.find_elements("css selector", "h2.title")]
    assert "</script><script>alert(1)</script>" in titles and "<!--<script>" in titles     # entities: text
    assert len(titles) == len(docs) - 1           # the raw <img ...> is markup of the record, dropped, never made
    assert "</script><b>c++ (bridge) [x]</b>" in browser.find_element("id", "topic-box").text
    box = browser.find_element("id", "terms")
    box.clear()
    box.send_keys("c++ (bridge) [x], $1, \\d*\n")
    marked = {m.text for m in browser.find_elements("css selector", "#items mark")}
    assert {"c++ (bridge) [x]", "$1", "\\d*"} <= marked
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text


def test_a_participants_huge_passage_is_shown_shortened_and_judged_whole(tmp_path, browser):
    """A PR run's passage of 300,000 characters: the card shows the first 20,000 (cut at a word) and says so, with a
    link to the whole passage; the page stays small; the label saved is for the whole passage (its text_sha1 is the
    pool's)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "B-PO-1").write_text("0002;1;d9;" + "harbour " * 37500 + "\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-pr", "--depth", "20", str(runs / "B-PO-1"), "-o", out, "--html"]) == 0
    page = os.path.join(out, "assess", "topic-0002.html")
    assert os.path.getsize(page) < 100000
    browser.get("file://" + page)
    card = browser.find_element("id", "item-0")
    assert re.search(r"Shortened: the first [\d,]+ of 300,000 characters are shown\. Read the whole text", card.text)
    whole = card.find_element("css selector", "a.whole").get_attribute("href")
    assert whole == "file://" + os.path.join(out, "assess", "topic-0002-texts", "1.html")
    press(browser, ["1"])
    browser.find_element("id", "save").click()
    _, rows = read_sheet(saved_sheet(browser, "labels-0002.tsv"))
    _, pooled = read_sheet(os.path.join(out, "pool.tsv"))
    assert rows[0].values["text_sha1"] == pooled[0].values["text_sha1"] and rows[0].values["label"] == "L1"
    browser.get(whole)
    assert browser.find_element("css selector", "main").text.count("harbour") == 37500


def test_a_long_document_is_cut_at_a_word_and_read_whole_from_a_light_page(tmp_path, browser):
    """Documents of 100,000 characters were cut at 20,000 mid-word with no way to read on: the card is cut at a word
    and links the whole text, a page of its own beside the assessment page (so the page holds only what the cards
    show: 40 such documents make a page of about 40 x 20,000 characters, not 4 MB), where hostile text stays
    text; a long title is shortened on the card and whole on its page."""
    from selenium.common.exceptions import NoAlertPresentException

    docs = ["L%02d" % k for k in range(40)]
    body = " ".join("word%d" % i for i in range(14000))             # 100,000 characters or so
    hostile = "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; <img src=x onerror=alert(2)>"
    (tmp_path / "c.sgml").write_text("".join(
        "<DOC>\n<DOCNO>%s</DOCNO>\n<HEADLINE>%s</HEADLINE>\n<TEXT>%s %s the end</TEXT>\n</DOC>\n"
        % (d, "long title " * 100, body, hostile) for d in docs), encoding="utf-8")
    (tmp_path / "ntc1").write_text("".join("0031\t0\t%s\t%d\t%d\tntc1\n" % (d, r, 100 - r) for r, d in enumerate(docs, 1)))
    (tmp_path / "topics").write_text("0031\tword13999 ends\n")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "100", str(tmp_path / "ntc1"), "-o", out,
                 "--collection", str(tmp_path / "c.sgml"), "--topics", str(tmp_path / "topics")]) == 0
    page = os.path.join(out, "assess", "topic-0031.html")
    assert os.path.getsize(page) < 40 * 21000 + 60000 and os.path.getsize(str(tmp_path / "c.sgml")) > 4000000
    browser.get("file://" + page)
    card = browser.find_element("id", "item-0")
    title = card.find_element("css selector", "h2.title").text
    assert len(title) <= 300 and title.endswith("long title\u2026")
    shown = card.find_element("css selector", ".text").text
    assert shown.endswith("\u2026") and (shown[:-1].rstrip() + " ") in body + " "     # whole words only
    note = card.find_element("css selector", ".note.short")
    assert "characters are shown. Read the whole text" in note.text
    browser.get(note.find_element("css selector", "a.whole").get_attribute("href"))
    assert browser.find_element("css selector", "h1").text == ("long title " * 100).strip()
    text = browser.find_element("css selector", "main").text
    assert body in text and "</script><script>alert(1)</script>" in text and text.endswith("the end")
    assert browser.find_elements("css selector", "main img, main script") == []
    assert [m.text for m in browser.find_elements("css selector", "main mark")] == ["word13999", "end"]   # the topic's terms
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text
