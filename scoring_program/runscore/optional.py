"""The optional dependencies: what each is for, which extra installs it, and the message when one is missing.

Why: `pip install runscore` brings numpy only, which is all that `runscore trec_eval`, the pytrec_eval drop-in
and api.trec_eval need (a researcher beside BEIR or ir_measures need not download scipy's 100 MB). The campaigns'
tasks read task.yaml (PyYAML) and check records against JSON Schemas (jsonschema); compare and report run
significance tests (scipy). A command that reaches a module not installed says which extra installs it, instead
of failing with an ImportError (or an internal error). The scoring image (codalab-legacy:py39) has them all.
"""
import contextlib
import importlib.abc
import importlib.util
import sys
import types
from typing import Iterator, Optional

# import name -> (distribution, the extra that installs it, what needs it)
OPTIONAL = {
    "yaml": ("PyYAML", "tasks", "reading a task's reference folder (task.yaml)"),
    "jsonschema": ("jsonschema", "tasks", "checking a task's records against its schema"),
    "scipy": ("scipy", "stats", "the significance tests of compare and report"),
}


def missing(exc: ImportError, short: bool = False) -> Optional[str]:
    """How to install the optional module `exc` found missing (`short`: in a few words, for a list of
    commands), or None when it is not an optional one."""
    top = (getattr(exc, "name", None) or "").split(".")[0]
    if top not in OPTIONAL:
        return None
    distribution, extra, use = OPTIONAL[top]
    if short:
        return "needs %s: pip install 'runscore[%s]'" % (distribution, extra)
    return ("%s is needed for %s and is not installed: pip install 'runscore[%s]' (or 'runscore[all]' for every "
            "command)" % (distribution, use, extra))


class _StandInClass(type):
    """The class of a stand-in's names: a class method called at import time (a dumper's add_representer, a
    registry's decorator) does nothing, so that module-level set-up goes through as the names themselves do."""

    def __getattr__(cls, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


class _StandIn(types.ModuleType):
    """A missing optional module while a command's --help is shown: any name in it is a class (so that module-level
    imports, subclasses and annotations go through); nothing of it ever runs, since --help stops at the parser."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        stand_in = _StandInClass(name, (), {"__module__": self.__name__})
        setattr(self, name, stand_in)
        return stand_in


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves a _StandIn for each optional module (and its submodules) that cannot be imported."""

    def __init__(self, tops):
        self.tops = tops

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in self.tops:
            return None
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        return _StandIn(spec.name)

    def exec_module(self, module):
        module.__path__ = []


@contextlib.contextmanager
def stand_ins() -> Iterator[None]:
    """Modules imported inside see stand-ins for the optional modules not installed, so that a command's --help is
    readable before its dependencies are installed (`runscore compare --help` without scipy). Every module imported
    inside is forgotten on leaving, so that nothing later computes with a stand-in."""
    absent = {top for top in OPTIONAL if _absent(top)}
    before = set(sys.modules)
    hidden = {name: sys.modules.pop(name) for name in list(sys.modules)
              if name.split(".")[0] in absent and sys.modules[name] is None}    # (None: made missing on purpose)
    finder = _StandInFinder(absent)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            module = sys.modules.pop(name)
            parent, _, child = name.rpartition(".")
            if parent in sys.modules and vars(sys.modules[parent]).get(child) is module:
                delattr(sys.modules[parent], child)         # (`from package import child` reads the attribute)
        sys.modules.update(hidden)


def _absent(top: str) -> bool:
    """Whether the optional module `top` cannot be imported here (not installed, or set to None in sys.modules)."""
    if top in sys.modules:
        return sys.modules[top] is None
    try:
        return importlib.util.find_spec(top) is None
    except (ImportError, ValueError):
        return True


def asks_for_help(argv) -> bool:
    """Whether a command's arguments ask for its help (argparse's -h / --help, anywhere before `--`)."""
    for arg in argv:
        if arg == "--":
            return False
        if arg in ("-h", "--help"):
            return True
    return False
