"""`runscore trec_eval`: option syntax, version rules, and a table of bad inputs with their exact messages."""
import pytest

from conftest import run_cli
from runscore.commands import trec_eval

QRELS = "1 0 A 1\n1 0 B 0\n1 0 C 2\n2 0 D 1\n"
RUN = "1 Q0 A 1 0.5 r1\n1 Q0 B 2 0.9 r1\n1 Q0 C 3 0.1 r1\n2 Q0 D 1 1.0 r1\n"


def _files(tmp_path, qrels=QRELS, run=RUN):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels)
    r.write_text(run)
    return str(q), str(r)


def _call(capsys, *argv):
    code = trec_eval.run(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _values(out):
    """{(name, qid): text} of an output."""
    return {(line.split("\t")[0].rstrip(), line.split("\t")[1]): line.split("\t")[2] for line in out.splitlines()}


# ------------------------------------------------------------------------------------------- bad input ---

# What trec_eval reads silently: a warning by default (same output as trec_eval), an error with --strict (exit 1).
# (run file content, the message after "RUN:LINE: warning|error: ")
DUBIOUS_RUNS = [
    ("1 Q0 A 1 abc r1\n", ":1: %s: score (field 5) 'abc' is not a decimal number; trec_eval reads it as 0"),
    ("1 Q0 A 1 0x10 r1\n", ":1: %s: score (field 5) '0x10' is not a decimal number; trec_eval reads it as 16"),
    ("1 Q0 A 1 nan r1\n", ":1: %s: score (field 5) 'nan' is not a decimal number; trec_eval reads it as nan"),
    ("1 Q0 A 1 1e999 r1\n", ":1: %s: score (field 5) '1e999' is out of range for a float (trec_eval 9.0.8); "
                            "trec_eval reads it as inf"),
    ("1 Q0 A 1 1e39 r1\n", ":1: %s: score (field 5) '1e39' is out of range for a float (trec_eval 9.0.8); "
                           "trec_eval reads it as inf"),
    ("\xef\xbb\xbf9 Q0 A 1 0.5 r1\n2 Q0 D 1 1 r1\n", ":1: %s: the file starts with a UTF-8 byte order mark: trec_eval keeps it "
                                      "as part of the first topic id"),
]


@pytest.mark.parametrize("content,message", DUBIOUS_RUNS)
def test_what_trec_eval_reads_silently_is_a_warning_or_with_strict_an_error(tmp_path, capsys, content, message):
    q, r = _files(tmp_path)
    (tmp_path / "run").write_bytes(content.encode("latin-1"))
    code, out, err = _call(capsys, q, r)
    assert code == 0 and out
    assert r + message % "warning" in err.splitlines()
    code, out, err = _call(capsys, "--strict", q, r)
    assert (code, out) == (1, "")
    assert r + message % "error" in err.splitlines()


@pytest.mark.parametrize("fast_path", ["1", "0"])
@pytest.mark.parametrize("version", [[], ["--v10"]])
def test_a_score_or_gain_beyond_a_float_prints_no_python_warning(tmp_path, monkeypatch, fast_path, version):
    """Scores and gains become C floats (trec_eval 9), and 1e39 becomes inf as in C: numpy 1.24 and later print
    "RuntimeWarning: overflow encountered in cast" for it, which reached the user's stderr under runscore's own
    warning. (run_cli fails a test whose command prints a Python warning; numpy 1.22 casts silently, so this
    fails on the old code only under `make test-latest`.)"""
    monkeypatch.setenv("RUNSCORE_FAST_PATH", fast_path)
    q, r = _files(tmp_path, run=RUN.replace("0.5", "1e39").replace("0.1", "-1e39"))
    code, out, err = run_cli("trec_eval", "-q", "-m", "map", "-m", "ndcg.1=1e39,2=3e38", *version, q, r)
    assert code == 0 and out
    assert "Warning" not in err and "overflow" not in err
    if not version:
        assert "score (field 5) '1e39' is out of range for a float (trec_eval 9.0.8)" in err


def test_the_python_api_with_a_score_beyond_a_float_warns_nothing():
    import warnings

    from runscore import api
    import runscore.pytrec_eval as ours

    qrels = {"1": {"A": 1, "B": 0, "C": 2}}
    run = {"1": {"A": 1e39, "B": 0.9, "C": -1e39}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = ours.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(run)["1"]
        found = api.trec_eval(qrels, run, ["map", "ndcg.1=1e39"])
    assert values["map"] == found["per_topic"]["1"]["map"] == (1 / 1 + 2 / 3) / 2
    # numpy's own "overflow encountered in cast" never reaches the user; the drop-in says in its own words that
    # two scores are infinite as C floats (pytrec_eval computes on them silently), and api.trec_eval says nothing
    assert [str(w.message).split(":")[0] for w in caught] == ["runscore.pytrec_eval"]
    assert "2 infinite score(s) (as a C float)" in str(caught[0].message)


@pytest.mark.parametrize("content,trec_eval_line,detail", [
    ("1 Q0 A 1 0.5\n", "trec_eval.get_results: Malformed line 1",
     ":1: error: a run line has at least 6 fields (qid iter docno rank sim run_id), this one has 5"),
    ("\n1 Q0 A 1 0.5 r1\n\n1 Q0 B\n", "trec_eval.get_results: Malformed line 2",
     ":4: error: a run line has at least 6 fields (qid iter docno rank sim run_id), this one has 3"),
    ("", "trec_eval.get_results: Cannot read results file '%s'", ": error: the run file is empty"),
])
def test_a_run_trec_eval_refuses_exits_2_with_its_message_and_the_physical_line(tmp_path, capsys, content,
                                                                                 trec_eval_line, detail):
    q, r = _files(tmp_path, run=content)
    code, out, err = _call(capsys, q, r)
    assert (code, out) == (2, "")
    assert err.splitlines() == [trec_eval_line.replace("%s", r), "trec_eval: Quit in file '%s'" % r, r + detail]


def test_strict_lists_every_problem_of_the_run_at_once(tmp_path, capsys):
    q, r = _files(tmp_path, run="1 Q0 A 1 x r1\n1 Q0 C 3 0.2 r1\n1 Q0 C 4 0.1 r1\n1 Q0 B 2 1.5x r1\n")
    code, _out, err = _call(capsys, "--strict", q, r)
    assert code == 1
    assert [line.split(": error:")[0] for line in err.splitlines()] == [r + ":1", r + ":3", r + ":4"]


def test_duplicates_error_where_trec_eval_checks_them_and_warn_elsewhere(tmp_path, capsys):
    q, r = _files(tmp_path, run="1 Q0 A 1 0.5 r1\n1 Q0 A 2 0.4 r1\n")
    code, out, err = _call(capsys, q, r)
    assert (code, out) == (4, "")
    assert err.splitlines() == [r + ":2: warning: duplicate docno A in topic 1 (first seen at line 1)",
                                "trec_eval.form_res_qrels: duplicate docs Atrec_eval: Can't calculate measure "
                                "'num_ret'", r + ":2: error: duplicate docno A in topic 1 (first seen at line 1)"]
    # Beyond -M, trec_eval does not look: same output with a warning, and --strict refuses the run.
    q, r = _files(tmp_path, run="1 Q0 A 1 0.5 r1\n1 Q0 B 2 0.4 r1\n1 Q0 A 3 0.1 r1\n")
    assert _call(capsys, "-M2", "-mnum_ret", q, r) == (
        0, "num_ret               \tall\t2\n", r + ":3: warning: duplicate docno A in topic 1 (first seen at line 1)\n")
    code, _out, err = _call(capsys, "--strict", "-M2", q, r)
    assert code == 1 and err == r + ":3: error: duplicate docno A in topic 1 (first seen at line 1)\n"


def test_keep_first_duplicate_turns_the_error_into_a_warning(tmp_path, capsys):
    q, r = _files(tmp_path, run="1 Q0 A 1 0.5 r1\n1 Q0 B 2 0.9 r1\n1 Q0 A 3 2.0 r1\n")
    code, out, err = _call(capsys, "--keep-first-duplicate", "-q", "-mrelstring", q, r)
    assert code == 0
    assert err == r + ":3: warning: duplicate docno A in topic 1 (first seen at line 1); this line is ignored\n"
    assert _values(out)[("relstring", "1")] == "'01'"   # B (0.9) before A (0.5, its first score)


def test_comment_lines_count_as_lines_in_10_mode(tmp_path, capsys):
    """trec_eval numbers "Malformed line" without comments (2); we add the physical line (3)."""
    q, r = _files(tmp_path, run="# header\n1 Q0 A 1 0.5 r1\n1 Q0 B 2\n")
    code, _out, err = _call(capsys, "--v10", q, r)
    assert code == 2
    assert err.splitlines()[0] == "trec_eval.get_results: Malformed line 2"
    assert err.splitlines()[2].startswith(r + ":3: error: a run line has at least 6 fields")


BAD_QRELS = [
    ("1 0 A\n", 2, ["trec_eval.get_qrels: Malformed line 1", "trec_eval: Quit in file '%s'",
                    "%s:1: error: a qrels line has exactly 4 fields (qid iter docno rel), this one has 3"]),
    ("1 0 A 1\n\n", 2, ["trec_eval.get_qrels: Malformed line 2", "trec_eval: Quit in file '%s'",
                        "%s:2: error: a qrels line has exactly 4 fields (qid iter docno rel), this one has 0"]),
    ("1 0 A 1 x\n", 2, ["trec_eval.get_qrels: Malformed line 1", "trec_eval: Quit in file '%s'",
                        "%s:1: error: a qrels line has exactly 4 fields (qid iter docno rel), this one has 5"]),
    ("1 0 A 1\n1 0 A 0\n", 4, ["trec_eval.form_res_rels: duplicate docs A", "trec_eval: Can't calculate measure "
                              "'num_ret'", "%s:2: error: duplicate judgement of A in topic 1 (first at line 1)"]),
    ("", 2, ["trec_eval.get_qrels: Cannot read qrels file '%s'", "trec_eval: Quit in file '%s'",
             "%s: error: the qrels file is empty"]),
]


@pytest.mark.parametrize("content,code,lines", BAD_QRELS)
def test_bad_qrels_exit_as_trec_eval_with_its_message(tmp_path, capsys, content, code, lines):
    q, r = _files(tmp_path, qrels=content)
    got, out, err = _call(capsys, q, r)
    assert (got, out) == (code, "")
    assert err.splitlines() == [line.replace("%s", q) for line in lines]


def test_a_grade_atol_reads_is_a_warning_or_with_strict_exit_2(tmp_path, capsys):
    q, r = _files(tmp_path, qrels="1 0 A 1.5\n1 0 B x\n")
    code, out, err = _call(capsys, "-mnum_rel", q, r)
    assert (code, out) == (0, "num_rel               \tall\t1\n")       # 1.5 -> 1, x -> 0
    assert err.splitlines() == [q + ":1: warning: grade (field 4) '1.5' is not an integer; trec_eval reads it as 1",
                                q + ":2: warning: grade (field 4) 'x' is not an integer; trec_eval reads it as 0"]
    assert _call(capsys, "--strict", q, r)[:2] == (2, "")


USAGE_ERRORS = [
    (["-m", "mapp"], "illegal measure 'mapp'; did you mean map or gm_map?"),
    (["-m", "ndcg_cutt"], "illegal measure 'ndcg_cutt'; did you mean ndcg_cut or ndcg?"),
    (["-m", "P."], "improper measure in parameter 'P.': nothing after the dot"),
    (["-m", "unj"], "illegal measure 'unj' (a trec_eval 10.0 measure: add --v10)"),
    (["-m", "all_prefs"], "trec_eval measure 'all_prefs' is not supported by runscore (see docs/trec_eval.md)"),
    (["-R", "prefs"], "runscore trec_eval does not support rel_info formats other than qrels (prefs, qrels_jg)"),
    (["-Z", "z"], "runscore trec_eval does not support z-scores (-Z)"),
    (["-x"], "unknown option -x"),
    (["--bogus"], "unknown option --bogus"),
    (["-M-1"], "-M needs a number >= 0, got -1 (trec_eval crashes on a negative -M)"),
    (["-V", "8"], "-V takes 9 (trec_eval 9.0.8, default) or 10 (trec_eval 10.0), got '8'"),
]


@pytest.mark.parametrize("options,message", USAGE_ERRORS)
def test_bad_usage_exits_1_as_trec_eval_with_message(tmp_path, capsys, options, message):
    q, r = _files(tmp_path)
    code, out, err = _call(capsys, *(options + [q, r]))
    assert (code, out) == (1, "")
    assert "runscore trec_eval: error: " + message in err.splitlines()


@pytest.mark.parametrize("spec,code,lines", [
    ("P.0", 2, ["trec_eval: cutoffs of P must be positive, got '0'", "trec_eval: Cannot initialize measure 'P'"]),
    ("P.5,5", 2, ["trec_eval: duplicate cutoffs in '5,5' for P", "trec_eval: Cannot initialize measure 'P'"]),
    ("ndcg.1", 2, ["trec_eval: malformed pair parameters '1' for ndcg: expected level=gain,...",
                   "trec_eval: Cannot initialize measure 'ndcg'"]),
    ("utility.1,2", 4, ["trec_eval.calc_utility: improper number of coefficients",
                        "trec_eval: Can't calculate measure 'utility'", "%s: error: utility takes 4 coefficients, got 2"]),
    ("map.5", 0, ["runscore trec_eval: warning: measure map takes no parameters; trec_eval ignores '5'"]),
])
def test_measure_parameters_fail_as_in_trec_eval(tmp_path, capsys, spec, code, lines):
    """Bad parameters of a known measure: trec_eval's "Cannot initialize measure" (exit 2) or, for utility, its
    failure on the first topic (exit 4); parameters of a measure without any are ignored (with a warning)."""
    q, r = _files(tmp_path)
    got, out, err = _call(capsys, "-m", spec, q, r)
    assert got == code and (out != "") == (code == 0)
    assert err.splitlines() == [line.replace("%s", r) for line in lines]


def test_option_numbers_are_read_with_atol(tmp_path, capsys):
    q, r = _files(tmp_path)
    code, out, err = _call(capsys, "-M", "1.9", "-mnum_ret", q, r)
    assert (code, out) == (0, "num_ret               \tall\t2\n")
    assert err == "runscore trec_eval: warning: option -M '1.9' is not an integer; trec_eval reads it as 1\n"
    assert _call(capsys, "--strict", "-M", "1.9", q, r)[:2] == (1, "")


def test_missing_files_and_wrong_argument_count(tmp_path, capsys):
    q, r = _files(tmp_path)
    missing = str(tmp_path / "nope")
    assert _call(capsys, q, missing)[::2] == (2, "trec_eval.get_results: Cannot read results file '%s'\n"
                                                 "trec_eval: Quit in file '%s'\n%s: error: cannot read the run "
                                                 "file: No such file or directory\n" % (missing, missing, missing))
    assert _call(capsys, missing, r)[::2] == (2, "trec_eval.get_qrels: Cannot read qrels file '%s'\n"
                                                 "trec_eval: Quit in file '%s'\n%s: error: cannot read the qrels "
                                                 "file: No such file or directory\n" % (missing, missing, missing))
    code, _out, err = _call(capsys, q)
    assert code == 1 and "expected two files, QRELS and RUN, got 1 argument(s)" in err


def test_no_topic_in_common_exits_7(tmp_path, capsys):
    q, r = _files(tmp_path, run="9 Q0 A 1 0.5 r1\n")
    for options in ([], ["-c"]):            # 9.0.8 exits 7 with -c too
        code, _out, err = _call(capsys, *(options + [q, r]))
        assert code == 7
        assert err == "trec_eval: No queries with both results and relevance info\n" + r + \
            ": error: no topic of the run is in the qrels (nothing to evaluate)\n"


# ------------------------------------------------------------------------------------------ option syntax ---

@pytest.mark.parametrize("argv", [
    ["-mP.1,2", "-mmap"], ["-m", "P.1,2", "-m", "map"], ["--measure=P.1,2", "--measure", "map"],
    ["--meas=P.1,2", "-m", "map"],
])
def test_measure_options_in_every_getopt_spelling(tmp_path, capsys, argv):
    q, r = _files(tmp_path)
    code, out, _err = _call(capsys, *(argv + [q, r]))
    assert code == 0
    # Ranking of topic 1: B (0.9, grade 0), A (0.5, 1), C (0.1, 2); topic 2: D (1).
    # P_1 = (0/1 + 1/1) / 2, P_2 = (1/2 + 1/2) / 2, map = ((1/2 + 2/3)/2 + 1) / 2.
    assert out.splitlines() == ["map                   \tall\t%6.4f" % (((1 / 2 + 2 / 3) / 2 + 1) / 2),
                                "P_1                   \tall\t%6.4f" % 0.5,
                                "P_2                   \tall\t%6.4f" % 0.5]


def test_options_after_the_files_and_bundled_flags(tmp_path, capsys):
    q, r = _files(tmp_path)
    code, out, _ = _call(capsys, q, r, "-qn", "-mP.1")
    assert code == 0
    assert out.splitlines() == ["P_1                   \t1\t0.0000", "P_1                   \t2\t1.0000"]


def test_level_and_truncation_and_judged_only(tmp_path, capsys):
    q, r = _files(tmp_path, run=RUN + "1 Q0 Z 4 0.95 r1\n")
    # -l2: only C is relevant in topic 1, D is not relevant in topic 2.
    assert _values(_call(capsys, "-q", "-l2", "-mnum_rel", q, r)[1])[("num_rel", "1")] == "1"
    # -M1 keeps Z (0.95) only in topic 1.
    assert _values(_call(capsys, "-q", "-M1", "-mnum_ret", q, r)[1])[("num_ret", "1")] == "1"
    # -J drops Z (not in the qrels): B, A, C remain, so relstring is 012 instead of -012.
    assert _values(_call(capsys, "-q", "-J", "-mrelstring", q, r)[1])[("relstring", "1")] == "'012'"
    assert _values(_call(capsys, "-q", "-mrelstring", q, r)[1])[("relstring", "1")] == "'-012'"


def test_cli_wiring_and_stdin(tmp_path):
    q, _r = _files(tmp_path)
    code, out, err = run_cli("trec_eval", "-mnum_ret", q, "-", stdin=RUN)
    assert (code, err) == (0, "")
    assert out == "num_ret               \tall\t4\n"


def test_help_lists_supported_and_unsupported_measures(capsys):
    code, out, _ = _call(capsys, "-h")
    assert code == 0
    assert "ndcg_cut" in out and "Not supported: all_prefs" in out


# ------------------------------------------------------------------------------ 9.0.8 versus 10.0 rules ---

def test_missing_topic_v9_ignored_v10_error_and_with_c_printed_only_in_v10(tmp_path, capsys):
    q, r = _files(tmp_path, run="1 Q0 A 1 0.5 r1\n")
    code, out, _ = _call(capsys, "-mnum_q", q, r)
    assert (code, out) == (0, "num_q                 \tall\t1\n")
    code, out, err = _call(capsys, "--v10", "-mnum_q", q, r)
    assert (code, out) == (4, "")
    assert err.splitlines()[0] == "trec_eval: result qid '2' not found in qrels"
    code, out, _ = _call(capsys, "-c", "-q", "-mnum_ret", "-mnum_q", q, r)
    assert out.splitlines() == ["num_ret               \t1\t1", "num_q                 \tall\t2",
                                "num_ret               \tall\t1"]
    code, out, _ = _call(capsys, "-V", "10", "-c", "-q", "-mnum_ret", "-mnum_q", q, r)
    assert out.splitlines() == ["num_ret               \t1\t1", "num_ret               \t2\t0",
                                "num_q                 \tall\t2", "num_ret               \tall\t1"]


def test_missing_topic_with_c_scores_zero_and_counts_its_relevant(tmp_path, capsys):
    q, r = _files(tmp_path, run="1 Q0 A 1 0.5 r1\n")
    values = _values(_call(capsys, "-c", "-mmap", "-mnum_rel", "-mutility.1,-1,-1,0", "-mgm_map", q, r)[1])
    assert values[("num_rel", "all")] == "3"               # 2 relevant in topic 1 + 1 in the missing topic 2
    assert values[("map", "all")] == "%6.4f" % ((1 / 2 + 0) / 2)
    # utility of topic 1: 1*1 - 1*0 - 1*(2-1) = 0; the missing topic scores 0 (not -1), as trec_eval.
    assert values[("utility_1,-1,-1,0", "all")] == "0.0000"
    assert values[("gm_map", "all")] == "%6.4f" % ((0.5 * 0.00001) ** 0.5)


def test_scores_are_float_in_9_and_double_in_10(tmp_path, capsys):
    """1.0000000001 and 1.0 are equal as C floats, so 9.0.8 breaks the tie by docno (B before A)."""
    q, r = _files(tmp_path, qrels="1 0 A 1\n1 0 B 0\n", run="1 Q0 A 1 1.0000000001 r\n1 Q0 B 2 1.0 r\n")
    assert _values(_call(capsys, "-mP.1", q, r)[1])[("P_1", "all")] == "0.0000"
    assert _values(_call(capsys, "--v10", "-mP.1", q, r)[1])[("P_1", "all")] == "1.0000"


def test_comments_only_in_10(tmp_path, capsys):
    q, r = _files(tmp_path, qrels="# judged\n1 0 A 1\n", run="# run\n1 Q0 A 1 0.5 r1\n")
    assert _call(capsys, "--v10", "-mnum_rel_ret", q, r)[:2] == (0, "num_rel_ret           \tall\t1\n")
    code, _out, err = _call(capsys, "-mnum_rel_ret", q, r)
    assert code == 2 and err.splitlines()[0] == "trec_eval.get_qrels: Malformed line 1"


def test_interpolation_rule_follows_the_version(tmp_path, capsys):
    """R = 3, relevant at ranks 1, 4, 10 (shared/specs/ranking-measures.md A.6): p = 0.4 and 0.8 differ."""
    qrels = "1 0 A 1\n1 0 B 1\n1 0 C 1\n"
    ranking = ["A", "n1", "n2", "B", "n3", "n4", "n5", "n6", "n7", "C"]
    run = "".join("1 Q0 %s %d %d r\n" % (d, i, 100 - i) for i, d in enumerate(ranking, 1))
    q, r = _files(tmp_path, qrels=qrels, run=run)
    v9 = _values(_call(capsys, "-miprec_at_recall.0.4,0.7,0.8", q, r)[1])
    v10 = _values(_call(capsys, "--v10", "-miprec_at_recall.0.4,0.7,0.8", q, r)[1])
    assert [v9[("iprec_at_recall_%s" % p, "all")] for p in ("0.40", "0.70", "0.80")] == ["0.5000", "0.5000", "0.3000"]
    assert [v10[("iprec_at_recall_%s" % p, "all")] for p in ("0.40", "0.70", "0.80")] == ["1.0000", "0.5000",
                                                                                        "0.5000"]


def test_odd_measure_parameters_never_raise(tmp_path, capsys):
    """Seeded fuzz of `-m name.params` with flags: every call ends with one of trec_eval's exit codes and never a
    traceback (test_trec_eval_differential.py compares parameter forms with the real binaries)."""
    import random
    from runscore.measures.trec import PAIR_PARAMS, REGISTRY
    q, r = _files(tmp_path, qrels=QRELS + "1 0 E -1\n2 0 F 5\n", run=RUN + "3 Q0 D 1 1.0 r1\n")
    rng = random.Random(5)
    numbers = ["0", "-1", "1", "2.5", "-3.7", "100", "1e3", "abc", ".5"]
    codes = set()
    for _ in range(400):
        name = rng.choice(list(REGISTRY))
        if REGISTRY[name].param_kind == PAIR_PARAMS:
            params = ",".join("%s=%s" % (rng.choice(["0", "1", "2", "5", "p", "x"]), rng.choice(numbers))
                              for _ in range(rng.randint(1, 3)))
        else:
            params = ",".join(rng.choice(numbers) for _ in range(rng.randint(1, 4)))
        flags = rng.sample(["-c", "--v10", "-l2", "-M1", "-J", "-l0", "--full-precision"], rng.randint(0, 3))
        code, out, err = _call(capsys, *(["-q", "-m", name + "." + params] + flags + [q, r]))
        assert code in (0, 1, 2, 4), (name, params, flags, err)
        assert "Traceback" not in err
        codes.add(code)
    assert {0, 2} <= codes


# ------------------------------------------------------------------ choices where trec_eval misbehaves ---

def test_v10_qrels_comments_are_what_10_0_means_not_what_it_does(tmp_path, capsys):
    """trec_eval 10.0 reads a second comment line in a row as data, an indented comment as topic '#', and reads
    past its buffer on a comment as the last line; --v10 treats all three as comments (docs/trec_eval.md)."""
    qrels = "# first\n# second in a row\n  # indented\n1 0 A 1\n1 0 B 0\n# last line\n"
    q, r = _files(tmp_path, qrels=qrels, run="1 Q0 A 1 0.5 r1\n1 Q0 B 2 0.4 r1\n")
    code, out, err = _call(capsys, "--v10", "-q", "-mnum_rel", "-mnum_q", q, r)
    assert (code, err) == (0, "")
    assert out.splitlines() == ["num_rel               \t1\t1", "num_q                 \tall\t1",
                                "num_rel               \tall\t1"]
    import trec_eval_peer
    peer, why = trec_eval_peer.binary("10.0")
    if peer is None:
        pytest.skip(why)
    # The real 10.0 on the first two lines alone: the second comment is "Malformed line 1" (4 words: data).
    (tmp_path / "qrels").write_text("# first\n# second in a row\n1 0 A 1\n")
    assert trec_eval_peer.run_peer(peer, ["-mnum_rel", q, r], str(tmp_path))[1] == 2


def test_a_nan_score_is_a_warning_and_ranks_below_every_number(tmp_path, capsys):
    """trec_eval's comparator is not an order with NaN (its result depends on the C library's qsort); runscore
    ranks NaN last and says so."""
    q, r = _files(tmp_path, qrels="1 0 A 1\n1 0 B 0\n", run="1 Q0 A 1 nan r1\n1 Q0 B 2 -5 r1\n")
    code, out, err = _call(capsys, "-q", "-mrelstring", q, r)
    assert code == 0
    assert _values(out)[("relstring", "1")] == "'01'"       # B (-5) before A (nan)
    assert "score (field 5) 'nan' is not a decimal number; trec_eval reads it as nan" in err


def test_running_out_of_memory_is_a_message_and_exit_2(tmp_path, monkeypatch, capsys):
    """The line-by-line reader holds about ten times the file (a 505 MB run once raised MemoryError): a
    message and trec_eval's exit code for files, no traceback and no partial output."""
    from runscore.commands import trec_eval as command

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 0.5 r\n")

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")     # the line-by-line reader (every run is read as columns)
    monkeypatch.setattr(command, "_exact", exhausted)
    monkeypatch.setenv("RUNSCORE_FAST_PATH", "0")        # the fast path takes every size now: the exact reader
    code = command.run(["-q", str(qrels), str(run)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "not enough memory to evaluate %s" % run in captured.err
