"""The overview tables as LaTeX: the means table (booktabs, the best value of each column in bold, group letters
as superscripts) and the table of significantly different pairs.

Why a module of its own: organisers copied CSVs into LaTeX by hand, where numbers drift and letters get lost. These
tables are made from the same Overview as the CSV files and compile as they are, in a document that loads
booktabs and longtable (`\\usepackage{booktabs,longtable}`); every value is written in the task's one number
format (Task.format_value), so the table shows what the leaderboard shows.
"""
from typing import List, Optional

from .overview import Overview

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def escape(text: str) -> str:
    """Text safe in a LaTeX cell: the ten special characters written as commands."""
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


def _best(ov: Overview, measure: str) -> Optional[str]:
    """The best value of a column as printed (ties in print are all bold)."""
    values = [ov.value(r, measure) for r in ov.runs]
    values = [v for v in values if v is not None]
    if not values:
        return None
    best = max(values) if ov.sorting.get(measure, "desc") == "desc" else min(values)
    return ov.task.format_value(measure, best)


def means_table(ov: Overview) -> str:
    task = ov.task
    primary = task.primary.measure
    best = {m: _best(ov, m) for m in ov.measures}
    header = ["Run", "Team"] + [escape(ov.titles.get(m, m)) for m in ov.measures]
    rows: List[List[str]] = []
    for run in ov.runs:
        cells = [escape(run.label), escape(run.team)]
        for m in ov.measures:
            value = ov.value(run, m)
            text = "--" if value is None else task.format_value(m, value)
            if value is not None and text == best[m]:
                text = r"\textbf{%s}" % text
            if m == primary and ov.groups.get(run.label):
                text += r"\textsuperscript{%s}" % escape(ov.groups[run.label])
            cells.append(text)
        rows.append(cells)
    test = ov.significance[0] if ov.significance and ov.significance[0].measure == primary else None
    letters = (" Runs that share a superscript letter do not differ significantly (randomised Tukey HSD on %s, "
               "%d topics, B = %d, seed %d, alpha = %s)." % (escape(primary), len(test.matrix.topics),
                                                          ov.settings["trials"], ov.settings["seed"],
                                                          ov.settings["alpha"]) if test else "")
    caption = "Mean scores of the %s runs, best first by %s; the best value of each column in bold.%s" % (
        escape(task.id), escape(ov.titles.get(primary, primary)), letters)
    return _table("ll" + "r" * len(ov.measures), header, rows, caption, "tab:%s-means" % task.id)


def _table(columns: str, header: List[str], rows: List[List[str]], caption: str, label: str) -> str:
    lines = ["% runscore report; needs \\usepackage{booktabs}",
             "\\begin{table}[tbp]", "\\centering", "\\caption{%s}" % caption, "\\label{%s}" % label,
             "\\begin{tabular}{%s}" % columns, "\\toprule", " & ".join(header) + " \\\\", "\\midrule"]
    lines += [" & ".join(cells) + " \\\\" for cells in rows]
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def p_text(p: float) -> str:
    return "$<$ 0.0001" if p < 0.0001 else "%.4f" % p


def significance_table(ov: Overview) -> str:
    """Every pair with p < alpha, per tested measure (a longtable: a campaign has many pairs)."""
    alpha = ov.settings["alpha"]
    header = ["Measure", "Run A", "Run B", "Diff.", "$p$", "ES$_E$"]
    lines = ["% runscore report; needs \\usepackage{booktabs,longtable}", "\\begin{longtable}{lllrrr}",
             "\\caption{Pairs of %s runs whose difference is significant at alpha = %s (randomised Tukey HSD, "
             "B = %d, seed %d; Run A has the higher mean; ES$_E$ = difference / $\\sqrt{V_E}$).}\\label{tab:%s-pairs}"
             "\\\\" % (escape(ov.task.id), alpha, ov.settings["trials"], ov.settings["seed"], ov.task.id),
             "\\toprule", " & ".join(header) + " \\\\", "\\midrule", "\\endfirsthead",
             "\\toprule", " & ".join(header) + " \\\\", "\\midrule", "\\endhead", "\\bottomrule", "\\endfoot"]
    count = 0
    for test in ov.significance:
        for a, b, diff, p, es in test.pairs():
            if p < alpha:
                count += 1
                lines.append(" & ".join([escape(test.measure), escape(a), escape(b), "%.4f" % diff, p_text(p),
                                         "%.3f" % es if es == es and abs(es) != float("inf") else "--"]) + " \\\\")
    if not count:
        lines.append("\\multicolumn{6}{l}{No pair differs significantly.} \\\\")
    lines.append("\\end{longtable}")
    return "\n".join(lines) + "\n"
