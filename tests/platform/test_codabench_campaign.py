"""Every task's competitions on the real Codabench (codabench_harness.py): what the platform does with our bundles,
and who can fetch what.

One campaign for the module: for each task, the bundle `runscore bundle` builds by default (its formal phase
collects runs) and the one it builds with `--reference` of a secret reference that carries canary strings; each is
uploaded through the API and the unpacker; a participant (the submitter) sends a broken submission, then the
task's sample submission, to every phase, through the real compute worker; then four users (the organiser, the
submitter, another participant, an anonymous client) fetch everything the API offers, in the unpublished and then
the published competition. The tests read that campaign.
"""
import concurrent.futures
import decimal
import html
import io
import json
import os
import re
import shutil
import zipfile

import pytest

import codabench_harness as harness

KINDS = ("sample", "reference")           # bundle built without / with --reference (the secret reference)
ROLES = ("organiser", "submitter", "other participant", "anonymous")
STATES = ("unpublished", "published")
MARKER = "alice-run-4f1c9e"               # in the submitter's zips only (a dotfile, ignored by score.py)
TASKS = harness.task_ids()
COMPETITIONS = ["%s-%s" % (task, kind) for kind in KINDS for task in TASKS]

# A gold item of each task's secret reference that no public file holds and no submission sends (None: the task's
# gold holds no free text, only classes); every secret reference also holds a file with a canary line.
CANARY_ITEMS = {
    "ntcir1-adhoc": "gakkai-9137424201",
    "temporalia-tqic": None,
    "temporalia-tir": "lk-canary_9137424201",
    "r2c2-pr": "Q9137424201",
    "r2c2-ac": "Canarywort Zephyrine",
    "qqa23-mrc": "\u0642\u0631\u0646\u0641\u0644\u0632\u0639\u0641\u0631\u0627\u0646\u0643\u0646\u0627\u0631\u064a",
    "datasearch-qa": "Canarywort-9137424201",
}


def file_canary(task):
    return "RUNSCORE-CANARY-FILE-" + task


def _append(path, text):
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def _rewrite_jsonl(path, change):
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    change(rows)
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def write_secret_reference(task, folder):
    """The task's sample reference data as an organiser's secret reference: no `detail:` line (the bundle decides),
    plus the task's canary gold item (a relevant document nobody retrieved, an alternative gold answer) and a
    canary file."""
    shutil.copytree(os.path.join(harness.ROOT, "reference_data", task), folder)
    task_yaml = os.path.join(folder, "task.yaml")
    with open(task_yaml, encoding="utf-8") as handle:
        kept = [line for line in handle if not line.startswith("detail:")]
    with open(task_yaml, "w", encoding="utf-8") as handle:
        handle.writelines(kept)
    if task not in CANARY_ITEMS:
        raise AssertionError("no canary for task %s: say in CANARY_ITEMS how its secret reference carries one" % task)
    canary = CANARY_ITEMS[task]
    if task == "ntcir1-adhoc":
        for name in ("rel1_sample_0031-0036", "rel2_sample_0031-0036"):
            _append(os.path.join(folder, name), "0031\tA\t%s\t1\n" % canary)
    elif task == "temporalia-tir":
        _append(os.path.join(folder, "qrels_sample.txt"), "001p %s L2\n" % canary)
    elif task == "r2c2-pr":
        _append(os.path.join(folder, "pr_qrels_sample.tsv"), "0001\t%s::%s\tL2\n" % (canary, "0" * 40))
    elif task == "r2c2-ac":
        _append(os.path.join(folder, "gold_answers_sample.tsv"), "0001\t%s\n" % canary)
    elif task == "datasearch-qa":
        _rewrite_jsonl(os.path.join(folder, "gold_sample.jsonl"), lambda rows: rows[1]["answers"].append(canary))
    elif task == "qqa23-mrc":
        def add_answer(rows):
            rows[0]["passage"] += " %s ." % canary
            rows[0]["answers"].append({"text": canary, "start_char": rows[0]["passage"].index(canary)})
        _rewrite_jsonl(os.path.join(folder, "qrcd_synthetic_sample_preprocessed.jsonl"), add_answer)
    elif canary is not None:
        raise AssertionError("no way to plant %s's canary item" % task)
    with open(os.path.join(folder, "CANARY-NOTE.txt"), "w", encoding="utf-8") as handle:
        handle.write(file_canary(task) + "\n")


def canaries(task):
    return [c for c in (CANARY_ITEMS[task], file_canary(task)) if c]


def spellings(text):
    """The forms a string takes in what the site serves: raw UTF-8, JSON-escaped, HTML-escaped."""
    forms = {text, json.dumps(text)[1:-1], html.escape(text), json.dumps(html.escape(text))[1:-1]}
    return [form.encode("utf-8") for form in forms]


def contents(body):
    """A fetched body and, when it is a zip, every member of it (nested zips too)."""
    yield body
    if body[:2] == b"PK":
        try:
            archive = zipfile.ZipFile(io.BytesIO(body))
            members = [archive.read(info) for info in archive.infolist() if not info.is_dir()]
        except (zipfile.BadZipFile, ValueError, RuntimeError):
            return
        for member in members:
            yield from contents(member)


def holds(bodies, text):
    """The resources among (resource, body) pairs whose body or zip members hold `text`."""
    forms = spellings(text)
    return sorted({resource for resource, body in bodies
                   if any(form in part for part in contents(body) for form in forms)})


# ------------------------------------------------------------------------------------ the campaign ---

class Competition:
    """One uploaded bundle: its yaml, its id, the submitter's submissions (label -> id) and its datasets."""

    def __init__(self, task, kind, bundle, competition_id):
        import yaml
        from competitions.models import Competition as Model
        self.task, self.kind, self.bundle, self.id = task, kind, bundle, competition_id
        with zipfile.ZipFile(bundle) as archive:
            self.yaml = yaml.safe_load(archive.read("competition.yaml"))
        self.model = Model.objects.get(pk=competition_id)
        self.phases = list(self.model.phases.order_by("index"))
        self.dataset_keys = self.datasets()
        self.submissions = {}
        self.seen = {}                    # (state, role) -> {resource: value}
        self.bodies = {}                  # (state, role) -> [(resource, body)]

    @property
    def name(self):
        return "%s-%s" % (self.task, self.kind)

    def datasets(self):
        """Every dataset of the competition (label -> key): the bundle, each task's program and reference data,
        each phase's starting kit and public data."""
        found = {"bundle": self.model.bundle_dataset.key}
        for phase in self.phases:
            for task in phase.tasks.all():
                for kind in ("scoring_program", "reference_data", "input_data", "ingestion_program"):
                    data = getattr(task, kind)
                    if data is not None:
                        found["%s of phase %d" % (kind, phase.index)] = data.key
            for kind in ("starting_kit", "public_data"):
                data = getattr(phase, kind)
                if data is not None:
                    found["%s of phase %d" % (kind, phase.index)] = data.key
        return found

    def label(self, submission_id):
        return next((label for label, known in self.submissions.items() if known == submission_id), None)


def observe(competition, client):
    """Everything `client` can fetch of the competition through the API and the links it hands out:
    ({resource: status or listing}, [(resource, body)])."""
    seen, bodies, answers = {}, [], []

    def call(resource, method, path, body=None):
        response = client.call(method, path, body)
        bodies.append((resource, response.content))
        answers.append(response.content)
        return response

    def follow(resource, url):
        if url:
            status, body = client.fetch(url)
            bodies.append((resource, body))
            return status
        return None

    response = call("competition JSON", "GET", "/api/competitions/%d/" % competition.id)
    seen["competition JSON"] = response.status_code
    seen["leaderboard listed in the competition JSON"] = (bool(response.json()["leaderboards"])
                                                          if response.status_code == 200 else None)
    for label, key in competition.dataset_keys.items():
        seen["download " + label] = follow("download " + label, "/datasets/download/%s/" % key)
    response = call("submission list", "GET", "/api/submissions/?phase__competition=%d" % competition.id)
    listed = [row["id"] for row in response.json()] if response.status_code == 200 else []
    seen["submission list"] = tuple(sorted(filter(None, map(competition.label, listed))))
    for label, submission in sorted(competition.submissions.items()):
        response = call("get_details " + label, "GET", "/api/submissions/%d/get_details/" % submission)
        seen["get_details " + label] = response.status_code
        if response.status_code == 200:
            details = response.json()
            for field in ("data_file", "prediction_result", "scoring_result", "detailed_result"):
                follow("get_details %s: %s" % (label, field), details.get(field))
            for log in details.get("logs") or []:
                follow("get_details %s: %s" % (label, log["name"]), log["data_file"])
        response = call("download_many " + label, "POST", "/api/submissions/download_many/",
                        {"pks": [submission]})
        seen["download_many " + label] = response.status_code
        if response.status_code == 200:
            for item in response.json():
                follow("download_many %s: %s" % (label, item["name"]), item["url"])
        response = call("get_detail_result " + label, "GET", "/api/submissions/%d/get_detail_result/" % submission)
        seen["get_detail_result " + label] = response.status_code
        if response.status_code == 200:
            follow("get_detail_result %s: the page" % label, response.json())
    for phase in competition.phases:
        response = call("get_leaderboard of phase %d" % phase.index, "GET",
                        "/api/phases/%d/get_leaderboard/" % phase.id)
        rows = [row["id"] for row in response.json()["submissions"]] if response.status_code == 200 else []
        seen["get_leaderboard of phase %d" % phase.index] = (response.status_code,
                                                             tuple(filter(None, map(competition.label, rows))))
    for label, key in competition.dataset_keys.items():   # which keys the API's answers handed to this user
        seen["key of %s given" % label] = any(str(key).encode() in answer for answer in answers)
    return seen, bodies


@pytest.fixture(scope="module")
def campaign(platform, people, tmp_path_factory):
    clock = harness.Stopwatch("campaign")
    work = tmp_path_factory.mktemp("campaign")
    secret = work / "secret"
    for task in TASKS:
        write_secret_reference(task, str(secret / task))
    harness.runscore("bundle", "--per-task", str(work / "sample"), "--tasks", ",".join(TASKS))
    harness.runscore("bundle", "--per-task", str(work / "reference"), "--tasks", ",".join(TASKS),
                     "--reference", str(secret))

    clock.lap("bundles built")
    organiser, submitter = people["organiser"], people["submitter"]
    competitions = []
    for kind in KINDS:
        for task in TASKS:
            bundle = str(work / kind / (task + ".zip"))
            harness.install_worker_data(bundle, platform.worker_data)
            competitions.append(Competition(task, kind, bundle, organiser.upload_bundle(bundle)))
    clock.lap("%d competitions uploaded" % len(competitions))
    for competition in competitions:
        for role in ("submitter", "other participant"):     # registration_auto_approve: true
            assert people[role].join(competition.id, competition.model.secret_key) == "approved"
    # The broken submissions first: a failed one does not count against a phase's limit (one a day in some
    # formal phases), a finished one would refuse the next.
    for label in ("broken", "sample"):
        for competition in competitions:
            for phase in competition.phases:
                zipped = harness.submission_zip(competition.task, MARKER, broken=(label == "broken"))
                competition.submissions["phase %d %s" % (phase.index, label)] = submitter.submit(
                    competition.id, phase.id, zipped)
        clock.lap("%s submissions sent" % label)
        # A competition with the reference on the worker holds its submissions for the organiser's gate
        # (auto_run_submissions: false): every one here is a results zip, which admit runs.
        for competition in competitions:
            if competition.yaml.get("auto_run_submissions") is False:
                code, log = harness.admit(platform.site_url, organiser.token, competition.id)
                assert code == 0 and log.count(": run: ") == len(competition.phases), log
        clock.lap("held submissions admitted")
        clock.lap("%d worker jobs run" % platform.drain())
    for state in STATES:
        if state == "published":
            for competition in competitions:
                toggled = organiser.call("POST", "/api/competitions/%d/toggle_publish/" % competition.id)
                assert toggled.json() == {"published": True}, toggled.text
        with concurrent.futures.ThreadPoolExecutor(4) as pool:      # the site serves with two workers
            looks = {(competition, role): pool.submit(observe, competition, client.another())
                     for competition in competitions for role, client in people.items()}
            for (competition, role), look in looks.items():
                competition.seen[state, role], competition.bodies[state, role] = look.result()
        clock.lap("everything fetched by everyone, %s" % state)
    return {competition.name: competition for competition in competitions}




# -------------------------------------------------------------- the platform's rules, as its code reads ---
# Codabench c7dbc756 (../shared/peers/codabench/src), read before it was run: each rule cites the code that makes
# it, and test_who_can_fetch_what holds the running site to it.

EXPECTED_STATUS = {"broken": "Failed", "sample": "Finished"}      # score.py exits 1 / 0 (docs/codabench.md)


def on_leaderboard(competition, label):
    """Whether the submission gets a row: the leaderboard's submission_rule (leaderboards/strategies.py)."""
    rule = competition.phases[0].leaderboard.submission_rule
    finished = EXPECTED_STATUS[label.rsplit(" ", 1)[1]] == "Finished"
    if rule == "Force_Latest_Multiple":                  # AllModeStrategy: every finished submission
        return finished
    if rule in ("Add", "Add_And_Delete", "Add_And_Delete_Multiple"):   # ManualModeStrategy: none until added
        return False
    raise AssertionError("no expectation written for submission_rule %s" % rule)


def expected(competition, state, role, resource):
    published = state == "published"
    organiser, anonymous = role == "organiser", role == "anonymous"
    submissions = sorted(competition.submissions)
    if resource == "competition JSON":
        # CompetitionViewSet.get_queryset: anonymous users see published competitions only; signed-in ones also
        # their own, and those they are approved participants of.
        return 404 if anonymous and not published else 200
    if resource == "leaderboard listed in the competition JSON":
        if anonymous and not published:
            return None
        # CompetitionDetailSerializer.get_leaderboards: a hidden leaderboard is listed to admins only.
        return organiser or not competition.phases[0].leaderboard.hidden
    if resource.startswith("download "):
        return 200                                # datasets/views.py download(): get_object_or_404, no check
    if resource.startswith("key of "):
        kind, _, phase_index = resource[len("key of "):-len(" given")].partition(" of phase ")
        if kind == "bundle":                      # the bundle's key goes to nobody (get_files is admin-only)
            return False
        if expected(competition, state, role, "competition JSON") == 200:
            return True                           # phases[].tasks[].public_datasets, phases[].starting_kit
        # The submission list's `task` (TaskSerializer) names its scoring program and reference data.
        listed = {int(label.split()[1]) for label in expected(competition, state, role, "submission list")}
        return kind in ("scoring_program", "reference_data") and int(phase_index) in listed
    if resource == "submission list":
        if role in ("organiser", "submitter"):    # SubmissionViewSet.get_queryset: owner, organisers
            return tuple(submissions)
        if anonymous:                             # ... and to anonymous users every finished one with a row
            return tuple(label for label in submissions if on_leaderboard(competition, label))
        return ()
    kind, _, label = resource.partition(" ")
    phase = competition.phases[int(label.split()[1])] if label.startswith("phase ") else None
    if kind == "get_details":
        # get_queryset first (404 outside it), then hide_output refuses non-admins (403).
        if organiser:
            return 200
        if role == "other participant" or (anonymous and not on_leaderboard(competition, label)):
            return 404
        return 403 if phase.hide_output else 200
    if kind == "download_many":                   # owner or organiser, signed in; no hide_output check
        return 200 if role in ("organiser", "submitter") else 403
    if kind == "get_detail_result":
        if not competition.model.enable_detailed_results:
            return 404
        # published: anyone; unpublished: the creator, collaborators and approved participants.
        return 200 if published or not anonymous else 403
    if kind == "get_leaderboard":                 # AllowAny, every row, hidden or not
        rows = tuple(label for label in submissions
                     if label.startswith("phase %d " % int(resource.split()[-1])) and on_leaderboard(competition, label))
        return (200, rows)
    raise AssertionError("no expectation for %s" % resource)


def table(rows):
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) for row in rows)


# --------------------------------------------------------------------------------------------- tests ---

@pytest.mark.parametrize("name", COMPETITIONS)
def test_who_can_fetch_what(campaign, name):
    """The access table of docs/codabench.md, for the organiser, the submitter, another participant and an
    anonymous client, unpublished and published: every status (and every listing) the site gives is the one its
    code says, with the flags (hide_output, hidden, enable_detailed_results) the uploaded competition holds."""
    competition = campaign[name]
    mismatches = []
    rows = [("state", "resource") + ROLES]
    for state in STATES:
        for resource in competition.seen[state, "organiser"]:
            actual = [competition.seen[state, role].get(resource) for role in ROLES]
            wanted = [expected(competition, state, role, resource) for role in ROLES]
            rows.append((state, resource) + tuple(actual))
            mismatches += ["%s, %s, %s: got %r, expected %r" % (state, role, resource, got, want)
                           for role, got, want in zip(ROLES, actual, wanted) if got != want]
    print(table(rows))
    assert not mismatches, "\n".join(mismatches) + "\n\n" + table(rows)


@pytest.mark.parametrize("task", TASKS)
def test_no_canary_reaches_anyone_but_the_organiser(campaign, task):
    """Nothing a participant or an anonymous client can reach, in either state, holds a string of the secret
    reference the bundle was built with (a gold item, a line of a reference file)."""
    competition = campaign["%s-reference" % task]
    secret = io.BytesIO()
    folder = os.path.join(os.path.dirname(os.path.dirname(competition.bundle)), "secret", task)
    with zipfile.ZipFile(secret, "w") as archive:
        for name in sorted(os.listdir(folder)):
            archive.write(os.path.join(folder, name), name)
    for canary in canaries(task):        # the search finds each canary in the secret reference itself
        assert holds([("secret reference", secret.getvalue())], canary), canary
    leaks = ["%s, %s: %s holds %r" % (state, role, resource, canary)
             for (state, role), bodies in sorted(competition.bodies.items()) if role != "organiser"
             for canary in canaries(task) for resource in holds(reachable(competition, state, role, bodies), canary)]
    assert not leaks, "\n".join(leaks)


def reachable(competition, state, role, bodies):
    """What the user reached by following the site: every answer and link, and the downloads of the datasets
    whose keys the site handed to that user (a key it never gave cannot be guessed: a random UUID)."""
    seen = competition.seen[state, role]
    hidden = {"download " + label for label in competition.dataset_keys if not seen["key of %s given" % label]}
    return [(resource, body) for resource, body in bodies if resource not in hidden]


@pytest.mark.parametrize("phase", [0, 1], ids=["dry run", "formal run"])
@pytest.mark.parametrize("name", COMPETITIONS)
def test_runs_are_fetched_by_the_submitter_and_the_organiser_only(campaign, name, phase):
    """The submitter's zips of the phase (marked by a dotfile) reach the organiser, and nobody else: not another
    participant, not an anonymous client, in either state, through any door."""
    competition = campaign[name]
    mine = "phase %d " % phase

    def of_phase(bodies):          # what names this phase, and what names none (a list, the competition)
        return [(resource, body) for resource, body in bodies
                if mine in resource or not re.search(r"\bphase \d+ ", resource)]
    assert holds(of_phase(competition.bodies["unpublished", "organiser"]), MARKER)
    leaks = ["%s, %s: %s" % (state, role, resource)
             for (state, role), bodies in sorted(competition.bodies.items())
             if role in ("other participant", "anonymous") for resource in holds(of_phase(bodies), MARKER)]
    assert not leaks, "the submitter's runs reached others:\n" + "\n".join(leaks)


def shown(value, precision):
    """A score as the leaderboard shows it: stored as numeric(20, 10) (leaderboards/models.py SubmissionScore),
    then printed as str(round(float(score), precision)) (api/views/competitions.py get_leaderboard)."""
    stored = decimal.Context(prec=20).create_decimal_from_float(float(value)).quantize(
        decimal.Decimal(10) ** -10, rounding=decimal.ROUND_HALF_UP)
    return str(round(float(stored), precision))


def page_rows(board):
    """The leaderboard table as the competition page draws it (static/riot/competitions/detail/leaderboards.tag:
    a cell is the score of that task and column, or n/a): [(submission id, [cells])]."""
    rows = []
    for submission in board["submissions"]:
        cells = []
        for task in board["tasks"]:
            for column in task["columns"]:
                score = next((s["score"] for s in submission["scores"]
                              if s["task_id"] == task["id"] and s["column_key"] == column["key"]), None)
                cells.append(score if score else "n/a")
        rows.append((submission["id"], cells))
    return rows


def output_file(field, name):
    """A file of a submission's output zip (prediction_result / scoring_result), read from the storage."""
    with field.open("rb") as handle:
        with zipfile.ZipFile(io.BytesIO(handle.read())) as archive:
            return archive.read(name) if name in archive.namelist() else None


@pytest.mark.parametrize("name", COMPETITIONS)
def test_statuses_and_the_leaderboard_as_the_page_shows_it(campaign, platform, name):
    """In every phase the broken submission fails with score.py's message in its scoring log and no row; the
    sample finishes with a row whose cells are its scores.json values as the board prints them (str(round(x,
    precision)): 0.1, not 0.1000), every column filled where the phase scores, every cell n/a where it collects."""
    from competitions.models import Submission
    competition = campaign[name]
    for label, submission_id in sorted(competition.submissions.items()):
        submission = Submission.objects.get(pk=submission_id)
        wanted = EXPECTED_STATUS[label.rsplit(" ", 1)[1]]
        assert submission.status == wanted, (label, submission.status, submission.status_details)
        if wanted == "Failed":
            # run_wrapper's last word on a non-zero exit of the scoring program (compute_worker.py).
            assert submission.status_details == "Child task failed or non-zero return code", \
                (label, submission.status_details)
            with submission.details.get(name="scoring_stderr").data_file.open("rb") as handle:
                assert b": error: " in handle.read(), label
    anonymous = platform.anonymous()
    for phase in competition.phases:
        board = anonymous.call("GET", "/api/phases/%d/get_leaderboard/" % phase.id).json()
        sample = Submission.objects.get(pk=competition.submissions["phase %d sample" % phase.index])
        rows = page_rows(board)
        assert [row[0] for row in rows] == [sample.id], (phase.name, rows)
        scores = json.loads(output_file(sample.scoring_result, "scores.json"))
        columns = [column for task in board["tasks"] for column in task["columns"]]
        scored = phase.index == 0 or competition.kind == "reference"
        if scored:
            assert set(scores) >= {column["key"] for column in columns}, (phase.name, sorted(scores))
        else:
            assert not set(scores) & {column["key"] for column in columns}, (phase.name, sorted(scores))
        cells = [shown(scores[c["key"]], c["precision"]) if c["key"] in scores else "n/a" for c in columns]
        assert rows[0][1] == cells, (phase.name, rows[0][1], cells)


# ------------------------------------------------------------ competition.yaml against the database ---

def stored_files(data):
    """The files of a dataset the unpacker stored (a zip it made of a bundle folder): {path: bytes}."""
    with data.data_file.open("rb") as handle:
        with zipfile.ZipFile(io.BytesIO(handle.read())) as archive:
            return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}


def bundle_files(bundle, folder):
    prefix = folder.rstrip("/") + "/"
    with zipfile.ZipFile(bundle) as archive:
        return {info.filename[len(prefix):]: archive.read(info) for info in archive.infolist()
                if info.filename.startswith(prefix) and not info.is_dir()}


def bundle_text(bundle, name):
    with zipfile.ZipFile(bundle) as archive:
        return archive.read(name).decode("utf-8")


def when(value):
    from competitions.unpackers.utils import get_datetime
    return get_datetime(value)


COMPETITION_FLAGS = {   # yaml key -> (Competition field, the v2 unpacker's default)
    "title": ("title", None), "description": ("description", ""), "docker_image": ("docker_image", None),
    "registration_auto_approve": ("registration_auto_approve", False),
    "enable_detailed_results": ("enable_detailed_results", False),
    "show_detailed_results_in_submission_panel": ("show_detailed_results_in_submission_panel", True),
    "show_detailed_results_in_leaderboard": ("show_detailed_results_in_leaderboard", True),
    "auto_run_submissions": ("auto_run_submissions", True),
    "can_participants_make_submissions_public": ("can_participants_make_submissions_public", True),
    "make_programs_available": ("make_programs_available", False),
    "make_input_data_available": ("make_input_data_available", False),
    "competition_type": ("competition_type", "competition"), "reward": ("reward", None),
    "contact_email": ("contact_email", None), "forum_enabled": ("forum_enabled", True),
    "fact_sheet": ("fact_sheet", None),
}
PHASE_FIELDS = {        # yaml key -> (Phase field, the v2 unpacker's default)
    "name": ("name", None), "description": ("description", None),
    "max_submissions_per_day": ("max_submissions_per_day", 5), "max_submissions": ("max_submissions_per_person", 100),
    "execution_time_limit": ("execution_time_limit", 600), "hide_output": ("hide_output", False),
    "hide_prediction_output": ("hide_prediction_output", False), "hide_score_output": ("hide_score_output", False),
    "auto_migrate_to_this_phase": ("auto_migrate_to_this_phase", False),
}
COLUMN_FIELDS = ("title", "key", "index", "sorting", "precision", "hidden", "computation", "computation_indexes")


def check_yaml_against_database(competition):
    """Every value of the bundle's competition.yaml against what the unpacker stored; a key this check does not
    know is an error too, so that a new key of the bundle cannot go unchecked."""
    spec, model, bundle = competition.yaml, competition.model, competition.bundle
    problems = []

    def same(where, got, want):
        if got != want:
            problems.append("%s: database %.300r, competition.yaml %.300r" % (where, got, want))

    handled = set(COMPETITION_FLAGS) | {"version", "image", "terms", "pages", "tasks", "phases", "leaderboards"}
    problems += ["competition.yaml key %r is not checked" % key for key in spec if key not in handled]
    same("version", str(spec.get("version")), "2")
    for key, (field, default) in COMPETITION_FLAGS.items():
        same(key, getattr(model, field), spec.get(key, default))
    with model.logo.open("rb") as handle:
        with zipfile.ZipFile(bundle) as archive:
            same("image", handle.read(), archive.read(spec["image"]))
    # Page texts go through DRF's CharField, which trims surrounding whitespace (trim_whitespace=True).
    same("terms", model.terms, bundle_text(bundle, spec["terms"]).strip())
    pages = list(model.pages.order_by("index"))
    same("pages", [(p.title, p.content) for p in pages],
         [(p["title"], bundle_text(bundle, p["file"]).strip()) for p in spec["pages"]])

    tasks = {}
    for entry in spec["tasks"]:
        problems += ["task key %r is not checked" % key for key in entry
                     if key not in ("index", "name", "description", "scoring_program", "reference_data",
                                    "input_data", "ingestion_program", "ingestion_only_during_scoring")]
        tasks[entry["index"]] = entry
    phases = sorted(spec["phases"], key=lambda p: p.get("index", 0))
    same("number of phases", len(competition.phases), len(phases))
    for phase, entry in zip(competition.phases, phases):
        where = "phase %s" % entry["name"]
        problems += ["%s key %r is not checked" % (where, key) for key in entry
                     if key not in set(PHASE_FIELDS) | {"index", "start", "end", "tasks", "starting_kit",
                                                        "public_data"}]
        for key, (field, default) in PHASE_FIELDS.items():
            same("%s %s" % (where, key), getattr(phase, field), entry.get(key, default))
        same(where + " start", phase.start, when(entry["start"]))
        same(where + " end", phase.end, when(entry.get("end")))
        for kind in ("starting_kit", "public_data"):
            data = getattr(phase, kind)
            same("%s %s" % (where, kind), stored_files(data) if data else None,
                 bundle_files(bundle, entry[kind]) if kind in entry else None)
        stored_tasks = list(phase.tasks.all())
        same(where + " tasks", [t.name for t in stored_tasks], [tasks[i].get("name") for i in entry["tasks"]])
        for task, index in zip(stored_tasks, entry["tasks"]):
            wanted = tasks[index]
            same(where + " task description", task.description, wanted.get("description"))
            same(where + " ingestion_only_during_scoring", task.ingestion_only_during_scoring,
                 wanted.get("ingestion_only_during_scoring", False))
            for kind in ("scoring_program", "reference_data", "input_data", "ingestion_program"):
                data = getattr(task, kind)
                same("%s task %s" % (where, kind), stored_files(data) if data else None,
                     bundle_files(bundle, wanted[kind]) if kind in wanted else None)

    board_spec = spec["leaderboards"][0]
    problems += ["leaderboard key %r is not checked" % key for key in board_spec
                 if key not in ("title", "key", "submission_rule", "hidden", "columns")]
    boards = {phase.leaderboard_id for phase in competition.phases}
    same("leaderboards attached to the phases (the first of the yaml's only)", len(boards), 1)
    board = competition.phases[0].leaderboard
    same("leaderboard title", board.title, board_spec["title"])
    same("leaderboard key", board.key, board_spec["key"])
    same("leaderboard submission_rule", board.submission_rule, board_spec.get("submission_rule", "Add"))
    same("leaderboard hidden", board.hidden, board_spec.get("hidden", False))
    columns = list(board.columns.order_by("index"))
    same("number of columns", len(columns), len(board_spec["columns"]))
    defaults = {"sorting": "desc", "precision": 2, "hidden": False, "computation": None, "computation_indexes": None}
    for column, entry in zip(columns, sorted(board_spec["columns"], key=lambda c: c["index"])):
        problems += ["column key %r is not checked" % key for key in entry if key not in COLUMN_FIELDS]
        for field in COLUMN_FIELDS:
            same("column %s %s" % (entry["key"], field), getattr(column, field), entry.get(field, defaults.get(field)))
    return problems


@pytest.mark.parametrize("name", COMPETITIONS)
def test_every_value_of_competition_yaml_is_what_the_database_holds(campaign, name):
    problems = check_yaml_against_database(campaign[name])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", COMPETITIONS)
def test_a_failed_submission_costs_nothing_of_the_limits(campaign, people, name):
    """Phase.can_user_make_submissions counts the submissions that did not fail: after a broken (Failed) and a
    sample (Finished) submission to each phase the submitter has used one of each phase's allowance, so a phase
    allowing one a day (datasearch-qa's formal run) refuses the next one and every other phase takes it."""
    competition = campaign[name]
    for phase in competition.phases:
        answer = people["submitter"].call("GET", "/api/can_make_submission/%d/" % phase.id).json()
        wanted = ({"can": True, "reason": None} if phase.max_submissions_per_day > 1 else
                  {"can": False, "reason": "Reached maximum allowed submissions for today for this phase"})
        assert answer == wanted, phase.name
