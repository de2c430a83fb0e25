"""runscore.pytrec_eval.register(), and the warnings that say when it has not taken effect.

Why: BEIR, mteb and ir_measures `import pytrec_eval` by name. register() makes that import give runscore's module;
called too late, or not at all, they compute with pytrec-eval-terrier, or (ir_measures, when pytrec-eval-terrier
is not installed) silently with its other providers, whose numbers differ (its own RR breaks ties another way).
So once runscore.pytrec_eval is imported, an import of pytrec_eval by one of them before register() warns, and
register() warns about every loaded module that already holds another pytrec_eval, or that found none.
The stand-in wheel (wheel.py) needs neither: its `pytrec_eval` is runscore's.
"""
import sys
import types
import warnings
from typing import List

# Libraries that import pytrec_eval by name to compute with it.
ADOPTERS = ("ir_measures", "beir", "mteb")


class NotRegisteredWarning(RuntimeWarning):
    """A library computes with another pytrec_eval (or none) than runscore's: register() came too late or not at
    all."""


def register(module: types.ModuleType) -> types.ModuleType:
    """Make `import pytrec_eval` give `module` (runscore.pytrec_eval), warning about what already holds another."""
    current = sys.modules.get("pytrec_eval")
    held = _holders(module)
    if current is not None and current is not module and not getattr(current, "__runscore_stand_in__", False):
        held.insert(0, "pytrec_eval (%s) was imported first: modules that imported it keep it, later imports get "
                       "runscore's" % getattr(current, "__file__", "?"))
    if held:
        warnings.warn("runscore.pytrec_eval.register() came too late: %s. Call it before importing BEIR's "
                      "beir.retrieval.evaluation or mteb, and before ir_measures' first computation (or install "
                      "the stand-in: runscore pytrec-eval-wheel, docs/python-api.md)" % "; ".join(held),
                      NotRegisteredWarning, stacklevel=3)
    sys.modules["pytrec_eval"] = module
    return module


def _holders(module: types.ModuleType) -> List[str]:
    """What loaded modules of the adopters computes with instead of `module`. Module dictionaries are read
    directly (never getattr, which a module's __getattr__ could turn into an import)."""
    found = []
    for name, loaded in list(sys.modules.items()):
        if name.split(".")[0] not in ADOPTERS or loaded is None:
            continue
        other = vars(loaded).get("pytrec_eval")
        if isinstance(other, types.ModuleType) and other is not module:
            found.append("%s holds pytrec_eval from %s" % (name, getattr(other, "__file__", "?")))
        elif name == "ir_measures" and other is not None:       # ir_measures' pytrec_eval provider object
            state = vars(other).get("_is_available") if hasattr(other, "__dict__") else None
            held = vars(other).get("pytrec_eval") if hasattr(other, "__dict__") else None
            if state is False:
                found.append("ir_measures found no pytrec_eval and computes with its other providers (other "
                             "numbers)")
            elif isinstance(held, types.ModuleType) and held is not module:
                found.append("ir_measures computes with pytrec_eval from %s" % getattr(held, "__file__", "?"))
    return found


class _ImportWatch:
    """A meta path finder that finds nothing: it notices `import pytrec_eval` by one of the adopters while
    register() has not taken effect (once it has, the import is answered from sys.modules and never gets here)
    and warns once, saying what they get instead."""

    def __init__(self):
        self.warned = False

    def find_spec(self, name, path=None, target=None):
        if name != "pytrec_eval" or self.warned:
            return None
        importer = _importer()
        if importer.split(".")[0] not in ADOPTERS:
            return None             # a script's own `import pytrec_eval` (a comparison, a test) is deliberate
        self.warned = True
        try:
            spec = next(filter(None, (finder.find_spec(name, path) for finder in sys.meta_path
                                      if finder is not self and hasattr(finder, "find_spec"))), None)
        except ImportError:         # a finder that refuses it: none to be had
            spec = None
        if spec is not None and _is_stand_in(spec.origin):
            return None             # the stand-in registers runscore's module itself
        warnings.warn("%s imports pytrec_eval, but runscore.pytrec_eval.register() has not been called: %s. Call "
                      "register() first, or install the stand-in (docs/python-api.md)" % (importer, (
                          "it gets pytrec-eval-terrier, not runscore's" if spec is not None else
                          "no pytrec_eval is installed, so %s fails or, for ir_measures, silently computes with "
                          "its other providers (other numbers)" % importer.split(".")[0])),
                      NotRegisteredWarning, stacklevel=2)
        return None


def _is_stand_in(origin) -> bool:
    """Whether the file `import pytrec_eval` would run is the stand-in's (runscore pytrec-eval-wheel)."""
    try:
        with open(origin, "rb") as handle:
            return b"__runscore_stand_in__ = True" in handle.read(4096)
    except (OSError, TypeError):
        return False


def _importer(skipped=()) -> str:
    """The module whose code runs the import under way (the first frame outside importlib, this module and
    `skipped`)."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith(("importlib", "_frozen_importlib")) and name != __name__ and name not in skipped:
            return name
        frame = frame.f_back
    return ""


def watch(module_name: str) -> None:
    """Install the import watch once, when code other than runscore's own imports the drop-in `module_name` (a
    user who means it to stand in for pytrec_eval); runscore's API uses the evaluator without that intent."""
    if _importer((module_name,)).startswith("runscore."):
        return
    if not any(isinstance(finder, _ImportWatch) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ImportWatch())
