"""Extra CLI subcommands, one module each (or one package, when a command needs several rooms, as trec_eval):
adding a command is adding a module here.

A command module defines NAME, HELP and run(argv) -> exit code, where argv is the list of arguments after the
command name; it parses them itself (argparse, or trec_eval's own option syntax) and may raise RunError or
ConfigError, which the CLI maps to exit codes 1 and 2.
"""
import importlib
import os
import types
from typing import Dict


def find_command(name: str):
    """The module of one command, imported alone (importing every command would load scipy for trec_eval)."""
    module_name = name.replace("-", "_")
    if not module_name.isidentifier() or module_name.startswith("_"):
        return None
    here = os.path.join(__path__[0], module_name)
    if not (os.path.isfile(here + ".py") or os.path.isfile(os.path.join(here, "__init__.py"))):   # not pkgutil: 15 ms
        return None
    module = importlib.import_module("%s.%s" % (__name__, module_name))
    return module if getattr(module, "NAME", None) == name and hasattr(module, "run") else None


def command_modules() -> Dict[str, object]:
    import pkgutil

    from ..optional import missing

    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module("%s.%s" % (__name__, info.name))
        except ImportError as exc:      # listed all the same, saying what it needs (a light install)
            if missing(exc) is None:
                raise
            name = info.name.replace("_", "-")
            found[name] = types.SimpleNamespace(NAME=name, HELP="(%s)" % missing(exc, short=True), run=None)
            continue
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found[module.NAME] = module
    return found
