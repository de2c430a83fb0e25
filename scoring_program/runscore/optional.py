"""The optional dependencies: what each is for, which extra installs it, and the message when one is missing.

Why: `pip install runscore` brings numpy only, which is all that `runscore trec_eval`, the pytrec_eval drop-in
and api.trec_eval need (a researcher beside BEIR or ir_measures need not download scipy's 100 MB). The campaigns'
tasks read task.yaml (PyYAML) and check records against JSON Schemas (jsonschema); compare and report run
significance tests (scipy). A command that reaches a module not installed says which extra installs it, instead
of failing with an ImportError (or an internal error). The scoring image (codalab-legacy:py39) has them all.
"""
from typing import Optional

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
