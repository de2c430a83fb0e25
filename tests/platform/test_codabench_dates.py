"""Phase dates on the real Codabench: which phase is current when, and what a submission outside the formal
phase's dates gets.

Three competitions of one task, built with `runscore bundle --dates` placed around the present: the formal phase
later, current, or over. The phase status the API gives is read at the real present; Codabench's own status task
(`update_phase_statuses`, which celery beat runs every hour) is run at chosen moments of one competition's
calendar, its clock set to each moment."""
import contextlib
import datetime

import pytest

import codabench_harness as harness

TASK = "temporalia-tqic"            # a task whose scoring takes well under a second: the dates are what is tested
DAY = datetime.timedelta(days=1)
LAYOUTS = {                          # dry start, dry end, formal start, formal end, in days from now
    "formal later": (-5, 5, 10, 20),
    "formal current": (-30, -20, -5, 5),
    "formal over": (-30, -20, -10, -5),
}


def iso(moment):
    return moment.strftime("%Y-%m-%d %H:%M:%S")


@pytest.fixture(scope="module")
def calendar(platform, people, tmp_path_factory):
    if TASK not in harness.task_ids():
        pytest.skip("%s is not among the tasks of this run" % TASK)
    from competitions.models import Competition
    clock = harness.Stopwatch("dates")
    folder = tmp_path_factory.mktemp("dates")
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    built, stored = {}, {}
    for name, days in LAYOUTS.items():
        moments = [now + day * DAY for day in days]
        bundle = str(folder / (name.replace(" ", "-") + ".zip"))
        harness.runscore("bundle", "--tasks", TASK, "-o", bundle, "--dates", ",".join(map(iso, moments)))
        competition = Competition.objects.get(pk=people["organiser"].upload_bundle(bundle))
        people["submitter"].join(competition.pk, competition.secret_key)
        built[name] = (competition, moments)
        stored[name] = list(competition.phases.order_by("index").values_list("status", flat=True))
    clock.lap("%d competitions of %s uploaded" % (len(built), TASK))
    submitter = people["submitter"]
    answers, submissions = {}, {}
    for name in ("formal later", "formal over"):
        formal = built[name][0].phases.get(index=1)
        answers[name] = submitter.call("GET", "/api/can_make_submission/%d/" % formal.id).json()
        submissions[name] = submitter.submit(built[name][0].pk, formal.id, harness.submission_zip(TASK))
    platform.drain()
    clock.lap("submissions outside the formal phase's dates run")
    return {"competitions": built, "stored at upload": stored, "answers": answers, "submissions": submissions}


def test_the_api_gives_each_phase_the_status_of_its_dates(calendar, people):
    """PhaseDetailSerializer.get_status works the status out of the dates at each request (the unpacker stores
    none): Next before the start, Current between start and end, Previous after the end."""
    wanted = {"formal later": ["Current", "Next"], "formal current": ["Previous", "Current"],
              "formal over": ["Previous", "Previous"]}
    for name, (competition, _) in calendar["competitions"].items():
        shown = people["organiser"].call("GET", "/api/competitions/%d/" % competition.pk).json()
        assert [phase["status"] for phase in shown["phases"]] == wanted[name], name
        assert calendar["stored at upload"][name] == [None, None], name


@contextlib.contextmanager
def clock_at(moment):
    """Codabench's models and tasks read the time through `now` (django.utils.timezone), by name."""
    import competitions.models
    import competitions.tasks
    saved = competitions.models.now, competitions.tasks.now
    competitions.models.now = competitions.tasks.now = lambda: moment
    try:
        yield
    finally:
        competitions.models.now, competitions.tasks.now = saved


def test_codabench_status_task_at_chosen_moments(calendar):
    """`update_phase_statuses`, run at moments of one calendar in order (as beat runs it hourly), stores Next,
    Current and Previous as the dates say, until the last phase ends: after that it changes nothing, and the formal
    phase stays Current in the database while the API says Previous."""
    from competitions.models import Phase
    from competitions.tasks import update_phase_statuses
    competition, (dry_start, dry_end, formal_start, formal_end) = calendar["competitions"]["formal later"]
    moments = [("before the dry run", dry_start - DAY, ["Next", None]),
               ("in the dry run", dry_start + DAY, ["Current", "Next"]),
               ("between the phases", dry_end + DAY, ["Previous", "Next"]),
               ("in the formal run", formal_start + DAY, ["Previous", "Current"]),
               ("after the formal run", formal_end + DAY, ["Previous", "Current"])]
    for what, moment, wanted in moments:
        with clock_at(moment):
            update_phase_statuses()
        stored = list(Phase.objects.filter(competition=competition).order_by("index").values_list("status", flat=True))
        assert stored == wanted, what


def test_submissions_outside_the_formal_phase_dates_are_accepted_and_ranked(calendar, platform):
    """The server enforces no phase date: before the formal phase starts and after it ends, the API says the
    participant can submit, takes the submission, runs it and posts its row (only the web page's submit form
    goes by the phase status)."""
    from competitions.models import Submission
    for name, submission_id in calendar["submissions"].items():
        assert calendar["answers"][name] == {"can": True, "reason": None}, name
        submission = Submission.objects.get(pk=submission_id)
        assert submission.status == "Finished", (name, submission.status_details)
        board = platform.anonymous().call("GET", "/api/phases/%d/get_leaderboard/" % submission.phase_id).json()
        assert [row["id"] for row in board["submissions"]] == [submission_id], name
