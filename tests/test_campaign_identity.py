"""Identity from the platform: `runscore pool` and `runscore report` read Codabench downloads by one reader
(campaign/downloads.py), where a run is (owner, run name). Each attack of the campaign's review is here: by name, by
impersonation, by split submissions, by phase, by date and by companion file; each changes nothing in the pool but
messages that name it. Every test calls the CLI in process (runscore.cli.main).
"""
import csv
import json
import os
import zipfile

import pytest

from conftest import ROOT
from runscore.campaign.sheet import read_sheet
from runscore.cli import main

REF_QQA = os.path.join(ROOT, "reference_data", "qqa23-mrc")
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")


def download(folder, number, owner, files, phase=3, when="2026-05-01:10-22"):
    """A file as Codabench's download_many names it: {id}_{owner}_PhaseId{phase}_{date}_{file} (the upload zip)."""
    path = os.path.join(str(folder), "%d_%s_PhaseId%d_%s_submission.zip" % (number, owner, phase, when))
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def tir_run(group, run_id, docs, subtopics=("001p", "001a")):
    return "".join("%s\t%d\t%s\t%s\t%s\n" % (s, rank, doc, group, run_id)
                   for s in subtopics for rank, doc in enumerate(docs, 1))


def pool(tmp_path, *argv):
    out = str(tmp_path / ("pool%d" % len(os.listdir(str(tmp_path)))))
    code = main(["pool", "--task", "temporalia-tir", "--depth", "3"] + [str(a) for a in argv] + ["-o", out])
    return code, out


def pooled_runs(out):
    with open(os.path.join(out, "pool_stats.json"), encoding="utf-8") as handle:
        return [(r["run"], r["team"]) for r in json.load(handle)["runs"]]


def pooled_items(out):
    return sorted({r.values["item"] for r in read_sheet(os.path.join(out, "pool.tsv"))[1]})


# ------------------------------------------------------------------------------------------ the download name ---

@pytest.mark.parametrize("name,expected", [
    ("12_alice_PhaseId3_2026-05-01:10-22_sub.zip", (12, "alice", 3, "2026-05-01", "sub.zip")),
    # an owner with underscores, and an uploaded file name that imitates the pattern: the first match is the platform's
    ("7_bob_smith_PhaseId3_2026-05-01:10-22_9_eve_PhaseId4_2026-06-01:00-00_x.zip",
     (7, "bob_smith", 3, "2026-05-01", "9_eve_PhaseId4_2026-06-01:00-00_x.zip")),
    ("12_alice_Phase3_2026-05-01:10-22_sub.zip", None),          # not a download name: a loose file
    ("12_al ice_PhaseId3_2026-05-01:10-22_sub.zip", None),       # an owner never holds whitespace
])
def test_download_names_tell_id_owner_phase_and_day(name, expected):
    from runscore.campaign.identity import origin_of

    origin = origin_of("/x/" + name)
    got = (origin.submission, origin.owner, origin.phase, origin.day, origin.file) if origin.vouched else None
    assert got == expected


# ------------------------------------------------------------------------------------------ by name ---

def test_a_later_submission_of_another_owner_cannot_replace_a_run(tmp_path, capsys):
    """eve sends a run named like alice's after her: before, the pool silently took eve's (exit 0); now the pool is
    refused naming both owners, and with --allow-same-names both are kept, each under its owner."""
    alice = download(tmp_path, 12, "alice", {"tir": tir_run("alice", "alice_run1", ["A1", "A2", "A3"])})
    eve = download(tmp_path, 15, "eve", {"tir": tir_run("alice", "alice_run1", ["E1", "E2", "E3"])})
    code, out = pool(tmp_path, alice, eve)
    err = capsys.readouterr().err
    assert code == 1 and not os.path.exists(out)
    assert "run alice_run1 is sent by 2 owners: alice (%s); eve (%s)" % (alice, eve) in err
    code, out = pool(tmp_path, alice, eve, "--allow-same-names")
    assert code == 0
    assert pooled_runs(out) == [("alice_run1@alice", "alice"), ("alice_run1@eve", "eve")]
    assert pooled_items(out) == ["A1", "A2", "A3", "E1", "E2", "E3"]


def test_a_run_is_credited_to_its_owner_not_to_the_team_it_names(tmp_path):
    """eve's run names group alice: it is eve's run in runs.tsv and in the statistics."""
    eve = download(tmp_path, 15, "eve", {"tir": tir_run("alice", "alice_run2", ["E1"])})
    code, out = pool(tmp_path, eve)
    assert code == 0
    assert pooled_runs(out) == [("alice_run2", "eve")]
    rows = open(os.path.join(out, "runs.tsv"), encoding="utf-8").read().split("\n")
    assert rows[1].split("\t")[:2] == ["alice_run2", "eve"]


def test_a_resubmission_replaces_only_its_owners_run_in_pool_and_report(tmp_path, capsys):
    """The same owner sends a run again: the later submission (higher id) wins, in the pool and in the report
    alike (the report used to refuse such downloads: "two runs are named ...")."""
    sample = open(os.path.join(SAMPLES, "qqa23-mrc", "sample_run01.json"), encoding="utf-8").read()
    first = download(tmp_path, 20, "alice", {"alice_run01.json": sample.replace('"rank": 1', '"rank": 1 ')})
    second = download(tmp_path, 31, "alice", {"alice_run01.json": sample})
    out = str(tmp_path / "report")
    assert main(["report", "--task", "qqa23-mrc", "--ref", REF_QQA, "--trials", "20", "--tau-bootstrap", "0",
                 second, first, "-o", out]) == 0
    err = capsys.readouterr().err
    assert "run alice_run01 of alice replaces the one of their earlier submission 20" in err
    with open(os.path.join(out, "means.csv"), encoding="utf-8") as handle:
        assert [(r["run"], r["team"]) for r in csv.DictReader(handle)] == [("alice_run01", "alice")]
    a = download(tmp_path, 40, "bob", {"tir": tir_run("bob", "bob_run1", ["B1"])})
    b = download(tmp_path, 41, "bob", {"tir": tir_run("bob", "bob_run1", ["B2"])})
    code, out = pool(tmp_path, b, a)
    assert code == 0 and pooled_items(out) == ["B2"]


# ------------------------------------------------------------------------------------------ by split submissions ---

def test_the_cap_counts_an_owners_runs_over_all_submissions(tmp_path, capsys):
    """Three submissions of three Temporalia runs each (each within the cap of 3 a submission): 3 runs are pooled,
    the lowest run numbers, and the six others are listed (before: all 9 were pooled, even with --runs-per-team 3,
    which trusted the group id the runs name)."""
    paths = []
    for k, number in enumerate((50, 51, 52)):
        text = "".join(tir_run("g%d" % k, "x_run%d" % (3 * k + n), ["D%d" % (3 * k + n)]) for n in (1, 2, 3))
        paths.append(download(tmp_path, number, "mallory", {"tir_g%d" % k: text}))
    for extra in ([], ["--runs-per-team", "3"]):
        code, out = pool(tmp_path, *(paths + extra))
        assert code == 0
        assert pooled_runs(out) == [("x_run1", "mallory"), ("x_run2", "mallory"), ("x_run3", "mallory")]
        err = capsys.readouterr().err
        assert err.count("left out: mallory sent 9 runs of temporalia-tir in submissions 50, 51, 52") == 6
        stats = json.load(open(os.path.join(out, "pool_stats.json"), encoding="utf-8"))
        assert len([n for n in stats["left_out_or_replaced"] if "left out" in n]) == 6


# ------------------------------------------------------------------------------------------ by phase and by date ---

def test_a_submission_to_another_phase_never_replaces_a_formal_run(tmp_path, capsys):
    formal = download(tmp_path, 60, "alice", {"tir": tir_run("alice", "alice_run1", ["F1"])}, phase=3)
    other = download(tmp_path, 61, "alice", {"tir": tir_run("alice", "alice_run1", ["O1"])}, phase=4)
    code, out = pool(tmp_path, formal, other)
    assert code == 2 and not os.path.exists(out)
    assert "sent to 2 phases (3, 4); name the formal phase with --phase" in capsys.readouterr().err
    code, out = pool(tmp_path, formal, other, "--phase", "3")
    assert code == 0 and pooled_items(out) == ["F1"]
    assert "%s: warning: submission 61 of alice left out: it was sent to phase 4, not the formal phase 3" % other \
        in capsys.readouterr().err


def test_a_late_submission_is_left_out_and_the_deadline_needs_the_platforms_list(tmp_path, capsys):
    """The date in a download's name is the upload's, not the submission's (a zip uploaded before the deadline can
    be submitted after it): --deadline is decided by the platform's list of submissions alone."""
    on_time = download(tmp_path, 70, "alice", {"tir": tir_run("alice", "alice_run1", ["T1"])}, when="2026-04-30:59-59")
    same_day = download(tmp_path, 72, "alice", {"tir": tir_run("alice", "alice_run1", ["S1"])},
                        when="2026-05-01:30-00")
    code, out = pool(tmp_path, on_time, same_day, "--deadline", "2026-05-01T23:59+09:00")
    assert code == 2 and "--deadline needs the platform's list of submissions (--submissions FILE" \
        in capsys.readouterr().err
    listing = tmp_path / "submissions.csv"
    listing.write_text("Submission ID,File Name,Owner,Created When,Status,Phase\n"
                       "70,s.zip,alice,2026-04-30T08:59:59.120000Z,Finished,Formal\n"
                       "72,s.zip,alice,2026-05-01T15:30:00.004100Z,Finished,Formal\n")
    code, out = pool(tmp_path, on_time, same_day, "--deadline", "2026-05-01T23:59+09:00", "--submissions", listing)
    assert code == 0 and pooled_items(out) == ["T1"]
    assert "it was sent at 2026-05-01 15:30:00 UTC, after the deadline 2026-05-01 14:59:00 UTC" \
        in capsys.readouterr().err
    listing.write_text("Submission ID,File Name,Owner,Created When,Status,Phase\n"
                       "72,s.zip,mallory,2026-05-01T10:00:00Z,Finished,Formal\n")
    code, _ = pool(tmp_path, same_day, "--deadline", "2026-05-01T23:59+09:00", "--submissions", listing)
    assert code == 2 and "says submission 72 is alice's, but the submission list says mallory's" \
        in capsys.readouterr().err


def test_a_loose_file_says_the_platform_cannot_tell_whose_it_is(tmp_path, capsys):
    loose = tmp_path / "tir_alice"
    loose.write_text(tir_run("alice", "alice_run1", ["L1"]))
    code, out = pool(tmp_path, loose, "--phase", "3")
    assert code == 0 and pooled_runs(out) == [("alice_run1", "alice")]
    assert "this input is not a Codabench download as the platform names it ({id}_{owner}_PhaseId{phase}_" \
           "{YYYY-MM-DD:MM-SS}_{file}, given or in a folder given), so the platform does not tell whose runs it " \
           "holds" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ by companion ---

PR_RUN = "0001;1;D-%s;%s\n0001;2;D-%s2;second passage of %s\n"
AC_RUN = "<D0001>An answer;80\n1;SHARED-PG-1;1;a nugget\n</D0001>\n"


def test_a_companion_belongs_to_its_sender_and_gets_a_receipt(tmp_path, capsys):
    """eve (an earlier submission) sends a PR run named like the one alice's nuggets cite: before, the earliest
    copy resolved every team's nuggets, so eve chose the passage alice's nugget was judged against; now alice's
    nuggets are resolved against her own copy, eve's against eve's, and each copy has its owner's receipt."""
    eve = download(tmp_path, 80, "eve", {"EVE-AC-1": AC_RUN, "SHARED-PG-1": PR_RUN % ("eve", "eve's text", "eve",
                                                                                     "eve")})
    alice = download(tmp_path, 81, "alice", {"ALICE-AC-1": AC_RUN,
                                             "SHARED-PG-1": PR_RUN % ("alice", "alice's text", "alice", "alice")})
    out = str(tmp_path / "ac")
    assert main(["pool", "--task", "r2c2-ac", eve, alice, "-o", out]) == 0
    printed = capsys.readouterr().out
    rows = [r.values for r in read_sheet(os.path.join(out, "pool.tsv"))[1] if r.values["unit"] == "nugget"]
    passage_of = {r["run_names"]: r["passage"] for r in rows}
    assert passage_of == {"ALICE-AC-1": "alice's text", "EVE-AC-1": "eve's text"}
    assert "receipt: companion SHARED-PG-1 of eve" in printed and "receipt: companion SHARED-PG-1 of alice" in printed
    table = open(os.path.join(out, "companions.tsv"), encoding="utf-8").read().split("\n")
    assert [line.split("\t")[0] for line in table[1:-1]] == ["eve", "alice"]
    assert os.listdir(os.path.join(out, "pr_runs")) == []        # no official PR runs given: nothing shared


def test_a_run_named_like_anothers_label_gets_a_label_of_its_own(tmp_path):
    """With --allow-same-names alice's and bob's r1 are r1@alice and r1@bob; eve's run called `r1@alice` must not
    share a label with alice's (labels key the pool's runs and teams)."""
    paths = [download(tmp_path, n, owner, {"tir_%s" % owner: tir_run(owner, name, [doc])})
             for n, owner, name, doc in ((1, "alice", "r1", "A"), (2, "bob", "r1", "B"), (3, "eve", "r1@alice", "E"))]
    code, out = pool(tmp_path, *(paths + ["--allow-same-names"]))
    assert code == 0
    assert pooled_runs(out) == [("r1@alice", "alice"), ("r1@bob", "bob"), ("r1@alice@eve", "eve")]


def test_a_download_name_deep_inside_a_loose_folder_is_not_believed(tmp_path, capsys):
    """A participant's zip unpacked by hand may hold a file named like a competitor's download: only the folder an
    organiser gives, and its own entries, may hold downloads; deeper, the file is loose and credited to the team
    its runs name."""
    unpacked = tmp_path / "eve_unpacked" / "inner"
    unpacked.mkdir(parents=True)
    download(unpacked, 1, "alice", {"tir_eve": tir_run("eve", "eve_run1", ["F"])})
    code, out = pool(tmp_path, tmp_path / "eve_unpacked")
    assert code == 0 and pooled_runs(out) == [("eve_run1", "eve")]
    assert "not a Codabench download as the platform names it" in capsys.readouterr().err


def test_one_submission_given_twice_is_a_usage_error(tmp_path, capsys):
    first = download(tmp_path, 12, "alice", {"tir_alice": tir_run("alice", "alice_run1", ["A1"])})
    copy = os.path.join(str(tmp_path), "copy")
    os.makedirs(copy)
    second = os.path.join(copy, os.path.basename(first))
    with open(first, "rb") as source, open(second, "wb") as target:
        target.write(source.read())
    code, out = pool(tmp_path, first, second)
    assert code == 2 and "submission 12 is given twice" in capsys.readouterr().err


def test_two_ac_runs_of_one_folder_each_keep_the_pr_runs_beside_them(tmp_path):
    """Each pooled AC file keeps the PR runs its folder held, so `runscore judgements` resolves every run's nuggets
    as the pool did (the second run of a folder used to lose them: "nugget has no label")."""
    folder = tmp_path / "team"
    folder.mkdir()
    for name in ("T-AC-1", "T-AC-2"):
        (folder / name).write_text(AC_RUN.replace("SHARED-PG-1", "T-PG-1").replace("An answer", name))
    (folder / "T-PG-1").write_text(PR_RUN % ("t", "the passage", "t", "t"))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-ac", str(folder), "-o", out]) == 0
    assert sorted(os.listdir(os.path.join(out, "runs", "002"))) == ["T-AC-2", "T-PG-1"]
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    from runscore.campaign.sheet import write_sheet

    sheet = str(tmp_path / "labels.tsv")
    write_sheet(sheet, columns, [dict(r.values, label="1") for r in rows])
    assert main(["judgements", "--task", "r2c2-ac", "--pool", os.path.join(out, "pool.tsv"), sheet, "-o",
                 str(tmp_path / "ref")]) == 0
