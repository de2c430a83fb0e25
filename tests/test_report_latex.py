"""means.tex and significance.tex compile with pdflatex and fit the text of the ACM and LNCS templates, without
one overfull box, for the synthetic NTCIR-1 campaign (8 measures, two tested), a 30-run campaign (hundreds of
pairs: the pairs table breaks across columns and pages), the TIR sample (7 measures) and the NTCIR-1 campaign
again with long run and team names.

The templates' measures (the classes themselves are in Debian's texlive-publishers, which .ci/run installs):
ACM sigconf (acmart 2.x): \\textwidth 506.295 pt (7 in) in two columns 24 pt apart (\\columnwidth 241.15 pt),
9 pt type; LNCS (llncs 2.x): \\textwidth 347.12 pt (12.2 cm), 10 pt type. Each is a document of article at 10 pt
with that geometry (10 pt type is wider than sigconf's 9 pt, so a table that fits here fits there); where
acmart.cls or llncs.cls is installed the tables are also compiled in the real class. pdflatex runs with
-halt-on-error, no terminal input and a time limit: an error or a hang fails the test. It skips, saying why,
without pdflatex (Debian: texlive-latex-recommended and texlive-latex-extra, which .ci/run installs), and the
real-class test without its class.
"""
import os
import re
import shutil
import subprocess

import pytest

from campaign_sim import ntcir1_campaign
from conftest import ROOT
from runscore import api
from runscore.campaign import latex

PACKAGES = "\\usepackage{booktabs,array,graphicx,xtab}"
TEMPLATES = {
    "acm-sigconf": "\\documentclass[twocolumn]{article}\\usepackage[textwidth=506.295pt,columnsep=24pt,"
                   "textheight=9.25in]{geometry}",
    "lncs": "\\documentclass{article}\\usepackage[textwidth=347.12354pt,textheight=19.3cm]{geometry}",
}
# acmart's running heads print the short title, which \title sets: a paper always has one.
REAL_CLASSES = {"acm-sigconf-acmart": ("acmart.cls", "\\documentclass[sigconf]{acmart}\n\\title{Overview}"),
                "lncs-llncs": ("llncs.cls", "\\documentclass{llncs}")}
LONG_NAMES = ["team_with_a_rather_long_name-run-%04d_bm25+rm3", "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ%d",
              "x%d"]


def rename(overview, names):
    """The same overview with other run labels and teams (the table layout is what is tested)."""
    mapping = {run.label: names[k % len(names)] % k if "%" in names[k % len(names)] else names[k % len(names)]
               for k, run in enumerate(overview.runs)}
    overview.groups = {mapping[label]: letters for label, letters in overview.groups.items()}
    for run in overview.runs:
        run.label = mapping[run.label]
        run.team = run.label[:-1] + "_team"
    for test in overview.significance:
        test.matrix.runs = [mapping[label] for label in test.matrix.runs]
    return overview


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """(name, means.tex, significance.tex) of each campaign."""
    folder = tmp_path_factory.mktemp("latex")
    out = []
    runs, ref, _ = ntcir1_campaign(str(folder / "ntcir1"), teams=4, runs_per_team=2, topics=8, seed=7)
    ntcir1 = api.report("ntcir1-adhoc", ref, [runs], folder / "r1", trials=300, seed=3, measures=["P_10_rel2"],
                        tau_bootstrap=20).overview
    out.append(("ntcir1", latex.means_table(ntcir1), latex.significance_table(ntcir1)))
    long_names = rename(ntcir1, LONG_NAMES)
    out.append(("ntcir1, long names", latex.means_table(long_names), latex.significance_table(long_names)))
    runs, ref, _ = ntcir1_campaign(str(folder / "big"), teams=15, runs_per_team=2, topics=20, seed=11)
    big = api.report("ntcir1-adhoc", ref, [runs], folder / "r2", trials=200, tau_bootstrap=0).overview
    out.append(("30 runs", latex.means_table(big), latex.significance_table(big)))
    tir = api.report("temporalia-tir", os.path.join(ROOT, "reference_data", "temporalia-tir"),
                     [os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tir", "tir_sample")],
                     folder / "r3", trials=50, tau_bootstrap=0).overview
    out.append(("tir", latex.means_table(tir), latex.significance_table(tir)))
    assert any(len(re.findall(r"\\\\\n", pairs)) > 150 for _, _, pairs in out)      # enough pairs to break
    assert "\\allowbreak" in out[1][1] and "\\allowbreak" in out[1][2]
    return out


def pdflatex():
    found = shutil.which("pdflatex")
    if found is None:
        pytest.skip("no pdflatex on this machine (Debian: texlive-latex-recommended and texlive-latex-extra)")
    return found


def compile_document(preamble, tables, folder):
    """pdflatex's log of a document holding every table; fails on an error or after 120 s."""
    body = "\n\\clearpage\n".join("%% %s\n%s\n%s" % (name, means, pairs) for name, means, pairs in tables)
    (folder / "doc.tex").write_text("%s\n%s\n\\begin{document}\n%s\n\\end{document}\n" % (preamble, PACKAGES, body),
                                    encoding="utf-8")
    try:
        proc = subprocess.run([pdflatex(), "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=str(folder),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("pdflatex did not finish within 120 s")
    log = (folder / "doc.log").read_text(encoding="latin-1")
    assert proc.returncode == 0, log[-3000:]
    return log


def overfull(log):
    """Boxes wider or taller than their room, and floats taller than the page."""
    return re.findall(r"Overfull \\[hv]box \([^)]*\)[^\n]*|Float too large for page[^\n]*", log)


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_tables_compile_and_fit(tables, template, tmp_path):
    log = compile_document(TEMPLATES[template], tables, tmp_path)
    assert overfull(log) == []
    assert "Output written on doc.pdf" in log


@pytest.mark.parametrize("template", sorted(REAL_CLASSES))
def test_tables_fit_the_real_classes_where_installed(tables, template, tmp_path):
    cls, preamble = REAL_CLASSES[template]
    pdflatex()
    if subprocess.run(["kpsewhich", cls], capture_output=True, text=True).stdout.strip() == "":
        pytest.skip("%s is not installed (Debian: texlive-publishers)" % cls)
    assert overfull(compile_document(preamble, tables, tmp_path)) == []


def test_the_check_sees_an_overfull_table(tmp_path):
    """The same compilation catches a table wider than the line: the old means table of the NTCIR-1 campaign."""
    wide = ("\\begin{table}\\begin{tabular}{llrrrrrrrr}\\toprule Run & Team & MAP (rigid) & MAP (relaxed) & "
            "R-prec (rigid) & R-prec (relaxed) & P@10 (rigid) & P@10 (relaxed) & 11-pt average (rigid) & 11-pt "
            "average (relaxed) \\\\ \\bottomrule\\end{tabular}\\end{table}")
    assert overfull(compile_document(TEMPLATES["lncs"], [("old", wide, "")], tmp_path))
