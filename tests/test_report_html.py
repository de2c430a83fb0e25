"""report.html: self-contained (no script, nothing fetched) and readable at 1280 px and on a 390 px phone, measured
in headless Chromium: the page never scrolls sideways (wide tables scroll inside their own box).

The Chromium tests skip with the reason when the `chromium` binary is absent (Debian package `chromium`); they load
their probe pages into the worker's one headless Chromium (conftest's `chromium`).
"""
import copy
import dataclasses
import re

import pytest

from campaign_sim import ntcir1_campaign
from runscore import api
from runscore.campaign import overview_html

# Headless Chromium will not make a window narrower than 500 px, so the page is measured inside an iframe of the
# phone's width (the frame's viewport is then exactly that wide).
PROBE = ("<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"report.html\" "
         "style=\"width:%dpx;height:900px;border:0\"></iframe><script>document.getElementById('f').onload=function(){"
         "var d=this.contentDocument.documentElement;document.title='W'+[d.scrollWidth,d.clientWidth,"
         "this.contentDocument.querySelectorAll('svg').length].join(',')}</script></body></html>")


# The same frame; the script counts the heat map's text elements whose box leaves the figure's box (a label cut
# off at the figure's edge), and all its text elements.
LABEL_PROBE = ("<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"report.html\" "
               "style=\"width:%dpx;height:900px;border:0\"></iframe><script>document.getElementById('f').onload="
               "function(){var s=this.contentDocument.querySelector('svg[aria-label=\"Kendall tau between measures\"]'),"
               "b=s.getBoundingClientRect(),t=s.querySelectorAll('text'),n=0;for(var k=0;k<t.length;k++){"
               "var r=t[k].getBoundingClientRect();if(r.left<b.left-0.5||r.right>b.right+0.5||r.top<b.top-0.5||"
               "r.bottom>b.bottom+0.5)n++}document.title='L'+[n,t.length].join(',')}</script></body></html>")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A campaign of 12 teams x 2 runs over 30 topics, pooled at depth 20: every section of the page is drawn."""
    folder = tmp_path_factory.mktemp("html")
    runs, ref, _ = ntcir1_campaign(str(folder), teams=12, runs_per_team=2, topics=30, seed=3)
    return api.report("ntcir1-adhoc", ref, [runs], folder / "out", pool_depth=20, trials=200, tau_bootstrap=50), \
        folder / "out" / "report.html"


@pytest.fixture(scope="module")
def page(report):
    return report[1]


def test_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "<link" not in text and "@import" not in text
    assert re.findall(r"(?:src|href)=\"(?!#)", text) == []
    assert set(re.findall(r"https?://[^\"' ]+", text)) <= {"http://www.w3.org/2000/svg"}
    for section in ("means", "pairs", "per-topic", "spread", "tau", "pool", "reusability"):
        assert 'id="%s"' % section in text


def probe(chromium, html_text, template, width, tmp_path):
    """The numbers a probe page (`template`, a frame `width` px wide showing `html_text`) puts in its title, loaded
    into the worker's headless Chromium (conftest's `chromium`)."""
    (tmp_path / "report.html").write_text(html_text, encoding="utf-8")
    path = tmp_path / "probe.html"
    path.write_text(template % width, encoding="utf-8")
    console = chromium.load(path.as_uri(), 1400, 1000)
    title = chromium.evaluate("document.title")
    found = re.fullmatch(r"[WL]([\d,]+)", title or "")
    assert found, (title, console[-20:])
    return tuple(int(v) for v in found.group(1).split(","))


def measure(chromium, html_text, width, tmp_path):
    """(scroll width, viewport width, SVG count) of a page shown in a frame `width` px wide."""
    return probe(chromium, html_text, PROBE, width, tmp_path)


@pytest.mark.parametrize("width", [1280, 390])
def test_no_sideways_scrolling(page, tmp_path, width, chromium):
    scroll_width, inner_width, figures = measure(chromium, page.read_text(encoding="utf-8"), width, tmp_path)
    assert inner_width == width
    assert scroll_width <= inner_width, "the page scrolls sideways at %d px (%d px wide)" % (width, scroll_width)
    assert figures >= 26        # 24 per-topic figures, the box plot, the heat map


def test_the_probe_sees_a_page_that_overflows(tmp_path, chromium):
    scroll_width, inner_width, _ = measure(chromium, "<!DOCTYPE html><html><body><div style=\"width:700px\">x</div>"
                                           "</body>"
                                           "</html>", 390, tmp_path)
    assert inner_width == 390 and scroll_width > 600


def labels_outside(chromium, html_text, width, tmp_path):
    """(text elements of the tau heat map outside its figure, all of them) in a frame `width` px wide."""
    return probe(chromium, html_text, LABEL_PROBE, width, tmp_path)


@pytest.mark.parametrize("width", [1280, 390])
def test_heat_map_labels_stay_inside_the_figure(page, tmp_path, width, chromium):
    """The last column's rotated label was cut off at the figure's right edge."""
    outside, texts = labels_outside(chromium, page.read_text(encoding="utf-8"), width, tmp_path)
    assert texts == 8 * 8 + 2 * 8 and outside == 0


def test_heat_map_labels_of_long_measure_names_stay_inside(report, tmp_path, chromium):
    """Names cut to 18 characters, the widest letters: the margins are made for the longest label."""
    ov = copy.copy(report[0].overview)
    ov.tau = [dataclasses.replace(row, measure_a="W" * 21 + row.measure_a, measure_b="W" * 21 + row.measure_b)
              for row in ov.tau]
    outside, texts = labels_outside(chromium, overview_html.page(ov), 390, tmp_path)
    assert texts == 8 * 8 + 2 * 8 and outside == 0


def test_plural_words_agree_with_their_numbers(tmp_path):
    """Two runs, one pair, one bootstrap sample: "1 topic above the median", "1 pair", "1 bootstrap sample", and no
    "1 topics" anywhere in the page."""
    runs, ref, _ = ntcir1_campaign(str(tmp_path), teams=1, runs_per_team=2, topics=3, seed=5)
    result = api.report("ntcir1-adhoc", ref, [runs], tmp_path / "out", trials=20, tau_bootstrap=1)
    text = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert re.findall(r"\b1 (?:topic|run|team|pair|sample|bootstrap sample)s\b", text) == []
    assert "1 pair)" in text and "1 bootstrap sample " in text
    above = re.findall(r"(\d+) topics? above the median", text)
    assert len(above) == 2 and "1" in above, above
    assert result.runs == 2
