"""Every command of README.md's code blocks runs as written, from the clone's folder, after its two set-up commands
(`make demo`, `make test`: both make .venv, where the README's `.venv/bin/runscore` is); its sample output holds no
path of the machine it was made on; its sentence about trec_eval's MAP on the shipped sample is what trec_eval does.

Why: a newcomer copies the README's lines. They once read `runscore ...` (on no PATH after `make demo`), named
files nobody has (`submission.zip`, `qrels.txt run.txt`, `/secret/reference`), said trec_eval left out topic 0036
(it counts 0036 and leaves out 0035) and showed `/work/runscore/...` in the sample output.
"""
import os
import re
import shlex

import pytest

import trec_eval_peer
from conftest import ROOT, run_cli

README = os.path.join(ROOT, "README.md")
RUNSCORE = ".venv/bin/runscore "
SAMPLE_QRELS = "reference_data/ntcir1-adhoc/rel1_sample_0031-0036"
SAMPLE_RUN = "starting_kit/sample_submission/ntcir1-adhoc/ntc1"


def code_blocks():
    """The lines of the README's fenced blocks: (commands, sample output) - a block that starts with `$ ` is a
    command and what it prints."""
    text = open(README, encoding="utf-8").read()
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S)
    commands, outputs = [], []
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip()]
        if lines and lines[0].startswith("$ "):
            commands.append(lines[0][2:])
            outputs.extend(lines[1:])
        elif not any(line.startswith((">>>", "|")) for line in lines):
            commands.extend(line for line in lines if not line.startswith("#"))
    return commands, outputs


def command_lines(prefix):
    return [line.split("  #")[0].strip() for line in code_blocks()[0] if line.startswith(prefix)]


def test_every_readme_command_is_one_this_test_runs():
    """A new kind of command in the README is run here too, or this test says which one is not."""
    kinds = (RUNSCORE, "make demo", "make test", "make bundle ", "python3 -m venv env", "env/bin/pip install ")
    commands = code_blocks()[0]
    assert [c for c in commands if not c.startswith(kinds)] == []
    assert len(command_lines(RUNSCORE)) >= 4 and command_lines("make bundle ")


def test_the_set_up_puts_runscore_where_the_readme_says():
    """`make setup` (which demo and test run first) makes .venv with pip's console script `runscore` in it."""
    makefile = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
    assert re.search(r"^VENV := \.venv$", makefile, re.M) and re.search(r"^demo: setup$", makefile, re.M) \
        and re.search(r"^test: setup$", makefile, re.M) and "pip install -q -e '.[test]'" in makefile
    pyproject = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    assert 'runscore = "runscore.cli:main"' in pyproject
    readme = open(README, encoding="utf-8").read()
    assert "`. .venv/bin/activate`" in readme


@pytest.mark.parametrize("line", command_lines(RUNSCORE))
def test_each_runscore_line_runs_as_written(line):
    argv = shlex.split(line[len(RUNSCORE):])
    code, out, err = run_cli(*argv, cwd=ROOT)
    assert code == 0, (line, err)
    assert out.strip(), line


def test_the_make_bundle_line_runs_as_the_makefile_runs_it(tmp_path):
    """`make bundle REFERENCE=...` is `runscore bundle --per-task dist --reference ...` (the Makefile's recipe);
    run here for one task of the README's reference folder, into a temporary dist."""
    (line,) = command_lines("make bundle ")
    variables = dict(word.split("=", 1) for word in shlex.split(line)[2:])
    assert set(variables) == {"REFERENCE"} and os.path.isdir(os.path.join(ROOT, variables["REFERENCE"]))
    makefile = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
    assert "$(if $(REFERENCE),--reference $(REFERENCE))" in makefile
    code, out, err = run_cli("bundle", "--per-task", tmp_path / "dist", "--tasks", "ntcir1-adhoc", "--reference",
                             os.path.join(ROOT, variables["REFERENCE"]), cwd=ROOT)
    assert code == 0, err
    assert (tmp_path / "dist" / "ntcir1-adhoc.zip").is_file()
    assert (tmp_path / "dist" / "ntcir1-adhoc.worker-data").is_dir()


def test_the_pip_lines_name_extras_the_package_has():
    """The lines install the clone into a new venv (`make package-check` installs the wheel with each extra)."""
    pyproject = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    extras = re.findall(r'^(\w+) = \[', pyproject.split("[project.optional-dependencies]")[1].split("\n[")[0], re.M)
    lines = command_lines("env/bin/pip install ")
    assert lines[0] == "env/bin/pip install ."
    for line in lines[1:]:
        assert re.fullmatch(r'env/bin/pip install "\.\[(\w+)\]"', line).group(1) in extras, line


def test_the_sample_output_holds_no_path_of_a_machine():
    _, outputs = code_blocks()
    assert outputs, "the README shows make demo's output"
    absolute = [line for line in outputs if re.search(r"(^|\s)/(work|home|root|tmp|Users|mnt|srv|opt)\b", line)]
    assert absolute == []


def test_the_readmes_sentence_on_the_sample_map_is_trec_evals():
    """The README says which topics trec_eval's MAP leaves out on the shipped sample and the two figures: the
    command's per-topic output holds them, and the trec_eval binary (from ../shared) prints the same bytes."""
    readme = " ".join(open(README, encoding="utf-8").read().split())
    said = re.search(r"trec_eval's MAP \((0\.\d{4})\) leaves out topic (\d{4}), which the sample run does not cover, "
                     r"and counts (\d{4}) \(judged, with no relevant document\) as 0; the task's MAP \((0\.\d{4}), "
                     r"as `trec_eval -c`\)", readme)
    assert said, "the README's sentence on the sample's MAP"
    mean, left_out, zero, task_mean = said.groups()
    argv = ["-q", "-m", "map", SAMPLE_QRELS, SAMPLE_RUN]
    code, out, err = run_cli("trec_eval", *argv, cwd=ROOT)
    assert code == 0, err
    per_topic = dict(line.split("\t")[1:] for line in out.splitlines())
    qrels_topics = {line.split()[0] for line in open(os.path.join(ROOT, SAMPLE_QRELS))}
    assert per_topic.pop("all") == mean
    assert set(per_topic) == qrels_topics - {left_out} and per_topic[zero] == "0.0000"
    code, out_c, err = run_cli("trec_eval", "-c", "-m", "map", SAMPLE_QRELS, SAMPLE_RUN, cwd=ROOT)
    assert code == 0 and out_c.split() == ["map", "all", task_mean], err
    code, scored, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", "reference_data/ntcir1-adhoc",
                                SAMPLE_RUN, cwd=ROOT)
    assert code == 0 and re.search(r"^map_rel1\s+%s$" % re.escape(task_mean), scored, re.M), scored
    binary, why = trec_eval_peer.binary("9.0.8")
    if binary is None:
        pytest.skip(why)
    import subprocess
    done = subprocess.run([binary] + argv, cwd=ROOT, stdout=subprocess.PIPE)
    assert done.returncode == 0 and done.stdout.decode() == out
