"""Fuzzing the campaign commands: random hostile campaigns through pool -> judgements -> report, checked against an
independent statement of the identity rules, and damaged sheets, runs tables and pool statistics through
`runscore judgements`.

Campaigns: Codabench downloads of random owners, ids, phases and days, each one team's Temporalia runs whose names,
groups and document ids are drawn from hostile strings (formula starts, also after a separator, markup, U+2028,
LaTeX specials, non-ASCII),
with random --phase, --deadline (and the platform's list), --allow-same-names and --runs-per-team. The pool must
take exactly the runs `expected_runs` says (a second, simpler statement of docs/campaign.md's rules: a run is
(owner, name); later ids replace; one name from two owners refuses unless allowed; the cap counts an owner's runs
over all submissions; other phases and late downloads are left out; a deadline needs the list), the report
over the same downloads the same runs, and every command must answer as hostile_campaign/harness.py requires.
r2c2-ac campaigns (AC runs with their own PR runs beside them, some named like the official ones or another
submission's) go round the whole loop: the reference the judgements write scores every pooled run.

Sizes: RUNSCORE_FUZZ_CAMPAIGNS campaigns (6 in `make test`, 150 in `make fuzz-ci`) and RUNSCORE_FUZZ_CAMPAIGN_FILES
damaged files per kind (20; 400 in fuzz-ci).
"""
import csv
import io
import os
import random
import re
import zipfile
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT
from hostile.harness import for_each_distinct_mutation
from hostile_campaign.harness import fill_sheet, problems, run_command

CAMPAIGNS = int(os.environ.get("RUNSCORE_FUZZ_CAMPAIGNS", "6"))
FILES = int(os.environ.get("RUNSCORE_FUZZ_CAMPAIGN_FILES", "20"))
REF = os.path.join(ROOT, "reference_data", "temporalia-tir")

OWNERS = ["alice", "bob_smith", "-eve", "mal-lory", "o_PhaseId9", "zed99", "ümit"]
NAMES = ["=r1", "+r2", "r3", "@r4", "[r5", "*r6", "<!--r7", "r\u00e98", "r9", "-r1", "r3@alice", "x;=r10", 'y,"@r11']
GROUPS = ["g", "=g", "[g", "<g>", "ünï", "g_1", "@g", "h;=g"]
DOCS = ["lk-1", "=HYPERLINK(1)", "+1", "<!--<script>", "x\\y", "'q", "-2", "@d", "d{1}", "中文", "a;=HYPERLINK(2)",
        'b,"+1']
DEADLINE = datetime(2026, 5, 1, 14, 59, tzinfo=timezone.utc)
DAYS = ["2026-04-29", "2026-04-30", "2026-05-01", "2026-05-02"]
RUN_NUMBER = re.compile(r"([0-9]{1,9})(?:\.[A-Za-z]+)?$")
CAP = 3                      # Temporalia's runs per team


def campaign(rng: random.Random, folder: str):
    """Downloads in `folder` and their truth: [(id, owner, phase, created, [(run name, docs)])]."""
    subs = []
    for number in rng.sample(range(1, 60), rng.randint(1, 6)):
        owner = rng.choice(OWNERS)
        phase = rng.choice([3, 3, 3, 4])
        day = rng.choice(DAYS)
        created = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=timezone.utc) + \
            timedelta(hours=rng.randrange(24), minutes=rng.randrange(60), seconds=rng.randrange(60))
        group = rng.choice(GROUPS)
        runs = [(name, rng.sample(DOCS, rng.randint(1, 4))) for name in rng.sample(NAMES, rng.randint(1, CAP))]
        text = "".join("%s\t%d\t%s\t%s\t%s\n" % (s, rank, doc, group, name)
                       for name, docs in runs for s in ("001p", "002f") for rank, doc in enumerate(docs, 1))
        path = os.path.join(folder, "%d_%s_PhaseId%d_%s_s.zip" % (number, owner, phase,
                                                                  created.strftime("%Y-%m-%d:%M-%S")))
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("tir_%s" % group, text)
        subs.append((number, owner, phase, created, runs))
    return subs


def expected_runs(subs, phase, deadline, listed, allow, per_owner):
    """Exit code and, for 0, the (run, team) pairs the pool must hold, in the rules' own words."""
    phases = {s[2] for s in subs}
    if phase is None and len(phases) > 1:
        return 2, None
    kept = [s for s in subs if phase is None or s[2] == phase]
    if deadline is not None:
        if not listed and kept:         # a download's name gives the upload's date: only the list decides
            return 2, None
        kept = [s for s in kept if s[3] <= deadline]
    latest = {}
    for number, owner, _, _, runs in sorted(kept):
        for name, _ in runs:
            latest.pop((owner, name), None)
            latest[(owner, name)] = number
    owners_of = {}
    for owner, name in latest:
        owners_of.setdefault(name, []).append(owner)
    if not allow and any(len(o) > 1 for o in owners_of.values()):
        return 1, None
    taken = [(name if len(owners_of[name]) == 1 else "%s@%s" % (name, owner), owner, name)
             for owner, name in latest]
    labels = [t[0] for t in taken]          # a raw name that meets another run's label gets its owner appended
    taken = [("%s@%s" % (t[0], t[1]) if labels.count(t[0]) > 1 and t[0] == t[2] else t[0], t[1], t[2])
             for t in taken]
    limit = min(CAP, per_owner or CAP)
    out = []
    for owner in {o for _, o, _ in taken}:
        mine = [(k, t) for k, t in enumerate(taken) if t[1] == owner]

        def number_of(entry):
            found = RUN_NUMBER.search(entry[1][2])
            return (0, int(found.group(1)), entry[0]) if found else (1, 0, entry[0])
        out.extend(sorted(mine, key=number_of)[:limit])
    if not out:
        return 2, None                  # every run left out: nothing to pool (the organiser's inputs)
    return 0, sorted((t[0], t[1]) for _, t in out)


def listing(folder, subs):
    path = os.path.join(folder, "submissions.csv")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Submission ID", "File Name", "Owner", "Created When", "Status", "Phase"])
        for number, owner, _, created, _ in subs:
            writer.writerow([number, "s.zip", owner, created.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "Finished", "F"])
    return path


def read_pooled(out):
    import json

    with open(os.path.join(out, "pool_stats.json"), encoding="utf-8") as handle:
        return sorted((r["run"], r["team"]) for r in json.load(handle)["runs"])


def check(argv):
    code, stdout, stderr = run_command(argv)
    found = problems(argv, code, stdout, stderr, False)
    assert not found, (argv, found)
    return code, stdout, stderr


@settings(max_examples=CAMPAIGNS, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_random_hostile_campaigns_follow_the_identity_rules(tmp_path_factory, seed):
    rng = random.Random(seed)
    folder = str(tmp_path_factory.mktemp("campaign"))
    inputs = os.path.join(folder, "downloads")
    os.makedirs(inputs)
    subs = campaign(rng, inputs)
    phase = rng.choice([None, 3])
    deadline = rng.choice([None, DEADLINE])
    listed = deadline is not None and rng.random() < 0.5
    allow = rng.random() < 0.5
    per_owner = rng.choice([None, None, 1, 2])
    options = (["--phase", str(phase)] if phase else []) + \
        (["--deadline", "2026-05-01T23:59+09:00"] if deadline else []) + \
        (["--submissions", listing(folder, subs)] if listed else []) + (["--allow-same-names"] if allow else [])
    pool = os.path.join(folder, "pool")
    code, _, stderr = check(["pool", "--task", "temporalia-tir", "--depth", "3", inputs, "-o", pool, "--html"] +
                            options + (["--runs-per-team", str(per_owner)] if per_owner else []))
    want_code, want_runs = expected_runs(subs, phase, deadline, listed, allow, per_owner)
    assert code == want_code, (subs, options, per_owner, stderr[-1500:])
    if code != 0:
        return
    assert read_pooled(pool) == want_runs, (subs, options, per_owner)
    sheet = os.path.join(folder, "sheet.tsv")
    fill_sheet(os.path.join(pool, "pool.tsv"), sheet, rng.choice(["L0", "L1", "L2"]))
    ref = os.path.join(folder, "ref")
    assert check(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(pool, "pool.tsv"), sheet,
                  "-o", ref])[0] == 0
    report = os.path.join(folder, "report")
    code, _, stderr = check(["report", "--task", "temporalia-tir", "--ref", ref, "--trials", "10",
                             "--tau-bootstrap", "0", "--pool-depth", "3", inputs, "-o", report] + options)
    assert code == 0, stderr[-1500:]
    if per_owner is None:
        with open(os.path.join(report, "means.csv"), encoding="utf-8", newline="") as handle:
            from runscore.campaign.safe_output import restore_cell

            rows = [(restore_cell(r["run"]), restore_cell(r["team"])) for r in csv.DictReader(handle)]
        assert sorted(rows) == want_runs


# ------------------------------------------------------------------------------------ damaged organiser files ---

def _pool_folder(folder, task):
    """A small pool of `task` and a labelled sheet for it, made once per test."""
    runs = os.path.join(folder, "runs")
    os.makedirs(runs)
    if task == "r2c2-ac":
        with open(os.path.join(runs, "T\u2028X-AC-1"), "w", encoding="utf-8") as handle:
            handle.write("<D0001>=answer;80\n1;T\u2028X-PG-1;1;+nugget\n</D0001>\n")
        with open(os.path.join(runs, "T\u2028X-PG-1"), "w", encoding="utf-8") as handle:
            handle.write("0001;1;=D1;@passage\n")
        argv = ["pool", "--task", "r2c2-ac", runs]
    else:
        with open(os.path.join(runs, "tir_=g"), "w", encoding="utf-8") as handle:
            handle.write("".join("001p\t%d\t%s\t=g\t=g_run1\n" % (k, d) for k, d in enumerate(DOCS[:6], 1)))
        argv = ["pool", "--task", task, "--depth", "10", runs]
    pool = os.path.join(folder, "pool")
    assert run_command(argv + ["-o", pool])[0] == 0
    sheet = os.path.join(folder, "sheet.tsv")
    fill_sheet(os.path.join(pool, "pool.tsv"), sheet, "1" if task == "r2c2-ac" else "L1")
    return pool, sheet


def _as_csv(sheet):
    """The sheet as a spreadsheet saves it as CSV: a BOM, commas, quoted fields, CRLF."""
    from runscore.campaign.sheet import read_sheet

    columns, rows = read_sheet(sheet)
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writerow(columns)
    writer.writerows([[row.values[c] + (", x" if c == "run_names" else "") for c in columns] for row in rows])
    path = sheet[:-4] + ".csv"
    with open(path, "wb") as handle:
        handle.write(b"\xef\xbb\xbf" + out.getvalue().encode("utf-8"))
    return path


def _fuzz_one_file(tmp_path, task, damaged):
    pool, sheet = _pool_folder(str(tmp_path), task)
    if damaged == "csv":
        sheet = _as_csv(sheet)
    target = {"sheet": sheet, "csv": sheet, "runs": os.path.join(pool, "runs.tsv"),
              "stats": os.path.join(pool, "pool_stats.json")}[damaged]
    with open(target, "rb") as handle:
        clean = handle.read()
    failures = []
    count = [0]

    def visit(kind, data):
        with open(target, "wb") as handle:
            handle.write(data)
        count[0] += 1
        ref = os.path.join(str(tmp_path), "ref%d" % count[0])
        argv = ["judgements", "--task", task, "--pool", os.path.join(pool, "pool.tsv"), sheet, "-o", ref]
        code, stdout, stderr = run_command(argv)
        found = problems(argv, code, stdout, stderr, False)
        if code not in (0, 2):
            found.append("exit %d" % code)
        if found:
            failures.append((kind, data[:200], found))

    seen = for_each_distinct_mutation([clean], FILES, visit)
    with open(target, "wb") as handle:
        handle.write(clean)
    assert len(seen) >= FILES
    assert not failures, "\n".join("  [%s] %s\n      input: %r" % (k, f, d) for k, d, f in failures[:6])


def test_damaged_sheets_get_file_line_messages(tmp_path):
    _fuzz_one_file(tmp_path, "temporalia-tir", "sheet")


def test_damaged_csv_sheets_get_file_line_messages(tmp_path):
    _fuzz_one_file(tmp_path, "temporalia-tir", "csv")


def test_damaged_r2c2_ac_sheets_get_file_line_messages(tmp_path):
    _fuzz_one_file(tmp_path, "r2c2-ac", "sheet")


def test_damaged_runs_tables_get_file_line_messages(tmp_path):
    _fuzz_one_file(tmp_path, "r2c2-ac", "runs")


def test_damaged_pool_statistics_get_file_line_messages(tmp_path):
    _fuzz_one_file(tmp_path, "temporalia-tir", "stats")


# ------------------------------------------------------------------------------------ r2c2-ac round trips ---

AC_TEAMS = ["A", "=B", "C\u2028D", "[E", "é"]
PR_NAMES = ["P-PG-1", "Q-PO-2", "=R-PG-3"]


def ac_campaign(rng: random.Random, folder: str, official: str):
    """Downloads of AC runs with their own PR runs beside them (some named like the official ones or another
    submission's), and the official PR runs; returns the AC run names per owner."""
    def pr_text(tag):
        return "".join("000%d;%d;D-%s-%d;%s passage %d of %s\n" % (q, r, tag, r, rng.choice(DOCS), r, tag)
                       for q in (1, 2) for r in (1, 2, 3))

    for name in rng.sample(PR_NAMES, rng.randint(0, 2)):
        with open(os.path.join(official, name), "w", encoding="utf-8") as handle:
            handle.write(pr_text("official"))
    names = {}
    for number in rng.sample(range(1, 40), rng.randint(1, 4)):
        owner = rng.choice(OWNERS)
        team = rng.choice(AC_TEAMS)
        files = {}
        for n in rng.sample((1, 2, 3), rng.randint(1, 2)):
            blocks = []
            for q in (1, 2):
                nuggets = "".join("%d;%s;%d;%s nugget\n" % (k, rng.choice(PR_NAMES), rng.randint(1, 4),
                                                            rng.choice(DOCS)) for k in range(1, rng.randint(1, 3)))
                blocks.append("<D000%d>%s answer;%d\n%s</D000%d>\n" % (q, rng.choice(DOCS), rng.randint(0, 100),
                                                                       nuggets, q))
            files["%s-AC-%d" % (team, n)] = "".join(blocks)
            names.setdefault(owner, []).append("%s-AC-%d" % (team, n))
        for name in rng.sample(PR_NAMES, rng.randint(0, 2)):
            files[name] = pr_text(str(number))
        path = os.path.join(folder, "%d_%s_PhaseId3_2026-04-20:10-00_s.zip" % (number, owner))
        with zipfile.ZipFile(path, "w") as archive:
            for name, text in files.items():
                archive.writestr(name, text)
    return names


@settings(max_examples=CAMPAIGNS, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_random_r2c2_ac_campaigns_round_trip(tmp_path_factory, seed):
    """pool -> a filled sheet -> judgements -> the reference scores every pooled AC run: each run's nuggets are
    resolved the same way at every step (the official PR runs first, then the run's own submission's)."""
    rng = random.Random(seed)
    folder = str(tmp_path_factory.mktemp("ac"))
    inputs, official = os.path.join(folder, "downloads"), os.path.join(folder, "official")
    os.makedirs(inputs)
    os.makedirs(official)
    ac_campaign(rng, inputs, official)
    pool = os.path.join(folder, "pool")
    allow = rng.random() < 0.5
    code, _, stderr = check(["pool", "--task", "r2c2-ac", inputs, "--pr-runs", official, "-o", pool] +
                            (["--allow-same-names"] if allow else []))
    if code != 0:
        assert code == 1 and "is sent by" in stderr and not allow, stderr[-1500:]
        return
    sheet = os.path.join(folder, "sheet.tsv")
    fill_sheet(os.path.join(pool, "pool.tsv"), sheet, rng.choice(["0", "1", "2"]))
    ref = os.path.join(folder, "ref")
    code, _, stderr = check(["judgements", "--task", "r2c2-ac", "--pool", os.path.join(pool, "pool.tsv"), sheet,
                             "-o", ref])
    if code != 0:          # two owners' runs of one name: the reference keys labels by run name
        assert code == 2 and "two pooled runs are named" in stderr and allow, stderr[-1500:]
        return
    with open(os.path.join(pool, "runs.tsv"), encoding="utf-8") as handle:
        from runscore.campaign.sheet import read_cell

        files = [os.path.join(pool, read_cell(line.split("\t")[2])) for line in handle.read().split("\n")[1:] if line]
    code, _, stderr = check(["score", "--task", "r2c2-ac", "--ref", ref] + files)
    assert code == 0, stderr[-1500:]
