"""docs/python-api.md: every example on the page runs and prints what the page says (doctest, from the
repository root, as a reader of the page would run them)."""
import doctest
import os
import warnings

import pytest

from conftest import ROOT

pytest.importorskip("pandas", reason="the page's DataFrame example needs pandas (test extra)")


def test_every_example_of_the_python_api_page_runs_as_shown(monkeypatch):
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        # register()'s example meets the real pytrec_eval that other tests imported in this process, and says so,
        # as the page explains; a reader's fresh interpreter has no such warning
        from runscore.pytrec_eval import NotRegisteredWarning
        warnings.filterwarnings("ignore", category=NotRegisteredWarning)
        failures, tried = doctest.testfile(os.path.join(ROOT, "docs", "python-api.md"), module_relative=False,
                                           optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert tried >= 20
    assert failures == 0, "see the doctest report above"


def test_every_signature_the_pages_write_out_is_the_functions():
    """A full signature on a page (one with defaults) names the function's parameters in order, with its defaults:
    docs/report.md called report()'s `output` `out_dir` and left out `max_errors`, so `out_dir=...` failed."""
    import inspect
    import re

    from runscore import api

    found = 0
    for page in ("python-api.md", "report.md", "compare.md"):
        text = open(os.path.join(ROOT, "docs", page), encoding="utf-8").read()
        for match in re.finditer(r"`(?:runscore\.api\.)?([a-z_]+)\(([^`]*?=[^`]*?)\)`", text, re.S):
            function = getattr(api, match.group(1), None)
            if function is None:
                continue
            written = [p.strip() for p in " ".join(match.group(2).split()).split(",") if p.strip()]
            actual = ["%s=%r" % (name, p.default) if p.default is not p.empty else name
                      for name, p in inspect.signature(function).parameters.items()]
            assert [w.replace('"', "'") for w in written] == actual, (page, match.group(1))
            found += 1
    assert found >= 4
