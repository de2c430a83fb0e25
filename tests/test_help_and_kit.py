"""A newcomer's first steps: every subcommand's --help has a description and an example; the starting
kit's commands work from where the kit says to run them (the kit's folder as the site gives it, and the root of a
repository clone); a test that skips for want of ../shared says what is missing and how to get it."""
import os
import re
import shlex
import zipfile

import pytest

import conftest
from conftest import ROOT
from runscore import cli
from runscore.commands import command_modules
from runscore.tasks import all_tasks

KIT = os.path.join(ROOT, "starting_kit")
# Commands of runscore's own modules whose help is written elsewhere (trec_eval mimics trec_eval's own -h).
OWN_HELP = {"trec_eval"}


@pytest.mark.parametrize("name", list(cli.BUILTIN_COMMANDS) + sorted(set(command_modules()) - OWN_HELP))
def test_every_subcommand_has_a_description_and_an_example(name, capsys):
    try:
        code = cli.main([name, "--help"])
    except SystemExit as exc:          # argparse's own --help exits
        code = exc.code
    assert code == 0
    out = capsys.readouterr().out
    head, _, rest = out.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert head.startswith("usage: runscore %s" % name)
    assert len(description.split()) >= 5 and not description.startswith(("positional", "optional")), out
    found = re.search(r"^examples?:\n", out, re.M)
    assert found, out
    example = out[found.start():]
    assert re.search(r"^  runscore %s\b" % re.escape(name), example, re.M), out


def test_trec_evals_own_help_has_an_example_and_names_every_option_it_describes(capsys):
    """trec_eval's help keeps trec_eval's shape (no argparse), but a newcomer still gets an example, and the usage
    line names each option the lines below it describe (--strict and friends were described but not in it)."""
    assert cli.main(["trec_eval", "--help"]) == 0
    out = capsys.readouterr().out
    usage = out.split("\n  -q")[0]
    for option in re.findall(r"^  (--[a-z][a-z0-9-]+)", out, re.M):
        assert option in usage, option
    found = re.search(r"^example:\n  runscore trec_eval \S", out, re.M)
    assert found, out


def test_the_top_level_help_lists_every_command(capsys):
    code = cli.main([])
    out = capsys.readouterr().out
    assert code == 2
    for name in list(cli.BUILTIN_COMMANDS) + sorted(command_modules()):
        assert re.search(r"^    %s\s" % re.escape(name), out, re.M), name


# ------------------------------------------------------------------------------------------ the starting kit ---

def _kit_commands():
    """The `python3 -m runscore ...` lines of the kit README's code blocks, with its placeholders filled in."""
    text = open(os.path.join(KIT, "README.md"), encoding="utf-8").read()
    commands = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("python3 -m runscore "):
                line = line.replace("TASK", "ntcir1-adhoc").replace("my_run", "sample_submission/ntcir1-adhoc/ntc1")
                commands.append(shlex.split(line)[3:])
    return text, commands


def _kit_folder(tmp_path):
    """The kit as the site gives it: the starting_kit/ files with scoring_program/ and reference_data/ beside."""
    kit = tmp_path / "kit"
    kit.mkdir()
    for name in ("README.md", "dry_run.py", "sample_submission", "baselines", "schemas"):
        os.symlink(os.path.join(KIT, name), str(kit / name))
    for name in ("scoring_program", "reference_data"):
        os.symlink(os.path.join(ROOT, name), str(kit / name))
    return kit


def _in_repository(argv):
    """The same command at the root of a repository clone: the kit's own files get `starting_kit/` before them."""
    return [re.sub(r"^(sample_submission|dry_run\.py|baselines|schemas)\b", r"starting_kit/\1", a) for a in argv]


@pytest.mark.parametrize("where", ["the kit's folder", "the repository root"])
def test_the_kit_commands_work_where_the_kit_says_to_run_them(where, tmp_path, monkeypatch, capsys):
    text, commands = _kit_commands()
    assert "Where to run the commands below: in this folder" in text
    assert len(commands) >= 5
    if where == "the kit's folder":
        monkeypatch.chdir(_kit_folder(tmp_path))
    else:
        monkeypatch.chdir(ROOT)
        commands = [_in_repository(c) for c in commands]
    assert os.path.isfile("scoring_program/runscore/__init__.py")        # what `export PYTHONPATH=$PWD/...` names
    # Step 5's submission.zip (made in the kit's folder), here from the sample run, kept out of the checkout.
    made = tmp_path / "made" / "submission.zip"
    made.parent.mkdir()
    with zipfile.ZipFile(str(made), "w") as archive:
        archive.write(os.path.join(KIT, "sample_submission", "ntcir1-adhoc", "ntc1"), "ntc1")
    commands = [[str(made) if a == "submission.zip" else a for a in argv] for argv in commands]
    for argv in commands:
        code = cli.main(argv)
        captured = capsys.readouterr()
        assert code == 0, (where, argv, captured.err)
    for script in re.findall(r"^python3 (\S+\.py)", text, re.M):
        assert os.path.isfile(_in_repository([script])[0] if where != "the kit's folder" else script), script


# ------------------------------------------------------------------------------------------ skip messages ---

@pytest.mark.parametrize("parts, fragment", [
    (("data", "trec_eval"), "https://github.com/usnistgov/trec_eval"),
    (("data", "ntcireval", "x.res"), "pyNTCIREVAL"),
    (("data", "qqa23", "runs"), "quran-qa-2023"),
    (("somewhere", "else"), "peer test data"),
])
def test_a_skip_says_what_is_missing_and_where_to_get_it(parts, fragment):
    reason = conftest.shared_missing_reason(parts)
    assert fragment in reason and "../shared/%s" % "/".join(parts) in reason
    assert "README" not in reason                                        # absent on a fresh clone


def test_the_trec_eval_binarys_skip_says_where_it_comes_from(monkeypatch):
    """Without ../shared the differential tests skipped with "../shared/bin/build-trec-eval is absent": what is
    missing, but not what it is nor where a newcomer gets it (the other skips name their public source)."""
    import trec_eval_peer
    monkeypatch.setattr(trec_eval_peer, "BUILD", os.path.join(str(conftest.ROOT), "no-such-shared", "build"))
    monkeypatch.setattr(trec_eval_peer, "_BUILT", {})
    path, reason = trec_eval_peer.binary("9.0.8")
    assert path is None
    assert "https://github.com/usnistgov/trec_eval" in reason and "docs/development.md" in reason, reason


@pytest.mark.parametrize("command", ["score", "validate"])
@pytest.mark.parametrize("task_id", sorted(os.listdir(os.path.join(KIT, "sample_submission"))))
def test_ref_naming_the_tree_of_every_task_says_which_folder_to_give(command, task_id, capsys):
    """`--ref reference_data` (the folder the kit names, one level too high) told a newcomer of ntcir1-adhoc that
    reference_data/task.yaml, a file that does not exist, 'must name either qrels or graded_qrels'."""
    folder = os.path.join(KIT, "sample_submission", task_id)
    runs = [os.path.join(folder, name) for name in sorted(os.listdir(folder))]
    code = cli.main([command, "--task", task_id, "--ref", os.path.join(ROOT, "reference_data")] + runs)
    err = capsys.readouterr().err
    assert code == 2
    assert "holds a reference folder per task, not one task's reference: give --ref %s" \
        % os.path.join(ROOT, "reference_data", task_id) in err, err


@pytest.mark.parametrize("task_id", [t.id for t in all_tasks()])
def test_options_say_what_seed_spec_and_proposed_mean_where_they_use_them(task_id, capsys):
    """The kit tells participants to run `runscore options`, whose texts say 'the seed', 'spec 4.3' and 'Proposed':
    words of the project's sources a participant never saw. A legend comes first wherever they appear."""
    assert cli.main(["options", "--task", task_id]) == 0
    out = capsys.readouterr().out
    uses = re.search(r"\b(seed|spec|Proposed)\b", out.split("\n", 4)[-1] if out.startswith("#") else out)
    assert out.startswith("# Words below: 'the seed'") == bool(uses)


def test_the_readmes_trec_eval_line_on_the_shipped_sample_runs():
    """The researcher's journey had only `qrels.txt run.txt`, files nobody has after a clone: the README now gives
    a line on the shipped sample, run here as written."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        lines = [line for line in handle if line.startswith(".venv/bin/runscore trec_eval -m map ")
                 and "reference_data/" in line]
    assert len(lines) == 1
    code, out, _ = conftest.run_cli(*shlex.split(lines[0])[1:], cwd=ROOT)
    assert code == 0 and re.search(r"^map\s+\tall\t0\.\d{4}$", out, re.M) and re.search(r"^P_10\s+\tall\t", out, re.M)
