"""`runscore ... | head`: a reader that leaves early never changes the exit code (runscore/pipes.py).

Each command runs as its own process (the pipe is what is tested) with both pipes' read ends closed before it
writes a byte, so every write it makes meets a reader that is gone, whatever the timing: the worst case of
`| head -1`. The exit code must be the one the command gives with a reader (0 valid, 1 invalid, 2 organiser),
and the output files of score.py must be whole.
"""
import json
import os
import subprocess
import sys

from conftest import ROOT, codabench_input

SAMPLE_RUN = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")
REF = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")


def exit_code_without_readers(command, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))
    proc = subprocess.Popen(command, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    proc.stderr.close()
    return proc.wait(timeout=120)


def runscore(*args):
    return [sys.executable, "-m", "runscore"] + [str(a) for a in args]


def test_a_bad_reference_is_still_exit_2(tmp_path):
    """Many different reference errors (one line each on stderr): exit 2, not Python's 1."""
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "task.yaml").write_text("task: ntcir1-adhoc\ngraded_qrels: qrels.txt\n")
    (ref / "qrels.txt").write_text("".join("0031 0 doc%d X%d\n" % (k, k) for k in range(200)))
    assert exit_code_without_readers(runscore("score", "--task", "ntcir1-adhoc", "--ref", ref, SAMPLE_RUN)) == 2


def test_invalid_runs_are_still_exit_1(tmp_path):
    """validate prints each file's verdict on stdout before it decides: the verdict is 1, never 0."""
    bad = []
    for k in range(30):
        path = tmp_path / ("bad%d" % k)
        path.write_text("0031\t0\tgakkai-1\t1\tnot-a-number\tbad%d\n" % k)
        bad.append(path)
    assert exit_code_without_readers(runscore("validate", "--task", "ntcir1-adhoc", SAMPLE_RUN, *bad)) == 1


def test_a_good_score_is_still_exit_0():
    assert exit_code_without_readers(runscore("score", "--task", "ntcir1-adhoc", "--ref", REF, "--per-topic",
                                              SAMPLE_RUN)) == 0
    assert exit_code_without_readers(runscore("trec_eval", "-q", os.path.join(REF, "rel1_sample_0031-0036"),
                                              SAMPLE_RUN)) == 0


def test_score_py_scores_whole_without_readers(tmp_path):
    with open(SAMPLE_RUN, encoding="utf-8") as handle:
        input_dir = codabench_input(tmp_path, "ntcir1-adhoc", {"ntc1": handle.read()})
    output = tmp_path / "output"
    code = exit_code_without_readers([sys.executable, os.path.join(ROOT, "scoring_program", "score.py"),
                                      str(input_dir), str(output)])
    assert code == 0
    assert any(key.endswith("map_rel1") for key in json.loads((output / "scores.json").read_text()))
    assert (output / "detailed_results.html").read_text().rstrip().endswith("</html>")
