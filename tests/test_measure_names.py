"""One name per measure (issue 15): the key `runscore score` prints, lower-cased after the task prefix, is the
leaderboard key; where a measure is typed, the other spellings (leaderboard key, column title, ir_measures-style
`AP`, `P@10`, `nDCG@10`, trec_eval's `P.10`, any case) are accepted, and a typo gets the close names only."""
import os

import pytest

from conftest import ROOT, run_cli
from runscore.errors import ConfigError
from runscore.measures.names import close_names, ir_measures_to_trec_eval
from runscore.tasks import all_tasks, get_task

NTCIR1 = ["map_rel1", "map_rel2", "P_10_rel1", "P_10_rel2", "Rprec_rel1", "Rprec_rel2", "11pt_avg_rel1",
          "recip_rank_rel1", "bpref_rel1", "P_5_rel1", "gm_map_rel1", "num_rel_ret_rel1", "iprec_at_recall_0.10_rel1"]
R2C2_PR = ["hit1", "msndcg20", "ndcg20_orig", "p20"]


def test_every_leaderboard_key_is_the_task_prefix_and_the_measure_name():
    for task in all_tasks():
        for column in task.columns:
            assert task.leaderboard_key(column) == "%s_%s" % (task.key_prefix, column.measure.lower()), task.id


@pytest.mark.parametrize("task_id, available, typed, expected", [
    ("ntcir1-adhoc", NTCIR1, "map_rel2", "map_rel2"),
    ("ntcir1-adhoc", NTCIR1, "ntcir1_adhoc_map_rel1", "map_rel1"),       # the leaderboard key
    ("ntcir1-adhoc", NTCIR1, "ntcir1_adhoc_p_10_rel2", "P_10_rel2"),
    ("ntcir1-adhoc", NTCIR1, "MAP (relaxed)", "map_rel2"),               # the column title
    ("ntcir1-adhoc", NTCIR1, "map", "map_rel1"),                         # no suffix: the first variant (rigid)
    ("ntcir1-adhoc", NTCIR1, "AP", "map_rel1"),                          # ir_measures
    ("ntcir1-adhoc", NTCIR1, "P@10", "P_10_rel1"),
    ("ntcir1-adhoc", NTCIR1, "P.10", "P_10_rel1"),                       # trec_eval -m
    ("ntcir1-adhoc", NTCIR1, "p_10_REL2", "P_10_rel2"),                  # any case
    ("ntcir1-adhoc", NTCIR1, "RR", "recip_rank_rel1"),
    ("ntcir1-adhoc", NTCIR1, "R-Prec", "Rprec_rel1"),
    ("ntcir1-adhoc", NTCIR1, "NumRelRet", "num_rel_ret_rel1"),
    ("r2c2-pr", R2C2_PR, "MSnDCG@20", "msndcg20"),
    ("r2c2-pr", R2C2_PR, "P@20", "p20"),
    ("r2c2-pr", R2C2_PR, "Hit@1", "hit1"),
    ("r2c2-pr", R2C2_PR, "r2c2_pr_msndcg20", "msndcg20"),
    ("qqa23-mrc", ["pap10", "answerable"], "pAP@10", "pap10"),
])
def test_a_measure_is_found_under_its_spellings(task_id, available, typed, expected):
    assert get_task(task_id).measure_key(typed, available) == expected


@pytest.mark.parametrize("task_id, available, typed, message", [
    ("ntcir1-adhoc", NTCIR1, "mapp", "unknown measure 'mapp' for task ntcir1-adhoc (did you mean map_rel1"),
    ("ntcir1-adhoc", NTCIR1, "P@11", "(did you mean P_10_rel1"),
    ("ntcir1-adhoc", NTCIR1, "zzz", "unknown measure 'zzz' for task ntcir1-adhoc; 13 measures (`runscore score "
                                    "--json` names them all)"),
    ("r2c2-pr", R2C2_PR, "ndcg@20", "(did you mean msndcg20, ndcg20_orig?)"),
    ("r2c2-pr", R2C2_PR, "xyz", "; measures: hit1, msndcg20, ndcg20_orig, p20"),    # a short list is shown
])
def test_an_unknown_measure_names_the_close_ones_only(task_id, available, typed, message):
    with pytest.raises(ConfigError) as info:
        get_task(task_id).measure_key(typed, available)
    assert message in str(info.value)


@pytest.mark.parametrize("typed, expected", [
    ("nDCG@10", "ndcg_cut.10"), ("ndcg@10", "ndcg_cut.10"), ("P@10", "P.10"), ("AP", "map"), ("AP@100", "map_cut.100"),
    ("RR", "recip_rank"), ("R@100", "recall.100"), ("Rprec", "Rprec"), ("success@1", "success.1"),
    ("foo", None), ("P@\u0663", None), ("P@" + "9" * 19, None), ("P@" + "9" * 18, "P." + "9" * 18),
])
def test_ir_measures_names_translate_to_trec_eval(typed, expected):
    assert ir_measures_to_trec_eval(typed) == expected


def test_close_names_compare_squashed_forms():
    assert close_names("ndcg@10", ["ndcg_cut_10", "map", "P_10"])[0] == "ndcg_cut_10"


@pytest.mark.parametrize("measure, hint", [
    ("ndcg@10", "did you mean ndcg_cut.10?"), ("nDCG@20", "did you mean ndcg_cut.20?"), ("P@5", "did you mean P.5?"),
    ("AP", "did you mean map?"),
])
def test_trec_eval_suggests_its_own_spelling(measure, hint):
    code, _, err = run_cli("trec_eval", "-m", measure, "qrels", "run")
    assert code == 1 and hint in err        # trec_eval's exit code for an illegal measure


def test_compare_takes_any_spelling_and_prints_the_measure_name():
    ref = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
    sample = os.path.join(ROOT, "starting_kit", "sample_submission", "ntcir1-adhoc", "ntc1")
    for typed in ("map", "ntcir1_adhoc_map_rel1", "AP"):
        code, out, err = run_cli("compare", "--task", "ntcir1-adhoc", "--ref", ref, "--measure", typed,
                                 "--trials", "50", "--bootstrap", "50", sample, sample)
        assert code == 0, err
        assert out.startswith("Per-topic map_rel1\n")
    code, out, err = run_cli("compare", "--task", "ntcir1-adhoc", "--ref", ref, "--measure", "mapp", sample, sample)
    assert code == 2 and "did you mean map_rel1" in err and len(err) < 300


def test_a_cutoff_of_thousands_of_digits_is_a_usage_error_through_the_api():
    """`P@` and 5,000 digits: int() raised a ValueError (a traceback for the API's caller), not a usage error."""
    from runscore import api

    with pytest.raises(ConfigError):
        api.trec_eval({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, measures=["P@" + "9" * 5000])
