"""The README's architecture table names every module of the package, and every module it names exists.

Why: the table is how a newcomer finds the one folder to change; a module added without a row, or a row left
behind by a move, makes it lie.
"""
import ast
import os
import re

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


def named_in_readme():
    """Module paths of the architecture table: `a/b.py`, or `x.py` listed after a folder cell `folder/:`."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text[text.index("## How it works"):]
    section = section[:section.index("\n## ", 1)]
    names = set()
    for row in section.splitlines():
        if not row.startswith("|"):
            continue
        cell = row.split("|")[2] if row.count("|") >= 3 else ""
        folder = re.match(r"\s*`([\w/]+/)`:", cell)
        for name in re.findall(r"`([\w/]+\.py)`", cell):
            names.add(folder.group(1) + name if folder and "/" not in name else name)
    return names


def test_every_module_is_in_the_architecture_table():
    missing = sorted(package_modules() - named_in_readme())
    assert missing == [], "modules without a row in README's 'How it works' table: %s" % missing


def test_every_module_the_table_names_exists():
    stale = sorted(named_in_readme() - package_modules())
    assert stale == [], "README's 'How it works' table names modules that do not exist: %s" % stale


def test_no_import_circles_between_the_modules_named():
    """ranking/rankeval.py never imports ranking/fastpath.py; measures/ntcireval.py never imports names.py."""
    for path, forbidden in (("ranking/rankeval.py", "fastpath"), ("measures/ntcireval.py", "names")):
        source = open(os.path.join(PACKAGE, path), encoding="utf-8").read()
        imports = [line for line in source.splitlines() if re.match(r"\s*(from|import)\s", line)]
        assert not [line for line in imports if forbidden in line], (path, imports)


def test_ranking_and_measures_never_import_a_command():
    """The fast path and the readers are ranking concerns: commands/ uses them, never the other way round (an
    import circle ranking/fastpath.py <-> commands/trec_eval.py was opened in issue 26)."""
    for wing in ("ranking", "measures"):
        for name in sorted(os.listdir(os.path.join(PACKAGE, wing))):
            if not name.endswith(".py"):
                continue
            source = open(os.path.join(PACKAGE, wing, name), encoding="utf-8").read()
            imports = [line for line in source.splitlines() if re.match(r"\s*(from|import)\s", line)]
            assert not [line for line in imports if "commands" in line], (wing, name, imports)
