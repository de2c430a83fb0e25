"""Grades outside a task's scale are refused at QRELS:LINE with the scale in the message: a
collection's own qrels graded 1-4 (1 best) given to `score --ref` as NTCIR-1's S/A/B/C must not give a plausible
MAP, and grades such as 7 or -3 must not pass."""
import pytest

from conftest import run_cli
from runscore.errors import ConfigError
from runscore.pipeline import load_reference
from runscore.ranking.fastpath import FAST_QRELS_MIN_BYTES
from runscore.ranking.ntcir_qrels import read_graded_qrels
from runscore.tasks import get_task

NTCIR1 = get_task("ntcir1-adhoc")
RUN = "0001\t0\td%d\t%d\t%d\tntc1\n"


def graded_folder(tmp_path, lines):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "task.yaml").write_text("task: ntcir1-adhoc\ngraded_qrels: g\n")
    (folder / "g").write_text("".join(lines))
    return folder


@pytest.mark.parametrize("grade", ["4", "7", "-3"])
def test_ntcir1_graded_qrels_off_the_scale_are_refused_at_the_line(tmp_path, grade):
    folder = graded_folder(tmp_path, ["0001 0 d1 2\n", "0001 0 d2 %s\n" % grade, "0001 0 d3 A\n"])
    with pytest.raises(ConfigError) as raised:
        load_reference(NTCIR1, str(folder))
    text = str(raised.value)
    assert "g:2: error: grade %s is outside the task's scale 0..3 (or C, B, A, S)" % grade in text


def test_a_collections_own_1_to_4_qrels_are_not_scored(tmp_path):
    folder = graded_folder(tmp_path, ["0001 0 d%d %d\n" % (k, 1 + k % 4) for k in range(1, 9)])
    run = tmp_path / "ntc1"
    run.write_text("".join(RUN % (k, k, 100 - k) for k in range(1, 9)))
    code, out, err = run_cli("score", "--task", "ntcir1-adhoc", "--ref", str(folder), str(run))
    assert code == 2 and "map" not in out.lower()
    assert "g:3: error: lines 3, 7: grade 4 is outside the task's scale 0..3 (or C, B, A, S)" in err


def test_ntcir1_binary_qrels_hold_0_or_1(tmp_path):
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "task.yaml").write_text("task: ntcir1-adhoc\nqrels: {rel1: r1, rel2: r2}\n")
    (folder / "r1").write_text("0001 A d1 1\n")
    (folder / "r2").write_text("0001 A d1 1\n0001 B d2 2\n")
    with pytest.raises(ConfigError) as raised:
        load_reference(NTCIR1, str(folder))
    assert "r2:2: error: grade 2 is outside the task's scale 0..1" in str(raised.value)


def test_a_big_file_read_as_columns_is_checked_too(tmp_path):
    lines = ["%04d 0 doc-%07d %s\n" % (1 + k % 50, k, "SABC"[k % 4]) for k in range(FAST_QRELS_MIN_BYTES // 20)]
    lines[-5] = "0007 0 doc-x 5\n"
    folder = graded_folder(tmp_path, lines)
    assert (folder / "g").stat().st_size > FAST_QRELS_MIN_BYTES
    with pytest.raises(ConfigError) as raised:
        load_reference(NTCIR1, str(folder))
    assert "g:%d: error: grade 5 is outside the task's scale 0..3" % (len(lines) - 4) in str(raised.value)


def test_trec_format_graded_qrels_name_the_line_and_scale(tmp_path):
    path = tmp_path / "q"
    path.write_text("001a 0 d1 1\n001a 0 d2 3\n001a 0 d3 -1\n")
    with pytest.raises(ConfigError) as raised:
        read_graded_qrels(str(path), "trec", max_level=2)
    text = str(raised.value)
    assert "q:2: error: grade 3 is outside the task's scale 0..2" in text and "q:3: error: grade -1" in text
