"""The fast path wired into `runscore trec_eval` and the ntcir1-adhoc task prints what the exact path prints.

Each case runs the same files twice, RUNSCORE_FAST_PATH=1 (every file tries the columnar path) and =0 (exact
path only), and compares stdout, stderr and exit code byte for byte, or the task's diagnostics and scores
exactly. The runs are seeded, with ties, graded qrels, missing topics and more documents than -M / max_docs.
"""
import os
import random

import pytest

from runscore.ranking import columnar, fastpath
from runscore.ranking.columnar_qrels import ColumnarQrels
from runscore.errors import ConfigError
from runscore.commands import trec_eval
from runscore.errors import Diagnostics
from runscore.pipeline import load_reference
from runscore.tasks.ntcir1_adhoc import TASK as NTCIR1

from conftest import ROOT


def _files(tmp_path, seed=4, topics=12, docs=80):
    rng = random.Random(seed)
    qrels, run = [], []
    for t in range(1, topics + 1):
        for d in rng.sample(range(200), 25):
            qrels.append("%04d 0 gakkai-%010d %d" % (t, d, rng.choice((0, 0, 1, 2, 3))))
        if t == 3:
            continue                                  # a qrels topic without run lines
        scores = sorted((round(rng.random(), 2) for _ in range(docs)), reverse=True)   # ties
        for rank, (d, score) in enumerate(zip(rng.sample(range(200), docs), scores), 1):
            run.append("%04d\t0\tgakkai-%010d\t%d\t%s\tntc1" % (t, d, rank, score))
    run.append("0999\t0\tgakkai-0000000001\t1\t0.5\tntc1")   # a topic of the run only
    q, r = tmp_path / "qrels", tmp_path / "ntc1"
    q.write_text("\n".join(qrels) + "\n")
    r.write_text("\n".join(run) + "\n")
    return str(q), str(r)


def _trec_eval(monkeypatch, capsys, switch, *argv):
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    code = trec_eval.run(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


ARGVS = [
    (),
    ("-q",),
    ("-c", "-q", "-M", "20"),
    ("-l", "2", "-m", "all_trec", "-q"),
    ("--v10", "-c", "-m", "all_trec", "-q", "--full-precision"),
    ("-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "iprec_at_recall.0.25,0.5", "-q", "--full-precision"),
]


@pytest.mark.parametrize("argv", ARGVS)
def test_trec_eval_output_is_byte_identical(tmp_path, monkeypatch, capsys, argv):
    q, r = _files(tmp_path)
    read = []
    real_read = fastpath.read
    monkeypatch.setattr(fastpath, "read", lambda *a, **k: read.append(a) or real_read(*a, **k))
    fast = _trec_eval(monkeypatch, capsys, "1", *(argv + (q, r)))
    # The fast path really ran; under 10.0 rules a qrels topic without run lines is the exact path's (trec_eval's
    # placeholder ranking).
    if "--v10" not in argv:
        assert [layout for _path, layout in read] == ["qrels", "trec"]
    count = len(read)
    exact = _trec_eval(monkeypatch, capsys, "0", *(argv + (q, r)))
    assert len(read) == count
    assert fast == exact
    assert fast[0] == 0 and fast[1]


def test_v10_missing_topic_error_is_the_same(tmp_path, monkeypatch, capsys):
    q, r = _files(tmp_path)
    fast = _trec_eval(monkeypatch, capsys, "1", "--v10", q, r)
    exact = _trec_eval(monkeypatch, capsys, "0", "--v10", q, r)
    assert fast == exact and fast[0] == 4 and "trec_eval: result qid '0003' not found in qrels" in fast[2]


def test_a_declined_run_gets_the_exact_diagnostics(tmp_path, monkeypatch, capsys):
    q, r = _files(tmp_path)
    with open(r, "a") as handle:
        handle.write("0001\t0\tgakkai-0000000001\t1\tabc\tntc1\n")
    fast = _trec_eval(monkeypatch, capsys, "1", q, r)
    assert fast == _trec_eval(monkeypatch, capsys, "0", q, r)
    assert fast[0] == 0 and "'abc' is not a decimal number; trec_eval reads it as 0" in fast[2]


@pytest.mark.parametrize("defect", ["0001 0 gakkai-0000000001 A\n", "0001 0 gakkai-0000000001\n",
                                    "0001 0 gakkai-0000000201 5000000\n"])
def test_a_declined_qrels_file_gets_the_exact_error(tmp_path, monkeypatch, capsys, defect):
    q, r = _files(tmp_path)
    with open(q, "a") as handle:
        handle.write(defect)
    fast = _trec_eval(monkeypatch, capsys, "1", q, r)
    assert fast == _trec_eval(monkeypatch, capsys, "0", q, r)
    assert q in fast[2]         # a warning (grade A read as 0) or trec_eval's error with the line


def test_small_files_stay_on_the_exact_path(tmp_path, monkeypatch):
    q, r = _files(tmp_path, topics=4, docs=20)          # 61 lines, under FAST_PATH_MIN_BYTES
    monkeypatch.delenv(fastpath.ENVIRONMENT, raising=False)
    assert not fastpath.wanted(r)
    monkeypatch.setattr(fastpath, "FAST_PATH_MIN_BYTES", 1)
    assert fastpath.wanted(r)
    monkeypatch.setenv(fastpath.ENVIRONMENT, "0")
    assert not fastpath.wanted(r)


def _ntcir1(monkeypatch, switch, reference, path, display="ntc1"):
    """Parse and score under one switch; `reference` is a loaded reference or (path, overrides) to load under
    the same switch (then the qrels are read as columns too when the switch is 1)."""
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    if isinstance(reference, tuple):
        reference = load_reference(NTCIR1, *reference)
    diags = Diagnostics(display)
    runs = NTCIR1.parse(path, display, diags, reference.data, reference.options)
    scores = [NTCIR1.score(run, reference.data, reference.options) for run in runs]
    return runs, diags.lines(), [(s.measures, s.per_topic, s.notes) for s in scores]


@pytest.mark.parametrize("overrides,display", [
    ({}, "ntc1"),
    ({"max_docs": 30, "tie_order": "asc", "interp_cutoff": "v9"}, "ntc1.txt"),
    ({"exclude_topics_without_relevant": True, "interp_cutoff": "v10"}, "other_name"),
    ({"similarity_precision": "single"}, "ntc1"),
])
def test_ntcir1_adhoc_scores_and_warnings_are_identical(tmp_path, monkeypatch, overrides, display):
    q, r = _files(tmp_path)
    fast_runs, fast_diags, fast_scores = _ntcir1(monkeypatch, "1", (q, overrides), r, display)
    assert isinstance(fast_runs[0].data.topics, columnar.ColumnarRun)
    exact_runs, exact_diags, exact_scores = _ntcir1(monkeypatch, "0", (q, overrides), r, display)
    assert isinstance(exact_runs[0].data.topics, dict)
    assert fast_diags == exact_diags
    assert fast_scores == exact_scores
    assert fast_runs[0].name == exact_runs[0].name == "ntc1"


def test_ntcir1_adhoc_sample_reference_folder(monkeypatch):
    """The shipped sample (gakkai document ids of 17 bytes: three words) against its reference folder."""
    reference = load_reference(NTCIR1, ROOT + "/reference_data/ntcir1-adhoc")
    sample = ROOT + "/starting_kit/sample_submission/ntcir1-adhoc/ntc1"
    fast = _ntcir1(monkeypatch, "1", reference, sample)
    assert isinstance(fast[0][0].data.topics, columnar.ColumnarRun)
    exact = _ntcir1(monkeypatch, "0", reference, sample)
    assert fast[1:] == exact[1:]


def _qrels_as_dicts(qrels):
    return {topic: dict(qrels[topic]) for topic in qrels}


@pytest.mark.parametrize("letters", [False, True])
def test_ntcir1_reference_read_as_columns_equals_the_exact_one(tmp_path, monkeypatch, letters):
    """Graded qrels (integers, or NTCIR's letters S/A/B/C), topics not zero-padded: both loaders agree."""
    q, _ = _files(tmp_path)
    lines = open(q).read().splitlines()
    if letters:
        lines = [line[:-1] + "SABC"[3 - int(line[-1])] if i % 2 else line for i, line in enumerate(lines)]
    lines = [line.lstrip("0") for line in lines]                     # "12 0 gakkai-... 2": read as topic 0012
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv(fastpath.ENVIRONMENT, "1")
    fast = load_reference(NTCIR1, q)
    monkeypatch.setenv(fastpath.ENVIRONMENT, "0")
    exact = load_reference(NTCIR1, q)
    assert isinstance(fast.data.qrels["rel1"], ColumnarQrels)
    assert isinstance(exact.data.qrels["rel1"], dict)
    assert "0012" in fast.data.qrels["rel1"]
    assert _qrels_as_dicts(fast.data.qrels["rel1"]) == exact.data.qrels["rel1"]
    assert list(fast.data.qrels["rel1"]) == list(exact.data.qrels["rel1"])      # file order of topics
    assert fast.data.topics == exact.data.topics


@pytest.mark.parametrize("switch", ["0", "1"])
def test_a_small_run_against_a_columnar_reference(tmp_path, monkeypatch, switch):
    """The exact run path reads per-topic dicts from the columnar qrels view: the same scores."""
    q, r = _files(tmp_path)
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    reference = load_reference(NTCIR1, q)
    assert isinstance(reference.data.qrels["rel1"], ColumnarQrels) == (switch == "1")
    scores = _ntcir1(monkeypatch, "0", reference, r)[2]
    assert scores == _ntcir1(monkeypatch, "0", (q, {}), r)[2]


@pytest.mark.parametrize("switch", ["0", "1"])
def test_topics_equal_once_zero_padded_are_a_reference_error(tmp_path, monkeypatch, switch):
    q = tmp_path / "qrels"
    q.write_text("31 0 D1 1\n0031 0 D2 1\n")
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    with pytest.raises(ConfigError, match="topics 31 and 0031 are the same topic once zero-padded"):
        load_reference(NTCIR1, str(q))


def test_a_run_too_big_for_the_exact_reader_says_where_the_fast_reader_stopped(tmp_path, monkeypatch):
    """Over textfile.MAX_FILE_BYTES (made small here) only the columnar reader reads a run: a clean one is scored,
    one with a blank line gets a message that names the lines where the reader stopped, not just 'too big'."""
    from runscore.errors import RunError

    q, r = _files(tmp_path)
    reference = load_reference(NTCIR1, q)
    monkeypatch.setattr(fastpath, "MAX_FILE_BYTES", 1000)
    runs, diags, scores = _ntcir1(monkeypatch, "1", reference, r)
    assert isinstance(runs[0].data.topics, columnar.ColumnarRun) and scores[0][0]["map_rel1"] >= 0
    lines = open(r).read().splitlines(True)
    lines[6] = "\n"                                   # line 7 blank: a warning on the exact path
    with open(r, "w") as handle:
        handle.writelines(lines)
    with pytest.raises(RunError) as info:
        _ntcir1(monkeypatch, "1", reference, r)
    message = str(info.value)
    assert message.startswith("ntc1: error: file is %d bytes: a run over 0 MiB is read only by the fast reader"
                              % os.path.getsize(r))
    assert "it stopped at lines 1-%d (an error, or a warning such as a blank line" % len(lines) in message


def test_a_space_separated_ntcir1_run_takes_the_fast_path_with_the_same_warning(tmp_path, monkeypatch):
    q, r = _files(tmp_path)
    with open(r) as handle:
        spaced = handle.read().replace("\t", " ")
    with open(r, "w") as handle:
        handle.write(spaced)
    fast_runs, fast_diags, fast_scores = _ntcir1(monkeypatch, "1", (q, {}), r)
    assert isinstance(fast_runs[0].data.topics, columnar.ColumnarRun)
    exact_runs, exact_diags, exact_scores = _ntcir1(monkeypatch, "0", (q, {}), r)
    assert isinstance(exact_runs[0].data.topics, dict)
    assert fast_diags == exact_diags
    assert any("line has no TAB" in line for line in fast_diags)
    assert fast_scores == exact_scores


def test_trec_eval_a_score_beyond_a_float_gets_the_exact_paths_warning(tmp_path, monkeypatch, capsys):
    """trec_eval 9.0.8 stores scores as C floats, so 1e308 is inf there: the exact reader warns; the columnar
    reader must not score it silently (found by make fuzz). Same stdout either way, and the same warning."""
    from runscore.commands import trec_eval as command

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 d2 1\n")
    run.write_text("1 Q0 d1 1 0.5 r\n1 Q0 d2 2 1e308 r\n1 Q0 d3 3 0.25 r\n")
    outputs = []
    for switch in ("0", "1"):
        monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
        assert command.run(["-m", "map", str(qrels), str(run)]) == 0
        outputs.append(capsys.readouterr())
    assert outputs[0].out == outputs[1].out == "map                   \tall\t1.0000\n"
    assert outputs[0].err == outputs[1].err and "'1e308' is out of range for a float" in outputs[1].err
