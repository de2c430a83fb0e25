"""The platform suite's session: one real Codabench (codabench_harness.py) for every test, stopped at the end
whatever happens; every test skips, with the reason, where Codabench's sources, PostgreSQL or Redis are absent."""
import os
import shutil
import signal
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codabench_harness as harness  # noqa: E402


def _interrupted(signum, frame):
    raise KeyboardInterrupt("SIGTERM")


def pytest_report_header(config):
    commit = harness.codabench_commit()
    return ["codabench: %s (%s)" % (commit or "absent", harness.CODABENCH),
            "platform suite: %s" % (harness.missing_reason() or "every prerequisite present")]


def pytest_terminal_summary(terminalreporter):
    if harness.REPORT:
        terminalreporter.section("the platform session: where its time went, where its logs are")
        for line in harness.REPORT:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def platform(request):
    reason = harness.missing_reason()
    if reason:
        pytest.skip(reason)
    harness.REPORT.append("codabench %s, from %s" % (harness.codabench_commit(), harness.CODABENCH))
    root = tempfile.mkdtemp(prefix="runscore-platform-")
    site = harness.Platform(root)
    # A SIGTERM (CI's time running out, a developer's kill) ends the session through its teardown; the services
    # die with this process even when it is killed outright (codabench_harness.Platform._spawn).
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        site.start()
        site.configure_this_process()
        yield site
    finally:
        signal.signal(signal.SIGTERM, previous)
        site.stop()
        if os.environ.get("RUNSCORE_PLATFORM_KEEP"):
            harness.REPORT.append("session kept in %s (logs/: the site's and every worker job's log)" % root)
        else:
            if request.session.testsfailed:         # the logs of a failed run stay, the rest goes
                kept = tempfile.mkdtemp(prefix="runscore-platform-logs-")
                shutil.copytree(os.path.join(root, "logs"), kept, dirs_exist_ok=True)
                harness.REPORT.append("the site's and every worker job's log: %s" % kept)
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def people(platform):
    """The site's users of every test: an organiser, the participant who submits, another participant, and an
    anonymous client."""
    return {"organiser": platform.user("organiser"), "submitter": platform.user("alice"),
            "other participant": platform.user("bob"), "anonymous": platform.anonymous()}
