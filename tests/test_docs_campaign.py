"""docs/campaign.md: every `$ ` command of its walkthrough runs, in order, from a folder whose starting_kit/ and
docs/ are the repository's, and does what the page says it does."""
import os
import re
import subprocess
import sys

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "campaign.md")


def commands():
    text = open(DOC, encoding="utf-8").read()
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        found.extend(line[2:] for line in block.splitlines() if line.startswith("$ "))
    return found


def test_the_walkthrough_runs(tmp_path):
    os.symlink(os.path.join(ROOT, "starting_kit"), str(tmp_path / "starting_kit"))
    os.symlink(os.path.join(ROOT, "docs"), str(tmp_path / "docs"))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
    listed = commands()
    assert [c.split()[1] for c in listed if c.startswith("runscore")] == ["bundle", "pool", "judgements", "score",
                                                                             "report"]
    outputs = []
    for command in listed:
        if command.startswith("runscore "):
            command = "%s -m runscore %s" % (sys.executable, command[len("runscore "):])
        proc = subprocess.run(["bash", "-c", command], cwd=str(tmp_path), env=env, capture_output=True, text=True)
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        outputs.append(proc.stdout)
    text = open(DOC, encoding="utf-8").read()
    said = re.search(r"prints `(phases: [^`]*)`", text, re.S).group(1)
    assert " ".join(said.split()) in outputs[0]
    assert os.path.isfile(str(tmp_path / "pool" / "pool.tsv"))
    page = open(str(tmp_path / "pool" / "assess" / "topic-001p.html"), encoding="utf-8").read()
    assert "When was the harbour bridge first closed for repairs?" in page and "lk-20130101_000" in page
    assert os.path.isfile(str(tmp_path / "pool" / "assess" / "sheet-001p.tsv"))
    assert "collection: 295 document(s) found" in outputs[1] and "topics: 15 entries read" in outputs[1]
    assert os.path.isfile(str(tmp_path / "reference" / "qrels.txt"))
    assert "agreement (cohen_kappa)" in outputs[-3]
    assert "p20" in outputs[-2]
    # the sample's two runs are of one team: no leave-one-team-out (it would empty the qrels), a note says why
    assert "means.csv" in outputs[-1] and "reusability.csv" not in outputs[-1]
    assert os.path.isfile(str(tmp_path / "overview" / "report.html"))
