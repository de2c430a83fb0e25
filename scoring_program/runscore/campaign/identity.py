"""Whose runs an organiser holds, sent to which phase, and when: what the platform says about each input.

Why a module of its own: a run's name is the participant's word, so a pool or a report that keys runs by name lets
one participant erase or impersonate another (a later submission of a competitor's run name). The platform knows
who sent what: Codabench names each file of `download_many` `{id}_{owner}_PhaseId{phase}_{created}_{file}`
(src/apps/api/views/submissions.py; specs/campaign.md 4.4), where `created` is `%Y-%m-%d:%M-%S` in UTC, without
the hour, and is the UPLOAD's time (`sub.data.created_when`), not the submission's: a zip uploaded before the
deadline can be made a submission after it. The download itself is the participant's uploaded zip and holds nothing
from the platform. The submissions page's "Download CSV" lists every submission's id, owner, full creation time and
status (the API's CSV renderer with the labels Submission ID, File Name, Owner, Created When, Status, Phase): a
deadline is decided by it alone (--submissions), it must agree with the names on the owner, and a submission the
platform did not finish (Failed, Cancelled, never run) is no run the formal phase accepted.

Owners cannot forge the name's first parts: Codabench usernames hold no whitespace and no `:`, and the date
(with its `:`) follows the owner, so the first `_PhaseId<n>_<date>_` is the platform's, whatever the uploaded
file is called. A file or zip not named so (a loose file) cannot tell any of this: its runs are credited to the
team each run names, and the caller says so.
"""
import csv
import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Dict, List, Optional

from ..errors import ConfigError
from ..textfile import read_text

# {id}_{owner}_PhaseId{phase}_{created:%Y-%m-%d:%M-%S}_{file} (Codabench src/apps/api/views/submissions.py)
DOWNLOAD_NAME = re.compile(r"(?P<id>[0-9]{1,18})_(?P<owner>\S+?)_PhaseId(?P<phase>[0-9]{1,18})_"
                           r"(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2}):(?P<minute>[0-9]{2})-(?P<second>[0-9]{2})_(?P<file>.+)")
DOWNLOAD_PATTERN = "{id}_{owner}_PhaseId{phase}_{YYYY-MM-DD:MM-SS}_{file}"
# The submission list's columns (Codabench's SubmissionViewSet.get_renderer_context labels).
LIST_ID, LIST_OWNER, LIST_CREATED, LIST_STATUS = "Submission ID", "Owner", "Created When", "Status"
ACCEPTED = "Finished"          # the one status of a submission the phase scored (Codabench's Submission.FINISHED)
_TIME = re.compile(r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[T ](?P<hour>[0-9]{2}):(?P<minute>[0-9]{2})"
                   r"(?::(?P<second>[0-9]{2})(?:\.[0-9]{1,9})?)?\s*(?P<zone>Z|UTC|[+-][0-9]{2}:?[0-9]{2})?")


@dataclass(frozen=True)
class Origin:
    """One input as the platform names it. submission/owner/phase/day are None for a loose input (not named as a
    download); created is the full time from the platform's submission list, when given."""

    source: str
    submission: Optional[int] = None
    owner: Optional[str] = None
    phase: Optional[int] = None
    day: Optional[str] = None
    file: str = ""
    created: Optional[datetime] = None
    status: Optional[str] = None       # the platform's status from its submission list, when given

    @property
    def vouched(self) -> bool:
        """Does the platform say whose this is?"""
        return self.owner is not None

    def describe(self) -> str:
        return ("submission %d of %s" % (self.submission, self.owner) if self.vouched
                else "%s (not a Codabench download)" % self.source)


def origin_of(path: str) -> Origin:
    """The platform's word on `path` (a file or folder named as a download), else a loose Origin."""
    name = os.path.basename(os.path.normpath(path))
    match = DOWNLOAD_NAME.fullmatch(name)
    if match is None:
        return Origin(path)
    return Origin(path, int(match.group("id")), match.group("owner"), int(match.group("phase")), match.group("day"),
                  match.group("file"))


def parse_time(text: str, what: str) -> datetime:
    """A time such as 2026-05-01T23:59, 2026-05-01 23:59:59+09:00 or Codabench's 2026-05-01T14:59:03.123456Z, as
    an aware UTC datetime (no zone given: UTC, as Codabench's phase dates are); ConfigError otherwise."""
    match = _TIME.fullmatch(text.strip())
    if match is None:
        raise ConfigError("%s %r is not a time such as 2026-05-01T23:59 (UTC) or 2026-05-01T23:59+09:00"
                          % (what, text[:60]))
    try:
        moment = datetime.strptime("%s %s:%s:%s" % (match.group("date"), match.group("hour"), match.group("minute"),
                                                    match.group("second") or "00"), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ConfigError("%s %r is not a valid date and time" % (what, text[:60]))
    zone = match.group("zone")
    offset = timedelta(0)
    if zone and zone not in ("Z", "UTC"):
        digits = zone[1:].replace(":", "")
        offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        if zone[0] == "-":
            offset = -offset
    return (moment - offset).replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Listed:
    """One row of the platform's submission list."""

    owner: str
    created: datetime
    status: Optional[str] = None       # None: the list has no Status column


def read_submission_list(path: str) -> Dict[int, Listed]:
    """{submission id: Listed} from the CSV the competition's submissions page downloads; ConfigError (FILE:LINE)
    for a file that is not that list."""
    text = read_text(path, error_class=ConfigError)
    rows = csv.reader(text.split("\n"))
    header = next(rows, None)
    if header is None or not {LIST_ID, LIST_OWNER, LIST_CREATED} <= {h.strip() for h in header}:
        raise ConfigError("the submission list needs the columns %s, %s and %s (the CSV that Codabench's "
                          "submissions page downloads)" % (LIST_ID, LIST_OWNER, LIST_CREATED), path, 1)
    column = {h.strip(): k for k, h in enumerate(header)}
    found: Dict[int, Listed] = {}
    for line_no, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            raise ConfigError("expected %d comma-separated fields, found %d" % (len(header), len(row)), path, line_no)
        number = row[column[LIST_ID]].strip()
        if not number.isascii() or not number.isdigit() or len(number) > 18:
            raise ConfigError("%s %r is not a submission id" % (LIST_ID, number[:40]), path, line_no)
        try:
            created = parse_time(row[column[LIST_CREATED]], LIST_CREATED)
        except ConfigError as exc:
            raise ConfigError(exc.args[0], path, line_no)
        if int(number) in found:
            raise ConfigError("submission %s is listed twice" % number, path, line_no)
        status = row[column[LIST_STATUS]].strip() if LIST_STATUS in column else None
        found[int(number)] = Listed(row[column[LIST_OWNER]].strip(), created, status)
    return found


@dataclass(frozen=True)
class Window:
    """The formal phase and its deadline, as the organiser states them (None: not checked)."""

    phase: Optional[int] = None
    deadline: Optional[datetime] = None


def with_listing(origin: Origin, listing: Optional[Dict[int, Listed]]) -> Origin:
    """The origin with its full creation time and status from the platform's list; ConfigError when the list and
    the file name disagree on the owner (the file was renamed, or the list is of another competition)."""
    if listing is None or not origin.vouched or origin.submission not in listing:
        return origin
    listed = listing[origin.submission]
    owner = listed.owner
    if owner != origin.owner:
        raise ConfigError("the download name says submission %d is %s's, but the submission list says %s's; a "
                          "download must keep the name the platform gave it" % (origin.submission, origin.owner,
                                                                                  owner), origin.source)
    return Origin(origin.source, origin.submission, origin.owner, origin.phase, origin.day, origin.file,
                  listed.created, listed.status)


def not_accepted(origin: Origin) -> Optional[str]:
    """Why the platform's list says this submission is no run the formal phase accepted (None: it finished, or no
    list says otherwise)."""
    if origin.status is None or origin.status == ACCEPTED:
        return None
    return "the platform's submission list gives its status as %s, not %s: the phase did not accept it" % (
        origin.status[:40], ACCEPTED)


def deadline_needs_list(origins: List[Origin], listing_given: bool) -> Optional[str]:
    """Why --deadline cannot be applied to these downloads (None: it can): the date in a download's name is the
    upload's, so only the platform's list of submissions (their creation times) decides."""
    if not origins:
        return None
    if not listing_given:
        return ("--deadline needs the platform's list of submissions (--submissions FILE: the \"Download CSV\" "
                "button of the competition's submissions page, as the organiser): the date in a download's name is "
                "when its zip was uploaded, not when the submission was made (a zip uploaded before the deadline "
                "can be submitted after it), so only the list's creation times decide")
    missing = [o for o in origins if o.created is None]
    if missing:
        return ("%d download(s) are not in the submission list (%s): download the list again after the deadline, "
                "from this competition" % (len(missing), ", ".join(os.path.basename(o.source) for o in missing[:5])
                                          + (" ..." if len(missing) > 5 else "")))
    return None


def outside_window(origin: Origin, window: Window) -> Optional[str]:
    """Why a download is left out of the formal phase (another phase; after the deadline), None when it is in, and
    "unknown" when its name's day is the deadline's day and no submission list gives the hour."""
    if not origin.vouched:
        return None
    if window.phase is not None and origin.phase != window.phase:
        return "it was sent to phase %d, not the formal phase %d" % (origin.phase, window.phase)
    if window.deadline is None:
        return None
    if origin.created is not None:
        if origin.created > window.deadline:
            return "it was sent at %s UTC, after the deadline %s UTC" % (_shown(origin.created),
                                                                        _shown(window.deadline))
        return None
    deadline_day = window.deadline.strftime("%Y-%m-%d")
    if origin.day > deadline_day:
        return "it was sent on %s (UTC), after the deadline %s UTC" % (origin.day, _shown(window.deadline))
    if origin.day == deadline_day:
        return "unknown"
    return None


def _shown(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def undecided_message(origins: List[Origin], window: Window) -> str:
    return ("cannot tell whether %d download(s) came before the deadline %s UTC: Codabench's download name gives "
            "the day, minute and second but not the hour (%s, on the deadline's day); give the platform's list of "
            "submissions with --submissions FILE (the \"Download CSV\" button of the competition's submissions "
            "page), which holds each submission's full time"
            % (len(origins), _shown(window.deadline), ", ".join(os.path.basename(o.source) for o in origins[:5])
               + (" ..." if len(origins) > 5 else "")))
