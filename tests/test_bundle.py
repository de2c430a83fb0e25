"""`runscore bundle`: the upload zip of one task's competition is what the spec asks for and lints clean; a
rejected bundle leaves no file. (Scoring the unzipped competitions and ranking their rows: test_competitions.py.)
"""
import io
import os
import shutil
import struct
import zipfile
import zlib

import pytest
import yaml

from conftest import ROOT, run_cli
from runscore.codabench.bundle import root_files
from runscore.codabench.bundle_files import FORMAL_REFERENCE
from runscore.codabench.bundle_plan import BundlePlan, select_tasks
from runscore.codabench.competition_yaml import competition_v2
from runscore.codabench.kit import schema_files
from runscore.codabench.leaderboard import MAX_KEY, MAX_TITLE
from runscore.codabench.logo import logo_png
from runscore.tasks import all_tasks

TASKS = select_tasks(ROOT)


FIRST = TASKS[0]


@pytest.fixture(scope="module")
def bundle_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundle") / "bundle.zip"
    code, stdout, stderr = run_cli("bundle", "--tasks", FIRST.id, "-o", out)
    assert code == 0, stdout + stderr
    assert "linted" in stdout and "error" not in stdout    # the builder lints what it built
    return out


def test_zip_layout(bundle_zip):
    with zipfile.ZipFile(bundle_zip) as archive:
        names = archive.namelist()
    assert names[0] == "competition.yaml"                       # first, and at the root (not in a folder)
    assert {"logo.png", "pages/terms.md", "pages/overview.md", "scoring_program/metadata",
            "scoring_program/score.py", "scoring_program/runscore/__init__.py"} <= set(names)
    for name in names:
        parts = name.split("/")
        assert parts[0] in {"competition.yaml", "logo.png", "pages", "scoring_program", "reference_data",
                            "reference_data_formal", "starting_kit"}, name
        assert not any(p.startswith(".") or p in ("__pycache__", "tests", "run") for p in parts), name
        assert not name.endswith((".pyc", ".egg-info")), name
    assert {n.split("/")[1] for n in names if n.startswith("reference_data/")} == {FIRST.id}
    # without --reference the formal phase collects runs: its folder is one task.yaml saying so
    assert [n for n in names if n.startswith("reference_data_formal/")] == \
        ["reference_data_formal/%s/task.yaml" % FIRST.id]
    with zipfile.ZipFile(bundle_zip) as archive:
        assert yaml.safe_load(archive.read("reference_data_formal/%s/task.yaml" % FIRST.id)) == \
            {"task": FIRST.id, "mode": "collect"}


def test_zip_is_reproducible(bundle_zip, tmp_path):
    again = tmp_path / "again.zip"
    assert run_cli("bundle", "--no-lint", "--tasks", FIRST.id, "-o", again)[0] == 0
    assert again.read_bytes() == bundle_zip.read_bytes()


def test_leaderboard_columns_follow_the_registry(bundle_zip):
    with zipfile.ZipFile(bundle_zip) as archive:
        competition = yaml.safe_load(archive.read("competition.yaml"))
    columns = competition["leaderboards"][0]["columns"]
    expected = [FIRST.leaderboard_key(c) for c in FIRST.columns]
    assert [c["key"] for c in columns] == expected
    assert [c["title"] for c in columns] == [c.title for c in FIRST.columns]
    assert [c["index"] for c in columns] == list(range(len(expected)))
    assert all(len(c["key"]) <= MAX_KEY and len(c["title"]) <= MAX_TITLE for c in columns)
    assert competition["version"] == 2 and competition["docker_image"] == "codalab/codalab-legacy:py39"
    assert competition["enable_detailed_results"] is True
    assert competition["leaderboards"][0]["submission_rule"] == "Force_Latest_Multiple"
    # the dry run scores the sample data; without --reference the formal phase collects
    assert len(competition["tasks"]) == 2 and [p["tasks"] for p in competition["phases"]] == [[0], [1]]
    assert competition["tasks"][0]["reference_data"] == "reference_data/%s/" % FIRST.id
    assert competition["tasks"][1]["reference_data"] == "reference_data_formal/%s/" % FIRST.id
    assert competition["leaderboards"][0]["hidden"] is True and competition["phases"][1]["end"]


def test_one_task_bundle_holds_that_task_only(tmp_path):
    task = TASKS[1]
    out = tmp_path / "one.zip"
    code, stdout, stderr = run_cli("bundle", "--tasks", task.id, "-o", out)
    assert code == 0, stdout + stderr
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        competition = yaml.safe_load(archive.read("competition.yaml"))
    assert [c["key"] for c in competition["leaderboards"][0]["columns"]] == \
        [task.leaderboard_key(c) for c in task.columns]
    assert {n.split("/")[1] for n in names if n.startswith("reference_data/")} == {task.id}
    assert {n.split("/")[2] for n in names if n.startswith("starting_kit/sample_submission/")} == {task.id}
    assert [n for n in names if n.startswith("pages/task-")] == ["pages/task-%s.md" % task.id]


def test_formal_reference_gets_its_own_task(tmp_path):
    task = FIRST
    formal = tmp_path / "formal"
    shutil.copytree(os.path.join(ROOT, "reference_data", task.id), formal / task.id)
    out = tmp_path / "formal.zip"
    code, stdout, stderr = run_cli("bundle", "--tasks", task.id, "--reference", formal, "-o", out,
                                   "--dates", "2026-02-01 00:00:00,2026-02-28 23:59:59,2026-03-01 00:00:00")
    assert code == 0, stdout + stderr
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        competition = yaml.safe_load(archive.read("competition.yaml"))
    assert [t["reference_data"] for t in competition["tasks"]] == \
        ["reference_data/%s/" % task.id, "%s/%s/" % (FORMAL_REFERENCE, task.id)]
    assert [p["tasks"] for p in competition["phases"]] == [[0], [1]]
    assert [p["start"] for p in competition["phases"]] == ["2026-02-01 00:00:00", "2026-03-01 00:00:00"]
    assert any(n.startswith(FORMAL_REFERENCE + "/%s/" % task.id) for n in names)


BAD_USAGE = [
    (("bundle", "--tasks", "no-such-task", "-o", "{tmp}/x.zip"), "unknown task 'no-such-task'"),
    (("bundle", "--tasks", "ntcir1-adhoc", "--reference", "{tmp}/nothing", "-o", "{tmp}/x.zip"), "does not exist"),
    (("bundle", "--tasks", "ntcir1-adhoc", "--dates", "2026-01-01", "-o", "{tmp}/x.zip"), "--dates expects"),
    (("bundle",), "give either --tasks T -o FILE.zip"),
    (("bundle", "--tasks", "ntcir1-adhoc", "--reference", "{tmp}", "-o", "{tmp}/x.zip"), "has no folder for"),
    (("bundle", "--tasks", "ntcir1-adhoc,temporalia-tqic", "-o", "{tmp}/x.zip"), "builds one task's competition"),
    (("bundle", "-o", "{tmp}/x.zip"), "builds one task's competition"),
    (("bundle", "--per-task", "{tmp}", "-o", "{tmp}/x.zip"), "give either"),
]


@pytest.mark.parametrize("argv,message", BAD_USAGE, ids=[m for _, m in BAD_USAGE])
def test_bad_usage_exits_2(tmp_path, argv, message):
    code, stdout, stderr = run_cli(*[a.format(tmp=tmp_path) for a in argv])
    assert code == 2 and message in stderr and "Traceback" not in stderr
    assert not (tmp_path / "x.zip").exists()


def test_several_tasks_never_share_a_competition():
    from runscore.errors import ConfigError

    with pytest.raises(ConfigError, match="one competition per task|build one bundle per task"):
        BundlePlan(ROOT, TASKS[:2])


def test_reference_with_a_metadata_file_is_refused(tmp_path):
    task = FIRST
    formal = tmp_path / "formal"
    shutil.copytree(os.path.join(ROOT, "reference_data", task.id), formal / task.id)
    (formal / task.id / "metadata").write_text("x: y\n")
    code, stdout, stderr = run_cli("bundle", "--tasks", task.id, "--reference", formal, "-o", tmp_path / "x.zip")
    assert code == 2 and "holds a file named 'metadata'" in stderr


def test_a_rejected_bundle_leaves_no_file(tmp_path):
    """The linter rejects the formal data (an unknown option): exit 2 and nothing on disk, not even the
    temporary zip, so a rejected bundle cannot be uploaded by mistake."""
    task = FIRST
    formal = tmp_path / "formal"
    shutil.copytree(os.path.join(ROOT, "reference_data", task.id), formal / task.id)
    with open(formal / task.id / "task.yaml", "a") as handle:
        handle.write("  no_such_option: 1\n")
    out = tmp_path / "dist" / "x.zip"
    code, stdout, stderr = run_cli("bundle", "--tasks", task.id, "--reference", formal, "-o", out)
    assert code == 2, stdout + stderr
    assert "reference-load" in stdout and "not written" in stderr and "wrote" not in stdout
    assert os.listdir(tmp_path / "dist") == []
    code, stdout, stderr = run_cli("bundle", "--per-task", tmp_path / "dist", "--tasks", task.id,
                                   "--reference", formal)
    assert code == 2 and os.listdir(tmp_path / "dist") == []


def test_v1_bundle_nests_zips_with_contents_at_their_root(tmp_path):
    out = tmp_path / "v1.zip"
    code, stdout, stderr = run_cli("bundle", "--v1", "--tasks", FIRST.id, "-o", out)
    assert code == 0, stdout + stderr
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        competition = yaml.safe_load(archive.read("competition.yaml"))
        program = zipfile.ZipFile(io.BytesIO(archive.read("scoring_program.zip"))).namelist()
        reference = zipfile.ZipFile(io.BytesIO(archive.read("reference_data.zip"))).namelist()
        overview = archive.read("overview.html").decode("utf-8")
    assert names[0] == "competition.yaml" and not any("/" in n for n in names)
    assert [n for n in names if ".yaml" in n] == ["competition.yaml"]
    assert program[0] == "metadata" and "score.py" in program
    assert {n.split("/")[0] for n in reference} == {FIRST.id}
    assert "version" not in competition and set(competition["html"]) >= {"overview", "evaluation", "terms", "data"}
    assert all(p["scoring_program"].endswith(".zip") and p["reference_data"].endswith(".zip")
               for p in competition["phases"].values())
    assert list(competition["leaderboard"]["columns"]) == [FIRST.leaderboard_key(c) for c in FIRST.columns]
    assert "each participant has one row" in overview          # the legacy leaderboard behaviour is stated


# ------------------------------------------------------------------------ committed files are current ---

def test_committed_bundle_files_are_current():
    files = root_files(ROOT)
    stale = []
    for name, content in files.items():
        path = os.path.join(ROOT, *name.split("/"))
        if not os.path.exists(path) or open(path, "rb").read() != content:
            stale.append(name)
    pages = {"pages/" + n for n in os.listdir(os.path.join(ROOT, "pages"))}
    stale += sorted(pages - set(files))
    assert stale == [], "stale bundle files %s: run `make bundle-files`" % stale


def test_published_schemas_are_the_program_schemas():
    published = os.path.join(ROOT, "starting_kit", "schemas")
    on_disk = {}
    for name in sorted(os.listdir(published)):
        with open(os.path.join(published, name), encoding="utf-8") as handle:
            on_disk[name] = handle.read()
    assert on_disk == schema_files(ROOT), "starting_kit/schemas differs: run `make bundle-files`"


def test_root_folder_lints_clean():
    code, stdout, stderr = run_cli("lint-bundle", ROOT)
    assert code == 0, stdout + stderr


# ------------------------------------------------------------------------ the logo ---

def test_logo_is_a_valid_png():
    data = logo_png()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xffffffff == crc
        chunks.append((kind, body))
        pos += 12 + length
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    raw = zlib.decompress(chunks[1][1])
    assert (width, height, depth, colour) == (96, 96, 8, 2) and len(raw) == height * (1 + 3 * width)
    pixels = {raw[r * (1 + 3 * width) + 1 + 3 * x: r * (1 + 3 * width) + 4 + 3 * x]
              for r in range(height) for x in range(width)}
    assert len(pixels) == 5                      # background and four bar colours: not a blank tile


def test_every_registered_task_with_samples_is_in_the_bundle():
    with_samples = [t.id for t in all_tasks() if os.path.isdir(os.path.join(ROOT, "reference_data", t.id))]
    assert [t.id for t in TASKS] == with_samples
    for task in TASKS:
        pages = {p["file"] for p in competition_v2(BundlePlan(ROOT, [task]))["pages"]}
        assert "pages/task-%s.md" % task.id in pages


# ------------------------------------------------------------------------ pages ---

MARKDOWN_CASES = [
    ("# Title", "<h1>Title</h1>"),
    ("### A `code` & <b>", "<h3>A <code>code</code> &amp; &lt;b&gt;</h3>"),
    ("one\ntwo", "<p>one two</p>"),
    ("* a **b**\n  continued\n* c", "<ul><li>a <strong>b</strong> continued</li><li>c</li></ul>"),
    ("| h1 | h2 |\n|---|---|\n| x \\| y | `z` |",
     '<div class="scroll"><table><thead><tr><th>h1</th><th>h2</th></tr></thead><tbody><tr><td>x | y</td><td><code>z'
     '</code></td></tr></tbody></table></div>'),
    ("```\n# not a heading <x>\n```", "<pre><code># not a heading &lt;x&gt;</code></pre>"),
    ("see [the spec](https://example.org/a?b=1&c=2)", '<p>see <a href="https://example.org/a?b=1&amp;c=2">the spec</a></p>'),
    ("*emphasis* and 2 * 3 * 4", "<p><em>emphasis</em> and 2 * 3 * 4</p>"),
]


@pytest.mark.parametrize("markdown,expected", MARKDOWN_CASES, ids=[m for m, _ in MARKDOWN_CASES])
def test_markdown_to_html(markdown, expected):
    from runscore.codabench.pages import markdown_to_html

    page = markdown_to_html(markdown, "T")
    body = page[page.index("<body>\n") + 7:page.index("\n</body>")]
    assert body == expected


def test_included_docs_nest_under_the_page_headings():
    from runscore.codabench.pages import demote_headings

    assert demote_headings("# A\ntext\n```\n# code\n```\n## B\n", 2) == "### A\ntext\n```\n# code\n```\n#### B\n"


def test_task_pages_state_the_registry_facts():
    """Every column key, measure and option of a task is on its page (they are read from the task itself)."""
    from runscore.codabench.pages import task_page

    for task in TASKS:
        page = task_page(task, None)
        for column in task.columns:
            assert "`%s`" % task.leaderboard_key(column) in page and "`%s`" % column.measure in page
        for option in task.options:
            assert "| `%s` |" % option.name in page


@pytest.mark.parametrize("title, expected", [
    ("DS2-QA Exact match (SQuAD normalised)", "DS2-QA Exact match (SQuAD\u2026"),     # not "... (SQuAD normali..."
    ("DS2-QA SQuAD v1.1 F1 (bag of words)", "DS2-QA SQuAD v1.1 F1 (bag of words)"),   # 35 characters: kept
    ("Averyveryverylongsinglewordthatcannotbreak", "Averyveryverylongsinglewordthatcann\u2026"),
])
def test_titles_are_shortened_at_a_word_boundary(title, expected):
    from runscore.codabench.leaderboard import MAX_TITLE, shorten_title

    assert shorten_title(title, MAX_TITLE) == expected and len(expected) <= MAX_TITLE


# ------------------------------------------------------------------------------------- submission limits ---

def test_formal_phase_takes_the_campaigns_submission_limits():
    """Per day and in all, from Task.formal_submissions (the seeds' run limits), else 5 / 100; the dry run 20 /
    200; written on the v1.5 phases too."""
    from runscore.codabench.competition_yaml import competition_v1
    from runscore.tasks import get_task
    expected = {"r2c2-pr": (4, 4), "r2c2-ac": (4, 4), "temporalia-tqic": (3, 3), "temporalia-tir": (3, 3),
                "qqa23-mrc": (3, 3), "datasearch-qa": (1, 100), "ntcir1-adhoc": (5, 100)}
    for task_id, (per_day, total) in expected.items():
        plan = BundlePlan(ROOT, [get_task(task_id)])
        dry, formal = competition_v2(plan)["phases"]
        assert (formal["max_submissions_per_day"], formal["max_submissions"]) == (per_day, total), task_id
        assert (dry["max_submissions_per_day"], dry["max_submissions"]) == (20, 200)
        v1 = competition_v1(plan)["phases"]
        assert (v1[2]["max_submissions_per_day"], v1[2]["max_submissions"]) == (per_day, total)
    plan = BundlePlan(ROOT, [get_task("r2c2-pr")], submissions=(2, 10))
    formal = competition_v2(plan)["phases"][1]
    assert (formal["max_submissions_per_day"], formal["max_submissions"]) == (2, 10)


@pytest.mark.parametrize("value, message", [("3", "expects PER_DAY,TOTAL"), ("0,5", "expects PER_DAY,TOTAL"),
                                            ("a,b", "expects PER_DAY,TOTAL"), ("9,3", "more than the total")])
def test_bad_submissions_option_is_exit_2(tmp_path, value, message):
    code, _, err = run_cli("bundle", "--tasks", "r2c2-pr", "-o", str(tmp_path / "b.zip"), "--submissions", value)
    assert code == 2 and message in err and not (tmp_path / "b.zip").exists()
