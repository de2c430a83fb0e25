"""The overview tables as LaTeX: the means table (booktabs, the best value of each column in bold, group letters
as superscripts) and the table of significantly different pairs.

Why a module of its own: organisers copied CSVs into LaTeX by hand, where numbers drift and letters get lost. These
tables are made from the same Overview as the CSV files and compile as they are, in a document that loads
booktabs and longtable (`\\usepackage{booktabs,longtable}`); every value is written in the task's one number
format (Task.format_value), so the table shows what the leaderboard shows.
"""
import unicodedata
from typing import List, Optional

from .overview import Overview

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            # printed as other glyphs by the default OT1 font encoding (`<` as ¡, `|` as an em dash)
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\texttt{\char34}"}
# Letters outside ASCII that LaTeX prints with commands of its own in every font encoding, and the accents it
# puts on a base letter (the combining marks of the letter's NFD form; the ogonek needs T1, so it is not here).
_LETTERS = {"ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}",
            "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}", "ȷ": r"\j{}", "¡": r"\textexclamdown{}",
            "¿": r"\textquestiondown{}"}
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
            "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0323": "d", "\u0327": "c"}
# A row starts after `\\` or a rule (`\midrule`), which look for an optional `[...]` (and `\\` for a `*`) first:
# a cell that starts with one of these gets an empty group in front, so it stays text.
_OPTIONAL_ARGUMENT_STARTS = ("[", "*")


def escape(text: str) -> str:
    """Text safe wherever a cell or a caption of these tables puts it: the ten special characters as commands, the
    characters the default font encoding prints as other glyphs (`<`, `>`, `|`, `"`) as their commands, `--` kept
    apart, a leading `[` or `*` behind an empty group, accented Latin letters as LaTeX accents, and any other
    character outside printable ASCII as its code point (`U+4E2D`), so the table compiles with pdflatex and the
    default fonts whatever a participant named a run (means.csv and report.html show names as they are)."""
    text = str(text)
    out = ["{}" if text.startswith(_OPTIONAL_ARGUMENT_STARTS) else ""]
    for at, ch in enumerate(text):
        if ch == "-" and text[at + 1:at + 2] == "-":
            out.append("-{}")            # `--` would print an en dash: a name is shown as it is written
        elif " " <= ch <= "~":
            out.append(_SPECIAL.get(ch, ch))
        elif ch in "\t\n\r":
            out.append(" ")
        else:
            out.append(_non_ascii(ch))
    return "".join(out)


def _non_ascii(ch: str) -> str:
    if ch in _LETTERS:
        return _LETTERS[ch]
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[:1], decomposed[1:]
    if marks and base.isascii() and base.isalpha() and all(m in _ACCENTS for m in marks):
        letter = {"i": r"\i", "j": r"\j"}.get(base, base)
        for mark in marks:
            letter = "\\%s{%s}" % (_ACCENTS[mark], letter)
        return letter
    return r"\texttt{U+%04X}" % ord(ch)


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
