"""The front door and the docs link only to what exists: every relative link of README.md and of docs/*.md names a
file of the repository, and its #anchor a heading of that file.

Why: README.md was cut to a short front door that sends the reader to docs/ for everything else; a link left behind
by a move would be the newcomer's first dead end.
"""
import os
import re

import pytest

from conftest import ROOT

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def pages():
    docs = os.path.join(ROOT, "docs")
    return ["README.md"] + sorted("docs/" + name for name in os.listdir(docs) if name.endswith(".md"))


def anchors(path):
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation but - and _ dropped, spaces as -."""
    text = FENCE.sub("", open(path, encoding="utf-8").read())
    found = set()
    for heading in re.findall(r"^#+\s+(.+?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


def relative_links(page):
    text = FENCE.sub("", open(os.path.join(ROOT, page), encoding="utf-8").read())
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("page", pages())
def test_every_relative_link_resolves(page):
    dead = []
    for target in relative_links(page):
        name, _, anchor = target.partition("#")
        path = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), name)) if name else os.path.join(ROOT, page)
        if not os.path.exists(path):
            dead.append("%s (no such file)" % target)
        elif anchor and path.endswith(".md") and anchor not in anchors(path):
            dead.append("%s (no such heading)" % target)
    assert dead == [], "%s: %s" % (page, "; ".join(dead))


def test_the_readme_is_a_short_front_door():
    """Who it is for, the two commands, the three journeys, links: the rest lives in docs/."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert len(text.splitlines()) <= 150
    for heading in ("## Two commands", "## Three journeys", "## Read on"):
        assert heading in text
    assert relative_links("README.md"), "the README links to the docs"


def test_a_dead_link_and_a_dead_anchor_are_found(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Title\n\n## The shape table\n")
    (tmp_path / "README.md").write_text("[ok](docs/a.md#the-shape-table) [gone](docs/b.md) [old](docs/a.md#shapes)\n"
                                        "```\n[in a code block](nowhere.md)\n```\n[web](https://example.org/x)\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", str(tmp_path))
    with pytest.raises(AssertionError) as failed:
        test_every_relative_link_resolves("README.md")
    assert "docs/b.md (no such file)" in str(failed.value) and "docs/a.md#shapes (no such heading)" in str(failed.value)
    assert "docs/a.md#the-shape-table" not in str(failed.value) and "nowhere" not in str(failed.value)


def test_the_shape_table_is_in_performance_md_as_make_bench_docs_writes_it(monkeypatch):
    """`make bench-docs` (benchmarks/shapes.py --from-json benchmarks/shapes.json --update-docs) writes the shape
    table into docs/performance.md only, between its markers: the table there is that rendering of the last
    measured rows, never typed, and the README, which links to it, holds no copy to fall out of date."""
    import json
    import sys

    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import shapes

    assert shapes.DOCS == os.path.join(ROOT, "docs", "performance.md")
    with open(os.path.join(ROOT, "benchmarks", "shapes.json"), encoding="utf-8") as handle:
        saved = json.load(handle)
    monkeypatch.setattr(shapes, "SHAPE_INDEX", shapes.file_shapes(1.0))     # as main() sets it
    text = shapes.table([tuple(row) for row in saved["rows"]], saved["header"])
    page = open(shapes.DOCS, encoding="utf-8").read()
    assert page.split(shapes.BEGIN, 1)[1].split(shapes.END, 1)[0] == "\n" + text
    assert shapes.BEGIN not in open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
