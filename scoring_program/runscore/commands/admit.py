"""`runscore admit SITE COMPETITION [--once] [--interval S]`: the organiser's gate of a competition whose reference
data lie on the organiser's compute worker (codabench/admission.py says why and how it decides).

Exit codes (as everywhere in runscore): 0 the pass (or the poller, until stopped) did its work, 2 it could not:
bad usage, no CODABENCH_TOKEN, a token or competition the site refuses, a competition that runs submissions by
itself, or (with --once) a site that stayed down through every retry. Refusing a participant's zip is the gate's
ordinary work, not an error.
"""
import argparse
import sys
import tempfile
import time
from typing import Callable, List, Optional

from ..errors import EXIT_CONFIG, EXIT_OK, ConfigError

NAME = "admit"
HELP = "start a held competition's result submissions on Codabench, cancel programs (the organiser's gate)"
TOKEN_VARIABLE = "CODABENCH_TOKEN"
ONCE_RETRIES = 5                    # tries of a --once pass while the site is down (waits 2, 4, 8, 16 s between)
MAX_BACKOFF = 600                   # the poller's longest wait while the site is down


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise ConfigError(message)


DESCRIPTION = """\
The organiser's gate of a Codabench competition built by `runscore bundle --reference` (the formal reference on
your compute worker; its competition.yaml says auto_run_submissions: false, so Codabench holds every submission in
status Submitting). Signed in with your API token, it lists the competition's waiting submissions, downloads each
zip and reads its list of files (never unpacking it):

  * a zip holding a file named metadata or metadata.yaml at its top (or in its one top-level folder) is what
    Codabench runs as a PROGRAM, on your worker, with the reference data mounted: it is CANCELLED, never run;
    so is an upload that is no zip, or larger than --max-bytes;
  * every other zip is a result submission: it is RUN (Codabench's run_submission), and score.py scores it.

What it does to whom: the submitter of a cancelled submission sees its status Cancelled (Codabench lets no reason
be attached; the competition's pages say which zips are cancelled); nothing else of any participant changes. One
line per decision names the submission, its owner, phase and file, what was done and why. A second pass does
nothing new (a decided submission is no longer waiting). While the site is down it waits and tries again (with
--once: %d tries, then exit 2), never starting a submission it could not read.

The token: CODABENCH_TOKEN, the key that POST SITE/api/api-token-auth/ (username, password) returns for an
organiser (or collaborator) of the competition.""" % ONCE_RETRIES


def run(argv: List[str], sleep: Callable[[float], None] = time.sleep, environ: Optional[dict] = None,
        passes: Optional[int] = None) -> int:
    """`passes` (tests): stop the poller after that many passes."""
    import os

    from ..codabench.admission import ADMIT_INTERVAL, MAX_DOWNLOAD_SECONDS, MAX_SUBMISSION_BYTES

    parser = _Parser(prog="runscore admit", description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="examples:\n"
                            "  runscore admit https://www.codabench.org 1234 --once      # one pass (from cron, every "
                            "minute)\n"
                            "  runscore admit https://www.codabench.org 1234             # a poller; stop it with "
                            "Ctrl-C\n(with CODABENCH_TOKEN set to the organiser's API token)")
    parser.add_argument("site", metavar="SITE", help="the Codabench site, e.g. https://www.codabench.org")
    parser.add_argument("competition", metavar="COMPETITION", type=int,
                        help="the competition's number (its page's address ends /competitions/NUMBER/)")
    parser.add_argument("--once", action="store_true", help="one pass, then exit (for cron)")
    parser.add_argument("--interval", metavar="S", type=float, default=float(ADMIT_INTERVAL),
                        help="seconds between two passes of the poller (default %d; the competition's pages tell "
                             "participants that a submission starts within %d seconds)" % (ADMIT_INTERVAL,
                                                                                           ADMIT_INTERVAL))
    parser.add_argument("--max-bytes", metavar="N", type=int, default=MAX_SUBMISSION_BYTES,
                        help="a larger upload is cancelled, not downloaded further (default %d)"
                             % MAX_SUBMISSION_BYTES)
    parser.add_argument("--max-seconds", metavar="S", type=float, default=MAX_DOWNLOAD_SECONDS,
                        help="a download not whole after S seconds is given up; the submission is left waiting and "
                             "tried again on the next pass (default %.0f)" % MAX_DOWNLOAD_SECONDS)
    args = parser.parse_args(argv)
    if args.interval < 1 or args.interval != args.interval:
        raise ConfigError("--interval must be at least 1 second")
    if args.max_bytes < 1:
        raise ConfigError("--max-bytes must be positive")
    if not args.max_seconds > 0:
        raise ConfigError("--max-seconds must be positive")
    from ..codabench.site_api import Site

    token = (environ if environ is not None else os.environ).get(TOKEN_VARIABLE, "").strip()
    try:
        site = Site(args.site, token)
    except ValueError as exc:
        raise ConfigError(str(exc))
    if not token:
        raise ConfigError("set %s to your API token (POST %s/api/api-token-auth/ with your username and password "
                          "returns it as 'token')" % (TOKEN_VARIABLE, site.url))
    return Gate(site, args.competition, args.max_bytes, sleep, args.max_seconds).serve(args.once, args.interval, passes)


def log(message: str) -> None:
    print("%s runscore admit: %s" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), message), flush=True)


class Gate:
    def __init__(self, site, competition: int, limit: int, sleep: Callable[[float], None],
                 seconds: float = 600.0) -> None:
        self.site, self.competition, self.limit, self.sleep = site, competition, limit, sleep
        self.seconds = seconds
        self.checked = False

    def check_competition(self) -> None:
        """The competition must hold its submissions: one that runs them as they arrive has run any program
        before admit could see it (a SiteRefused or SiteDown propagates). Checked at every pass."""
        shown = self.site.competition(self.competition)
        if not isinstance(shown, dict):
            raise ConfigError("%s: competition %d: not a competition" % (self.site.url, self.competition))
        if shown.get("auto_run_submissions") is not False:
            raise ConfigError("competition %d (%s) runs every submission as it arrives (auto_run_submissions is "
                              "on): a program would run before admit saw it. Build the bundle again with runscore "
                              "bundle --reference (it writes auto_run_submissions: false), or switch 'Auto-run "
                              "submissions' off in the competition's settings" % (self.competition,
                                                                                 shown.get("title", "?")))
        if not self.checked:
            log("competition %d (%s) on %s: holding submissions; result zips are run, programs cancelled"
                % (self.competition, shown.get("title", "?"), self.site.url))
        self.checked = True

    def one_pass(self) -> int:
        """One pass: the number of submissions decided. SiteDown propagates."""
        from ..codabench.admission import admit_once

        self.check_competition()        # every pass: auto-run switched on meanwhile stops the gate (exit 2)
        with tempfile.TemporaryDirectory(prefix="runscore-admit-") as workdir:
            return len(admit_once(self.site, self.competition, log, workdir, self.limit, self.seconds))

    def serve(self, once: bool, interval: float, passes: Optional[int] = None) -> int:
        from ..codabench.site_api import SiteDown, SiteRefused

        tries, done = 0, 0
        while True:
            try:
                self.one_pass()
                tries = 0
            except SiteRefused as exc:
                raise ConfigError("%s: %s (check SITE, COMPETITION and that %s is the token of one of its "
                                  "organisers)" % (self.site.url, exc, TOKEN_VARIABLE))
            except SiteDown as exc:
                tries += 1
                wait = min(2.0 ** tries, MAX_BACKOFF)
                if once and tries >= ONCE_RETRIES:
                    print("runscore admit: error: %s: the site did not answer after %d tries: %s; nothing more was "
                          "started" % (self.site.url, tries, exc), file=sys.stderr)
                    return EXIT_CONFIG
                log("the site did not answer (%s); trying again in %.0f s" % (exc, wait))
                self.sleep(wait)
                continue
            done += 1
            if once or (passes is not None and done >= passes):
                return EXIT_OK
            self.sleep(interval)
