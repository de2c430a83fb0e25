"""Regenerate the checked-in hostile corpus of the campaign commands (tests/hostile_campaign/<case>/) and the table of
what each must get (tests/hostile_campaign/expected.tsv).

Usage: .venv/bin/python tests/hostile_campaign/make_corpus.py [--write-expected]

Each case is a folder of inputs (Codabench downloads named as the platform names them, loose runs, the platform's
submission list, sheets) and `commands.txt`: the commands run in order, one a line, fields TAB-separated, where
{case} is the case's folder, {out} a fresh work folder, {root} the repository and {repeat:C:N} the character C N
times. The table records the last command's exit code and its
first error line (else warning, else first line), the folders cut off. With --write-expected the table is refilled
from the program's real output; review its diff line by line before committing it. Zips are written with a fixed
time, so the files are the same bytes on every run.
"""
import io
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))
sys.path.insert(0, os.path.dirname(HERE))
TABLE = os.path.join(HERE, "expected.tsv")
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFERENCES = "{root}/reference_data"       # {root}: the repository the case runs in (never a path of the machine)
WHEN = (2026, 5, 1, 0, 0, 0)
REPEAT = re.compile(r"\{repeat:(.):([0-9]+)\}")        # {repeat:9:100000} in a command: 100,000 nines


def zipped(files) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name, WHEN)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content.encode("utf-8") if isinstance(content, str) else content)
    return data.getvalue()


def download(number, owner, files, phase=3, when="2026-05-01:10-22"):
    return "%d_%s_PhaseId%d_%s_submission.zip" % (number, owner, phase, when), zipped(files)


def tir(group, run_id, docs, subtopics=("001p", "001a")):
    return "".join("%s\t%d\t%s\t%s\t%s\n" % (s, rank, doc, group, run_id)
                   for s in subtopics for rank, doc in enumerate(docs, 1))


POOL_TIR = ["pool", "--task", "temporalia-tir", "--depth", "5"]
LISTING = "Submission ID,File Name,Owner,Created When,Status,Phase\n"
AC = "<D0001>An answer;80\n1;%s;1;a nugget\n</D0001>\n"
PR = "0001;1;D-%s;%s\n"


def cases():
    """{case name: (files {name: bytes or str}, commands [[argv]])}."""
    c = {}

    def add(name, files, *commands):
        c[name] = (dict(files), [list(cmd) for cmd in commands])

    alice = download(12, "alice", {"tir_alice": tir("alice", "alice_run1", ["A1", "A2"])})
    eve = download(15, "eve", {"tir_alice": tir("alice", "alice_run1", ["E1", "E2"])})
    add("name_of_another_owner", [alice, eve], POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("name_of_another_owner_allowed", [alice, eve],
        POOL_TIR + ["--allow-same-names", "{case}", "-o", "{out}/pool"])
    add("group_of_another_team", [download(15, "eve", {"tir_alice": tir("alice", "alice_run2", ["E1"])})],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("resubmission_of_one_owner", [download(20, "bob", {"tir_bob": tir("bob", "bob_run1", ["B1"])}),
                                      download(21, "bob", {"tir_bob": tir("bob", "bob_run1", ["B2"])})],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    split = [download(50 + k, "mallory", {"tir_g%d" % k: "".join(tir("g%d" % k, "m_run%d" % (3 * k + n), ["D%d" % n])
                                                                  for n in (1, 2, 3))}) for k in range(3)]
    add("runs_split_over_submissions", split, POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("runs_per_team_priority", split, POOL_TIR + ["--runs-per-team", "1", "{case}", "-o", "{out}/pool"])
    phases = [download(60, "alice", {"tir_alice": tir("alice", "alice_run1", ["F1"])}, phase=3),
              download(61, "alice", {"tir_alice": tir("alice", "alice_run1", ["O1"])}, phase=4)]
    add("two_phases_unnamed", phases, POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("other_phase_left_out", phases, POOL_TIR + ["--phase", "3", "{case}", "-o", "{out}/pool"])
    late = [download(70, "alice", {"tir_alice": tir("alice", "alice_run1", ["T1"])}, when="2026-04-30:59-59"),
            download(71, "alice", {"tir_alice": tir("alice", "alice_run1", ["L1"])}, when="2026-05-02:00-01")]
    late_list = LISTING + "70,s.zip,alice,2026-04-30T08:59:59Z,Finished,F\n71,s.zip,alice,2026-05-02T00:00:01Z,Finished,F\n"
    add("late_download_left_out", late + [("list.csv", late_list)],
        POOL_TIR + ["--deadline", "2026-05-01T23:59", "--submissions", "{case}/list.csv",
                    "{case}/70_alice_PhaseId3_2026-04-30:59-59_submission.zip",
                    "{case}/71_alice_PhaseId3_2026-05-02:00-01_submission.zip", "-o", "{out}/pool"])
    same_day = [late[0], download(72, "alice", {"tir_alice": tir("alice", "alice_run1", ["S1"])},
                                  when="2026-05-01:30-00")]
    add("deadline_day_without_the_list", same_day,
        POOL_TIR + ["--deadline", "2026-05-01T23:59+09:00", "{case}", "-o", "{out}/pool"])
    listed = LISTING + "70,s.zip,alice,2026-04-30T08:59:59Z,Finished,F\n72,s.zip,alice,2026-05-01T15:30:00Z,Finished,F\n"
    add("deadline_day_with_the_list", same_day + [("list.csv", listed)],
        POOL_TIR + ["--deadline", "2026-05-01T23:59+09:00", "--submissions", "{case}/list.csv",
                    "{case}/70_alice_PhaseId3_2026-04-30:59-59_submission.zip",
                    "{case}/72_alice_PhaseId3_2026-05-01:30-00_submission.zip", "-o", "{out}/pool"])
    add("list_names_another_owner", same_day[1:] + [("list.csv", LISTING + "72,s.zip,mallory,2026-05-01T10:00:00Z,"
                                                                            "Finished,F\n")],
        POOL_TIR + ["--submissions", "{case}/list.csv", "{case}/72_alice_PhaseId3_2026-05-01:30-00_submission.zip",
                    "-o", "{out}/pool"])
    add("list_is_not_the_platforms", same_day[1:] + [("list.csv", "id;who\n72;alice\n")],
        POOL_TIR + ["--submissions", "{case}/list.csv", "{case}/72_alice_PhaseId3_2026-05-01:30-00_submission.zip",
                    "-o", "{out}/pool"])
    add("deadline_not_a_time", late, POOL_TIR + ["--deadline", "tomorrow", "{case}", "-o", "{out}/pool"])
    add("companion_named_like_anothers",
        [download(80, "eve", {"EVE-AC-1": AC % "SHARED-PG-1", "SHARED-PG-1": PR % ("eve", "eve's passage")}),
         download(81, "alice", {"ALICE-AC-1": AC % "SHARED-PG-1", "SHARED-PG-1": PR % ("alice", "alice's")})],
        ["pool", "--task", "r2c2-ac", "{case}", "-o", "{out}/pool"])
    formulas = ['=HYPERLINK("http://evil.example")', "+1+1", "-2+3", "@SUM(A1)", "'q", "<!--<script>"]
    add("formulas_and_markup_in_ids",
        [download(90, "-owner", {"tir_=g": "".join("001p\t%d\t%s\t=g\t@run1\n" % (k, d)
                                                   for k, d in enumerate(formulas, 1))})],
        POOL_TIR + ["--html", "{case}", "-o", "{out}/pool"],
        ["fill-sheet", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "L1"],
        ["judgements", "--task", "temporalia-tir", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv",
         "-o", "{out}/ref"])
    hostile = ["</script><script>alert(1)</script>", "<!--<script>", "=HYPERLINK(\"http://x\")", "line\u2028sep"]
    docs = "".join("<doc id=lk-%d>\n<meta-info>\n<tag name=\"title\">%s</tag>\n</meta-info>\n<text>\n<SE>%s bridge"
                   "</SE>\n</text>\n</doc>\n" % (k, h.replace("<", "&lt;"), h.replace("<", "&lt;"))
                   for k, h in enumerate(hostile))
    topics = ("<topic><id>001</id><title>&lt;/script&gt; bridge</title><description>=cmd|' /C calc'!A0</description>"
              "<subtopics><subtopic id=\"001p\" type=\"past\"><!--<script> when?</subtopic></subtopics></topic>")
    pages = download(91, "ann", {"tir_g": tir("g", "g_run1", ["lk-%d" % k for k in range(4)], ("001p",))})
    add("assessment_pages_with_markup", [pages, ("docs.xml", docs), ("topics.xml", topics)],
        POOL_TIR + ["{case}/" + pages[0], "-o", "{out}/pool", "--collection", "{case}/docs.xml", "--topics",
                    "{case}/topics.xml", "--batch-size", "2", "--assessors", "=ann,<b>", "--overlap", "1",
                    "--show-pool-stats"],
        ["fill-sheet", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "L1"],
        ["judgements", "--task", "temporalia-tir", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv",
         "-o", "{out}/ref"])
    team = "Team\u2028Two"
    add("line_separator_in_a_team_name",
        [("%s-AC-1" % team, AC % ("%s-PG-1" % team)), ("%s-PG-1" % team, PR % ("x", "a passage"))],
        ["pool", "--task", "r2c2-ac", "{case}", "-o", "{out}/pool"],
        ["fill-sheet", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "2"],
        ["judgements", "--task", "r2c2-ac", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "-o", "{out}/ref"])
    inner = zipped({"tir_g": tir("g", "g_run1", ["Z1"])})
    add("zip_in_a_zip_in_the_upload", [download(5, "alice", {"a.zip": zipped({"b.zip": inner})})],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("zip_three_deep_in_the_upload",
        [download(5, "alice", {"a.zip": zipped({"b.zip": zipped({"c.zip": inner})})})],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("download_not_a_zip", [("6_alice_PhaseId3_2026-05-01:10-22_run.zip", tir("alice", "alice_run1", ["X"]))],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("download_entry_outside", [download(7, "alice", {"../../tir_a": tir("alice", "alice_run1", ["X"])})],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("download_empty_zip", [("8_alice_PhaseId3_2026-05-01:10-22_s.zip", zipped({}))],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    add("download_invalid_skipped", [download(9, "alice", {"tir_a": "001p\tx\tD1\talice\talice_run1\n"}),
                                     download(10, "bob", {"tir_b": tir("bob", "bob_run1", ["B1"])})],
        POOL_TIR + ["--skip-invalid", "{case}", "-o", "{out}/pool"])
    sample = "".join(open(os.path.join(SAMPLES, "temporalia-tir", "tir_sample"), encoding="utf-8").readlines()[:61])
    names = ["[evil", "*star", "a<b>c", "Müller", "中文", "=sum"]
    add("report_names_for_latex",
        [("tir_%d" % k, sample.replace("\tsample\t", "\t%s\t" % n.replace(" ", "_")).replace(
            "sample_run", "%s_run" % n)) for k, n in enumerate(names)],
        ["report", "--task", "temporalia-tir", "--ref", os.path.join(REFERENCES, "temporalia-tir"), "--trials", "20",
         "--tau-bootstrap", "0", "--pool-depth", "5", "{case}", "-o", "{out}/report"])
    add("report_name_of_another_owner", [alice, eve],
        ["report", "--task", "temporalia-tir", "--ref", os.path.join(REFERENCES, "temporalia-tir"), "--trials", "20",
         "{case}", "-o", "{out}/report"])
    digits = "7" * 200000
    qqa = open(os.path.join(SAMPLES, "qqa23-mrc", "sample_run01.json"), encoding="utf-8").read()
    add("report_huge_json_integer", [download(3, "alice", {"alice_run01.json": qqa.replace('"rank": 1', '"rank": '
                                                                                          + digits, 1)})],
        ["report", "--task", "qqa23-mrc", "--ref", os.path.join(REFERENCES, "qqa23-mrc"), "--trials", "20", "{case}",
         "-o", "{out}/report"])
    run = [("tir_g", tir("g", "g_run1", ["D1", "D2", "D3"]))]
    pool_then = [POOL_TIR + ["{case}/tir_g", "-o", "{out}/pool"],
                 ["fill-sheet", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "L1"]]
    add("sheet_of_another_pool", run, *pool_then,
        ["replace", "{out}/sheet.tsv", "\tD1\t", "\tX1\t"],
        ["judgements", "--task", "temporalia-tir", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "-o",
         "{out}/ref"])
    add("sheet_row_of_the_wrong_width", run, *pool_then,
        ["replace", "{out}/sheet.tsv", "\tD2\t", "\tD2\textra\t"],
        ["judgements", "--task", "temporalia-tir", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "-o",
         "{out}/ref"])
    add("sheet_label_off_the_scale", run, *pool_then,
        ["replace", "{out}/sheet.tsv", "\tL1\n", "\t=L9\n"],
        ["judgements", "--task", "temporalia-tir", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "-o",
         "{out}/ref"])
    add("runs_table_points_outside", [("A-AC-1", AC % "A-PG-1"), ("A-PG-1", PR % ("x", "a passage"))],
        ["pool", "--task", "r2c2-ac", "{case}", "-o", "{out}/pool"],
        ["fill-sheet", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "1"],
        ["replace", "{out}/pool/runs.tsv", "runs/001/A-AC-1", "../../../../etc/passwd"],
        ["judgements", "--task", "r2c2-ac", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "-o", "{out}/ref"])
    add("pool_stats_huge_number", run, *pool_then,
        ["replace", "{out}/pool/pool_stats.json", '"seed": 0', '"seed": {repeat:9:100000}'],
        ["judgements", "--task", "temporalia-tir", "--pool", "{out}/pool/pool.tsv", "{out}/sheet.tsv", "-o",
         "{out}/ref"])
    add("many_submissions_of_one_owner",
        [download(100 + k, "mallory", {"tir_m": tir("m", "m_run%d" % (k % 9 + 1), ["D%d" % k])}) for k in range(20)],
        POOL_TIR + ["{case}", "-o", "{out}/pool"])
    return c


def write_files(found) -> None:
    for entry in os.listdir(HERE):
        path = os.path.join(HERE, entry)
        if os.path.isdir(path) and entry != "__pycache__":
            shutil.rmtree(path)
    for name, (files, commands) in found.items():
        folder = os.path.join(HERE, name)
        os.makedirs(folder)
        for file_name, data in files.items():
            with open(os.path.join(folder, file_name), "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        with open(os.path.join(folder, "commands.txt"), "w", encoding="utf-8", newline="\n") as handle:
            handle.write("".join(json.dumps(cmd, ensure_ascii=False) + "\n" for cmd in commands))


def read_commands(case_dir: str):
    with open(os.path.join(case_dir, "commands.txt"), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle.read().split("\n") if line.strip()]


def run_case(case_dir: str, workdir: str):
    """Copy the case into `workdir`, run its commands in order; returns [(argv, code, stdout, stderr, problems)]."""
    from hostile_campaign.harness import output_of, problems, run_command

    inputs = os.path.join(workdir, "case")
    out = os.path.join(workdir, "out")
    shutil.copytree(case_dir, inputs, ignore=shutil.ignore_patterns("commands.txt"))
    os.makedirs(out)
    results = []
    for template in read_commands(case_dir):
        argv = [REPEAT.sub(lambda m: m.group(1) * int(m.group(2)),
                           a.replace("{case}", inputs).replace("{out}", out).replace("{root}", ROOT))
                for a in template]
        target = output_of(argv)
        existed = bool(target) and os.path.exists(target)
        code, stdout, stderr = run_command(argv)
        results.append((argv, code, stdout, stderr, problems(argv, code, stdout, stderr, existed)))
        if code != 0:
            break
    return results, inputs, out


def main(argv) -> int:
    from hostile_campaign.harness import first_finding

    found = cases()
    write_files(found)
    if "--write-expected" in argv:
        lines = ["# case (under tests/hostile_campaign)\texit code of the last command run\tfirst error line, folders "
                 "cut off (written by make_corpus.py --write-expected; reviewed)"]
        for name in sorted(found):
            workdir = tempfile.mkdtemp(prefix="runscore-campaign-corpus-")
            results, inputs, out = run_case(os.path.join(HERE, name), workdir)
            _, code, stdout, stderr, _ = results[-1]
            finding = first_finding(stdout, stderr, inputs).replace(out + "/", "{out}/")
            lines.append("\t".join((name, str(code), finding)))
            shutil.rmtree(workdir, ignore_errors=True)
        with open(TABLE, "w", encoding="utf-8", newline="\n") as handle:
            handle.write("\n".join(lines) + "\n")
    print("%d hostile campaign cases written under %s" % (len(found), HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
