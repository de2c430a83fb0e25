"""report.html: the overview on one self-contained page (no script, no network; figures as inline SVG).

Why a module of its own: organisers and participants read the results section on screen before it becomes a
paper. The page shows the means table with group letters, each run's per-topic scores against the topic median
and best (the classic TREC overview figure), a box plot per run, the tau matrix as a heat map, and the pool and
reusability tables; it reads at 1280 px and on a 390 px phone (wide tables scroll inside their box, figures
scale to the width).
"""
import html
import math
from typing import List, Optional, Sequence

import numpy as np

from .. import __version__
from . import agreement_tau
from .overview import Overview, rules_line

MAX_PAIRS_SHOWN = 200
OPEN_PER_TOPIC = 3            # per-topic figures shown unfolded (the rest one click away)

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2430;background:#fff;line-height:1.45}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:.2rem 0 .6rem}
h2{font-size:1.2rem;margin:1.8rem 0 .5rem;border-bottom:1px solid #d6dbe3;padding-bottom:.2rem}
p,li{max-width:75ch;overflow-wrap:anywhere}
.scroll{overflow-x:auto;width:fit-content;max-width:100%;border:1px solid #e3e7ee;border-radius:4px}
.fig{overflow-x:auto;max-width:100%}
.fig svg{min-width:560px}
table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}
th,td{padding:4px 8px;border-bottom:1px solid #eceff4;text-align:right;white-space:nowrap}
th{background:#f4f6f9;position:sticky;top:0}
td.name,th.name{text-align:left}
td.best{font-weight:700}
sup{color:#8a5a00;font-weight:600;margin-left:1px}
figure{margin:0 0 1rem}
figcaption{font-size:.85rem;color:#4b5565;max-width:75ch}
svg{max-width:100%;height:auto;display:block}
details{margin:.3rem 0;border:1px solid #e3e7ee;border-radius:4px;padding:.3rem .6rem}
summary{cursor:pointer;font-weight:600;overflow-wrap:anywhere}
.notes li{font-size:.85rem;color:#4b5565}
.meta{font-size:.85rem;color:#4b5565}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], name_columns: int = 1, raw: bool = False) -> str:
    """A table in a scroll box; cells are escaped unless raw (then the caller escaped them)."""
    head = "".join('<th class="name">%s</th>' % _e(h) if k < name_columns else "<th>%s</th>" % _e(h)
                   for k, h in enumerate(header))
    body = []
    for row in rows:
        cells = []
        for k, cell in enumerate(row):
            css = ' class="name"' if k < name_columns else ""
            if raw and isinstance(cell, tuple):          # (html, css class)
                cells.append('<td class="%s">%s</td>' % (cell[1], cell[0]))
            else:
                cells.append("<td%s>%s</td>" % (css, cell if raw else _e(cell)))
        body.append("<tr>%s</tr>" % "".join(cells))
    return '<div class="scroll"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (
        head, "".join(body))


def _fmt(ov: Overview, measure: str, value: Optional[float]) -> str:
    return "" if value is None else ov.task.format_value(measure, value)


def means_section(ov: Overview) -> str:
    primary = ov.task.primary.measure
    best = {}
    for m in ov.measures:
        values = [v for v in (ov.value(r, m) for r in ov.runs) if v is not None]
        if values:
            best[m] = _fmt(ov, m, max(values) if ov.sorting.get(m, "desc") == "desc" else min(values))
    rows = []
    for rank, run in enumerate(ov.runs, 1):
        cells = [str(rank), _e(run.label), _e(run.team)]
        for m in ov.measures:
            text = _fmt(ov, m, ov.value(run, m))
            content = _e(text) if text else "&ndash;"
            if m == primary and ov.groups.get(run.label):
                content += "<sup>%s</sup>" % _e(ov.groups[run.label])
            cells.append((content, "best" if text and text == best.get(m) else ""))
        rows.append(cells)
    header = ["#", "run", "team"] + [ov.titles.get(m, m) for m in ov.measures]
    test = ov.significance[0] if ov.significance and ov.significance[0].measure == primary else None
    if test:
        significant = sum(1 for pair in test.pairs() if pair[3] < ov.settings["alpha"])
        text = ("Best first by %s; the best value of each column in bold. Runs that share a letter do not differ "
                "significantly: randomised Tukey HSD on %s over %d topics, B = %d trials, seed %d, alpha = %s "
                "(significant: %d of %s)." % (_name(ov, primary), _name(ov, primary),
                                             len(test.matrix.topics), ov.settings["trials"], ov.settings["seed"],
                                             ov.settings["alpha"], significant, _count(len(test.pairs()), "pair")))
    else:
        text = "Best first by %s; the best value of each column in bold. No significance test: %s is not a mean of " \
               "per-topic values." % (_name(ov, primary), _name(ov, primary))
    return "<h2 id=\"means\">Mean scores</h2><p>%s</p>%s" % (text, _table(header, rows, 3, raw=True))


def _range(values: np.ndarray):
    """The axis: 0..1 for values in [0, 1] (most measures), else from min(0, lowest) to the highest."""
    low, high = min(0.0, float(values.min())), float(values.max())
    if low >= 0.0 and high <= 1.0:
        return 0.0, 1.0
    return low, max(high, low + 1e-9)


def _axis_ticks(low: float, high: float, count: int = 5) -> List[float]:
    return [low + (high - low) * k / (count - 1) for k in range(count)]


def _num(value: float) -> str:
    return ("%.3f" % value).rstrip("0").rstrip(".") if value == value else ""


def _name(ov: Overview, measure: str) -> str:
    """A measure as the reader knows it: its column title (a form's `nDCG@10`), not its key (`ndcg_cut_10`)."""
    return _e(ov.titles.get(measure, measure))


def per_topic_figure(values: np.ndarray, run: int, topics: Sequence[str], measure: str, label: str) -> str:
    """One run's per-topic scores (dots) against each topic's median (tick) and best (bar) over all runs."""
    n = len(topics)
    width, left, right, top, plot_h = 760, 44, 10, 10, 160
    plot_w = width - left - right
    low, high = _range(values)
    slot = plot_w / float(max(1, n))
    label_every = max(1, int(math.ceil(14.0 / slot)))
    longest = max((len(t) for t in topics), default=1)
    label_h = int(min(12, longest) * 5.5) + 10
    height = top + plot_h + label_h + 16

    def sy(v: float) -> float:
        return top + plot_h - (v - low) / (high - low) * plot_h

    parts = []
    for tick in _axis_ticks(low, high):
        parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eceff4"/><text x="%d" y="%.1f" '
                     'text-anchor="end">%s</text>' % (left, left + plot_w, sy(tick), sy(tick), left - 4, sy(tick) + 4,
                                                      _num(tick)))
    medians = np.median(values, axis=1)
    bests = values.max(axis=1)
    bar_w = max(1.0, min(18.0, slot * 0.7))
    for i, topic in enumerate(topics):
        x = left + (i + 0.5) * slot
        parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#d9e3f5"><title>%s best %s</title>'
                     '</rect>' % (x - bar_w / 2, sy(bests[i]), bar_w, max(0.5, sy(low) - sy(bests[i])), _e(topic),
                                  _num(bests[i])))
        parts.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#1d2430" stroke-width="2"><title>%s median '
                     '%s</title></line>' % (x - bar_w / 2, x + bar_w / 2, sy(medians[i]), sy(medians[i]), _e(topic),
                                            _num(medians[i])))
        value = values[i, run]
        colour = "#1b7f3b" if value > medians[i] else "#c0392b" if value < medians[i] else "#6b7280"
        parts.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>%s: %s</title></circle>'
                     % (x, sy(value), max(1.6, min(4.0, slot / 3)), colour, _e(topic), _num(value)))
        if i % label_every == 0:
            ly = top + plot_h + 10
            parts.append('<text x="%.1f" y="%.1f" text-anchor="end" font-size="9" transform="rotate(-60 %.1f %.1f)">'
                         '%s</text>' % (x + 3, ly, x + 3, ly, _e(topic[:12])))
    parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#9aa3b2"/>' % (left, left + plot_w, sy(low), sy(low)))
    title = "%s per topic: %s (dot; green above the median, red below), topic median (tick), best run (bar)" % (
        measure, label)
    return ('<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" '
            'font-family="sans-serif" font-size="10">%s</svg>' % (_e(title), width, height, width, "".join(parts)))


def per_topic_section(ov: Overview) -> str:
    if not ov.significance:
        return ""
    test = ov.significance[0]
    values, topics = test.matrix.values, test.matrix.topics
    blocks = []
    title = ov.titles.get(test.measure, test.measure)
    for position, run in enumerate(r.label for r in ov.runs if r.label in test.matrix.runs):   # Tukey's family
        k = test.column(run)
        above = int((values[:, k] > np.median(values, axis=1)).sum())
        below = int((values[:, k] < np.median(values, axis=1)).sum())
        blocks.append('<details%s><summary>%s: %s above the median, %d below</summary><figure class="fig">%s</figure>'
                      '</details>' % (" open" if position < OPEN_PER_TOPIC else "", _e(run), _count(above, "topic"), below,
                                      per_topic_figure(values, k, topics, title, run)))
    return ("<h2 id=\"per-topic\">Per-topic %s</h2><p>For each run (best first), its score on every topic (dot: green "
            "above the topic's median over all runs, red below), the median (tick) and the best score of any run "
            "(bar). Unfolded: the first %s.</p>%s" % (_name(ov, test.measure),
                                                      _count(min(OPEN_PER_TOPIC, len(blocks)), "run"),
                                                      "".join(blocks)))


def box_plot(ov: Overview) -> str:
    """Per run: the spread of its per-topic values (box = quartiles, whiskers = min and max, dot = mean)."""
    if not ov.significance:
        return ""
    test = ov.significance[0]
    runs = [r.label for r in ov.runs if r.label in test.matrix.runs]        # the runs of Tukey's family
    values = test.matrix.values[:, [test.column(run) for run in runs]]
    row_h, left, right, width = 16, 150, 16, 760
    plot_w = width - left - right
    low, high = _range(values)
    height = 12 + row_h * len(runs) + 26

    def sx(v: float) -> float:
        return left + (v - low) / (high - low) * plot_w

    parts = []
    for tick in _axis_ticks(low, high):
        parts.append('<line x1="%.1f" x2="%.1f" y1="8" y2="%d" stroke="#eceff4"/><text x="%.1f" y="%d" '
                     'text-anchor="middle">%s</text>' % (sx(tick), sx(tick), height - 20, sx(tick), height - 6,
                                                         _num(tick)))
    for k, run in enumerate(runs):
        column = values[:, k]
        q0, q1, q2, q3, q4 = np.quantile(column, [0, 0.25, 0.5, 0.75, 1])
        y = 12 + k * row_h + row_h / 2.0
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 6, y + 4, _e(run[:22])))
        parts.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#6b7280"/>' % (sx(q0), sx(q4), y, y))
        parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="#d9e3f5" stroke="#4a7bd0"><title>%s: '
                     'min %s, quartiles %s / %s / %s, max %s, mean %s</title></rect>'
                     % (sx(q1), y - row_h * 0.35, max(0.5, sx(q3) - sx(q1)), int(row_h * 0.7), _e(run), _num(q0),
                        _num(q1), _num(q2), _num(q3), _num(q4), _num(float(column.mean()))))
        parts.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#1d2430" stroke-width="2"/>'
                     % (sx(q2), sx(q2), y - row_h * 0.35, y + row_h * 0.35))
        parts.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="#c0392b"/>' % (sx(float(column.mean())), y))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="box plot of per-topic %s per run" '
           'viewBox="0 0 %d %d" width="%d" font-family="sans-serif" font-size="10">%s</svg>'
           % (_name(ov, test.measure), width, height, width, "".join(parts)))
    return ("<h2 id=\"spread\">Spread over topics</h2><figure><div class=\"fig\">%s</div><figcaption>Per-topic %s of each run, best first: box "
            "from the first to the third quartile, black line the median, whiskers the lowest and highest topic, red "
            "dot the mean.</figcaption></figure>" % (svg, _name(ov, test.measure)))


def _tau_colour(tau: float) -> str:
    """Blue for agreement, red for disagreement, white at 0; grey when undefined."""
    if tau != tau:
        return "#e5e7eb"
    t = max(-1.0, min(1.0, tau))
    if t >= 0:
        r, g, b = (int(255 - (255 - c) * t) for c in (49, 110, 196))
    else:
        r, g, b = (int(255 - (255 - c) * -t) for c in (200, 60, 50))
    return "#%02x%02x%02x" % (r, g, b)


LABEL_CHARS = 18              # measure names in the heat map are cut to this many characters
LABEL_ANGLE = 55.0            # the column labels rise at this angle


def label_px(text: str) -> float:
    """An upper bound of the width of `text` at font-size 10 in the common sans-serif faces (DejaVu Sans, the
    widest of them, by its advance widths: W 9.9 px, m 9.7, digits 6.4, i 2.8)."""
    return sum(10.0 if ch in "mwMW@%" else 3.2 if ch in "ijlft.,:;|!'" else 8.0 if ch.isupper() else 6.5
               for ch in text)


def tau_section(ov: Overview) -> str:
    """The tau matrix as a heat map whose labels all fit inside the figure (its width and top margin are made for
    the longest rotated column label, its left margin for the longest row label), drawn at its own size in a box
    that scrolls on a narrow screen, then the table of tau with intervals."""
    keys = list(dict.fromkeys([t.measure_a for t in ov.tau] + [t.measure_b for t in ov.tau]))
    names = [ov.titles.get(k, k) for k in keys]
    if len(names) < 2:
        return ""
    matrix = agreement_tau.tau_matrix(ov.tau, keys)
    labels = [name[:LABEL_CHARS] for name in names]
    longest = max(label_px(label) for label in labels)
    rise, run = math.sin(math.radians(LABEL_ANGLE)), math.cos(math.radians(LABEL_ANGLE))
    cell, gap = 44, 6
    size = len(names)
    left = int(math.ceil(longest + gap + 4))
    top = int(math.ceil(longest * rise + gap + 8))
    width = int(math.ceil(max(left + cell * size, left + cell * (size - 0.5) + longest * run + 8 * rise) + 4))
    height = top + cell * size + 4
    parts = []
    for i, (name, label) in enumerate(zip(names, labels)):
        parts.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - gap, top + i * cell + cell / 2 + 4,
                                                                         _e(label)))
        x = left + i * cell + cell / 2
        parts.append('<text x="%.1f" y="%d" text-anchor="start" transform="rotate(-%g %.1f %d)">%s</text>'
                     % (x, top - gap, LABEL_ANGLE, x, top - gap, _e(label)))
        for j in range(size):
            tau = float(matrix[i, j])
            dark = tau == tau and abs(tau) > 0.6
            parts.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff"><title>%s vs %s: tau %s'
                         '</title></rect><text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text>'
                         % (left + j * cell, top + i * cell, cell, cell, _tau_colour(tau), _e(name), _e(names[j]),
                            _num(tau), left + j * cell + cell / 2, top + i * cell + cell / 2 + 4,
                            "#fff" if dark else "#1d2430", "%.2f" % tau if tau == tau else "n/a"))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Kendall tau between measures" viewBox="0 0 '
           '%d %d" width="%d" style="min-width:%dpx" font-family="sans-serif" font-size="10">%s</svg>'
           % (width, height, width, width, "".join(parts)))
    title = ov.titles.get
    rows = [[title(t.measure_a, t.measure_a), title(t.measure_b, t.measure_b),
             "%.4f" % t.tau if t.tau == t.tau else "n/a",
             "" if t.ci_low is None else "[%.3f, %.3f]" % (t.ci_low, t.ci_high),
             "" if t.se is None else "%.4f" % t.se, t.note] for t in ov.tau]
    return ("<h2 id=\"tau\">Agreement between measures</h2><figure><div class=\"fig\">%s</div><figcaption>Kendall's "
            "tau-b between the run rankings by each pair of measures (blue: agree, red: disagree).</figcaption>"
            "</figure><details><summary>tau with %d%% intervals (Fisher z, standard error from %s of the topics)"
            "</summary><p>An interval holds the tau of these runs' rankings on a topic set of this size; the tau of "
            "the population means is usually higher (docs/report.md, tau.csv).</p>%s</details>"
            % (svg, int(round(ov.settings["confidence"] * 100)), _count(ov.settings["tau_bootstrap"], "bootstrap sample"),
               _table(["measure a", "measure b", "tau", "interval", "se", "note"], rows, 2)))


def pairs_section(ov: Overview) -> str:
    if not ov.significance:
        return ""
    blocks = []
    alpha = ov.settings["alpha"]
    for test in ov.significance:
        pairs = [p for p in test.pairs() if p[3] < alpha]
        rows = [[a, b, "%.4f" % diff, "< 0.0001" if p < 0.0001 else "%.4f" % p, "%.3f" % es] for a, b, diff, p, es
                in pairs[:MAX_PAIRS_SHOWN]]
        more = "" if len(pairs) <= MAX_PAIRS_SHOWN else "<p>%d more in significance.csv.</p>" % (
            len(pairs) - MAX_PAIRS_SHOWN)
        blocks.append("<details><summary>%s: significant at alpha = %s: %d of %s</summary>%s%s</details>"
                      % (_name(ov, test.measure), alpha, len(pairs), _count(len(test.pairs()), "pair"),
                         _table(["run A (higher)", "run B", "diff", "p", "ES_E"], rows, 2), more))
    return ("<h2 id=\"pairs\">Significant differences</h2><p>Randomised Tukey HSD, B = %d trials, seed %d; every pair "
            "with its p-value is in significance.csv.</p>%s" % (ov.settings["trials"], ov.settings["seed"],
                                                               "".join(blocks)))


def pool_section(ov: Overview) -> str:
    out = []
    if ov.pool is not None:
        pool = ov.pool
        rows = [[r.run, r.team] + ["%.3f" % r.judged[k] for k in pool.cutoffs] + [str(r.unique_relevant)]
                for r in pool.rows]
        depth = ("within its top %d" % pool.depth) if pool.depth else "anywhere in its ranking"
        out.append("<h2 id=\"pool\">Judged documents</h2><p>judged@k: share of a run's top k items that the qrels "
                   "judge, averaged over the judged topics (%d). unique relevant: relevant items no other run has %s."
                   "</p>%s" % (pool.topics, depth, _table(["run", "team"] + ["judged@%d" % k for k in pool.cutoffs]
                                                          + ["unique relevant"], rows, 2)))
    if ov.reuse is not None:
        reuse = ov.reuse
        rows = [[r.team, r.run, _fmt(ov, reuse.measure, r.full), _fmt(ov, reuse.measure, r.reduced), str(r.rank_full),
                 str(r.rank_reduced), str(r.removed)] for r in reuse.rows]
        out.append("<h2 id=\"reusability\">Reusability (leave one team out)</h2><p>Each team's runs scored again with "
                   "the judged items only that team put in the depth-%d pool taken out of the qrels, and ranked among "
                   "the other runs' full scores. Kendall's tau between the full and the reduced scores: %s; largest "
                   "rank change: %s.</p>%s"
                   % (reuse.depth, "%.4f" % reuse.tau if reuse.tau == reuse.tau else "n/a",
                      "%d (%s)" % (reuse.largest_rank_change, _e(reuse.largest_change_run))
                      if reuse.largest_change_run else "0 (no run moved)",
                      _table(["team", "run", "full %s" % ov.titles.get(reuse.measure, reuse.measure), "reduced",
                              "rank full", "rank reduced", "items removed"], rows, 2)))
    return "".join(out)


def _count(number: int, noun: str) -> str:
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def page(ov: Overview) -> str:
    task = ov.task
    notes = "".join("<li>%s</li>" % _e(n) for n in ov.notes)
    body = "".join([
        "<h1>%s: overview of %s</h1>" % (_e(task.title or task.id), _count(len(ov.runs), "run")),
        '<p class="meta">runscore %s &middot; task %s &middot; %s &middot; made by <code>runscore report</code>'
        '</p>' % (_e(__version__), _e(task.id), _count(len({r.team for r in ov.runs}), "team")),
        '<p class="meta" id="rules">%s</p>' % _e(rules_line(task, ov.settings.get("rules") or {}))
        if task.options else "",
        means_section(ov), pairs_section(ov), per_topic_section(ov), box_plot(ov), tau_section(ov), pool_section(ov),
        '<h2 id="notes">Notes</h2><ul class="notes">%s</ul>' % notes if notes else ""])
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width, initial-scale=1"><title>%s overview</title><style>%s</style></head>'
            '<body><main>%s</main></body></html>\n' % (_e(task.id), STYLE, body))
