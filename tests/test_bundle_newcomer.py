"""What a newcomer meets in the built competitions: every page of every dist/<task>.zip is
self-contained (its links resolve in the bundle or are absolute public URLs, it cites no repository file, its
tables keep their columns), each kit holds only its task's files, the leaderboard sorts every column by its
measure's better direction, `make bundle REFERENCE=dir` writes nothing when a task folder is missing, and the
CodaLab v1.5 pages show no Markdown markup.
"""
import os
import re
import zipfile

import pytest
import yaml

from conftest import ROOT, run_cli
from runscore.codabench.bundle import build_zip
from runscore.codabench.bundle_plan import BundlePlan, select_tasks
from runscore.codabench.competition_yaml import competition_v2
from runscore.tasks.base import SORTING

TASKS = select_tasks(ROOT)


@pytest.fixture
def dist(competitions):
    """dist/<task>.zip for every task, as `make bundle` builds them (built once a run, conftest.competitions)."""
    return competitions.folder


def members(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


# ------------------------------------------------------------------------------------------ the crawler ---

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
# A file of the repository the participant does not have, or a citation of a source they cannot read.
REPOSITORY = re.compile(r"(\.\./(?:shared|docs|tests)\b|(?<![\w/.])(?:shared|docs|tests|benchmarks|starting_kit)/|"
                        r"(?<![\w/])(?:scoring_program/)?runscore/\w|\(spec\b|\bspecs?(?: section)? \d|"
                        r"\bseeds?\b|\bissue \d)")
PUBLIC_URL = re.compile(r"https?://[a-z0-9.-]+\.[a-z]{2,}(/\S*)?")


def slug(heading):
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def page_problems(name, text, bundle):
    """Every broken link, repository citation and broken table row of one Markdown page."""
    problems = []
    anchors = {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}
    for _, target in LINK.findall(text):
        if target.startswith("#"):
            ok = target[1:] in anchors
        elif re.match(r"[a-z]+:", target):
            ok = bool(PUBLIC_URL.fullmatch(target))
        else:
            ok = os.path.normpath(os.path.join(os.path.dirname(name), target)).replace(os.sep, "/") in bundle
        if not ok:
            problems.append("%s: link %r resolves nowhere in the bundle" % (name, target))
    for line in text.splitlines():
        match = REPOSITORY.search(line)
        if match:
            problems.append("%s: cites %r, which the participant does not have: %s" % (name, match.group(0), line))
        for md in re.findall(r"(?<![\w/.-])([\w-]+\.md)\b", line):
            if "pages/" + md not in bundle and "starting_kit/" + md not in bundle:
                problems.append("%s: names %s, not in the bundle: %s" % (name, md, line))
    fenced, width = False, None
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.count("$") >= 2:
            # Codabench typesets $...$ on a page as LaTeX (src/static/js/ours/latex_markdown_html.js), code
            # spans included: only a fenced block is safe
            problems.append("%s: $...$ would be typeset as LaTeX on Codabench: %s" % (name, line))
        if fenced or not line.startswith("|"):
            width = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        if width is None:
            width = cells
        elif cells != width:
            problems.append("%s: table row of %d cells under a header of %d: %s" % (name, cells, width, line))
    return problems


def test_every_page_of_every_competition_is_self_contained(dist):
    problems = []
    for task in TASKS:
        bundle = members(dist / ("%s.zip" % task.id))
        pages = yaml.safe_load(bundle["competition.yaml"])["pages"]
        for page in pages:
            problems += ["%s %s" % (task.id, p) for p in
                         page_problems(page["file"], bundle[page["file"]].decode("utf-8"), bundle)]
    assert problems == []


@pytest.mark.parametrize("text, expected", [
    ("| a | b |\n|---|---|\n| `x|y` | z |\n", "table row of 3 cells"),
    ("see [the docs](docs/r2c2-pr.md)\n", "resolves nowhere"),
    ("rule (spec 1.1)\n", "cites '(spec'"),
    ("from shared/specs/r2c2.md\n", "cites 'shared/'"),
    ("in `runscore/tasks/r2c2/pr.py`\n", "cites 'runscore/t'"),
    ("[ntcireval.md](ntcireval.md)\n", "names ntcireval.md"),
    ("run `python3 $program/score.py $input`\n", "typeset as LaTeX"),
])
def test_the_crawler_finds_what_it_looks_for(text, expected):
    assert any(expected in p for p in page_problems("pages/x.md", text, {"pages/x.md": b""}))


def test_a_pipe_in_a_code_span_of_a_table_is_escaped():
    from runscore.codabench.pages import participant_doc
    text = participant_doc("# T\n\n## Run file\n\n| rule | kind |\n|---|---|\n| name `[T]-{PG|PO}-[1-4]` | error |\n")
    assert "`[T]-{PG\\|PO}-[1-4]`" in text


# ------------------------------------------------------------------------------- leaderboard directions ---

def test_every_column_sorts_by_its_measures_better_direction():
    """competition.yaml's `sorting` of each column is the measure registry's direction; a column whose measure
    has none (OB, avconf, a count) comes after every ranked column, so it never breaks a tie on rank."""
    for task in TASKS:
        columns = competition_v2(BundlePlan(ROOT, [task]))["leaderboards"][0]["columns"]
        by_key = {task.leaderboard_key(c): c for c in task.columns}
        directions = [task.better(by_key[c["key"]].measure) for c in columns]
        for column, better in zip(columns, directions):
            if better is not None:
                assert column["sorting"] == SORTING[better], (task.id, column)
        ranked = [i for i, d in enumerate(directions) if d is not None]
        unranked = [i for i, d in enumerate(directions) if d is None]
        assert not unranked or max(ranked) < min(unranked), (task.id, columns)


def test_r2c2_ac_overconfidence_is_not_a_ranking_column():
    task = next(t for t in TASKS if t.id == "r2c2-ac")
    assert task.better("ob") is None and task.better("avconf") is None and task.better("hmr") == "higher"
    assert task.better("auto_hmr") == "higher"


# ------------------------------------------------------------------------------------- the starting kit ---

def test_each_kit_carries_only_its_own_task(dist):
    others = {t.id for t in TASKS}
    for task in TASKS:
        names = [n for n in members(dist / ("%s.zip" % task.id))
                 if n.startswith("starting_kit/") and not n.startswith("starting_kit/scoring_program/")]
        strangers = {n for n in names for other in others - {task.id}
                     if other in n or other.replace("-", "_") in n}
        assert strangers == set(), task.id
        for folder in ("sample_submission/", "schemas/", "reference_data/"):
            assert any(n.startswith("starting_kit/" + folder + task.id) for n in names), (task.id, folder)


# ------------------------------------------------------------------------------- all or nothing in dist/ ---

def test_a_missing_reference_folder_writes_nothing(tmp_path):
    reference = tmp_path / "ref"
    for task in TASKS[1:-1]:                     # every task's folder but the first and the last one's
        (reference / task.id).mkdir(parents=True)
        (reference / task.id / "task.yaml").write_text("task: %s\n" % task.id)
    out = tmp_path / "dist"
    code, stdout, stderr = run_cli("bundle", "--per-task", out, "--reference", reference, "--no-lint")
    assert code == 2, stdout + stderr
    assert "nothing written" in stderr
    assert TASKS[0].id in stderr and TASKS[-1].id in stderr            # every missing folder is named
    assert not out.exists() or os.listdir(out) == []
    # and what to do: an organiser of some of the campaigns builds only theirs
    have = ",".join(task.id for task in TASKS[1:-1])
    assert "to build only the competitions whose folders it holds: --tasks %s (make bundle TASKS=%s)" \
        % (have, have) in stderr
    code, stdout, stderr = run_cli("bundle", "--per-task", out, "--reference", reference, "--no-lint", "--tasks",
                                   TASKS[1].id)
    assert code == 0, stderr


# ------------------------------------------------------------------------------------- CodaLab v1.5 ---

def test_v1_pages_show_no_markdown_markup(tmp_path):
    for task in TASKS:
        out = tmp_path / ("%s.zip" % task.id)
        build_zip(BundlePlan(ROOT, [task]), str(out), v1=True)
        bundle = members(out)
        for name, content in bundle.items():
            if name.endswith(".html"):
                text = re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", content.decode("utf-8"), flags=re.S)
                assert "**" not in text and "](" not in text, (task.id, name)
                for target in re.findall(r'(?:href|src)="([^"]*)"', text):
                    assert PUBLIC_URL.fullmatch(target) or target in bundle, (task.id, name, target)
                assert not REPOSITORY.search(re.sub(r"<[^>]+>", "", text)), (task.id, name)


# ------------------------------------------------------------------------------- runscore bundle, installed ---

def test_bundle_from_an_installed_package_says_what_it_needs(tmp_path):
    """The package alone (as `pip install .` puts it in site-packages) has no repository around it."""
    import shutil
    import subprocess
    import sys
    site = tmp_path / "venv" / "lib" / "site-packages"
    shutil.copytree(os.path.join(ROOT, "scoring_program", "runscore"), site / "runscore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-m", "runscore", "bundle", "--per-task", "dist"], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "installed as a package" in done.stderr and "clone of the repository" in done.stderr
    assert "scoring_program/score.py" in done.stderr
    assert not (tmp_path / "dist").exists()


def test_bundle_with_a_root_that_is_no_clone_says_so(tmp_path):
    code, _, stderr = run_cli("bundle", "--per-task", tmp_path / "dist", "--root", tmp_path)
    assert code == 2 and "is not a clone of the runscore repository" in stderr


# ------------------------------------------------------------------------------- the README's figures ---

def _demo_block():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    block = text.split("$ make demo\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and line.strip() != "..."]


def _normalised(line):
    """Paths as the README shows them and as this test's temporary folders make them, reduced alike."""
    line = re.sub(r"\S*?(?:starting_kit/run/|/)((?:%s)/(?:input|output)\S*)" % "|".join(t.id for t in TASKS),
                  r"\1", line)
    return re.sub(r"(?<!\S)\S*dist\d*/", "dist/", line).rstrip()


def _printed_per_task(stdout):
    """What `runscore bundle --per-task` printed, by task: its `wrote` line and the lines under it."""
    blocks, task = {}, None
    for line in stdout.splitlines():
        wrote = re.match(r"wrote \S*/([\w-]+)\.zip: ", line)
        task = wrote.group(1) if wrote else task
        blocks.setdefault(task, []).append(line)
    return blocks


def test_readme_demo_is_what_make_demo_prints(competitions, tmp_path, capfd):
    """The README's trimmed `make demo` (file counts, and the dry run of the competitions it shows) is what the
    code prints today (`make demo`'s bundle: the run's shared `runscore bundle --per-task`, each task's lines)."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "starting_kit"))
    import dry_run
    dist = competitions.folder
    printed_by_task = _printed_per_task(competitions.stdout)
    assert None not in printed_by_task, competitions.stdout
    lines = _demo_block()
    shown, built = [], []
    for line in lines:
        wrote = re.match(r"wrote dist/([\w-]+)\.zip: ", line)
        if wrote:
            built += [_normalised(out) for out in printed_by_task[wrote.group(1)]]
        match = re.match(r"== dist/([\w-]+)\.zip", line)
        if match:
            shown.append(match.group(1))
    bundle_lines = [line for line in lines if line.startswith(("wrote ", "   phases: "))]
    assert [_normalised(line) for line in bundle_lines] == built
    assert shown, "the README shows no competition of make demo"
    argv = [a for task_id in shown for a in ("--bundle", str(dist / ("%s.zip" % task_id)))]
    capfd.readouterr()
    assert dry_run.main(argv + ["--workdir", str(tmp_path / "w")]) == 0
    printed = [_normalised(line) for line in capfd.readouterr().out.splitlines()]
    def found(line):        # a line the README cuts short ends in "...": the printed line starts with the rest
        line = _normalised(line)
        if line.endswith(" ..."):
            return any(p.startswith(line[:-3]) for p in printed)
        return line in printed
    missing = [line for line in lines if line not in bundle_lines and not found(line)]
    assert missing == [], "\n".join(printed)


def test_readme_has_an_install_line_for_the_package_alone():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        assert re.search(r"^env/bin/pip install \.(\s|$)", handle.read(), re.M)


def test_each_kit_readme_and_data_page_speak_of_its_own_task(dist):
    for task in TASKS:
        bundle = members(dist / ("%s.zip" % task.id))
        readme = bundle["starting_kit/README.md"].decode("utf-8")
        assert readme.startswith("# ") and "the one of the `%s` competition" % task.id in readme.split("\n## ")[0]
        data = bundle["pages/data.md"].decode("utf-8")
        baselines = sorted(n[len("starting_kit/baselines/"):] for n in bundle
                           if n.startswith("starting_kit/baselines/"))
        for name in baselines:
            assert "`%s`" % name in data, (task.id, name)
        if not baselines:
            assert "no baseline" in data, task.id


@pytest.mark.parametrize("text, expected", [
    ("a rule (spec 1.1) here", "a rule here"),
    ("x (a (b) spec 1) y", "x y"),
    ("x (a (spec 1) b) y", "x (a b) y"),
    ("x (kept) y", "x (kept) y"),
    ("see `runscore/tasks/r2c2/pr.py`.", "see `pr.py` of the scoring program."),
    ("The seed's typo, as the seed says.", "The campaign's typo, as the campaign's instructions say."),
])
def test_participant_text(text, expected):
    from runscore.codabench.pages import participant_text
    assert participant_text(text) == expected


def test_a_kit_readme_says_which_task_its_examples_use_as_the_readme_writes_them():
    """The kit README's worked examples are written with one task (its first `--task`); the note at the top of
    another task's kit says what stays that task's, read from the README itself rather than from a task id kept
    in the code."""
    from runscore.codabench.kit import kit_note
    from runscore.tasks import get_task

    readme = open(os.path.join(ROOT, "starting_kit", "README.md"), encoding="utf-8").read()
    example = re.search(r"--task ([a-z0-9][a-z0-9-]*)", readme).group(1)
    others = [task for task in TASKS if task.id != example]
    assert others and all("The commands below name `%s`; their file names and the example output of section 6 "
                          "stay those of the `%s` examples" % (task.id, example)
                          in kit_note(task, readme) for task in others)
    assert "commands below" not in kit_note(get_task(example), readme)
    assert "commands below" not in kit_note(others[0], readme.replace("--task %s" % example, "--task TASK"))


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_each_kits_commands_run_as_pasted_in_that_kit(task, dist, tmp_path, monkeypatch, capsys):
    """A participant of any competition pastes the README's commands in the kit the site gives them, with only
    the placeholders for their own files filled in (my_run: the kit's sample; submission.zip: a zip of it).
    They named ntcir1-adhoc in every kit, so in six of the seven kits each one failed."""
    from runscore import cli

    kit = tmp_path / "kit"
    with zipfile.ZipFile(str(dist / ("%s.zip" % task.id))) as archive:
        for name in archive.namelist():
            if name.startswith("starting_kit/") and not name.endswith("/"):
                target = kit / name[len("starting_kit/"):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    samples = sorted("sample_submission/%s/%s" % (task.id, n) for n in os.listdir(str(kit / "sample_submission" /
                                                                                     task.id)))
    with zipfile.ZipFile(str(kit / "submission.zip"), "w") as archive:
        for sample in samples:
            archive.write(str(kit / sample), os.path.basename(sample))
    text = (kit / "README.md").read_text(encoding="utf-8")
    commands = [line.split("  #")[0].split()[3:] for line in text.splitlines()
                if line.startswith("python3 -m runscore ")]
    assert len(commands) >= 7
    monkeypatch.chdir(str(kit))
    for argv in commands:
        argv = [task.id if a == "TASK" else a for a in argv]
        if argv[-1] == "my_run":
            argv = argv[:-1] + samples
        code = cli.main(argv)
        err = capsys.readouterr().err
        assert code == 0, (argv, err)


