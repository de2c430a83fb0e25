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
from typing import Dict, List, Sequence

from . import __version__

MAX_ABS_SCORE = 1e10


def format_score(value: float) -> str:
    return "%.10f" % value


def check_scores(scores: Dict[str, float]) -> None:
    for key, value in scores.items():
        if not isinstance(value, float) or not math.isfinite(value) or abs(value) >= MAX_ABS_SCORE:
            raise ValueError("score %s = %r cannot be stored by the platform" % (key, value))


def atomic_write(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
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

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em;color:#1d2430;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:2px solid #e3e7ee}
h3{font-size:1em;margin:1em 0 .3em}.meta{color:#5b6575;font-size:.9em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.88em}
th,td{padding:.25em .7em;border-bottom:1px solid #e3e7ee;text-align:right}
th:first-child,td:first-child{text-align:left}thead th{background:#f3f5f9}
.best{background:#eef7ee}.warn{color:#8a5a00}.err{color:#a40000}
ul.diag{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em}
svg text{font-size:10px;fill:#5b6575}
"""


def _bar_chart(values: List[float], labels: List[str]) -> str:
    """Inline SVG bar chart of per-topic values in [0, 1] (values above 1 are clipped)."""
    if not values:
        return ""
    bar, gap, height = 12, 2, 120
    width = len(values) * (bar + gap) + 40
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d">' % (width, height + 20),
             '<line x1="30" y1="%d" x2="%d" y2="%d" stroke="#9aa3b2"/>' % (height, width, height),
             '<text x="0" y="10">1.0</text><text x="0" y="%d">0.0</text>' % height]
    for i, (value, label) in enumerate(zip(values, labels)):
        h = max(0.0, min(1.0, value)) * (height - 10)
        x = 32 + i * (bar + gap)
        parts.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#4a7bd0"><title>%s: %.4f</title></rect>'
                     % (x, height - h, bar, h, html.escape(label), value))
    parts.append("</svg>")
    return "".join(parts)


def detailed_html(title: str, sections: List[Dict], status: str = "") -> str:
    """A self-contained page (inline CSS and SVG, no scripts, no network) with every task and run."""
    out = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style>"
           "</head><body>" % (html.escape(title), CSS),
           "<h1>%s</h1><p class=\"meta\">runscore %s%s</p>" % (html.escape(title), __version__,
                                                               " &middot; " + html.escape(status) if status else "")]
    for section in sections:
        out.append("<h2>%s</h2>" % html.escape(section["title"]))
        if section.get("text"):
            out.append("<p>%s</p>" % html.escape(section["text"]))
        if section.get("diagnostics"):
            out.append("<ul class=\"diag\">")
            for line in section["diagnostics"]:
                cls = "err" if ": error:" in line else "warn"
                out.append("<li class=\"%s\">%s</li>" % (cls, html.escape(line)))
            out.append("</ul>")
        for table in section.get("tables", []):
            if table.get("caption"):
                out.append("<h3>%s</h3>" % html.escape(table["caption"]))
            out.append("<table><thead><tr>%s</tr></thead><tbody>"
                       % "".join("<th>%s</th>" % html.escape(str(h)) for h in table["header"]))
            for row in table["rows"]:
                out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(str(c)) for c in row))
            out.append("</tbody></table>")
        for chart in section.get("charts", []):
            out.append("<h3>%s</h3>" % html.escape(chart["caption"]))
            out.append(_bar_chart(chart["values"], chart["labels"]))
    out.append("</body></html>\n")
    return "".join(out)
