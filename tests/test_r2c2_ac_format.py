"""The R2C2 AC-run block parser: every rule of the seed as a bad file, every variant of the assessed runs
(spec shared/specs/r2c2.md section 8, "What real submitted runs look like") as a file that must be accepted.
The runs here are written by hand to imitate the variants; they are not copies of real runs."""
import pytest

from conftest import run_cli
from runscore.errors import Diagnostics
from runscore.tasks.r2c2.ac_format import parse_ac_run


def parse(tmp_path, text, name="TEAM-AC-1", **kwargs):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    diags = Diagnostics(name)
    run = parse_ac_run(str(path), name, diags, **kwargs)
    return run, diags


def errors(diags):
    return [str(d) for d in diags.sorted_items() if d.severity == "error"]


def warnings(diags):
    return [str(d) for d in diags.sorted_items() if d.severity == "warning"]


# --------------------------------------------------------------------------- accepted variants ---

def test_seed_example_three_digit_tags_answer_on_next_line(tmp_path):
    text = ("<D004>\nAnthony Mackie;90\n1;WASEDA-PO-1;1;I am a nugget\n2;WASEDA-PO-1;1;I am also a nugget\n"
            "3;WASEDA-PO-1;2;nugget nugget nugget\n4;THUIR-PG-1;1;Peking duck nugget\n5;THUIR-PG-1;3;yum yum yum\n"
            "</D004>\n")
    run, diags = parse(tmp_path, text)
    assert not diags.items
    block = run.blocks["0004"]
    assert (block.answer, block.confidence, block.answer_line) == ("Anthony Mackie", 90.0, 2)
    assert [(n.number, n.pr_run, n.rank, n.line) for n in block.nuggets] == [
        (1, "WASEDA-PO-1", 1, 3), (2, "WASEDA-PO-1", 1, 4), (3, "WASEDA-PO-1", 2, 5), (4, "THUIR-PG-1", 1, 6),
        (5, "THUIR-PG-1", 3, 7)]


def test_real_run_shape_four_digit_tags_answer_on_tag_line(tmp_path):
    text = "<D0001>Bor Gullet;100\n1;retrank-PG-1;3;Saw Gerrera used Bor Gullet.\n</D0001>\n<D0002>Yes;80\n</D0002>\n"
    run, diags = parse(tmp_path, text)
    assert not diags.items
    assert list(run.blocks) == ["0001", "0002"]
    assert run.blocks["0001"].answer == "Bor Gullet" and run.blocks["0001"].answer_line == 1
    assert run.blocks["0002"].nuggets == []                 # an answer without nugget lines


def test_answer_split_on_last_semicolon(tmp_path):
    text = ("<D0003>Avengers: Infinity War premiered April 27, 2018; 1917 premiered in December 2019, earlier.;80"
            "\n</D0003>\n")
    run, _ = parse(tmp_path, text)
    block = run.blocks["0003"]
    assert block.answer == ("Avengers: Infinity War premiered April 27, 2018; 1917 premiered in December 2019, "
                            "earlier.")
    assert block.confidence == 80.0


def test_empty_answer_refusal_and_number_answers(tmp_path):
    text = "<D0010>;5\n</D0010>\n<D0011>I don't know;5\n</D0011>\n<D0012>1977;60\n</D0012>\n"
    run, diags = parse(tmp_path, text)
    assert not diags.items
    assert [(b.answer, b.confidence) for b in run.blocks.values()] == [("", 5.0), ("I don't know", 5.0),
                                                                      ("1977", 60.0)]
    assert all(b.answered for b in run.blocks.values())


def test_nugget_split_on_first_three_semicolons_and_repeated_nugget_numbers(tmp_path):
    text = ("<D0004>Anthony Mackie;90\n1;hit-u-PO-4;2;He plays Sam Wilson; later Captain America.\n"
            "1;hit-u-PO-4;5;He plays Sam Wilson; later Captain America.\n2;BITEM-PG-2;1;Mackie; born 1978\n"
            "</D0004>\n")
    run, diags = parse(tmp_path, text)
    assert not diags.items
    nuggets = run.blocks["0004"].nuggets
    assert [n.number for n in nuggets] == [1, 1, 2]          # a repeated NuggetNum is not an error
    assert nuggets[0].text == "He plays Sam Wilson; later Captain America."
    assert nuggets[2].text == "Mackie; born 1978"


def test_display_name_with_spaces_and_txt_suffix_are_kept_as_written(tmp_path):
    text = ("<D0005>X;50\n1;Hitotsubashi University Keyaki Lab Team-PO-4;1;a\n2;retrank-PG-1.txt;2;b\n</D0005>\n")
    run, diags = parse(tmp_path, text)
    assert not diags.items
    assert [n.pr_run for n in run.blocks["0005"].nuggets] == ["Hitotsubashi University Keyaki Lab Team-PO-4",
                                                             "retrank-PG-1.txt"]


@pytest.mark.parametrize("text", ["<D0005></D0005>\n", "<D0005>\n</D0005>\n", "<D005>\n\n</D005>\n"])
def test_empty_element_is_an_absent_topic(tmp_path, text):
    run, diags = parse(tmp_path, text)
    assert not errors(diags)
    assert not run.blocks["0005"].answered


def test_non_ascii_everywhere(tmp_path):
    text = "<D0006>“Rogue One” — ローグ・ワン;70\n1;ORG-PO-3;1;Directed by Gareth Edwards – 2016\n</D0006>\n"
    run, diags = parse(tmp_path, text)
    assert not diags.items
    assert run.blocks["0006"].answer == "“Rogue One” — ローグ・ワン"


def test_closing_tag_after_content_on_one_line(tmp_path):
    run, diags = parse(tmp_path, "<D0007>Yoda;90</D0007>\n")
    assert not diags.items and run.blocks["0007"].answer == "Yoda"


def test_crlf_and_bom(tmp_path):
    run, diags = parse(tmp_path, b"\xef\xbb\xbf<D0001>A;10\r\n1;T-PO-1;1;n\r\n</D0001>\r\n")
    assert not diags.items and run.blocks["0001"].nuggets[0].text == "n"


def test_non_integer_confidence_is_a_warning_and_kept(tmp_path):
    run, diags = parse(tmp_path, "<D0001>A;87.5\n</D0001>\n<D0002>B;90\n</D0002>\n")
    assert not errors(diags)
    assert run.blocks["0001"].confidence == 87.5
    assert warnings(diags) == ["TEAM-AC-1:1: warning: Confidence is not an integer; scored as written / 100"]


def test_all_confidences_in_unit_interval_warn_about_the_scale(tmp_path):
    _, diags = parse(tmp_path, "<D0001>A;0.9\n</D0001>\n<D0002>B;1\n</D0002>\n")
    assert not errors(diags)
    assert any("every Confidence lies in [0, 1]" in w for w in warnings(diags))


def test_clamp_option(tmp_path):
    run, diags = parse(tmp_path, "<D0001>A;120\n</D0001>\n", confidence_rule="clamp")
    assert not errors(diags) and run.blocks["0001"].confidence == 100.0
    assert "clamped to 100" in warnings(diags)[0]


def test_blank_lines_are_warned_once(tmp_path):
    _, diags = parse(tmp_path, "<D0001>A;10\n\n</D0001>\n\n<D0002>B;20\n</D0002>\n")
    assert warnings(diags) == ["TEAM-AC-1:2: warning: blank line ignored (and 1 more lines like it)"]


# --------------------------------------------------------------------------- bad inputs ---

BAD = [
    # (file content, line, message)
    ("<D0001>A;10\n", 1, "block <D0001> is not closed (no </D0001> before the end of the file)"),
    ("<D0001>A;10\n<D0002>B;20\n</D0002>\n", 2,
     "block <D0002> opens inside block <D0001> of line 1 (blocks cannot be nested; is </D0001> missing?)"),
    ("hello\n<D0001>A;10\n</D0001>\n", 1, "text outside a <Dnnnn> ... </Dnnnn> block"),
    ("<D0001>A;10\n</D0001>\nstray\nmore stray\n", 3,
     "text outside a <Dnnnn> ... </Dnnnn> block (and 1 more lines after it)"),
    ("<D0001>A;10\n</D0001>\n<D0001>B;20\n</D0001>\n", 3, "duplicate block for question 0001 (first block at line 1)"),
    ("<D001>A;10\n</D001>\n<D0001>B;20\n</D0001>\n", 3, "duplicate block for question 0001 (first block at line 1)"),
    ("<D0001>A;101\n</D0001>\n", 1, "Confidence 101 of question 0001 is outside the [0-100] range"),
    ("<D0001>A;-1\n</D0001>\n", 1, "Confidence -1 of question 0001 is outside the [0-100] range"),
    ("<D0001>A;high\n</D0001>\n", 1, "Confidence 'high' of question 0001 is not an integer in the [0-100] range"),
    ("<D0001>A;\n</D0001>\n", 1, "Confidence '' of question 0001 is not an integer in the [0-100] range"),
    ("<D0001>Just an answer\n</D0001>\n", 1,
     "answer line has no ';': expected 'Answer;Confidence' for question 0001"),
    ("<D0001>\n1;TEAM-PO-1;1;a nugget first\n</D0001>\n", 2,
     "Confidence 'a nugget first' of question 0001 is not an integer in the [0-100] range (the answer line "
     "'Answer;Confidence' must come before the nugget lines)"),
    ("<D0001>A;10\n1;TEAM-PO-1;2\n</D0001>\n", 2, "nugget line of question 0001: expected 4 ';'-separated fields "
     "'NuggetNum;PRrunname;PassageRank;Nugget', found 3"),
    ("<D0001>A;10\nB;20\n</D0001>\n", 2, "nugget line of question 0001: expected 4 ';'-separated fields "
     "'NuggetNum;PRrunname;PassageRank;Nugget', found 2 (only one answer line per block)"),
    ("<D0001>A;10\nx;TEAM-PO-1;2;n\n</D0001>\n", 2, "nugget line of question 0001: NuggetNum: 'x' is not a "
     "non-negative integer (N on the line of the N-th nugget; may repeat when one nugget is cited from several "
     "passages)"),
    ("<D0001>A;10\n1;TEAM-PO-1;two;n\n</D0001>\n", 2, "nugget line of question 0001: PassageRank: 'two' is not an "
     "integer (the PassageRank of the cited passage in that PR run, 1-20)"),
    ("<D0001>A;10\n1; ;2;n\n</D0001>\n", 2, "nugget line of question 0001: PRrunname: '' is not a non-empty PR run "
     "name (e.g. WASEDA-PO-1; a .txt suffix is accepted)"),
    ("<D0001>A;10\n</D0002>\n", 2, "closing tag </D0002> does not match the open block <D0001> of line 1"),
    ("</D0001>\n", 1, "closing tag </D0001> without an open block"),
    ("<D00001>A;10\n</D00001>\n", 1, "block tag <D00001>: the question id must have 3 or 4 digits (e.g. <D0001>)"),
    ("<Q0001>A;10\n</Q0001>\n", 1, "malformed block tag '<Q0001>': a block opens with <D0001> (D and a 3- or 4-digit "
     "question id)"),
    ("<D0001>A;10\n</Q0001>\n", 2, "malformed block tag '</Q0001>': a block closes with </D0001>"),
    ("", 0, "the file holds no <Dnnnn> block"),
    (b"<D0001>caf\xe9;10\n</D0001>\n", 1, "file is not valid UTF-8 (byte 0xe9 at offset 10); save it as UTF-8"),
]


@pytest.mark.parametrize("text, line, message", BAD, ids=[m[:40] for _, _, m in BAD])
def test_bad_input_table(tmp_path, text, line, message):
    from runscore.errors import RunError

    try:
        _, diags = parse(tmp_path, text)
        found = errors(diags)
    except RunError as exc:               # unreadable file: raised, as every parser of the package does
        found = [str(exc)]
    where = "TEAM-AC-1:%d" % line if line else "TEAM-AC-1"
    assert "%s: error: %s" % (where, message) in found, found


@pytest.mark.parametrize("name, message", [
    ("TEAM-AC-5", "run name 'TEAM-AC-5': the RunNumber must be an integer in the [1-4] range"),
    ("TEAM-ac-1", "run name 'TEAM-ac-1': write AC in capitals (TEAM-AC-1)"),
    ("TEAM-PO-1", "run name 'TEAM-PO-1' is a PR run name; an AC run is named [TeamName]-AC-[RunNumber]"),
    ("myrun", "run name 'myrun' does not follow [TeamName]-AC-[RunNumber] (e.g. WASEDA-AC-3; RunNumber 1-4)"),
])
def test_bad_file_names(tmp_path, name, message):
    _, diags = parse(tmp_path, "<D0001>A;10\n</D0001>\n", name=name)
    assert errors(diags) == ["%s: error: %s" % (name, message)]


@pytest.mark.parametrize("name", ["TEAM-AC-1", "TEAM-AC-4.txt", "Hitotsubashi University Keyaki Lab Team-AC-2"])
def test_good_file_names(tmp_path, name):
    run, diags = parse(tmp_path, "<D0001>A;10\n</D0001>\n", name=name)
    assert not diags.items and run.name == name.replace(".txt", "")


def test_cli_validate_without_reference(tmp_path):
    good = tmp_path / "TEAM-AC-1"
    good.write_text("<D0001>A;10\n</D0001>\n", encoding="utf-8")
    bad = tmp_path / "TEAM-AC-2"
    bad.write_text("<D0001>A;10\n", encoding="utf-8")
    code, out, err = run_cli("validate", "--task", "r2c2-ac", good)
    assert code == 0 and "valid (0 error(s), 0 warning(s))" in out
    code, out, err = run_cli("validate", "--task", "r2c2-ac", bad)
    assert code == 1 and "%s:1: error: block <D0001> is not closed" % bad in err
    assert "Traceback" not in err


def test_space_after_the_tag_is_not_part_of_the_answer(tmp_path):
    run, diags = parse(tmp_path, "<D0001> Bor Gullet ;100\n</D0001>\n")
    assert not diags.items and run.blocks["0001"].answer == "Bor Gullet"


def test_empty_nugget_text_is_a_warning(tmp_path):
    run, diags = parse(tmp_path, "<D0001>A;10\n1;T-PO-1;1;\n</D0001>\n")
    assert warnings(diags) == ["TEAM-AC-1:2: warning: nugget 1 of question 0001 has an empty text"]
    assert len(run.blocks["0001"].nuggets) == 1          # still counted in the NugPrec denominator
