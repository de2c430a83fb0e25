"""The bundle linter: a clean bundle passes; each way shared/specs/codabench.md says a bundle breaks is caught.

The mutations start from the bundle `runscore bundle` builds (held in memory) and change one thing each; every
row names the rule code the linter must report as an error (and the clean bundle must report no error at all).
"""
import copy
import io
import zipfile

import pytest

from conftest import ROOT, run_cli
from runscore.codabench.bundle import bundle_members
from runscore.codabench.bundle_plan import BundlePlan, select_tasks
from runscore.codabench.competition_yaml import competition_v1, competition_v2, yaml_text
from runscore.codabench.lint import BundleView, lint_bundle

PLAN = BundlePlan(ROOT, select_tasks(ROOT)[:1])
OTHER = BundlePlan(ROOT, select_tasks(ROOT)[1:2])


@pytest.fixture(scope="module")
def members():
    return bundle_members(PLAN)


@pytest.fixture(scope="module")
def members_v1():
    return bundle_members(PLAN, v1=True)


def lint(members, competition=None, v1=False):
    members = dict(members)
    if competition is not None:
        members["competition.yaml"] = yaml_text(competition).encode("utf-8")
        members = {"competition.yaml": members.pop("competition.yaml"), **members}
    return lint_bundle(BundleView.from_members(members, "bundle.zip"))


def errors(found):
    return [d for d in found if d.severity == "error"]


def test_clean_bundles_have_no_error(members, members_v1):
    assert errors(lint(members)) == []
    assert errors(lint(members_v1)) == []


# ---------------------------------------------------------------------------------------------- v2 ---

def _drop(key):
    def mutate(c, m):
        del c[key]
    return mutate


def _set(path, value):
    def mutate(c, m):
        node = c
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return mutate


def _rename_leaderboards(c, m):
    c["leaderboard"] = c.pop("leaderboards")


def _empty_file(name):
    def mutate(c, m):
        m[name] = b"  \n"
    return mutate


def _remove_file(name):
    def mutate(c, m):
        del m[name]
    return mutate


def _duplicate_column(field):
    def mutate(c, m):
        columns = c["leaderboards"][0]["columns"]
        columns[1][field] = columns[0][field]
    return mutate


def _overlap(c, m):
    c["phases"][1]["start"] = c["phases"][0]["end"]        # an end equal to the next start is rejected


def _program_metadata(text):
    def mutate(c, m):
        m["scoring_program/metadata"] = text.encode("utf-8")
    return mutate


def _program_in_folder(c, m):
    for name in [n for n in m if n.startswith("scoring_program/")]:
        m["scoring_program/inner/" + name[len("scoring_program/"):]] = m.pop(name)


def _reference_metadata(c, m):
    first = sorted(n for n in m if n.startswith("reference_data/"))[0]
    m[first.rsplit("/", 1)[0] + "/metadata"] = b"ref: something\n"


def _broken_task_yaml(c, m):
    first = sorted(n for n in m if n.startswith("reference_data/") and n.endswith("/task.yaml"))[0]
    m[first] = b"task: [unclosed\n"


def _unknown_option(c, m):
    first = sorted(n for n in m if n.startswith("reference_data/") and n.endswith("/task.yaml"))[0]
    if b"\noptions:" in m[first]:
        m[first] = m[first].replace(b"\noptions:", b"\noptions:\n  no_such_option_anywhere: 1", 1)
    else:
        m[first] = m[first] + b"\noptions:\n  no_such_option_anywhere: 1\n"


def _remove_column(c, m):
    c["leaderboards"][0]["columns"].pop()


def _self_computation(c, m):
    columns = c["leaderboards"][0]["columns"]
    columns.append({"title": "Average", "key": "average", "index": 999, "computation": "avg",
                    "computation_indexes": [999]})


def _phase_task(tasks):
    return _set(("phases", 0, "tasks"), tasks)


def _duplicate_task_index(c, m):
    c["tasks"].append(dict(c["tasks"][0]))


V2_MUTATIONS = [
    ("no version", _drop("version"), "v2-version"),
    ("singular leaderboard", _rename_leaderboards, "v2-plural-leaderboards"),
    ("no title", _drop("title"), "v2-required"),
    ("no image", _drop("image"), "v2-required"),
    ("no terms", _drop("terms"), "v2-required"),
    ("no pages", _drop("pages"), "v2-required"),
    ("no tasks", _drop("tasks"), "v2-required"),
    ("no phases", _drop("phases"), "v2-required"),
    ("pages not a list", _set(("pages",), "pages/overview.md"), "v2-pages"),
    ("page without file", _set(("pages", 0), {"title": "Overview"}), "v2-pages"),
    ("page file missing", _set(("pages", 0, "file"), "pages/nope.md"), "file-missing"),
    ("page file empty", _empty_file("pages/overview.md"), "file-empty"),
    ("terms file empty", _empty_file("pages/terms.md"), "file-empty"),
    ("page not UTF-8", lambda c, m: m.update({"pages/overview.md": "Caf\u00e9".encode("latin-1")}), "file-encoding"),
    ("logo missing", _remove_file("logo.png"), "file-missing"),
    ("no docker image", _drop("docker_image"), "docker-image"),
    ("column key too long", _set(("leaderboards", 0, "columns", 0, "key"), "k" * 37), "column-key-length"),
    ("column key with a dash", _set(("leaderboards", 0, "columns", 0, "key"), "a-b"), "column-key"),
    ("column title too long", _set(("leaderboards", 0, "columns", 0, "title"), "T" * 37), "column-title-length"),
    ("duplicate column index", _duplicate_column("index"), "column-index-unique"),
    ("duplicate column key", _duplicate_column("key"), "column-key-unique"),
    ("leaderboard key too long", _set(("leaderboards", 0, "key"), "k" * 37), "v2-leaderboard-key"),
    ("leaderboard title too long", _set(("leaderboards", 0, "title"), "T" * 65), "v2-leaderboard-title"),
    ("bad submission rule", _set(("leaderboards", 0, "submission_rule"), "Best"), "v2-submission-rule"),
    ("no columns", _set(("leaderboards", 0, "columns"), []), "v2-columns"),
    ("bad sorting", _set(("leaderboards", 0, "columns", 0, "sorting"), "up"), "column-sorting"),
    ("computation on itself", _self_computation, "column-computation"),
    ("column never written", _set(("leaderboards", 0, "columns", 0, "key"), "renamed_key"), "score-keys"),
    ("written key without column", _remove_column, "score-keys"),
    ("first phase without end", _set(("phases", 0, "end"), None), "v2-phase-dates"),
    ("phases overlap", _overlap, "v2-phase-overlap"),
    ("phase ends before it starts", _set(("phases", 0, "end"), "2025-01-01 00:00:00"), "v2-phase-dates"),
    ("month-first date", _set(("phases", 0, "start"), "1-1-2026"), "date-format"),
    ("phase without tasks", _phase_task([]), "v2-phase-tasks"),
    ("phase with unknown task", _phase_task([7]), "v2-phase-tasks"),
    ("phase index not a number", _set(("phases", 0, "index"), []), "v2-phase-index"),
    ("phase task not a number", _phase_task([{}]), "v2-phase-tasks"),
    ("phase without name", lambda c, m: c["phases"][0].pop("name"), "v2-phase-required"),
    ("starting kit missing", _set(("phases", 0, "starting_kit"), "kit/"), "path-missing"),
    ("duplicate task index", _duplicate_task_index, "v2-task-index"),
    ("task without program", lambda c, m: c["tasks"][0].pop("scoring_program"), "v2-task-program"),
    ("task without reference data", lambda c, m: c["tasks"][0].pop("reference_data"), "v2-task-reference"),
    ("reference data path missing", _set(("tasks", 0, "reference_data"), "ref/"), "path-missing"),
    ("metadata with an extra key", _program_metadata("command: python3 $program/score.py $input $output\n"
                                                     "data: http://example.org/x.zip\n"), "program-metadata"),
    ("metadata command differs", _program_metadata("command: python $program/score.py $input $output\n"),
     "program-command"),
    ("metadata command with two spaces", _program_metadata("command: python3  $program/score.py $input $output\n"),
     "program-command"),
    ("metadata not YAML mapping", _program_metadata("just text\n"), "program-metadata"),
    ("program inside a folder", _program_in_folder, "program-metadata"),
    ("no score.py", _remove_file("scoring_program/score.py"), "program-files"),
    ("reference holds a metadata file", _reference_metadata, "reference-metadata"),
    ("reference task.yaml broken", _broken_task_yaml, "reference-load"),
    ("reference with an unknown option", _unknown_option, "reference-load"),
]


@pytest.mark.parametrize("name,mutate,code", V2_MUTATIONS, ids=[m[0] for m in V2_MUTATIONS])
def test_v2_mutation_is_caught(members, name, mutate, code):
    competition = copy.deepcopy(competition_v2(PLAN))
    changed = dict(members)
    mutate(competition, changed)
    found = errors(lint(changed, competition))
    assert code in {d.code for d in found}, "expected %s, got %s" % (code, [str(d) for d in found])


def test_findings_point_at_the_yaml_line(members):
    competition = copy.deepcopy(competition_v2(PLAN))
    competition["leaderboards"][0]["columns"][0]["title"] = "T" * 37
    text = yaml_text(competition)
    expected_line = next(i for i, line in enumerate(text.splitlines(), 1) if "T" * 37 in line)
    found = [d for d in lint(members, competition) if d.code == "column-title-length"]
    assert [d.line for d in found] == [expected_line]
    assert str(found[0]).startswith("competition.yaml:%d: error: column title 'TTT" % expected_line)


def test_invalid_yaml_reports_its_line(members):
    changed = dict(members)
    changed["competition.yaml"] = b"version: 2\ntitle: [unclosed\nimage: logo.png\n"
    found = lint(changed)
    assert [(d.code, d.line) for d in found] == [("yaml-syntax", 3)]


def test_competition_yaml_inside_a_folder(members):
    wrapped = {"bundle/" + name: content for name, content in members.items()}
    found = lint(wrapped)
    assert [d.code for d in found] == ["yaml-at-root"]
    assert "zip the folder's contents, not the folder" in found[0].message


def test_competition_yaml_not_first_is_a_warning(members):
    changed = {"logo.png": members["logo.png"]}
    changed.update(members)
    found = lint_bundle(BundleView.from_members(changed, "bundle.zip"))
    assert errors(found) == [] and [d.code for d in found] == ["zip-order"]


def test_multi_task_phase_and_long_limit_are_warnings(members):
    competition = copy.deepcopy(competition_v2(PLAN))
    competition["tasks"].append(dict(competition["tasks"][0], index=len(competition["tasks"])))
    competition["phases"][0]["tasks"] = [0, len(competition["tasks"]) - 1]
    competition["phases"][0]["execution_time_limit"] = 3600
    found = lint(members, competition)
    assert errors(found) == []
    assert {"v2-multi-task-phase", "v2-time-limit"} <= {d.code for d in found if d.severity == "warning"}


def _two_tasks_on_one_leaderboard(v1=False):
    """The withdrawn layout: one reference folder of two tasks, the columns of both on one leaderboard."""
    both = dict(bundle_members(OTHER, v1)) if not v1 else {}
    if v1:
        with zipfile.ZipFile(io.BytesIO(bundle_members(PLAN, v1=True)["reference_data.zip"])) as a, \
                zipfile.ZipFile(io.BytesIO(bundle_members(OTHER, v1=True)["reference_data.zip"])) as b:
            merged = {n: a.read(n) for n in a.namelist()}
            merged.update({n: b.read(n) for n in b.namelist()})
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data in merged.items():
                archive.writestr(name, data)
        members = dict(bundle_members(PLAN, v1=True), **{"reference_data.zip": buffer.getvalue()})
        competition = copy.deepcopy(competition_v1(PLAN))
        competition["leaderboard"]["columns"].update(competition_v1(OTHER)["leaderboard"]["columns"])
        return members, competition
    members = dict(bundle_members(PLAN))
    members.update({n: c for n, c in both.items() if n.startswith("reference_data/")})
    competition = copy.deepcopy(competition_v2(PLAN))
    competition["tasks"][0]["reference_data"] = "reference_data/"
    columns = competition["leaderboards"][0]["columns"]
    for column in competition_v2(OTHER)["leaderboards"][0]["columns"]:
        columns.append(dict(column, index=len(columns)))
    return members, competition


@pytest.mark.parametrize("v1", [False, True], ids=["v2", "v1.5"])
def test_a_leaderboard_a_valid_submission_leaves_empty_is_an_error(v1):
    """Codabench ranks an empty cell first (NULLs first on DESC), so columns of two tasks on one leaderboard
    rank one task's rows above the other's: every task of the reference data gets a ranking error."""
    members, competition = _two_tasks_on_one_leaderboard(v1)
    found = [d for d in errors(lint(members, competition)) if d.code == "ranking-empty-column"]
    assert sorted({d.message.split(" runs only")[0].split(" of ")[-1] for d in found}) == \
        sorted([PLAN.task.id, OTHER.task.id])
    assert "Codabench ranks an empty cell first" in found[0].message


@pytest.mark.parametrize("rule", ["Add", "Add_And_Delete", "Add_And_Delete_Multiple", None])
def test_manual_submission_rules_are_a_warning_that_says_why(members, rule):
    competition = copy.deepcopy(competition_v2(PLAN))
    if rule is None:
        del competition["leaderboards"][0]["submission_rule"]
    else:
        competition["leaderboards"][0]["submission_rule"] = rule
    found = lint(members, competition)
    assert errors(found) == []
    manual = [d for d in found if d.code == "submission-rule-manual"]
    assert len(manual) == 1 and "ManualModeStrategy" in manual[0].message and "by hand" in manual[0].message


@pytest.mark.parametrize("rule", ["Force_Latest_Multiple", "Force_Best", "Force_Last"])
def test_automatic_submission_rules_give_no_warning(members, rule):
    competition = copy.deepcopy(competition_v2(PLAN))
    competition["leaderboards"][0]["submission_rule"] = rule
    assert lint(members, competition) == []


# ---------------------------------------------------------------------------------------------- v1.5 ---

def _v1_drop_html(key):
    def mutate(c, m):
        del c["html"][key]
    return mutate


def _v1_phase(key, value):
    def mutate(c, m):
        if value is None:
            del c["phases"][1][key]
        else:
            c["phases"][1][key] = value
    return mutate


def _v1_duplicate_labels(c, m):
    columns = list(c["leaderboard"]["columns"].values())
    columns[1]["label"] = columns[0]["label"]


def _v1_yaml_not_first(c, m):
    m["aaa.yaml"] = b"x: 1\n"


V1_MUTATIONS = [
    ("unknown top-level key", _set(("allow_everything",), True), "v1-unknown-key"),
    ("no html.data", _v1_drop_html("data"), "v1-html"),
    ("no html.terms", _v1_drop_html("terms"), "v1-html"),
    ("html page missing", _set(("html", "overview"), "nope.html"), "file-missing"),
    ("html page not UTF-8", lambda c, m: m.update({"data.html": b"<p>\xe9</p>"}), "file-encoding"),
    ("reference data as a folder", _v1_phase("reference_data", "reference_data/"), "v1-zip-ref"),
    ("no reference data", _v1_phase("reference_data", None), "v1-phases"),
    ("no start date", _v1_phase("start_date", None), "v1-phases"),
    ("no docker image", _drop("competition_docker_image"), "docker-image"),
    ("duplicate column labels", _v1_duplicate_labels, "column-title-unique"),
    ("no leaderboard", _drop("leaderboard"), "v1-leaderboard"),
    ("leaderboard label a list", _set(("leaderboard", "leaderboards", "RESULTS", "label"), []), "v1-leaderboard"),
    ("column label a list", lambda c, m: next(iter(c["leaderboard"]["columns"].values())).update(label=[]),
     "column-title"),
    ("phases out of order", _set(("phases", 2, "start_date"), "2025-01-01 00:00:00"), "v1-phase-dates"),
]


@pytest.mark.parametrize("name,mutate,code", V1_MUTATIONS, ids=[m[0] for m in V1_MUTATIONS])
def test_v1_mutation_is_caught(members_v1, name, mutate, code):
    competition = copy.deepcopy(competition_v1(PLAN))
    changed = dict(members_v1)
    mutate(competition, changed)
    found = errors(lint(changed, competition))
    assert code in {d.code for d in found}, "expected %s, got %s" % (code, [str(d) for d in found])


def test_v1_competition_yaml_must_be_the_first_yaml(members_v1):
    changed = {"aaa.yaml": b"x: 1\n"}
    changed.update(members_v1)
    assert "v1-first-yaml" in {d.code for d in errors(lint_bundle(BundleView.from_members(changed, "b.zip")))}


def test_v1_program_zip_with_a_folder(members_v1):
    inner = zipfile.ZipFile(io.BytesIO(members_v1["scoring_program.zip"]))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name in inner.namelist():
            out.writestr("scoring_program/" + name, inner.read(name))
    changed = dict(members_v1, **{"scoring_program.zip": buffer.getvalue()})
    found = errors(lint(changed))
    assert [d.code for d in found] == ["program-metadata", "program-metadata"]     # both phases use it
    assert "inside a folder scoring_program/" in found[0].message


# ---------------------------------------------------------------------------------------------- CLI ---

def test_cli_exit_codes(tmp_path, members):
    good = tmp_path / "good.zip"
    bad = tmp_path / "bad.zip"
    for path, content in ((good, members), (bad, dict(members, **{"pages/overview.md": b""}))):
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in content.items():
                archive.writestr(name, data)
    code, out, err = run_cli("lint-bundle", good)
    assert (code, out.splitlines()[-1]) == (0, "bundle ok: 0 error(s), 0 warning(s)")
    code, out, err = run_cli("lint-bundle", bad)
    assert code == 1
    assert "competition.yaml:" in out and "page 'Overview' 'pages/overview.md' is empty [file-empty]" in out
    code, out, err = run_cli("lint-bundle", tmp_path / "missing.zip")
    assert code == 2 and "does not exist" in err
    (tmp_path / "text.zip").write_text("not a zip")
    code, out, err = run_cli("lint-bundle", tmp_path / "text.zip")
    assert code == 2 and "neither a folder nor a zip" in err


# ------------------------------------------------------------------------------------- submission limits ---

@pytest.mark.parametrize("v1", [False, True])
def test_phases_without_submission_limits_get_a_warning(members, members_v1, v1):
    competition = copy.deepcopy(competition_v1(PLAN) if v1 else competition_v2(PLAN))
    phases = list(competition["phases"].values()) if v1 else competition["phases"]
    del phases[1]["max_submissions"]
    found = lint(members_v1 if v1 else members, competition, v1)
    assert errors(found) == []
    limits = [d for d in found if d.code == "submission-limits"]
    assert len(limits) == 1 and "does not set max_submissions" in limits[0].message
    assert "not the campaign's rule" in limits[0].message


@pytest.mark.parametrize("value", [0, -3, "5", True, 2.5])
def test_a_submission_limit_must_be_a_positive_whole_number(members, value):
    competition = copy.deepcopy(competition_v2(PLAN))
    competition["phases"][1]["max_submissions_per_day"] = value
    found = [d for d in errors(lint(members, competition)) if d.code == "submission-limits"]
    assert len(found) == 1 and "must be a positive whole number" in found[0].message


def test_more_a_day_than_in_all_is_a_warning(members):
    competition = copy.deepcopy(competition_v2(PLAN))
    competition["phases"][1].update({"max_submissions_per_day": 9, "max_submissions": 3})
    found = [d for d in lint(members, competition) if d.code == "submission-limits"]
    assert [d.severity for d in found] == ["warning"] and "9 submissions a day but 3 in all" in found[0].message
