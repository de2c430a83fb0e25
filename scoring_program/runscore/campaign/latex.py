"""The overview tables as LaTeX: the means table (booktabs, the best value of each column in bold, group letters
as superscripts) and the table of significantly different pairs.

Why a module of its own: organisers copied CSVs into LaTeX by hand, where numbers drift and letters get lost. These
tables are made from the same Overview as the CSV files and compile as they are, in a document that loads
`\\usepackage{booktabs,array,graphicx,xtab}`; every value is written in the task's one number format
(Task.format_value), so the table shows what the leaderboard shows. They fit the text of the ACM (acmart sigconf)
and LNCS templates without an overfull box (docs/report.md, "means.tex and significance.tex"): the means table is a
table* whose measures are split into panels that fit LNCS's 347 pt (the narrowest full width), each panel shrunk
to the line width if it still overruns it; long run and team names wrap in columns of their own width; the pairs
are an xtabular (it breaks across pages in one column and in two, where longtable stops) at the line width.
"""
import math
import unicodedata
from typing import List, Optional, Sequence

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


# ------------------------------------------------------------------------------------------ layout ---

PANEL_WIDTH_PT = 330.0        # LNCS's text width is 12.2 cm = 347 pt: the panels of the means table fit it
NAME_WIDTH_PT = 80.0          # a longer run or team name wraps in a column this wide
TABCOLSEP_PT = 4.0
SHORT_NAME_PT = 40.0          # narrower than the name columns of the pairs table in one ACM sigconf column (241 pt)
FLOAT_HEIGHT_PT = 460.0       # LNCS's text is 19.3 cm = 549 pt high: a part of the means table fits a page
LINE_PT, PANEL_PT, CAPTION_PT = 11.0, 40.0, 60.0    # a row line at \small, a panel's header and rules, the caption
# Widths in pt of Computer Modern Roman at 9 pt (\small of a 10 pt document), for choosing panels and column
# widths only: LaTeX's own guard (\resizebox to the line width) catches what this estimate misses.
_NARROW, _WIDE = set("fijlrt.,:;!'()[]|"), set("mwMW@%&")


def text_width(text: str, bold: bool = False) -> float:
    width = sum(2.6 if ch in _NARROW else 7.8 if ch in _WIDE else 6.8 if ch.isupper() else 4.7 for ch in text)
    return width * (1.12 if bold else 1.0)


def breakable(name: str, chunk: int = 4) -> str:
    """escape(name) with a break point after each of _ - . / @ : and every `chunk` characters, so that a long run
    name wraps inside its column instead of running past it (a name narrower than SHORT_NAME_PT as it is)."""
    if text_width(str(name)) <= SHORT_NAME_PT:
        return escape(name)
    parts, current = [], ""
    for ch in str(name):
        current += ch
        if ch in "_-./@:" or len(current) >= chunk:
            parts.append(current)
            current = ""
    if current:
        parts.append(current)
    return r"\allowbreak{}".join(escape(part) for part in parts)


def _name_column(names: Sequence[str]) -> str:
    """l for short names; a ragged-right column of NAME_WIDTH_PT where the longest would be wider."""
    if max((text_width(n) for n in names), default=0.0) <= NAME_WIDTH_PT:
        return "l"
    return r">{\raggedright\arraybackslash}p{%gpt}" % NAME_WIDTH_PT


def _name_cell(name: str, column: str) -> str:
    return escape(name) if column == "l" else breakable(name)


def _column_width(texts: Sequence[str]) -> float:
    return max((text_width(t) for t in texts), default=0.0) + 2 * TABCOLSEP_PT


def _panels(fixed: float, widths: Sequence[float]) -> List[List[int]]:
    """Consecutive groups of measure columns whose width with the name columns fits PANEL_WIDTH_PT (one column
    at least in each)."""
    panels: List[List[int]] = [[]]
    used = fixed
    for k, width in enumerate(widths):
        if panels[-1] and used + width > PANEL_WIDTH_PT:
            panels.append([])
            used = fixed
        panels[-1].append(k)
        used += width
    return panels


def _title_lines(title: str):
    """A column title on two header lines, split before its parenthesis ("MAP (rigid)" -> "MAP", "(rigid)")."""
    head, sep, tail = title.partition(" (")
    return (head, "(" + tail) if sep else (title, "")


def _fit_to_line(tabular: str) -> str:
    """The tabular at its own width, or shrunk to the line width when wider (never enlarged)."""
    return "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%%\n%s}" % tabular


def _parts(heights: Sequence[float], panels: int) -> List[List[int]]:
    """Consecutive groups of rows, each a float whose panels of those rows fit FLOAT_HEIGHT_PT (a float cannot
    break across pages; one row at least in each)."""
    parts: List[List[int]] = [[]]
    used = CAPTION_PT + panels * PANEL_PT
    for k, height in enumerate(heights):
        if parts[-1] and used + panels * height > FLOAT_HEIGHT_PT:
            parts.append([])
            used = CAPTION_PT + panels * PANEL_PT
        parts[-1].append(k)
        used += panels * height
    return parts


def means_table(ov: Overview) -> str:
    """The means table: a table* of panels (measure columns that fit PANEL_WIDTH_PT beside the run and team
    columns), in as many floats as a page holds the runs of (parts after the first say "continued")."""
    task = ov.task
    primary = task.primary.measure
    best = {m: _best(ov, m) for m in ov.measures}
    cells = {}                                       # (run label, measure) -> LaTeX cell, and its plain width
    for run in ov.runs:
        for m in ov.measures:
            value = ov.value(run, m)
            text = "--" if value is None else task.format_value(m, value)
            bold = value is not None and text == best[m]
            width = text_width(text, bold)
            latex = r"\textbf{%s}" % text if bold else text
            if m == primary and ov.groups.get(run.label):
                latex += r"\textsuperscript{%s}" % escape(ov.groups[run.label])
                width += 0.7 * text_width(ov.groups[run.label])
            cells[(run.label, m)] = (latex, width)
    titles = {m: _title_lines(ov.titles.get(m, m)) for m in ov.measures}
    two_lines = any(t[1] for t in titles.values())
    run_column = _name_column([r.label for r in ov.runs] + ["Run"])
    team_column = _name_column([r.team for r in ov.runs] + ["Team"])
    fixed = sum(min(_column_width(names), NAME_WIDTH_PT + 2 * TABCOLSEP_PT)
                for names in ([r.label for r in ov.runs] + ["Run"], [r.team for r in ov.runs] + ["Team"]))
    widths = [max(max(cells[(r.label, m)][1] for r in ov.runs) if ov.runs else 0.0,
                  text_width(titles[m][0]), text_width(titles[m][1])) + 2 * TABCOLSEP_PT for m in ov.measures]
    panels = _panels(fixed, widths)
    heights = [LINE_PT * max([1] + [math.ceil(text_width(name) / NAME_WIDTH_PT) for name, column in
                                    ((r.label, run_column), (r.team, team_column)) if column != "l"])
               for r in ov.runs]
    parts = _parts(heights, len(panels))
    test = ov.significance[0] if ov.significance and ov.significance[0].measure == primary else None
    letters = (" Runs that share a superscript letter do not differ significantly (randomised Tukey HSD on %s, "
               "%d topics, B = %d, seed %d, alpha = %s)." % (escape(ov.titles.get(primary, primary)),
                                                          len(test.matrix.topics),
                                                          ov.settings["trials"], ov.settings["seed"],
                                                          ov.settings["alpha"]) if test else "")
    split = (" The measures are in %d panels." % len(panels)) if len(panels) > 1 else ""
    out = ["% runscore report: needs \\usepackage{booktabs,array,graphicx}. A table* (the full text width in a "
           "two-column class such as", "% ACM sigconf; an ordinary table in one column such as LNCS); each panel "
           "shrinks to the line width if wider."]
    for number, part in enumerate(parts, 1):
        runs = [ov.runs[k] for k in part]
        if number == 1:
            caption = "Mean scores of the %s runs, best first by %s; the best value of each column in bold.%s%s" % (
                escape(task.title or task.id), escape(ov.titles.get(primary, primary)), letters, split)
            if len(parts) > 1:
                caption += " Part 1 of %d." % len(parts)
            label = "\\label{tab:%s-means}" % task.id
        else:
            caption = "Mean scores of the %s runs (continued), part %d of %d." % (escape(task.title or task.id), number,
                                                                               len(parts))
            label = "\\label{tab:%s-means-%d}" % (task.id, number)
        blocks = []
        for panel in panels:
            measures = [ov.measures[k] for k in panel]
            lines = ["\\begin{tabular}{@{}%s%sr%s@{}}" % (run_column, team_column, "r" * (len(measures) - 1)),
                     "\\toprule", " & ".join(["Run", "Team"] + [escape(titles[m][0]) for m in measures]) + " \\\\"]
            if two_lines:
                lines.append(" & ".join(["", ""] + [escape(titles[m][1]) for m in measures]) + " \\\\")
            lines.append("\\midrule")
            for run in runs:
                lines.append(" & ".join([_name_cell(run.label, run_column), _name_cell(run.team, team_column)] +
                                        [cells[(run.label, m)][0] for m in measures]) + " \\\\")
            lines += ["\\bottomrule", "\\end{tabular}"]
            blocks.append(_fit_to_line("\n".join(lines)))
        out += ["\\begin{table*}[tbp]", "\\centering", "\\caption{%s}" % caption, label, "\\small",
                "\\setlength{\\tabcolsep}{%gpt}" % TABCOLSEP_PT, "\n\\par\\medskip\n".join(blocks), "\\end{table*}"]
    return "\n".join(out) + "\n"


def p_text(p: float) -> str:
    return "$<$0.0001" if p < 0.0001 else "%.4f" % p


def significance_table(ov: Overview) -> str:
    """Every pair with p < alpha, per tested measure: an xtabular at the line width (it breaks across columns and
    pages in one- and two-column classes), run names wrapping in the two columns the numbers leave."""
    alpha = ov.settings["alpha"]
    rows: List[List[str]] = []
    numbers: List[List[str]] = [["Diff."], ["p"], ["ESE"]]
    several = len(ov.significance) > 1
    for test in ov.significance:
        pairs = [pair for pair in test.pairs() if pair[3] < alpha]
        if several:
            rows.append([r"\multicolumn{5}{@{}l}{\emph{%s}}" % escape(ov.titles.get(test.measure, test.measure))])
        for a, b, diff, p, es in pairs:
            cells = ["%.4f" % diff, p_text(p), "%.3f" % es if es == es and abs(es) != float("inf") else "--"]
            for column, text in zip(numbers, cells):
                column.append(text.replace("$<$", "<"))
            rows.append([breakable(a), breakable(b)] + cells)
    if not any(len(r) == 5 for r in rows):
        rows = [[r"\multicolumn{5}{@{}l}{No pair differs significantly.}"]]
    # The name columns share what the three number columns (and the eight column gaps) leave of the line.
    taken = sum(math.ceil(_column_width(column) + 2) for column in numbers)
    header = "Run A & Run B & Diff. & $p$ & ES$_E$ \\\\"
    name = r">{\raggedright\arraybackslash}p{\dimexpr(\linewidth-%dpt)/2\relax}" % (taken + 4 * TABCOLSEP_PT)
    lines = ["% runscore report: needs \\usepackage{booktabs,array,xtab}. An xtabular at the line width: it breaks "
             "across columns", "% and pages in one- and two-column classes (longtable stops in two columns).",
             "\\begin{center}", "\\small", "\\setlength{\\tabcolsep}{%gpt}" % TABCOLSEP_PT,
             "\\topcaption{Pairs of %s runs whose difference is significant at alpha = %s (randomised Tukey HSD, "
             "B = %d, seed %d; Run A has the higher mean; ES$_E$ = difference / $\\sqrt{V_E}$).}\\label{tab:%s-pairs}"
             % (escape(ov.task.title or ov.task.id), alpha, ov.settings["trials"], ov.settings["seed"], ov.task.id),
             "\\tablefirsthead{\\toprule %s \\midrule}" % header,
             "\\tablehead{\\multicolumn{5}{@{}l}{\\emph{(continued)}} \\\\ \\toprule %s \\midrule}" % header,
             "\\tabletail{\\bottomrule}", "\\tablelasttail{\\bottomrule}",
             "\\begin{xtabular}{@{}%s%srrr@{}}" % (name, name)]
    lines += [" & ".join(cells) + " \\\\" for cells in rows]
    lines += ["\\end{xtabular}", "\\end{center}"]
    return "\n".join(lines) + "\n"
