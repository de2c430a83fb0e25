"""Differential fuzzing of the columnar fast path: on any hostile variant of a run, forcing the fast path on
(RUNSCORE_FAST_PATH=1) and off (=0) must give the same diagnostics and the same scores, and neither may crash.

Why: the fast path serves ntcir1-adhoc runs of 16 KiB and more only, so the small inputs of the other fuzz tests
rarely reach it; forcing it on small hostile inputs checks its promise to fall back to the exact reader, or agree with
it, on everything. The same inputs as they are read by default (small: the bulk reader of clean runs, else the line
loop) must agree too. Every other input is also read in two parts (the threads big files get), so the checks
across the cut are fuzzed too.
"""
import io
import os
import zlib
from contextlib import redirect_stderr, redirect_stdout

from hostile.harness import REFERENCES, SAMPLES, Hang, for_each_distinct_mutation, time_limit, trec_run_from_sample
from runscore.ranking import columnar, fastpath
from runscore.commands import trec_eval
from runscore.errors import Diagnostics, RunError
from runscore.pipeline import load_reference
from runscore.tasks import get_task

INPUTS = int(os.environ.get("RUNSCORE_FUZZ_FAST_PATH_INPUTS", "40"))  # 400 in make fuzz-ci
PER_SEED = 10


def _split_in_two(monkeypatch, data):
    """Every other input (by checksum, so reruns agree): read in two parts at once however small it is."""
    split = zlib.crc32(data) % 2 == 1
    monkeypatch.setattr(columnar, "PARALLEL_MIN_BYTES", 0 if split else 32 * 1024 * 1024)
    monkeypatch.setattr(columnar, "_free_cpus", lambda: 2)


def _ntcir1_outcome(monkeypatch, switch, reference, path):
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    task = get_task("ntcir1-adhoc")
    diags = Diagnostics("ntc1")
    try:
        with time_limit(10):
            runs = task.parse(path, "ntc1", diags, reference.data, reference.options)
            if diags.has_errors:
                return diags.lines(), None
            return diags.lines(), [(s.measures, s.per_topic, s.notes) for s in
                                   (task.score(r, reference.data, reference.options) for r in runs)]
    except RunError as exc:
        return [str(exc)], None
    except Hang as exc:
        return ["hang: %s" % exc], None
    except Exception as exc:
        return ["crash: %s: %s" % (type(exc).__name__, exc)], None


def test_ntcir1_adhoc_fast_and_exact_paths_agree_on_hostile_runs(tmp_path, monkeypatch):
    reference = load_reference(get_task("ntcir1-adhoc"), os.path.join(REFERENCES, "ntcir1-adhoc"))
    clean = open(os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), "rb").read()
    small = b"\n".join(clean.split(b"\n")[:12]) + b"\n"
    path = str(tmp_path / "ntc1")
    disagreements = []

    def visit(kind, data):
        with open(path, "wb") as handle:
            handle.write(data)
        _split_in_two(monkeypatch, data)
        fast = _ntcir1_outcome(monkeypatch, "1", reference, path)
        exact = _ntcir1_outcome(monkeypatch, "0", reference, path)
        usual = _ntcir1_outcome(monkeypatch, "", reference, path)     # small: the bulk reader or the line loop
        if fast != exact or usual != exact or any(line.startswith(("crash", "hang")) for line in exact[0]):
            disagreements.append((kind, data[:200], (fast if fast != exact else usual)[0][:3], exact[0][:3]))

    seen = for_each_distinct_mutation([clean, small], INPUTS, visit, first_base_one_in=5, per_seed=PER_SEED)
    assert len(seen) >= INPUTS
    assert not disagreements, "\n".join("  [%s] fast %s\n      exact %s\n      input %r" % (k, f, e, d)
                                        for k, d, f, e in disagreements[:6])


def _trec_eval_outcome(monkeypatch, switch, qrels, run):
    monkeypatch.setenv(fastpath.ENVIRONMENT, switch)
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(10), redirect_stdout(out), redirect_stderr(err):
            code = trec_eval.run(["-q", "-m", "all_trec", qrels, run])
    except Exception as exc:
        return "crash: %s: %s" % (type(exc).__name__, exc), "", ""
    return code, out.getvalue(), err.getvalue()


def test_trec_eval_fast_and_exact_paths_agree_on_hostile_runs(tmp_path, monkeypatch):
    clean = trec_run_from_sample(30)
    qrels = os.path.join(REFERENCES, "ntcir1-adhoc", "rel1_sample_0031-0036")
    path = str(tmp_path / "run")
    disagreements = []
    wanted = INPUTS // 3

    def visit(kind, data):
        with open(path, "wb") as handle:
            handle.write(data)
        _split_in_two(monkeypatch, data)
        fast = _trec_eval_outcome(monkeypatch, "1", qrels, path)
        exact = _trec_eval_outcome(monkeypatch, "0", qrels, path)
        if fast != exact or str(exact[0]).startswith("crash"):
            disagreements.append((kind, data[:200], fast, exact))

    seen = for_each_distinct_mutation([clean], wanted, visit, per_seed=PER_SEED)
    assert len(seen) >= wanted
    assert not disagreements, "\n".join("  [%s] fast %r\n      exact %r\n      input %r"
                                        % (k, (f[0], f[2][:200]), (e[0], e[2][:200]), d)
                                        for k, d, f, e in disagreements[:6])
