"""detailed_results.html: self-contained, every task and run with its measures, per-topic table and chart, and
the warnings; and it renders in a real browser (headless Chromium: screenshot not blank, no console message).

The Chromium tests skip with the reason when the `chromium` binary is absent (Debian package `chromium`;
.ci/run installs it); they load their pages into the worker's one headless Chromium (conftest's `chromium`).
"""
import collections
import html.parser
import io
import itertools
import json
import os
import re
import shutil

import pytest
from PIL import Image

from conftest import ROOT, run_score_py
from runscore.report import _bar_chart, detailed_html
from runscore.tasks import all_tasks

SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
TASKS = [t for t in all_tasks() if os.path.isdir(os.path.join(ROOT, "reference_data", t.id))
         and os.path.isdir(os.path.join(SAMPLES, t.id))]
BAR_BLUE = (0x4a, 0x7b, 0xd0)        # report.py's bar colour
TABLE_HEAD = (0xf3, 0xf5, 0xf9)      # report.py's table-header background


def _second_ntcir1_run(folder):
    """A second NTCIR-1 run (same documents, other similarities) so the page shows two runs and a comparison."""
    lines = open(os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), encoding="utf-8").read().splitlines()
    out = []
    for number, line in enumerate(lines, 1):
        fields = line.split("\t")
        fields[4], fields[5] = str((number * 7919) % 1000), "ntc2"     # Rank kept: it now disagrees
        out.append("\t".join(fields))
    with open(os.path.join(folder, "ntc2"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")


@pytest.fixture(scope="module")
def scored_page(tmp_path_factory):
    """Every task's sample in one submission (plus a second ntcir1-adhoc run), scored by score.py."""
    base = tmp_path_factory.mktemp("page")
    ref, res, out = base / "input" / "ref", base / "input" / "res", base / "output"
    for task in TASKS:
        shutil.copytree(os.path.join(ROOT, "reference_data", task.id), ref / task.id)
        shutil.copytree(os.path.join(SAMPLES, task.id), res / task.id)
    if any(t.id == "ntcir1-adhoc" for t in TASKS):
        _second_ntcir1_run(str(res / "ntcir1-adhoc"))
    (res / "metadata").write_text("exitCode: null\n")
    code, stdout, stderr = run_score_py(base / "input", out)
    assert code == 0, stderr
    return out / "detailed_results.html", json.loads((out / "scores.json").read_text()), stderr


@pytest.fixture(scope="module")
def rejected_page(tmp_path_factory):
    base = tmp_path_factory.mktemp("rejected")
    task = TASKS[0]
    shutil.copytree(os.path.join(ROOT, "reference_data", task.id), base / "input" / "ref" / task.id)
    sample = os.path.join(SAMPLES, task.id)
    name = sorted(os.listdir(sample))[0]
    (base / "input" / "res").mkdir(parents=True)
    with open(os.path.join(sample, name), encoding="utf-8") as handle:
        text = handle.read()
    (base / "input" / "res" / name).write_text(text + "this line is not a valid record\n", encoding="utf-8")
    code, stdout, stderr = run_score_py(base / "input", base / "output")
    assert code == 1
    return base / "output" / "detailed_results.html"


class _Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.urls, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href", "xlink:href") and v]

    def handle_data(self, data):
        self.text.append(data)


def _parse(path):
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8"))
    return collector


def test_page_is_self_contained(scored_page, rejected_page):
    for path in (scored_page[0], rejected_page):
        page = path.read_text(encoding="utf-8")
        parsed = _parse(path)
        assert "script" not in parsed.tags and "link" not in parsed.tags and "img" not in parsed.tags
        assert all(u.startswith("#") for u in parsed.urls), parsed.urls     # in-page anchors only
        assert not re.search(r"url\(|@import|https?://(?!www\.w3\.org/2000/svg)", page)


def test_every_task_and_run_is_on_the_page(scored_page):
    path, scores, _ = scored_page
    parsed = _parse(path)
    text = " ".join(parsed.text)
    page = path.read_text(encoding="utf-8")
    for task in TASKS:
        assert "(%s)" % task.id in text
        for column in task.columns:
            key = task.leaderboard_key(column)
            shown = re.findall(r'<td>([^<]*)</td><td class="text">%s</td>' % key, page)
            assert len(shown) == 1 and float(shown[0]) == pytest.approx(scores[key], abs=5e-5)   # as scored
    runs = len(re.findall(r"<h3 id=\"s\d+-\d+\">Run ", path.read_text(encoding="utf-8")))
    assert runs >= len(TASKS) + (1 if any(t.id == "ntcir1-adhoc" for t in TASKS) else 0)
    assert parsed.tags.count("svg") >= 1 and parsed.tags.count("table") >= 2 * len(TASKS)


def test_ntcir1_per_topic_chart_and_table(scored_page):
    if not any(t.id == "ntcir1-adhoc" for t in TASKS):
        pytest.skip("ntcir1-adhoc has no sample")
    page = scored_page[0].read_text(encoding="utf-8")
    section = page[page.index("Run ntc1"):page.index("Run ntc2")]
    # Six topics in the sample qrels: six bars with their topic in the tooltip, and six table rows.
    assert len(re.findall(r"<rect [^>]*><title>00\d\d: ", section)) == 6
    assert len(re.findall(r"<tr><td>00\d\d</td>", section)) == 6
    assert "Comparison of the ntcir1-adhoc runs" in page
    assert "warning: Rank and Similarity disagree" in page[page.index("Run ntc2"):]   # the warning of ntc2


def test_rejected_page_lists_the_errors(rejected_page):
    page = rejected_page.read_text(encoding="utf-8")
    assert "Submission rejected" in page and '<li class="err">' in page
    # its advice is a command the kit has, naming the competition's task (it named `runscore validate --task TASK
    # FILE`, a command the kit downloaded from the site does not install)
    assert "in the starting kit, <code>python3 -m runscore check --task %s submission.zip</code>" % TASKS[0].id \
        in page


def test_bar_chart_scales_and_escapes():
    svg = _bar_chart([0.5, 2.0, -1.0], ["a<b", "c", "d"], mean=0.5)
    assert "a&lt;b: 0.5000" in svg and "<title>c: 2.0000</title>" in svg    # one format per chart: measures
    assert 'fill="#d0664a"' in svg                      # negative values drawn below the zero line
    assert ">2</text>" in svg and ">-1</text>" in svg   # the axis widened from [0, 1] to the data
    assert _bar_chart([], []) == ""


# ------------------------------------------------------------------------------------------ Chromium ---

def test_every_task_says_the_rules_its_scores_were_made_with(scored_page):
    """The page says the rules in force in words (from the reference's options, never a task id),
    once a task."""
    path, _, _ = scored_page
    rules = re.findall(r'<p class="meta rules">([^<]*)</p>', path.read_text(encoding="utf-8"))
    assert len(rules) == len(TASKS)
    if any(t.id == "ntcir1-adhoc" for t in TASKS):
        said = ("rules: NTCIR-1&#x27;s (1999) (ties by docno descending, scores as written (doubles), interpolation "
                "as trec_eval 7.2, at most 1000 documents a topic")
        assert sum(said in line for line in rules) == 1


def _render(chromium, page, width=1200, height=1600, scale=0.5):
    """Screenshot the page in the worker's headless Chromium (conftest's `chromium`), drawn at `scale` to keep the
    PNG decoding quick; returns (RGB pixel rows, console lines)."""
    console = chromium.load(page.as_uri(), width, height, scale)
    return _png_pixels(chromium.screenshot()), console


def _png_pixels(data):
    """Rows of (r, g, b) of a PNG (what Chromium writes), decoded by Pillow (a pure-Python decoder took 4 s of the
    suite's CPU a screenshot)."""
    with Image.open(io.BytesIO(data)) as image:
        pixels = image.convert("RGB").tobytes()
        width, height = image.size
    flat = list(zip(pixels[0::3], pixels[1::3], pixels[2::3]))
    return [flat[y * width:(y + 1) * width] for y in range(height)]


def _colours(rows):
    return dict(collections.Counter(itertools.chain.from_iterable(rows)))


def test_chromium_renders_tables_and_charts(scored_page, chromium):
    rows, console = _render(chromium, scored_page[0], height=5000, scale=0.25)
    assert console == []
    colours = _colours(rows)
    white = colours.get((255, 255, 255), 0)
    assert white < 0.97 * len(rows) * len(rows[0])          # not a blank page
    assert colours.get(BAR_BLUE, 0) > 20                    # the bars of a chart are drawn
    assert colours.get(TABLE_HEAD, 0) > 200                 # table headers are drawn


def test_chromium_renders_the_rejected_and_started_pages(rejected_page, tmp_path, chromium):
    started = tmp_path / "started.html"
    started.write_text(detailed_html("Scoring in progress", [], "started"), encoding="utf-8")
    for page in (rejected_page, started):
        rows, console = _render(chromium, page, height=600)
        assert console == []
        assert len(_colours(rows)) > 20                     # text and colours, not a blank tile


def test_console_detector_sees_errors(tmp_path, chromium):
    """The check above can fail: a page with a script error produces a console line."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><p>x</p><script>console.error('boom'); missing();</script>")
    _, console = _render(chromium, bad, height=200)
    assert any("boom" in line for line in console) and any("missing is not defined" in line for line in console)


# ------------------------------------------------------------------------------------------ fits the screen ---
# The page is drawn in an iframe of the wanted width (headless Chromium will not make its window narrower than
# 500 px); a probe script added to a copy of the page measures the document's scroll width and names any element
# that reaches past the right edge outside a box that scrolls (.scroll, pre). No overflow: the page body never scrolls
# sideways; wide tables and figures scroll inside their box.

_PROBE = """<script>
var W = document.documentElement.clientWidth, wide = [];
function scrolls(e) {          // inside a box that scrolls sideways (a .scroll div, a pre)
  for (var a = e.parentElement; a && a !== document.body; a = a.parentElement)
    if (['auto', 'scroll', 'hidden'].indexOf(getComputedStyle(a).overflowX) >= 0) return true;
  return false;
}
document.querySelectorAll('body *').forEach(function (e) {
  var r = e.getBoundingClientRect();
  if (r.right > W + 0.5 && !scrolls(e))
    wide.push(e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ':' + Math.round(r.right));
});
console.log('FIT scroll=' + document.documentElement.scrollWidth + ' width=' + W + ' wide=' + wide.slice(0, 5).join(','));
</script>"""


def _probe(chromium, page_text, script, pattern, tmp_path, width, name):
    """The match of `pattern` in the console output of `script`, run in a copy of the page drawn `width` px wide."""
    probe = tmp_path / ("%s-%d.html" % (name, width))
    probe.write_text(page_text.replace("</body>", script + "</body>"), encoding="utf-8")
    frame = tmp_path / ("frame-%s-%d.html" % (name, width))
    frame.write_text('<!DOCTYPE html><html><body style="margin:0"><iframe src="%s" style="border:0;width:%dpx;'
                     'height:900px"></iframe></body></html>' % (probe.name, width), encoding="utf-8")
    console = "\n".join(chromium.load(frame.as_uri(), max(width, 800), 900))
    found = re.search(pattern, console)
    assert found, console[-2000:]
    return found


def _fit(chromium, page_text, tmp_path, width, name="page"):
    """(document scroll width, viewport width, elements past the edge) of a page drawn `width` px wide."""
    found = _probe(chromium, page_text, _PROBE, r"FIT scroll=(\d+) width=(\d+) wide=([^\"]*)", tmp_path, width,
                   name)
    return int(found.group(1)), int(found.group(2)), found.group(3)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_results_page_fits_a_screen_and_a_phone(scored_page, tmp_path, width, chromium):
    scroll, viewport, wide = _fit(chromium, scored_page[0].read_text(encoding="utf-8"), tmp_path, width)
    assert viewport == width
    assert scroll <= viewport and wide == "", (scroll, wide)


_VALUES_PROBE = """<script>
var W = document.documentElement.clientWidth, cells = document.querySelectorAll('table.entries td:nth-child(2)'),
    out = 0;
cells.forEach(function (c) { if (c.getBoundingClientRect().right > W + 0.5) out++; });
console.log('VALUES cells=' + cells.length + ' outside=' + out);
</script>"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_leaderboard_values_are_on_screen_and_each_title_said_once(scored_page, tmp_path, width, chromium):
    """At 390 px the summary once repeated the task's title on every row and pushed the values off screen.
    Now one table per task, its title in the caption, the value beside each column's title, inside the screen."""
    page = scored_page[0].read_text(encoding="utf-8")
    summary = page[page.index('id="leaderboard"'):page.index("<section>")]
    for task in TASKS:
        assert summary.count("(%s)" % task.id) == 1
    found = _probe(chromium, page, _VALUES_PROBE, r"VALUES cells=(\d+) outside=(\d+)", tmp_path, width, "values")
    assert int(found.group(1)) == sum(len(t.columns) for t in TASKS) and found.group(2) == "0"


_COLUMNS_PROBE = """<script>
var tables = [];
document.querySelectorAll('h4').forEach(function (h) {
  if (h.textContent !== 'Leaderboard columns of every run') return;
  var box = h.nextElementSibling;
  tables.push(box.querySelectorAll('th').length + ':' + (box.scrollWidth - box.clientWidth));
});
console.log('COLUMNS ' + tables.join(','));
</script>"""


def test_eight_leaderboard_columns_are_on_a_screen_without_scrolling(scored_page, tmp_path, chromium):
    """At 1280 px the table of every run's leaderboard columns scrolled inside its box for five of the seven tasks:
    headers such as 'MAP (relaxed)' kept on one line hid the last columns and the file behind a scroll bar. Headers
    wrap now, so a task of up to 8 columns (run, 8 values, file) fits a screen; r2c2-ac's 10 columns of long names
    still scroll inside their box, the run's name held at the left."""
    page = scored_page[0].read_text(encoding="utf-8")
    found = _probe(chromium, page, _COLUMNS_PROBE, r"COLUMNS ([\d:,-]*)", tmp_path, 1280, "columns")
    tables = [tuple(int(n) for n in t.split(":")) for t in found.group(1).split(",")]
    assert len(tables) == len(TASKS)
    narrow = [(headers, hidden) for headers, hidden in tables if headers <= 10]
    assert len(narrow) >= len(TASKS) - 1 and all(hidden == 0 for _, hidden in narrow), tables


def test_the_rejected_page_with_grouped_errors_fits_a_phone(rejected_page, tmp_path, chromium):
    scroll, viewport, wide = _fit(chromium, rejected_page.read_text(encoding="utf-8"), tmp_path, 390)
    assert scroll <= viewport == 390 and wide == ""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_bundle_pages_fit_a_screen_and_a_phone(tmp_path, width, chromium):
    from runscore.codabench.pages import markdown_pages, markdown_to_html

    pages = markdown_pages(all_tasks(), "runscore", os.path.join(ROOT, "docs"))
    widest = max(pages, key=lambda p: max(len(line) for line in p[2].splitlines() or [""]))
    scroll, viewport, wide = _fit(chromium, markdown_to_html(widest[2], widest[0]), tmp_path, width, "bundle")
    assert scroll <= viewport == width and wide == "", (widest[1], scroll, wide)


def test_the_fit_probe_sees_an_overflow(tmp_path, chromium):
    """The check above can fail: a 2000 px wide element outside a scroll box is reported."""
    scroll, viewport, wide = _fit(chromium, '<!DOCTYPE html><html><body><div style="width:2000px">x</div></body>'
                                  '</html>', tmp_path, 390, "bad")
    assert scroll > viewport and wide.startswith("div:")


def test_a_runs_notes_are_sentences_of_their_own(scored_page):
    """The notes of a run were run together ('... = judged_with_relevant) sample_run1: 1 subtopic(s) ...'): each ends
    with a full stop now."""
    if not any(t.id == "temporalia-tir" for t in TASKS):
        pytest.skip("needs the temporalia-tir task")
    page = scored_page[0].read_text(encoding="utf-8")
    assert "(average_over = judged_with_relevant). sample_run1: " in page
    assert "(average_over = judged_with_relevant) sample_run1" not in page
