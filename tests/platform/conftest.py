"""The platform suite's session: one real Codabench (codabench_harness.py) for every test, stopped at the end
whatever happens; every test skips, with the reason, where Codabench's sources, PostgreSQL or Redis are absent."""
import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codabench_harness as harness  # noqa: E402


def pytest_report_header(config):
    commit = harness.codabench_commit()
    return ["codabench: %s (%s)" % (commit or "absent", harness.CODABENCH),
            "platform suite: %s" % (harness.missing_reason() or "every prerequisite present")]


def pytest_terminal_summary(terminalreporter):
    if harness.LAPS:
        terminalreporter.section("where the platform suite's time went")
        for lap in harness.LAPS:
            terminalreporter.write_line(lap)


@pytest.fixture(scope="session")
def platform():
    reason = harness.missing_reason()
    if reason:
        pytest.skip(reason)
    root = tempfile.mkdtemp(prefix="runscore-platform-")
    site = harness.Platform(root)
    try:
        site.start()
        site.configure_this_process()
        yield site
    finally:
        site.stop()
        if os.environ.get("RUNSCORE_PLATFORM_KEEP"):
            print("\nplatform session kept in %s (logs/ holds the site's and every worker job's log)" % root)
        else:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def people(platform):
    """The site's users of every test: an organiser, the participant who submits, another participant, and an
    anonymous client."""
    return {"organiser": platform.user("organiser"), "submitter": platform.user("alice"),
            "other participant": platform.user("bob"), "anonymous": platform.anonymous()}
