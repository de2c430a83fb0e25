"""docs/codabench.md cites, for each thing it says Codabench does, the test of the platform suite (tests/platform/,
run by `make test-platform` on the real Codabench) that holds it: every cited test must exist, and every test of
that suite must be cited, so that neither a claim nor a test goes unseen. Cheap: reads files, runs nothing."""
import ast
import os
import re

from conftest import ROOT

PLATFORM = os.path.join(ROOT, "tests", "platform")
CITATION = re.compile(r"(test_codabench_\w+\.py)::(test_\w+)")


def platform_tests():
    found = set()
    for name in sorted(os.listdir(PLATFORM)):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join(PLATFORM, name), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            found |= {(name, node.name) for node in tree.body
                      if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}
    return found


def cited():
    with open(os.path.join(ROOT, "docs", "codabench.md"), encoding="utf-8") as handle:
        return set(CITATION.findall(handle.read()))


def test_every_platform_claim_cites_a_test_that_exists():
    missing = sorted("%s::%s" % pair for pair in cited() - platform_tests())
    assert not missing, "docs/codabench.md cites tests that do not exist: %s" % missing


def test_every_platform_test_is_cited_by_the_docs():
    uncited = sorted("%s::%s" % pair for pair in platform_tests() - cited())
    assert not uncited, "tests of the platform suite that docs/codabench.md does not cite: %s" % uncited
