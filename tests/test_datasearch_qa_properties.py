"""Properties of the QA measures on generated answers (hypothesis): ranges, symmetry, and the links between
exact match and F1 that hold by construction."""
from hypothesis import given, settings
from hypothesis import strategies as st

from runscore.measures.qa import (exact_match, make_normalizer, make_tokenizer, max_set_f1, normalize_strict,
                                  set_f1, squad11_exact_match, squad11_f1,
                                  squad11_normalize_answer)

# Characters that exercise every normaliser: ASCII and full-width letters/digits, ASCII and Japanese punctuation,
# kana/kanji, spaces of several kinds, the comma of digit groups.
ALPHABET = "abcAB019 ,.!'\t\u3000１２ＡＢ，、。東京都ﾄｳ"
ANSWER = st.text(alphabet=ALPHABET, max_size=12) | st.sampled_from(["the", "a cat", "The Cat.", "13,510,000"])
LANG = st.sampled_from(["E", "J"])


@settings(max_examples=150, deadline=None)
@given(ANSWER, ANSWER)
def test_set_f1_is_symmetric_and_in_range(x, y):
    tokens = make_tokenizer("E")
    a, b = frozenset(tokens(x)), frozenset(tokens(y))
    assert set_f1(a, b) == set_f1(b, a)
    assert 0.0 <= set_f1(a, b) <= 1.0
    assert (set_f1(a, b) == 1.0) == (a == b)          # F1 = 1 exactly when the sets are equal


@settings(max_examples=150, deadline=None)
@given(ANSWER, st.lists(ANSWER, min_size=1, max_size=3), LANG, st.booleans())
def test_strict_exact_match_implies_full_f1(prediction, golds, lang, digits):
    # strict-equal strings have equal token sets in both languages (squad and character tokens are functions of
    # the strict form), so EM 1 forces F1 1; and the max over golds is at least the value for any one gold.
    em = exact_match(prediction, golds, make_normalizer("strict", digits))
    f1 = max_set_f1(prediction, golds, make_tokenizer(lang, "char", digits))
    assert em <= f1
    assert f1 >= max_set_f1(prediction, golds[:1], make_tokenizer(lang, "char", digits))


@settings(max_examples=150, deadline=None)
@given(ANSWER, ANSWER)
def test_squad11_ranges_and_em_f1_link(x, y):
    f1 = squad11_f1(x, y)
    assert 0.0 <= f1 <= 1.0 and f1 == squad11_f1(y, x)
    # EM 1 gives F1 1 except for the v1.1 quirk: both normalise to nothing -> EM 1, F1 0
    if squad11_exact_match(x, y) == 1.0:
        assert f1 == (1.0 if squad11_normalize_answer(x) else 0.0)


@settings(max_examples=150, deadline=None)
@given(ANSWER)
def test_strict_normaliser_is_idempotent(x):
    assert normalize_strict(normalize_strict(x)) == normalize_strict(x)
