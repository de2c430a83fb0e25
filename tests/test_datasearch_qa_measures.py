"""QA measures of datasearch-qa: every normalisation and tokenisation case of shared/specs/datasearch-qa.md,
set F1 against bag F1, and the SQuAD v1.1-compatible mode on a hand-built test set.

Expected values are written as their derivations (a fraction, with the sets or bags in the comment).
"""
import pytest

from runscore.measures.qa import (characters, exact_match, make_normalizer, make_tokenizer, max_set_f1, mean,
                                  normalize_squad, normalize_strict, set_f1, squad11_evaluate, squad11_exact_match,
                                  squad11_f1, squad11_max_over_golds, squad11_normalize_answer, strip_digit_grouping,
                                  words)

# ------------------------------------------------------------------------------ normalisers ---

STRICT_CASES = [
    ("１２３", "123"),                       # full-width digits -> ASCII digits (NFKC)
    ("ＴＯＫＹＯ", "TOKYO"),                   # full-width letters -> ASCII, case kept
    ("１３，５１０，０００", "13,510,000"),      # full-width comma U+FF0C -> ','
    ("ﾄｳｷｮｳ", "トウキョウ"),                  # half-width katakana -> full-width katakana
    ("東京\u3000都", "東京 都"),               # ideographic space -> one ASCII space
    ("  Tokyo \t\n Metropolis  ", "Tokyo Metropolis"),   # strip + whitespace runs collapsed
    ("10㎏", "10kg"),                         # compatibility character unfolded
    ("東京、日本。", "東京、日本。"),             # Japanese punctuation is not touched
    ("", ""),                                 # empty stays empty
    ("   ", ""),                              # only spaces -> empty
]


@pytest.mark.parametrize("text, expected", STRICT_CASES)
def test_strict_normaliser(text, expected):
    assert normalize_strict(text) == expected


SQUAD_CASES = [
    ("The Cat!", "cat"),                      # lower, '!' removed, article removed
    ("an apple, a pear", "apple pear"),       # two articles and a comma
    ("theater", "theater"),                   # 'the' inside a word is not an article
    ("U.S.A.", "usa"),                        # ASCII punctuation deleted, not replaced by a space
    ("don't", "dont"),
    ("13,510,000", "13510000"),               # the comma is ASCII punctuation: SQuAD drops it
    ("東京、日本。", "東京、日本。"),             # non-ASCII punctuation kept (string.punctuation is ASCII)
    ("  the   ", ""),                         # only an article -> empty
    ("ＴＨＥ ＣＡＴ", "ｔｈｅ ｃａｔ"),             # full-width: lower-cased, but not an ASCII article
]


@pytest.mark.parametrize("text, expected", SQUAD_CASES)
def test_squad11_normaliser(text, expected):
    assert squad11_normalize_answer(text) == expected


def test_squad_normaliser_applies_nfkc_first():
    # NFKC turns 'ＴＨＥ ＣＡＴ' into 'THE CAT'; SQuAD's normaliser then lower-cases and drops the article.
    assert normalize_squad("ＴＨＥ ＣＡＴ") == "cat"
    assert normalize_squad("１３，５１０，０００") == "13510000"


DIGIT_CASES = [
    ("13,510,000", "13510000"),               # both commas have exactly three digits after them
    ("1,5", "1,5"),                           # decimal comma: one digit follows
    ("1,2345", "1,2345"),                     # four digits follow: not a thousands separator
    ("1,234,56", "1234,56"),                  # first comma groups 234; the second has only 56 after it
    ("a,123", "a,123"),                       # no digit before the comma
    ("12, 345", "12, 345"),                   # a space breaks the group
    ("", ""),
]


@pytest.mark.parametrize("text, expected", DIGIT_CASES)
def test_strip_digit_grouping(text, expected):
    assert strip_digit_grouping(text) == expected


def test_digit_grouping_option_off_and_on():
    assert make_normalizer("strict")("１３，５１０，０００") == "13,510,000"            # off (default)
    assert make_normalizer("strict", True)("１３，５１０，０００") == "13510000"        # on: after NFKC
    assert exact_match("13,510,000", ["13510000"], make_normalizer("strict")) == 0.0
    assert exact_match("13,510,000", ["13510000"], make_normalizer("strict", True)) == 1.0


# ------------------------------------------------------------------------------ tokenisers ---

def test_tokenisers():
    assert words("state of iowa") == ["state", "of", "iowa"]
    assert words("") == []
    assert characters("東京 都") == ["東", "京", "都"]        # the space is not a token
    # Spec 4.4: '13,510,000' at character level is the set {1, 3, ',', 5, 0}.
    assert set(characters("13,510,000")) == {"1", "3", ",", "5", "0"}


# ------------------------------------------------------------------------------ exact match ---

def test_exact_match_strict_versus_squad():
    strict, squad = make_normalizer("strict"), make_normalizer("squad")
    assert exact_match("１２３", ["123"], strict) == 1.0            # full-width = half-width under NFKC
    assert exact_match("tokyo", ["Tokyo"], strict) == 0.0           # strict keeps case
    assert exact_match("tokyo", ["Tokyo"], squad) == 1.0
    assert exact_match("The Cat.", ["cat"], squad) == 1.0
    assert exact_match("x", ["y", " x "], strict) == 1.0             # max over gold answers
    assert exact_match("", ["Iowa"], strict) == 0.0                  # an empty answer is a normal prediction
    assert exact_match("", ["the"], squad) == 1.0                    # ...that matches a gold normalising to ''


# ------------------------------------------------------------------------------ F1 over sets ---

english = make_tokenizer("E")
japanese = make_tokenizer("J")


def test_language_tokenizers():
    # English: squad-normalised words ('The' is an article, '.' ASCII punctuation)
    assert english("The Tokyo Metropolis.") == ["tokyo", "metropolis"]
    # Japanese: NFKC then characters, spaces dropped ('ＡＢ' -> 'AB', case kept)
    assert japanese("東京 ＡＢ") == ["東", "京", "A", "B"]
    assert make_tokenizer("J", "whitespace")("東京 ＡＢ") == ["東京", "AB"]
    assert make_tokenizer("E", digit_grouping=True)("13,510,000 people") == ["13510000", "people"]
    assert make_tokenizer("J", digit_grouping=True)("１３，５１０，０００人") == list("13510000人")
    with pytest.raises(ValueError):
        make_tokenizer("F")


def bag_f1(prediction, gold):
    return squad11_f1(prediction, gold)


def test_set_f1_repeated_words_collapse():
    # pred 'y y' vs gold 'y': X = {y}, Y = {y} -> P = R = 1 -> F1 = 1; bag: P = 1/2, R = 1 -> 2(1/2)(1)/(3/2)
    assert max_set_f1("y y", ["y"], english) == 1.0
    assert bag_f1("y y", "y") == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1), abs=1e-15)
    # pred 'x y y' vs gold 'y': X = {x, y} -> P = 1/2, R = 1 -> 2/3; bag: P = 1/3, R = 1 -> 1/2
    assert max_set_f1("x y y", ["y"], english) == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1), abs=1e-15)
    assert bag_f1("x y y", "y") == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1), abs=1e-15)
    # pred 'the cat' vs gold 'cat': the article is removed -> {cat} = {cat} -> 1
    assert max_set_f1("the cat", ["cat"], english) == 1.0


def test_set_f1_japanese_characters():
    # '東京' vs '東京都': X = {東, 京}, Y = {東, 京, 都}: P = 1, R = 2/3 -> 2(1)(2/3)/(5/3) = 4/5
    assert max_set_f1("東京", ["東京都"], japanese) == pytest.approx(2 * 1 * (2 / 3) / (1 + 2 / 3), abs=1e-15)
    # '13,510,000' vs '13510000': X = {1,3,',',5,0}, Y = {1,3,5,0}: P = 4/5, R = 1 -> 8/9
    assert max_set_f1("13,510,000", ["13510000"], japanese) == pytest.approx(2 * (4 / 5) / (4 / 5 + 1), abs=1e-15)
    # full-width prediction: NFKC first, so '２０１０年' = '2010年' -> 1
    assert max_set_f1("２０１０年", ["2010年"], japanese) == 1.0


def test_set_f1_empty_cases():
    assert set_f1(frozenset(), frozenset()) == 1.0                # both empty -> 1
    assert set_f1(frozenset(), frozenset({"a"})) == 0.0           # empty prediction -> 0
    assert set_f1(frozenset({"a"}), frozenset()) == 0.0           # empty gold -> 0
    assert set_f1(frozenset({"a"}), frozenset({"b"})) == 0.0      # nothing shared -> 0
    assert max_set_f1("", ["the"], english) == 1.0                # '' vs 'the' -> {} vs {} -> 1
    assert max_set_f1("   ", ["Iowa"], english) == 0.0
    assert set_f1(frozenset(), frozenset(), both_empty=0.0) == 0.0          # the SQuAD v1.1 convention
    assert max_set_f1("", ["the"], english, both_empty=0.0) == 0.0


def test_set_f1_max_over_golds():
    # vs 'mm per year': {millimeters, per, year} & {mm, per, year} = 2 -> P = R = 2/3 -> 2/3
    # vs 'millimeters per year': identical sets -> 1; the maximum counts
    assert max_set_f1("millimeters per year", ["mm per year", "millimeters per year"], english) == 1.0
    assert max_set_f1("millimeters per year", ["mm per year"], english) == pytest.approx(2 / 3, abs=1e-15)


def test_mean():
    assert mean([1.0, 0.0, 0.5]) == 0.5
    assert mean([]) == 0.0


# ------------------------------------------------------------------------------ SQuAD v1.1 mode ---

# A test set built to exercise what the spec says of the official evaluate-v1.1.py: multiple golds (max rule,
# separately for EM and F1), articles, ASCII-only punctuation, bag semantics, the both-empty quirk (F1 = 0 but
# EM = 1) and an unanswered question counted in the denominator.
SQUAD_GOLDS = {
    "q1": ["Denver Broncos", "The Denver Broncos"],
    "q2": ["Super Bowl L", "L"],
    "q3": ["an apple a day"],
    "q4": ["Santa Clara, California"],
    "q5": ["the"],
    "q6": ["2016"],
    "q7": ["東京"],
}
SQUAD_PREDICTIONS = {
    "q1": "the Denver Broncos!",   # -> 'denver broncos' = both golds: EM 1, F1 1
    "q2": "Super Bowl",            # vs 'super bowl l': common 2, P = 2/2, R = 2/3 -> F1 0.8; vs 'l': 0; EM 0
    "q3": "apple apple",           # gold -> 'apple day'; bags {apple:2} & {apple:1, day:1} = 1: P = 1/2, R = 1/2
    "q4": "Santa Clara",           # gold tokens santa clara california: P = 1, R = 2/3 -> 0.8; EM 0
    "q5": "",                      # '' == '' -> EM 1; no common token -> F1 0 (v1.1 quirk)
    "q7": "東京。",                 # '。' is not ASCII punctuation: EM 0, tokens differ -> F1 0
}                                  # q6 unanswered: EM 0, F1 0, still in the denominator
SQUAD_EXPECTED = {
    "q1": (1.0, 1.0),
    "q2": (0.0, 2 * 1 * (2 / 3) / (1 + 2 / 3)),
    "q3": (0.0, 2 * (1 / 2) * (1 / 2) / (1 / 2 + 1 / 2)),
    "q4": (0.0, 2 * 1 * (2 / 3) / (1 + 2 / 3)),
    "q5": (1.0, 0.0),
    "q7": (0.0, 0.0),
}


@pytest.mark.parametrize("qid", sorted(SQUAD_EXPECTED))
def test_squad11_per_question(qid):
    em, f1 = SQUAD_EXPECTED[qid]
    prediction, golds = SQUAD_PREDICTIONS[qid], SQUAD_GOLDS[qid]
    assert squad11_max_over_golds(squad11_exact_match, prediction, golds) == em
    assert squad11_max_over_golds(squad11_f1, prediction, golds) == pytest.approx(f1, abs=1e-15)


def test_squad11_evaluate_counts_unanswered_and_reports_x100():
    result = squad11_evaluate(SQUAD_GOLDS, SQUAD_PREDICTIONS)
    # EM: q1 and q5 match -> 2 of 7 questions; F1: 1 + 0.8 + 0.5 + 0.8 over 7 questions (q6 unanswered = 0)
    assert result["exact_match"] == pytest.approx(100 * 2 / 7, rel=1e-12)
    assert result["f1"] == pytest.approx(100 * (1 + 0.8 + 0.5 + 0.8) / 7, rel=1e-12)


def test_squad11_bag_versus_set_and_max_separately():
    # EM: 'L' matches the second gold exactly although it is far from the first.
    assert squad11_max_over_golds(squad11_exact_match, "L", ["Super Bowl L", "L"]) == 1.0
    # Gold 'x b' vs prediction 'b b': bag common 1 -> P = 1/2, R = 1/2 -> 1/2; sets {b} vs {x, b} -> P = 1,
    # R = 1/2 -> 2/3
    assert squad11_f1("b b", "x b") == pytest.approx(0.5, abs=1e-15)
    assert max_set_f1("b b", ["x b"], english) == pytest.approx(2 * 1 * (1 / 2) / (1 + 1 / 2), abs=1e-15)
    # 'a' is an article: gold 'a b' normalises to 'b', so 'b b' vs 'a b' is bag P = 1/2, R = 1 -> 2/3
    assert squad11_f1("b b", "a b") == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1), abs=1e-15)
