"""The house as docs/architecture.md draws it and as the code is: the architecture table names every module of the
package and every module it names exists; no import circle, no import climbing back up the floors (tests/house.py);
no task id outside the task forms; no number of our own tracker in a tracked file.

Why: the table is how a newcomer finds the one folder to change; a module added without a row, or a row left
behind by a move, makes it lie. The rest keeps the floors and the forms what the page says they are.
"""
import ast
import os
import re
import subprocess
import sys

import pytest

import house
from conftest import ROOT

PACKAGE = os.path.join(ROOT, "scoring_program", "runscore")


def only_a_docstring(path):
    body = ast.parse(open(path, encoding="utf-8").read()).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def package_modules():
    """Every module, less a package's __init__.py that holds only its docstring (the folder's row names it)."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(PACKAGE):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.endswith(".py") and not (name == "__init__.py" and only_a_docstring(os.path.join(dirpath, name))):
                found.add(os.path.relpath(os.path.join(dirpath, name), PACKAGE).replace(os.sep, "/"))
    return found


def named_in_architecture():
    """Module paths of docs/architecture.md's table: `a/b.py`, or `x.py` listed after a folder cell `folder/:`."""
    text = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    section = text[text.index("| stage | module | job |"):]
    section = section[:section.index("\n\n")]
    names = set()
    for row in section.splitlines():
        if not row.startswith("|"):
            continue
        cell = row.split("|")[2] if row.count("|") >= 3 else ""
        folder = re.match(r"\s*`([\w/]+/)`:", cell)
        for name in re.findall(r"`([\w/]+\.py)`", cell):
            names.add(folder.group(1) + name if folder and not name.startswith(folder.group(1)) else name)
    return names


def test_every_module_is_in_the_architecture_table():
    missing = sorted(package_modules() - named_in_architecture())
    assert missing == [], "modules without a row in docs/architecture.md's table: %s" % missing


def test_every_module_the_table_names_exists():
    stale = sorted(named_in_architecture() - package_modules())
    assert stale == [], "docs/architecture.md's table names modules that do not exist: %s" % stale


def test_no_import_circles_between_the_modules_named():
    """ranking/rankeval.py never imports ranking/fastpath.py; measures/ntcireval.py never imports names.py."""
    for path, forbidden in (("ranking/rankeval.py", "fastpath"), ("measures/ntcireval.py", "names")):
        source = open(os.path.join(PACKAGE, path), encoding="utf-8").read()
        imports = [line for line in source.splitlines() if re.match(r"\s*(from|import)\s", line)]
        assert not [line for line in imports if forbidden in line], (path, imports)


def test_ranking_and_measures_never_import_a_command():
    """The fast path and the readers are ranking concerns: commands/ uses them, never the other way round (an
    import circle ranking/fastpath.py <-> commands/trec_eval.py was once opened that way)."""
    for wing in ("ranking", "measures"):
        for name in sorted(os.listdir(os.path.join(PACKAGE, wing))):
            if not name.endswith(".py"):
                continue
            source = open(os.path.join(PACKAGE, wing, name), encoding="utf-8").read()
            imports = [line for line in source.splitlines() if re.match(r"\s*(from|import)\s", line)]
            assert not [line for line in imports if "commands" in line], (wing, name, imports)


# The top level of runscore/ holds the doors and the ground every floor uses; anything else goes in a folder of
# its own (the pytrec_eval drop-in, its registration and its wheel are runscore/pytrec_eval/).
MAX_TOP_LEVEL_MODULES = 15


def top_level_modules(package=PACKAGE):
    """The modules at the top of the package, less __init__.py and __main__.py (the package itself)."""
    return sorted(name for name in os.listdir(package)
                  if name.endswith(".py") and name not in ("__init__.py", "__main__.py"))


def test_the_top_level_of_the_package_holds_at_most_15_modules(tmp_path):
    found = top_level_modules()
    assert len(found) <= MAX_TOP_LEVEL_MODULES, (
        "runscore/ has %d modules at its top level (at most %d): %s; put a new one in the folder of its wing"
        % (len(found), MAX_TOP_LEVEL_MODULES, ", ".join(found)))
    # the count is of files at the top only: a sixteenth module there is seen, a module in a folder is not
    for name in found + ["__init__.py", "__main__.py", "extra_%d.py" % len(found)]:
        (tmp_path / name).write_text("")
    (tmp_path / "wing").mkdir()
    (tmp_path / "wing" / "inner.py").write_text("")
    assert len(top_level_modules(str(tmp_path))) == len(found) + 1


# ------------------------------------------------------------------------------------ the house's figures ---
def test_every_module_is_on_a_floor():
    """tests/house.py places each module on a floor by its folder or name: a new folder is placed when it is made."""
    for module in house.modules():
        house.floor_of(module)          # KeyError names the module on no floor


def test_no_import_circle_and_at_most_two_imports_climb_back():
    """Imports point down the floors (docs/architecture.md) and never in a circle, lazy imports included: a circle
    means neither module can be understood, tested or moved without the other."""
    graph = house.arrows()
    assert house.circles(graph) == []
    assert len(house.climbing_back(graph)) <= 2, house.climbing_back(graph)


def test_the_house_script_finds_circles_and_imports_that_climb_back(tmp_path):
    """The figures are those of the code: a package with a lazy circle and a stage importing a door is seen so."""
    package = tmp_path / "runscore"
    (package / "commands").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "commands" / "__init__.py").write_text("")
    (package / "commands" / "go.py").write_text("from ..pipeline import run\n")
    (package / "pipeline.py").write_text("def run():\n    from . import discover\n\n\nfrom .commands import go\n")
    (package / "discover.py").write_text("def accepts():\n    from .pipeline import run\n")
    graph = house.arrows(str(package))
    assert house.circles(graph) == [["commands.go", "discover", "pipeline"]]
    assert ("pipeline", "commands.go") in house.climbing_back(graph)


# ------------------------------------------------------------------------------------ the measures ---
def test_the_measures_import_numpy_the_standard_library_and_the_ground_only():
    """A measure is a function of grades and scores: a newcomer reads and tests measures/ alone, any wing may call
    it, and the ranking wing builds the arrays it reads (measures/judged.py), never the other way round."""
    found = house.measures_imports()
    assert found == [], "\n".join("%s:%d: imports %s" % f for f in found)


def test_importing_every_measure_loads_no_other_wing():
    """The same rule as Python lives it: importing every module of measures/ loads nothing of runscore beyond
    measures/ and the ground (a package's __init__ included)."""
    code = ("import importlib, pkgutil, sys\nimport runscore.measures as m\n"
            "for info in pkgutil.iter_modules(m.__path__):\n    importlib.import_module('runscore.measures.' + info.name)\n"
            "print(' '.join(sorted(n for n in sys.modules if n.startswith('runscore'))))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                            env=dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE))).stdout.split()
    ground = {"runscore", "runscore.errors", "runscore.numeric"}
    assert [n for n in loaded if not n.startswith("runscore.measures") and n not in ground] == []
    assert "runscore.measures.trec" in loaded


@pytest.mark.parametrize("code", [
    "from ..ranking.label import JudgedTopic\n",
    "from ..ranking import label\n",
    "import runscore.ranking.qrels\n",
    "from runscore.textfile import read_text\n",
    "def f():\n    from ..textfile import read_text\n",
    "def f():\n    import scipy.stats\n",
    "import yaml\n",
])
def test_the_measures_scan_finds_every_import_beyond_the_ground(tmp_path, code):
    package = tmp_path / "runscore"
    for folder in ("measures", "ranking"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    for name in ("__init__.py", "errors.py", "numeric.py", "textfile.py", "ranking/label.py", "ranking/qrels.py"):
        (package / name).write_text("")
    (package / "measures" / "kernel.py").write_text(code)
    assert [module for module, _line, _what in house.measures_imports(str(package))] == ["measures.kernel"]


def test_the_measures_scan_leaves_numpy_the_standard_library_and_the_ground_alone(tmp_path):
    package = tmp_path / "runscore"
    (package / "measures").mkdir(parents=True)
    for name in ("__init__.py", "errors.py", "numeric.py", "measures/__init__.py", "measures/judged.py"):
        (package / name).write_text("")
    (package / "measures" / "kernel.py").write_text(
        "import math\nfrom typing import List\nimport numpy as np\nfrom ..errors import ConfigError\n"
        "from .. import numeric\nfrom .judged import MAX_GRADE\nfrom . import judged\n"
        "def f():\n    from dataclasses import dataclass\n")
    assert house.measures_imports(str(package)) == []


# ------------------------------------------------------------------------------------ task ids ---
def test_no_task_id_dispatch_outside_the_task_forms():
    """The campaign wing, the platform and the stages ask the task's form, never which task it is: no task id is
    written out, and no id is compared with a string, outside tasks/ (which holds the registry)."""
    found = house.task_id_branches(house.registered_task_ids())
    assert found == [], "\n".join("%s:%d: %s" % f for f in found)


@pytest.mark.parametrize("code", [
    'def f(task):\n    if task.id == "r2c2-ac":\n        return 1\n',
    "def f(task):\n    if (task\n            .id\n            != 'r2c2-ac'):\n        return 1\n",
    'def f(pool):\n    return pool.task_id in ("x", "y")\n',
    'def f(args):\n    return "r2c2" not in args.task\n',
    'def f(task_id):\n    return task_id.startswith("r2c2")\n',
    'WRITERS = {"r2c2-ac": 1}\n',
    'def f(task):\n    return {"x": 1}.get(task.id) or "" "r2c2-ac"\n',
])
def test_the_scan_finds_a_task_id_branch_however_it_is_written(tmp_path, code):
    package = tmp_path / "runscore"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "wing.py").write_text(code)
    assert [module for module, _line, _what in house.task_id_branches({"r2c2-ac"}, str(package))] != []


def test_the_scan_leaves_ids_compared_with_ids_and_the_forms_alone(tmp_path):
    package = tmp_path / "runscore"
    (package / "tasks").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "tasks" / "__init__.py").write_text('ORDER = ["r2c2-ac"]\n')
    (package / "wing.py").write_text('"""Pools r2c2-ac\'s units."""\ndef f(task, tasks, ref):\n'
                                     '    print("task %s" % task.id)\n'
                                     '    return [t for t in tasks if t.id == task.id] or ref.task.id != task.id\n')
    assert house.task_id_branches({"r2c2-ac"}, str(package)) == []


# ------------------------------------------------------------------------------------ our own tracker ---
# "issue N", "issues N, M", "Issue N defect 2", "issue" and its number across a line break, "test_issue_N_...": a
# number on this project's tracker, which a reader of the code does not have. Another project's tracker is cited by
# its name (Codabench, CodaLab, trec_eval, numpy, a GitHub address) within the few words before the number. (The
# examples the scan is tested on below are written with %d, so that this file holds none.)
OWN_ISSUE = re.compile(r"(?<![A-Za-z])issues?[\s#*>/\"_-]*#?[0-9]+", re.IGNORECASE)
UPSTREAM = re.compile(r"codabench|codalab|trec_eval|numpy|pytrec|github|upstream", re.IGNORECASE)
SKIPPED_FOLDERS = {".git", "__pycache__", "dist", "build", "node_modules"}


def tracked_files():
    """The repository's tracked files (git ls-files), or every file of the tree outside virtual environments and
    build output when it is not a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [os.path.join(ROOT, name) for name in listed.decode("utf-8").split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, subfolders, files in os.walk(ROOT):
            subfolders[:] = [d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith(".venv")]
            found.extend(os.path.join(folder, name) for name in files)
        return found


def own_issue_mentions(text):
    return [match.group(0) for match in OWN_ISSUE.finditer(text)
            if not UPSTREAM.search(text[max(0, match.start() - 60):match.start()])]


def test_no_tracked_file_cites_our_own_tracker():
    """A comment, docstring, doc or test name says the reason itself, never only "see issue N"."""
    found = []
    for path in tracked_files():
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (UnicodeDecodeError, OSError):            # binary files (zips, images) and files gone since listed
            continue
        found.extend("%s: %r" % (os.path.relpath(path, ROOT), m) for m in own_issue_mentions(text))
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("text, mentions", [
    ("the cap (issue %d: five runs)" % 22, 1), ("issues %d, 23" % 22, 1), ("(issue\n    %d): with" % 23, 1),
    ("Issue #%d" % 18, 1), ("def test_issue_%d_cases():" % 19, 1), ("Codabench issue #%d says" % 1669, 0),
    ("CB #164", 0), ("query_issue_time", 0),
])
def test_the_tracker_scan_reads_every_spelling(text, mentions):
    assert len(own_issue_mentions(text)) == mentions
