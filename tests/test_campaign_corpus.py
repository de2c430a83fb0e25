"""The checked-in hostile corpus of the campaign commands: every case gets the exit code and the message recorded in
hostile_campaign/expected.tsv, and every command of it answers as hostile_campaign/harness.py requires (exit 0, 1
or 2 with FILE:LINE messages, nothing written on a refusal, outputs safe to open).

The table was filled from the program's real output by hostile_campaign/make_corpus.py --write-expected and
reviewed line by line; a changed message is a reviewed change. The same rules are fuzzed by test_fuzz_campaign.py.
"""
import os

import pytest

from hostile_campaign.harness import first_finding
from hostile_campaign.make_corpus import HERE, TABLE, run_case


def _rows():
    rows = []
    with open(TABLE, encoding="utf-8") as handle:
        for line in handle.read().split("\n"):
            if line.startswith("#") or not line.strip():
                continue
            case, code, finding = line.split("\t")
            rows.append((case, int(code), finding))
    return rows


ROWS = _rows()


def test_the_corpus_covers_every_command_and_every_attack():
    cases = {r[0] for r in ROWS}
    on_disk = {d for d in os.listdir(HERE) if os.path.isdir(os.path.join(HERE, d)) and d != "__pycache__"}
    assert cases == on_disk
    assert len(cases) >= 30
    commands = set()
    for case in cases:
        with open(os.path.join(HERE, case, "commands.txt"), encoding="utf-8") as handle:
            commands.update(line.split('"')[1] for line in handle.read().split("\n") if line.strip())
    assert {"pool", "judgements", "report"} <= commands
    assert {0, 1, 2} == {r[1] for r in ROWS}


@pytest.mark.parametrize("case,code,finding", ROWS, ids=[r[0] for r in ROWS])
def test_hostile_campaign_case_gets_its_recorded_outcome(tmp_path, case, code, finding):
    results, inputs, out = run_case(os.path.join(HERE, case), str(tmp_path))
    for argv, got, stdout, stderr, found in results:
        assert not found, (argv[:3], found)
    _, got, stdout, stderr, _ = results[-1]
    assert got == code, stderr[-2000:]
    assert first_finding(stdout, stderr, inputs).replace(out + "/", "{out}/") == finding
