"""The house of the package drawn from its code: its rooms (modules), the arrows between them (imports, also those
inside functions, which are dependencies all the same), the arrows that climb back up the floors, and the circles.

Why a script: "imports point down and never in a circle" (docs/architecture.md) is a claim anyone should be able to
check in one command, and tests/test_layout.py holds the package to it. Run from the repository root:

    python3 tests/house.py            # the figures: rooms, arrows, arrows climbing back, circles, task-id branches
    python3 tests/house.py --list     # and every arrow that climbs back, every circle, every task-id branch

The floors, top first (a module may import its own floor or any floor below it):

1. doors: the command line (`cli.py`, `__main__.py`, `commands/`), the Python API (`api/`, `pytrec_eval/`,
   `inmemory.py`) and the platform's entry (`codabench/entry.py`);
2. wings: the platform (`codabench/`) and the campaign (`campaign/`), which serve the doors;
3. stages: one submission judged and scored (`submission.py`, `pipeline.py`, `discover.py`, `report.py`,
   `compare.py`, `ties.py`, `pipes.py`), used by every door and wing;
4. tasks: the forms (`tasks/`), which the stages read;
5. ranking: reading ranked lists, ranking and labelling (`ranking/`): it turns runs and judgements into the
   arrays of grades the measures read, and measures them;
6. measures: pure functions of grades and scores (`measures/`), which import only numpy, the standard library,
   `measures/` and the ground (`errors.py`, `numeric.py`): `measures_imports` lists any other import;
7. foundation: what every floor reads with (`errors.py`, `textfile.py`, `numeric.py`, `validate.py`,
   `optional.py`, `__init__.py`).
"""
import ast
import importlib.util
import os
import sys
import sysconfig
from typing import Dict, List, Set, Tuple

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program", "runscore")
NAME = "runscore"

# (floor, module or folder prefix), matched longest first; the floor numbers grow downwards.
FLOORS: List[Tuple[int, str]] = [
    (1, "cli"), (1, "__main__"), (1, "commands."), (1, "api"), (1, "api."), (1, "pytrec_eval"), (1, "pytrec_eval."),
    (1, "inmemory"), (1, "codabench.entry"),
    (2, "codabench."), (2, "campaign."),
    (3, "submission"), (3, "pipeline"), (3, "discover"), (3, "report"), (3, "compare"), (3, "ties"), (3, "pipes"),
    (4, "tasks"), (4, "tasks."),
    (5, "ranking."), (6, "measures"), (6, "measures."),
    (7, "errors"), (7, "textfile"), (7, "numeric"), (7, "validate"), (7, "optional"), (7, "__init__"),
]
FLOOR_NAMES = {1: "doors", 2: "wings", 3: "stages", 4: "tasks", 5: "ranking", 6: "measures", 7: "foundation"}


def modules(package: str = PACKAGE) -> Dict[str, str]:
    """Dotted name (relative to the package: `campaign.pool`, `tasks` for tasks/__init__.py) -> path."""
    found = {}
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            parts = os.path.relpath(os.path.join(folder, name[:-3]), package).split(os.sep)
            if parts[-1] == "__init__" and len(parts) > 1:
                parts = parts[:-1]
            found[".".join(parts)] = os.path.join(folder, name)
    return found


def floor_of(module: str) -> int:
    """The floor of a module (the prefix that matches it longest); a module no prefix names is an error, so a new
    folder is placed on a floor when it is made."""
    best = None
    for floor, prefix in FLOORS:
        matches = module == prefix.rstrip(".") or (prefix.endswith(".") and module.startswith(prefix))
        if matches and (best is None or len(prefix) > len(best[1])):
            best = (floor, prefix)
    if best is None:
        raise KeyError("module %s is on no floor of tests/house.py" % module)
    return best[0]


_TREES: Dict[Tuple[str, float], ast.AST] = {}


def _tree(path: str) -> ast.AST:
    """A module's syntax tree, parsed once while the file is unchanged (the figures and the scan read the same)."""
    key = (path, os.path.getmtime(path))
    if key not in _TREES:
        _TREES[key] = ast.parse(open(path, encoding="utf-8").read(), path)
    return _TREES[key]


def _resolve(module: str, is_package: bool, node: ast.AST, known: Set[str]) -> List[str]:
    """The package's modules an import statement of `module` names (a name imported from a package that is itself
    a module counts as that module)."""
    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == NAME or alias.name.startswith(NAME + "."):
                target = alias.name[len(NAME) + 1:] if alias.name != NAME else "__init__"
                out.append(target)
        return [t for t in out if t in known]
    assert isinstance(node, ast.ImportFrom)
    if node.level == 0:
        if node.module is None or not (node.module == NAME or node.module.startswith(NAME + ".")):
            return []
        base = node.module[len(NAME) + 1:] if node.module != NAME else ""
    else:
        parts = module.split(".") if module != "__init__" else []
        here = parts if is_package else parts[:-1]
        if node.level > 1:
            here = here[:len(here) - (node.level - 1)]
        base = ".".join(here + ([node.module] if node.module else []))
    for alias in node.names:
        candidate = "%s.%s" % (base, alias.name) if base else alias.name
        if candidate in known:
            out.append(candidate)
        elif base in known:
            out.append(base)
        elif not base:
            out.append("__init__")
    return [t for t in out if t in known]


def arrows(package: str = PACKAGE) -> Dict[str, Set[str]]:
    """module -> the package's modules it imports (anywhere in its code)."""
    found = modules(package)
    known = set(found)
    graph: Dict[str, Set[str]] = {}
    for module, path in found.items():
        tree = _tree(path)
        is_package = os.path.basename(path) == "__init__.py"
        targets: Set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets.update(_resolve(module, is_package, node, known))
        targets.discard(module)
        graph[module] = targets
    return graph


def climbing_back(graph: Dict[str, Set[str]]) -> List[Tuple[str, str]]:
    """Every arrow from a module to one on a higher floor."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if floor_of(b) < floor_of(a))


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively): each holds at
    least one circle of imports; none means there is none."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    groups: List[List[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


# ---------------------------------------------------------------------------------------- the measures ---
# What a module of measures/ may import besides measures/ itself: numpy, the standard library and the ground.
MEASURES_READ = {"numpy"}
MEASURES_GROUND = {"errors", "numeric"}


def _standard_library(name: str) -> bool:
    """Is `name` (a top-level module name) the standard library's? sys.stdlib_module_names where Python has it
    (3.10+), else where the module is found: built in, or in the standard library's folder outside site-packages."""
    if hasattr(sys, "stdlib_module_names"):
        return name in sys.stdlib_module_names
    if name in sys.builtin_module_names or name == "__future__":
        return True
    spec = importlib.util.find_spec(name)
    origin = (spec.origin or "") if spec is not None else ""
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    return origin in ("built-in", "frozen") or (os.path.realpath(origin).startswith(stdlib + os.sep)
                                                and "site-packages" not in origin)


def measures_imports(package: str = PACKAGE) -> List[Tuple[str, int, str]]:
    """Every import of a module of measures/ (lazy ones too) of something other than numpy, the standard library,
    measures/ and the ground (errors.py, numeric.py): (module, line, what it imports). None means a measure can
    be read and tested without the ranking wing or any other."""
    found_modules = modules(package)
    known = set(found_modules)
    found = []
    for module, path in found_modules.items():
        if not (module == "measures" or module.startswith("measures.")):
            continue
        is_package = os.path.basename(path) == "__init__.py"
        for node in ast.walk(_tree(path)):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.ImportFrom) and node.level:
                targets = _resolve(module, is_package, node, known)
                names = targets if targets else ["." * node.level + (node.module or "")]
            else:
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module]
                inside = [n for n in names if n == NAME or n.startswith(NAME + ".")]
                targets = _resolve(module, is_package, node, known) if inside else []
                names = targets + [n for n in names if n not in inside]
            for name in names:
                top = name.split(".")[0]
                if name in known:
                    allowed = top == "measures" or name in MEASURES_GROUND
                else:
                    allowed = top in MEASURES_READ or (not name.startswith(".") and _standard_library(top))
                if not allowed:
                    found.append((module, node.lineno, name))
    return sorted(set(found))


# ---------------------------------------------------------------------------------------- task ids ---
# Names under which code holds a task's id: `task.id`, `run.task_id`, `args.task`, a variable `task_id`.
_ID_ATTRIBUTES = {"id", "task_id", "task"}
_ID_NAMES = {"task_id"}


def _is_task_id(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in _ID_ATTRIBUTES) or \
        (isinstance(node, ast.Name) and node.id in _ID_NAMES)


def _strings(node: ast.AST) -> bool:
    """A string constant, or a tuple, list or set of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and bool(node.elts) and all(_strings(e) for e in node.elts)


def task_id_branches(task_ids: Set[str], package: str = PACKAGE) -> List[Tuple[str, int, str]]:
    """Where code outside the task forms (tasks/, which holds the registry) chooses by a task's id: (module, line,
    what). Read from the syntax tree, so no spelling or line break hides one:

    * a task id written as a string anywhere (`"r2c2-ac"`, a tuple of ids, a dict keyed by ids);
    * an id (`task.id`, `task_id`, `args.task`) compared with a string (`==`, `!=`, `in`, `not in`), or
      asked `startswith` / `endswith` one.

    A task's id may still be compared with another task's id (finding a task by its id), and printed."""
    found = []
    for module, path in modules(package).items():
        if module == "tasks" or module.startswith("tasks."):
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in task_ids:
                found.append((module, node.lineno, "the task id %r written out" % node.value))
            elif isinstance(node, ast.Compare):
                sides = [node.left] + list(node.comparators)
                if any(_is_task_id(a) for a in sides) and any(_strings(a) for a in sides):
                    found.append((module, node.lineno, "a task id compared with a string"))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("startswith", "endswith") and _is_task_id(node.func.value):
                found.append((module, node.lineno, "a task id asked %s" % node.func.attr))
    return sorted(set(found))


def registered_task_ids() -> Set[str]:
    sys.path.insert(0, os.path.dirname(PACKAGE))
    from runscore.tasks import all_tasks

    return {task.id for task in all_tasks()}


def figures(package: str = PACKAGE, task_ids: Set[str] = frozenset()) -> Dict[str, int]:
    graph = arrows(package)
    out = {"rooms": len(graph), "arrows": sum(len(t) for t in graph.values()),
           "arrows climbing back": len(climbing_back(graph)), "circles": len(circles(graph))}
    out["imports of measures/ beyond numpy, the standard library and the ground"] = len(measures_imports(package))
    if task_ids:       # counted by line: `if task.id == "x"` is one branch, however it is found
        out["task-id branches outside tasks/"] = len({(m, line) for m, line, _ in task_id_branches(task_ids, package)})
    return out


def main(argv: List[str]) -> int:
    package = next((a for a in argv if not a.startswith("-")), PACKAGE)
    graph = arrows(package)
    task_ids = registered_task_ids()
    for name, value in figures(package, task_ids).items():
        print("%s: %d" % (name, value))
    if "--list" in argv:
        for a, b in climbing_back(graph):
            print("climbs back: %s (%s) -> %s (%s)" % (a, FLOOR_NAMES[floor_of(a)], b, FLOOR_NAMES[floor_of(b)]))
        for group in circles(graph):
            print("circle: %s" % " <-> ".join(group))
        for module, line, what in measures_imports(package):
            print("measures import: %s:%d: %s" % (module, line, what))
        for module, line, what in task_id_branches(task_ids, package):
            print("task-id branch: %s:%d: %s" % (module, line, what))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
