"""Reporting: scores.json and scores.txt exactly as the platforms read them, the text summary, the HTML page.

Why careful: Codabench parses scores.txt as YAML (`key:value` without a space or `1e-3` become strings, NaN
is not storable), v1 splits on ':' and calls float(). So values are finite fixed-point numbers, one
`key: value` per line, and both files are written atomically (a reader never sees half a file).
"""
import html
import json
import math
import os
import tempfile
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

from . import __version__
from .errors import findings_in

MAX_ABS_SCORE = 1e10


def format_score(value: float) -> str:
    return "%.10f" % value


def check_scores(scores: Dict[str, float]) -> None:
    for key, value in scores.items():
        if not isinstance(value, float) or not math.isfinite(value) or abs(value) >= MAX_ABS_SCORE:
            raise ValueError("score %s = %r cannot be stored by the platform" % (key, value))


def atomic_write(path: str, text: str) -> None:
    """Write to a temporary file beside `path`, then rename: a reader sees the old file or the whole new one.

    mkstemp makes the file readable by its owner only; the platform's uploader may run as another user, so the
    final file gets the usual permissions (0666 less the umask).
    """
    folder = os.path.dirname(os.path.abspath(path))
    handle, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def scores_txt(scores: Dict[str, float]) -> str:
    return "".join("%s: %s\n" % (key, format_score(value)) for key, value in scores.items())


def write_scores(output_dir: str, scores: Dict[str, float]) -> None:
    """scores.json (which Codabench prefers) and scores.txt (v1), with identical values."""
    check_scores(scores)
    atomic_write(os.path.join(output_dir, "scores.txt"), scores_txt(scores))
    rounded = {key: float(format_score(value)) for key, value in scores.items()}
    atomic_write(os.path.join(output_dir, "scores.json"),
                 json.dumps(rounded, indent=2, allow_nan=False) + "\n")


def summary_table(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned plain-text table."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


# ------------------------------------------------------------------------------------------ HTML ---
#
# The detailed results page: one self-contained file (inline CSS and SVG, no script, no font or image fetched)
# because CodaLab shows it in a sandboxed iframe and Codabench may run with the network off.
#
# A section is a dict: title, and optionally text, diagnostics (lines `FILE:LINE: severity: message`), tables
# ({caption, header, rows, highlight: [row indexes], collapsed: bool}), charts ({caption, labels, values,
# mean, svg: a ready-made figure}), leaderboard ({run, cells: [(title, key, value)]}) and subsections (sections
# drawn one level down). Unknown keys are ignored, so producers (codabench, compare) can grow independently.

CSS = """
:root{--ink:#1d2430;--muted:#5b6575;--line:#e3e7ee;--head:#f3f5f9;--accent:#2f5fb3;--bar:#4a7bd0;
--good:#1f7a3a;--goodbg:#eef7ee;--warn:#8a5a00;--warnbg:#fff7e6;--err:#a40000;--errbg:#fdecec}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;margin:0;
color:var(--ink);background:#fff;line-height:1.45;overflow-wrap:anywhere}
main{max-width:1100px;margin:0 auto;padding:1.2em 1.5em 3em}
header.page{border-bottom:3px solid var(--accent);margin-bottom:1em;padding-bottom:.6em}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.2em;margin:1.8em 0 .5em;padding-bottom:.2em;
border-bottom:2px solid var(--line)}h3{font-size:1.05em;margin:1.4em 0 .4em}h4{font-size:.95em;margin:1em 0 .3em;
color:var(--muted)}
.meta{color:var(--muted);font-size:.9em;margin:0}
.badge{display:inline-block;padding:.1em .6em;border-radius:1em;font-size:.8em;font-weight:600;
vertical-align:middle;margin-left:.5em;background:var(--head);color:var(--muted)}
.badge.scored{background:var(--goodbg);color:var(--good)}.badge.invalid{background:var(--errbg);color:var(--err)}
nav.toc{background:var(--head);border-radius:6px;padding:.5em 1em;font-size:.9em;margin:.8em 0;display:flex;
flex-wrap:wrap;gap:.2em 1.2em}
nav.toc a{color:var(--accent);text-decoration:none}
section.run{border-left:3px solid var(--line);padding-left:1em;margin:1.2em 0}
section.run.best{border-left-color:var(--good)}
.scroll{overflow-x:auto;max-width:100%}
td,th{overflow-wrap:normal}
table{border-collapse:collapse;margin:.3em 0 1em;font-size:.86em;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.2em 0;color:var(--muted)}
th,td{padding:.28em .6em;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
thead th{background:var(--head);position:sticky;top:0;white-space:normal;vertical-align:bottom}
.scroll td:first-child{position:sticky;left:0;background:#fff;z-index:1}.scroll tr.best td:first-child{background:var(--goodbg)}
.scroll th:first-child{left:0;z-index:2}
tr.best td{background:var(--goodbg);font-weight:600}
td.text,th.text{text-align:left;white-space:normal;max-width:40em;min-width:4em}
details{margin:.3em 0 1em}summary{cursor:pointer;color:var(--accent);font-size:.9em;margin-bottom:.3em}
ul.diag{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.82em;list-style:none;padding:0;margin:.4em 0 1em}
ul.diag li{padding:.25em .6em;margin:.15em 0;border-radius:4px;white-space:pre-wrap;word-break:break-word}
ul.diag li.err{background:var(--errbg);color:var(--err)}ul.diag li.warn{background:var(--warnbg);color:var(--warn)}
ul.diag li.note{background:var(--head);color:var(--muted)}
p.text{max-width:60em}
figure{margin:.4em 0 1.2em}figcaption{font-size:.9em;color:var(--muted);margin-bottom:.2em}
svg text{font-size:10px;fill:var(--muted);font-family:inherit}
svg{max-width:none}
@media (max-width:640px){main{padding:.8em .7em 2em}section.run{padding-left:.6em}td.text,th.text{min-width:6em}
h1{font-size:1.3em}}
@media print{nav.toc{display:none}details{display:block}}
"""


def _number(value, decimals: bool = False) -> str:
    """Table cell text of a value: text as it is; an int, or a whole float in a column of whole numbers, as an
    integer; any other number with 4 decimals (so a column never shows `1` beside `0.8000`)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return "" if value is None else str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if isinstance(value, int) or (number.is_integer() and not decimals):
        return "%d" % number
    return "%.4f" % number


def _decimal_columns(rows) -> set:
    """Indexes of the columns holding a non-integer number: all their numbers are shown with decimals."""
    out = set()
    for row in rows:
        for i, cell in enumerate(row):
            if isinstance(cell, float) and not cell.is_integer():
                out.add(i)
    return out


def _axis_limits(values: List[float]) -> Tuple[float, float]:
    """[low, high] of the value axis: [0, 1] for measures in that range, else widened to the data."""
    low = min(0.0, min(values))
    high = max(values)
    if high <= 1.0 and low >= 0.0:
        return 0.0, 1.0
    if high <= low:
        high = low + 1.0
    return low, high


def _bar_chart(values: List[float], labels: List[str], mean: Optional[float] = None, unit: str = "topic") -> str:
    """Inline SVG bar chart of per-topic values, with a value axis, grid lines, the mean, and a tooltip per bar.

    Why SVG and not an image: it stays sharp, is searchable text, and needs no plotting package. Bars get
    narrower as topics grow (down to 3 px); topic labels are drawn when there is room for them.
    """
    values = [float(v) for v in values]
    if not values:
        return ""
    finite = [v for v in values if math.isfinite(v)] or [0.0]
    low, high = _axis_limits(finite)
    count = len(values)
    slot = max(3.0, min(44.0, 760.0 / count))
    left, top, plot_h, right = 44, 10, 160, 84
    longest = max(len(str(l)) for l in labels) if labels else 0
    show_labels = slot >= 11 and longest <= 14
    label_h = 8 + 6 * longest if show_labels else 16
    plot_end = left + count * slot
    width = int(plot_end + right)
    height = int(top + plot_h + label_h)

    def y(value: float) -> float:
        return top + (high - max(low, min(high, value))) / (high - low) * plot_h

    parts = ['<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d">'
             % (width, height, width, height),
             '<title>%d values</title>' % count]
    for i in range(5):
        tick = low + (high - low) * i / 4.0
        parts.append('<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e7ee"/>' % (left, y(tick), plot_end,
                                                                                      y(tick)))
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 5, y(tick) + 3,
                                                                          _tick_text(tick)))
    zero = y(0.0)
    for i, (value, label) in enumerate(zip(values, labels)):
        x = left + i * slot + (1 if slot > 4 else 0)
        bar_w = max(1.5, slot - (4 if slot > 8 else 1))
        if not math.isfinite(value):
            continue
        y_top, y_bottom = sorted((y(value), zero))
        parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s</title></rect>'
                     % (x, y_top, bar_w, max(0.6, y_bottom - y_top), "#4a7bd0" if value >= 0 else "#d0664a",
                        html.escape(str(label)), _number(value, True)))
        if show_labels:
            cx = x + bar_w / 2.0
            parts.append('<text x="%.1f" y="%d" text-anchor="end" transform="rotate(-60 %.1f %d)">%s</text>'
                         % (cx + 3, top + plot_h + 10, cx + 3, top + plot_h + 10, html.escape(str(label))))
    parts.append('<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#9aa3b2"/>' % (left, zero, plot_end, zero))
    if mean is not None and math.isfinite(mean):
        parts.append('<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="5 3"/>'
                     % (left, y(mean), plot_end + 4, y(mean)))
        parts.append('<text x="%.1f" y="%.1f" style="fill:#c0392b">mean %s</text>'
                     % (plot_end + 6, y(mean) + 3, _number(mean, True)))
    if not show_labels:
        parts.append('<text x="%d" y="%d">%d %ss, in table order (hover a bar for its %s)</text>'
                     % (left, top + plot_h + 13, count, html.escape(unit), html.escape(unit)))
    parts.append("</svg>")
    return "".join(parts)


def _tick_text(value: float) -> str:
    return ("%.2f" % value).rstrip("0").rstrip(".") if value != 0 else "0"


def _table(table: Dict) -> str:
    header = table.get("header") or []
    rows = table.get("rows") or []
    highlight = set(table.get("highlight") or [])
    css = table.get("class")
    out = ['<div class="scroll"><table%s>' % (' class="%s"' % html.escape(css) if css else "")]
    if header:
        first = rows[0] if rows else []
        left = [i < len(first) and isinstance(first[i], str) and not _looks_numeric(first[i])
                for i in range(len(header))]
        out.append("<thead><tr>%s</tr></thead>" % "".join("<th%s>%s</th>" % (' class="text"' if left[i] else "",
                                                                             html.escape(str(h)))
                                                          for i, h in enumerate(header)))
    out.append("<tbody>")
    decimals = _decimal_columns(rows)
    for index, row in enumerate(rows):
        cells = [_text_cell(cell) if isinstance(cell, str) else
                 "<td>%s</td>" % html.escape(_number(cell, column in decimals)) for column, cell in enumerate(row)]
        out.append('<tr%s>%s</tr>' % (' class="best"' if index in highlight else "", "".join(cells)))
    out.append("</tbody></table></div>")
    body = "".join(out)
    caption = html.escape(str(table.get("caption", "")))
    if table.get("collapsed"):
        return "<details><summary>%s (%d rows)</summary>%s</details>" % (caption or "table", len(rows), body)
    return ("<h4>%s</h4>" % caption if caption else "") + body


def _text_cell(text: str) -> str:
    """The cell of a text value (right-aligned when it reads as a number). A short one is made once a process:
    a page of 1,000 runs has 250,000 cells, most of them among a few thousand formatted values."""
    if len(text) > SHORT_CELL:
        return _make_text_cell(text)
    return _short_text_cell(text)


SHORT_CELL = 64


def _make_text_cell(text: str) -> str:
    return "<td%s>%s</td>" % ("" if _looks_numeric(text) else ' class="text"', html.escape(str(text)))


_short_text_cell = lru_cache(maxsize=1 << 16)(_make_text_cell)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _diagnostics(lines: List[str]) -> str:
    if not lines:
        return ""
    out = ['<ul class="diag">']
    for line in lines:
        cls = "err" if ": error:" in line else "warn" if ": warning:" in line else "note"
        out.append('<li class="%s">%s</li>' % (cls, html.escape(line)))
    out.append("</ul>")
    return "".join(out)


def _section(section: Dict, level: int, anchor: str) -> str:
    tag = "h%d" % min(6, level)
    out = ['<%s id="%s">%s</%s>' % (tag, anchor, html.escape(section.get("title", "")), tag)]
    if section.get("text"):
        out.append('<p class="text">%s</p>' % html.escape(section["text"]))
    if section.get("rules"):                 # the scoring rules in force (Task.rules_sentence)
        out.append('<p class="meta rules">%s</p>' % html.escape(section["rules"]))
    if section.get("diagnostics"):
        counts = []
        for kind in ("error", "warning"):
            shown = [d for d in section["diagnostics"] if ": %s:" % kind in d]
            found = sum(findings_in(d) for d in shown)
            counts.append("%d %s%s%s" % (found, kind, "" if found == 1 else "s", " (%d different)" % len(shown)
                                           if found > len(shown) else ""))
        out.append("<p class=\"meta\">%s</p>" % ", ".join(counts))
        out.append(_diagnostics(section["diagnostics"]))
    for chart in section.get("charts", []):
        figure = chart.get("svg") or _bar_chart(chart.get("values", []), chart.get("labels", []), chart.get("mean"),
                                               chart.get("unit", "topic"))
        out.append("<figure><figcaption>%s</figcaption><div class=\"scroll\">%s</div></figure>"
                   % (html.escape(chart.get("caption", "")), figure))
    for table in section.get("tables", []):
        out.append(_table(table))
    for index, sub in enumerate(section.get("subsections", [])):
        css = "run best" if sub.get("best") else "run"
        out.append('<section class="%s">%s</section>' % (css, _section(sub, level + 1, "%s-%d" % (anchor, index))))
    return "".join(out)


def _summary(sections: List[Dict]) -> str:
    """One small table per task (its title said once, in the caption), the value beside the column's title, so a
    phone shows the scores without scrolling sideways; the score key, the longest cell, comes last."""
    tables = []
    for section in sections:
        board = section.get("leaderboard")
        if board:
            tables.append(_table({"caption": "%s: run %s" % (section.get("title", ""), board.get("run", "")),
                                  "header": ["column", "value", "score key"], "class": "entries",
                                  "rows": [[title, value, key] for title, key, value in board.get("cells", [])]}))
    if not tables:
        return ""
    return "<h2 id=\"leaderboard\">Leaderboard entries</h2>" + "".join(tables)


def detailed_html(title: str, sections: List[Dict], status: str = "", task_id: str = "") -> str:
    """A self-contained page (inline CSS and SVG, no scripts, no network) with every task and run; `task_id`, the
    competition's task, makes the rejection's advice a command a participant can paste in the starting kit."""
    out = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>%s</title>"
           "<style>%s</style></head><body><main>" % (html.escape(title), CSS),
           '<header class="page"><h1>%s%s</h1><p class="meta">runscore %s</p></header>'
           % (html.escape(title), '<span class="badge %s">%s</span>' % (html.escape(status), html.escape(status))
              if status else "", __version__)]
    if status == "started" and not sections:
        out.append('<p class="text">The submission is being checked and scored; this page is rewritten when '
                   'scoring ends.</p>')
    if status == "invalid":
        out.append('<p class="text">Nothing was scored: every run file of a submission must be valid. Fix the errors '
                   'below (each names the file and line) and submit again; in the starting kit, <code>python3 -m '
                   'runscore check --task %s submission.zip</code> runs the same checks on your computer (the kit\'s '
                   'README, section 6).</p>' % html.escape(task_id or "TASK"))
    if len(sections) > 1:
        out.append('<nav class="toc">%s</nav>' % "".join('<a href="#s%d">%s</a>' % (i, html.escape(s.get("title", "")))
                                                         for i, s in enumerate(sections)))
    out.append(_summary(sections))
    for index, section in enumerate(sections):
        out.append("<section>%s</section>" % _section(section, 2, "s%d" % index))
    out.append("</main></body></html>\n")
    return "".join(out)
