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
