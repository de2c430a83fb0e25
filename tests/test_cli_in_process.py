"""The suite runs `runscore` and score.py in its own process (conftest.run_cli, run_score_py): what they give must
be what a new process gives, and the test process must come out of each call as it went in.

A handful of commands of every kind (success, usage error, invalid run, argparse's own exit, stdin, JSON, a
Codabench scoring) are run both ways and compared byte for byte (exit code, stdout, stderr, files written)."""
import json
import os
import sys
import warnings

import pytest

import conftest
from conftest import ROOT, codabench_input, run_cli, run_cli_process, run_score_py, run_score_py_process

REF = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
SAMPLE = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")


def _cases(tmp_path):
    bad = tmp_path / "bad_run"
    bad.write_text("0031\t0\tgakkai-0000000001\t1\tnot-a-number\tntc1\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 A 1\n1 0 B 0\n2 0 C 2\n", encoding="utf-8")
    return [
        (["tasks"], None),
        (["--version"], None),                            # argparse's SystemExit(0)
        ([], None),                                       # help, exit 2
        (["score", "--task", "no-such-task", "--ref", REF, SAMPLE], None),
        (["score", "--task", "ntcir1-adhoc"], None),      # argparse usage error
        (["validate", "--task", "ntcir1-adhoc", str(bad)], None),
        (["score", "--task", "ntcir1-adhoc", "--ref", REF, "--json", "--per-topic", SAMPLE], None),
        (["trec_eval", "-q", "-m", "map", "-m", "P.1", str(qrels), "-"], "1 Q0 A 1 0.5 r\n2 Q0 C 1 1e39 r\n"),
        (["trec_eval", "--no-such-option"], None),
    ]


def test_in_process_runs_give_what_a_new_process_gives(tmp_path):
    for argv, stdin in _cases(tmp_path):
        assert run_cli(*argv, stdin=stdin) == run_cli_process(*argv, stdin=stdin), argv


def test_score_py_in_process_gives_what_the_worker_gets(tmp_path):
    input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {"ntc1": open(SAMPLE, encoding="utf-8").read()})
    inside = run_score_py(input_dir, tmp_path / "inside")
    outside = run_score_py_process(input_dir, tmp_path / "outside")
    assert inside == outside and inside[0] == 0
    for name in ("scores.json", "scores.txt"):
        assert (tmp_path / "inside" / name).read_bytes() == (tmp_path / "outside" / name).read_bytes()
    assert json.loads((tmp_path / "inside" / "scores.json").read_text())


def test_the_test_process_comes_out_as_it_went_in(tmp_path):
    before = (dict(os.environ), os.getcwd(), list(sys.argv), sys.stdin, sys.stdout, sys.stderr, list(sys.path),
              list(warnings.filters))
    os.environ.pop("OPENBLAS_NUM_THREADS", None)
    env = dict(os.environ)
    code, out, _ = run_cli("tasks", cwd=str(tmp_path))     # the command sets OPENBLAS_NUM_THREADS for itself
    assert code == 0 and "ntcir1-adhoc" in out
    run_score_py(tmp_path / "no-input", tmp_path / "out")   # score.py inserts its folder in sys.path
    assert dict(os.environ) == env
    os.environ.clear()
    os.environ.update(before[0])
    assert (os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr, sys.path, warnings.filters) == before[1:]


def test_a_python_warning_is_printed_on_stderr_and_counted(capsys):
    """What the command prints through `warnings` goes to its stderr, as in a process, and is recorded so that the
    test that caused it fails (the fixture no_internal_error): a user must never see one."""
    def entry():
        for _ in range(2):                  # the same place twice: shown once, as Python does
            warnings.warn("overflow encountered in cast", RuntimeWarning)
        warnings.warn("old", DeprecationWarning)                          # hidden by the default filters
        return 0

    code, out, err = conftest._in_process(entry, ["prog"], None, None)
    recorded = list(conftest._CLI_WARNINGS)
    del conftest._CLI_WARNINGS[:]
    assert (code, out) == (0, "")
    assert err.count("RuntimeWarning: overflow encountered in cast") == 1 and "DeprecationWarning" not in err
    assert len(recorded) == 1


@pytest.mark.parametrize("entry, expected", [
    (lambda: sys.exit(3), 3),
    (lambda: sys.exit("a message"), 1),
    (lambda: sys.exit(None), 0),
    (lambda: 1 / 0, 1),
])
def test_exit_codes_are_what_python_makes_of_the_entry(entry, expected):
    code, _out, err = conftest._in_process(entry, ["prog"], None, None)
    assert code == expected
    if expected == 1:
        assert "a message" in err or "ZeroDivisionError" in err


def test_streams_are_utf8_and_read_back_as_text_mode_reads_them():
    def entry():
        sys.stdout.write("é\r\nline\n")
        print("\udcff", file=sys.stderr)            # a lone surrogate: backslashreplace on stderr, as Python does
        return 0

    code, out, err = conftest._in_process(entry, ["prog"], None, None)
    assert (code, out) == (0, "é\nline\n") and err == "\\udcff\n"
