"""The assessment page in headless Chromium: label items with keys, save the sheet, import it.

Skips without Chromium, chromedriver or selenium (a test-only dependency).
"""
import os
import shutil
import time

import pytest

from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("Chromium or chromedriver is not installed")
    tmp_path = tmp_path_factory.mktemp("chromium")
    downloads = str(tmp_path / "downloads")
    os.makedirs(downloads)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + ("--user-data-dir=%s" % (tmp_path / "profile"), "--window-size=1000,900"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                              "download.prompt_for_download": False})
    try:
        driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    except Exception as exc:          # a driver that does not match the browser: not this test's subject
        pytest.skip("cannot start headless Chromium: %s" % str(exc).splitlines()[0])
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    driver.downloads = downloads
    yield driver
    driver.quit()


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
    assert columns == pool_columns
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
    assert rows[0].values["text"] == "a </script><b>bold</b> passage\twith a tab"
    assert rows[0].values["label"] == "L2"


def test_items_that_open_a_comment_or_a_script_are_cards_and_formulas_stay_text(tmp_path, browser):
    """A document id `<!--<script>` used to empty the topic's page (0 cards): the JSON inside the <script> element
    was not escaped for the HTML tokenizer's script states. Ids that a spreadsheet would run as formulas are saved
    with a quote in front, and `runscore judgements` reads the original ids back."""
    ids = ["<!--<script>", "</script><script>alert(1)</script>", "=HYPERLINK(\"http://x\")", "+1+1", "@SUM(1)",
           "plain"]
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
    assert browser.find_element("id", "count").text == "0 / 6 labelled"
    browser.save_screenshot(str(tmp_path / "hostile-page.png"))
    press(browser, ["2"] * len(ids))
    browser.find_element("id", "save").click()
    saved = saved_sheet(browser, "labels-007f.tsv")
    cells = [line.split("\t") for line in open(saved, encoding="utf-8").read().split("\n")[1:] if line]
    assert all(c[1][:1] not in "=+-@" for c in cells), cells
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), saved,
                 "-o", ref]) == 0
    qrels = open(os.path.join(ref, "qrels.txt"), encoding="utf-8").read().split("\n")
    assert {"007f %s L2" % doc for doc in ids if " " not in doc} <= set(qrels)
