"""Limits and the real entry points: the input-size cap, huge lines in linear time, byte-identical outputs for
the same inputs (across hash seeds), hostile files through score.py and the CLI as processes, and score.py's
message when the image lacks a dependency.
"""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli, run_score_py
from hostile.harness import SAMPLES, REFERENCES, subjects_of, tasks_with_samples, verdict, write
from runscore import textfile
from runscore.errors import ConfigError, RunError
from runscore.pipeline import check_file, load_reference
from runscore.tasks import get_task


# ------------------------------------------------------------------------------------ the size cap ---
def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "ntc1"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(RunError) as caught:
        textfile.read_text(str(path), "ntc1")
    assert str(caught.value) == ("ntc1: error: file is 1001 bytes, more than the limit of 1000 bytes; "
                                 "split the run or ask the organisers")
    path.write_bytes(b"x" * 1000)
    assert textfile.read_text(str(path), "ntc1") == "x" * 1000


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_file_that_lies_about_its_size_is_read_no_further_than_the_cap(monkeypatch):
    """/dev/zero says it holds 0 bytes and never ends: reading stops one byte past the cap."""
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 1000)
    with pytest.raises(RunError, match="zero: error: file is 1001 bytes, more than the limit of 1000 bytes"):
        textfile.read_text("/dev/zero", "zero")


def test_the_cap_is_128_mib_and_a_reference_over_it_is_the_organisers_problem(tmp_path):
    assert textfile.MAX_FILE_BYTES == 128 * 1024 * 1024
    path = tmp_path / "qrels"
    path.write_bytes(b"0031 0 d 1\n" * 20)
    with pytest.raises(ConfigError, match=r"qrels: error: file is 220 bytes, more than the limit of 100 bytes"):
        textfile.read_text(str(path), "qrels", error_class=ConfigError, max_bytes=100)


@pytest.mark.parametrize("task_id", tasks_with_samples())
def test_every_task_reads_through_the_cap(tmp_path, monkeypatch, task_id):
    """No parser opens a run file behind read_text's back: with a 50-byte cap every sample is refused."""
    task = get_task(task_id)
    reference = load_reference(task, os.path.join(REFERENCES, task_id))
    subjects = subjects_of(task_id, str(tmp_path))
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 50)
    checked_files = 0
    for subject in subjects:
        for candidate, owner in subject.pairs:
            if candidate.path != subject.path or owner.id != task_id:
                continue
            checked = check_file(task, candidate.path, candidate.display, reference, reference.options)
            assert any("more than the limit of 50 bytes" in d.message for d in checked.diags.items)
            checked_files += 1
    assert checked_files >= 1


def test_utf16_is_named(tmp_path):
    path = tmp_path / "run"
    path.write_bytes("0031\t0\td\t1\t1\tr\n".encode("utf-16"))
    with pytest.raises(RunError, match="file is UTF-16 .*save it as UTF-8"):
        textfile.read_text(str(path), "run")


# ------------------------------------------------------------------------------------ huge lines ---
@pytest.mark.parametrize("task_id", tasks_with_samples())
def test_a_4_mb_line_is_answered_quickly(tmp_path, task_id):
    """Linear work on a huge line (a quadratic split or message would take minutes on 4 MB)."""
    for subject in subjects_of(task_id, str(tmp_path)):
        lines = subject.clean.split(b"\n")
        for data in (lines[0] + b"y" * (4 * 1024 * 1024) + b"\n" + b"\n".join(lines[1:]),
                     lines[0] + b" " * (1024 * 1024) + b"x\n" + b"\n".join(lines[1:]),
                     b"\n".join(lines[:2]) + b"\n" + b"7\t" * (1024 * 1024) + b"\n" + b"\n".join(lines[2:])):
            assert verdict(subject, data, seconds=30) is None       # Hang after 30 CPU seconds
        write(subject, subject.clean)


# ------------------------------------------------------------------------------------ determinism ---
DRIVER = """
import os, sys, shutil
sys.path.insert(0, os.path.join(sys.argv[1], "scoring_program"))
from runscore.codabench import entry as codabench
out_root, tasks = sys.argv[2], sys.argv[3:]
for task_id in tasks:
    work = os.path.join(out_root, task_id)
    os.makedirs(os.path.join(work, "input", "ref"))
    shutil.copytree(os.path.join(sys.argv[1], "reference_data", task_id), os.path.join(work, "input", "ref", task_id))
    shutil.copytree(os.path.join(sys.argv[1], "starting_kit", "sample_submission", task_id),
                    os.path.join(work, "input", "res"))
    code = codabench.run(os.path.join(work, "input"), os.path.join(work, "output"))
    assert code == 0, (task_id, code)
"""


def test_same_inputs_give_byte_identical_scores_under_different_hash_seeds(tmp_path):
    tasks = tasks_with_samples()
    outputs = []
    for seed in ("1", "2"):
        root = tmp_path / ("seed" + seed)
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-c", DRIVER, ROOT, str(root)] + tasks, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs.append(root)
    for task_id in tasks:
        for name in ("scores.json", "scores.txt", "detailed_results.html"):
            first = (outputs[0] / task_id / "output" / name).read_bytes()
            second = (outputs[1] / task_id / "output" / name).read_bytes()
            assert first == second, "%s %s differs between runs" % (task_id, name)
            assert first.strip()


# ------------------------------------------------------------------------------------ real processes ---
def _submission(tmp_path, task_id, name, data):
    (tmp_path / "input" / "ref").mkdir(parents=True)
    shutil.copytree(os.path.join(REFERENCES, task_id), str(tmp_path / "input" / "ref" / task_id))
    res = tmp_path / "input" / "res"
    shutil.copytree(os.path.join(SAMPLES, task_id), str(res))
    (res / name).write_bytes(data)
    return tmp_path / "input", tmp_path / "output"


def test_score_py_on_a_hostile_run_exits_1_with_file_line_and_writes_no_scores(tmp_path):
    clean = open(os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), "rb").read()
    lines = clean.split(b"\n")
    lines[2] = lines[2].replace(b"\t", b"\t\x00NaN\xff", 1)
    input_dir, output_dir = _submission(tmp_path, "ntcir1-adhoc", "ntc1", b"\n".join(lines))
    code, out, err = run_score_py(input_dir, output_dir)
    assert code == 1
    assert "Traceback" not in out + err
    assert "ntc1:3: error: file is not valid UTF-8 (byte 0xff at offset" in err
    assert not (output_dir / "scores.json").exists() and not (output_dir / "scores.txt").exists()


def test_score_py_on_a_zip_slip_exits_1_and_writes_nothing_outside(tmp_path):
    import zipfile

    input_dir, output_dir = _submission(tmp_path, "ntcir1-adhoc", "ntc1",
                                        open(os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), "rb").read())
    with zipfile.ZipFile(str(input_dir / "res" / "more.zip"), "w") as archive:
        archive.writestr("../../../evil_runscore_limits.txt", b"pwned")
    code, out, err = run_score_py(input_dir, output_dir)
    assert code == 1
    assert "more.zip: error: zip entry '../../../evil_runscore_limits.txt' points outside the archive" in err
    assert "Traceback" not in out + err
    hits = [os.path.join(d, f) for d, _, fs in os.walk(str(tmp_path)) for f in fs if "evil_runscore" in f]
    assert hits == []


def test_cli_on_hostile_input_exits_1_with_file_line(tmp_path):
    run = tmp_path / "ds2qa_sample.tsv"
    run.write_bytes(b"DS2-QA-E-0001\t" + b"z" * 300000 + b"\nDS2-QA-E-0002\t\xc3\n")
    code, out, err = run_cli("score", "--task", "datasearch-qa", "--ref", os.path.join(REFERENCES, "datasearch-qa"),
                             str(run))
    assert code == 1
    assert "Traceback" not in out + err
    assert "ds2qa_sample.tsv:2: error: file is not valid UTF-8 (byte 0xc3 at offset" in err
    assert max(len(line) for line in err.splitlines()) < 3000


def test_score_py_names_the_image_when_numpy_is_missing(tmp_path):
    fake = tmp_path / "shim" / "numpy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('numpy hidden by the test')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "shim"))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scoring_program", "score.py"), str(tmp_path / "in"),
                           str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "numpy" in proc.stderr and "codalab/codalab-legacy:py39" in proc.stderr
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------ hostile text in the page ---
INJECTIONS = [b"<script>alert(1)</script>", b'"><img src=x onerror=alert(1)>', b"</td></tr></table><h1>x</h1>"]


@pytest.mark.parametrize("task_id", tasks_with_samples())
def test_hostile_text_in_a_run_is_escaped_in_the_results_page(tmp_path, task_id):
    """Ids and answers quoted in detailed_results.html (shown by Codabench) never become markup."""
    from runscore.codabench import entry as codabench
    from contextlib import redirect_stderr, redirect_stdout
    import io

    target = next(s for s in subjects_of(task_id, str(tmp_path / "copy")))
    pages, shown = 0, 0
    for number, injection in enumerate(INJECTIONS):
        for where in ("token", "append"):
            lines = target.clean.split(b"\n")
            if where == "token":
                fields = lines[1].split(b"\t") if b"\t" in lines[1] else lines[1].split(b";")
                fields[-1] = injection
                lines[1] = (b"\t" if b"\t" in lines[1] else b";").join(fields)
            else:
                lines[1] = lines[1] + injection
            work = tmp_path / ("%d_%s" % (number, where))
            input_dir, output_dir = _submission(work, task_id, target.name, b"\n".join(lines))
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                code = codabench.main(["score.py", str(input_dir), str(output_dir)])
            assert code in (0, 1)
            page = (output_dir / "detailed_results.html").read_text(encoding="utf-8")
            for raw in ("<script>alert", "<img src=x", "<h1>x</h1>"):
                assert raw not in page, (task_id, where, raw)
            pages += 1
            shown += any(e in page for e in ("&lt;script&gt;alert", "&lt;img src=x", "&lt;h1&gt;x&lt;/h1&gt;"))
    assert pages == 6
    print("%s: injected text shown (escaped) in %d of %d pages" % (task_id, shown, pages))
