"""The checked-in hostile corpus: every file gets the exit code and the message recorded in hostile/expected.tsv.

Run files go through `runscore validate` (the CLI, in process), archives through score.py's logic (in process) on
a submission holding only that archive. The table was filled from the program's real output by
hostile/make_corpus.py --write-expected and reviewed line by line; a changed message is a reviewed change.
"""
import os
import re

import pytest

from hostile.make_corpus import HERE, TABLE, case_rows, outcome

ERROR_LINE = re.compile(r"^\S.*?(:\d+)?: error: \S")


def _rows():
    rows = []
    with open(TABLE, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            kind, task_id, rel, code, finding = line.rstrip("\n").split("\t")
            rows.append((kind, task_id, rel, int(code), finding))
    return rows


ROWS = _rows()


def test_the_checked_in_files_are_what_make_corpus_writes_from_todays_samples():
    """The corpus is made from the sample submissions: when a sample changed and the corpus was not rebuilt, 17
    r2c2-pr files kept a line the sample had lost, and tested a run nobody sends. Rebuild with
    `python tests/hostile/make_corpus.py --write-expected` and review expected.tsv's diff."""
    stale = []
    for _, _, rel, data, siblings in case_rows():
        folder = os.path.dirname(os.path.join(HERE, rel))
        for path, expected in [(os.path.join(HERE, rel), data)] + [(os.path.join(folder, n), d)
                                                                     for n, d in siblings.items()]:
            with open(path, "rb") as handle:
                if handle.read() != expected:
                    stale.append(os.path.relpath(path, HERE))
    assert stale == [], "rebuild the corpus (make_corpus.py --write-expected): %s" % stale[:5]


def test_the_corpus_holds_at_least_100_named_hostile_files_all_in_the_table():
    assert len(ROWS) >= 100
    assert len({r[2] for r in ROWS}) == len(ROWS)
    tasks = {r[1] for r in ROWS if r[0] == "run"}
    assert len(tasks) >= 7
    on_disk = set()
    for folder, _, files in os.walk(HERE):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), HERE).replace(os.sep, "/")
            if "/" in rel and "__pycache__" not in rel:
                on_disk.add(rel)
    listed = {r[2] for r in ROWS}
    assert listed <= on_disk
    # The only unlisted files are the clean siblings a run reads (the r2c2-ac run's PR run).
    for rel in on_disk - listed:
        task_id, case, name = rel.split("/")
        assert "%s/%s/" % (task_id, case) in " ".join(listed), rel


@pytest.mark.parametrize("kind,task_id,rel,code,finding", ROWS, ids=[r[2] for r in ROWS])
def test_hostile_file_gets_its_recorded_outcome(tmp_path, kind, task_id, rel, code, finding):
    got_code, got_finding, output = outcome(kind, task_id, rel, str(tmp_path))
    assert "Traceback" not in output
    assert got_code == code, output[-2000:]
    if finding.endswith("..."):   # a message quoting Python's own words: its stable prefix is recorded
        assert got_finding.startswith(finding[:-3])
    else:
        assert got_finding == finding
    if code == 1:
        errors = [l for l in output.splitlines() if ": error:" in l and not l.startswith("submission rejected")]
        assert errors and all(ERROR_LINE.match(l) for l in errors), errors[:3]
    if "slip" in rel or b"evil_runscore" in open(os.path.join(HERE, rel), "rb").read():
        # (only these archives name the file: the walk of every test's folder of the session, which grows as the
        # suite runs, cost more than all the rest of this file when made for every row)
        for folder, _, files in os.walk(str(tmp_path.parent)):
            assert "evil_runscore.txt" not in files, folder
    assert not os.path.exists("/tmp/evil_runscore.txt")
