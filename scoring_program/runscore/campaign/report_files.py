"""The report folder: means.csv, significance.csv, tau.csv, pool.csv, reusability*.csv, the Discpower files,
report.json, the LaTeX tables and report.html, all made in memory and then written together.

Why a module of its own: every file is a view of one Overview (campaign/overview.py), and a report is written
whole or not at all: the files are built first, written to a temporary folder beside DIR, then moved in, so a
failure never leaves half a report that looks finished. Numbers in CSV files are written at full precision
(Python's repr), so they equal `runscore score --json` to the last digit. Text cells (run, team and measure names)
that a spreadsheet would run as a formula get a single quote in front (campaign/safe_output.py): the docs tell
organisers to open these files in a spreadsheet, and run names are the participants' words.
"""
import csv
import io
import json
import math
import os
import shutil
import tempfile
from typing import Any, Dict, List, Optional, Sequence

from .. import __version__
from ..errors import ConfigError
from . import latex, overview_html
from .overview import Overview
from .safe_output import neutralise_cell


def number(value: Optional[float]) -> str:
    """Full precision; '' for a missing or undefined value (never a 0 that would read as a score)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(float(value)) if not isinstance(value, int) else str(value)


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([number(v) if isinstance(v, (float, int)) and not isinstance(v, bool) else
                         ("" if v is None else neutralise_cell(str(v))) for v in row])
    return out.getvalue()


def means_csv(ov: Overview) -> str:
    return _csv(["run", "team", "group"] + ov.measures,
                [[r.label, r.team, ov.groups[r.label]] + [ov.value(r, m) for m in ov.measures] for r in ov.runs])


def significance_csv(ov: Overview) -> str:
    rows = [[test.measure, a, b, diff, p, es] for test in ov.significance for a, b, diff, p, es in test.pairs()]
    return _csv(["measure", "run_a", "run_b", "diff", "p", "es_e"], rows)


def tau_csv(ov: Overview) -> str:
    return _csv(["measure_a", "measure_b", "tau", "ci_low", "ci_high", "se", "note"],
                [[t.measure_a, t.measure_b, t.tau, t.ci_low, t.ci_high, t.se, t.note] for t in ov.tau])


def pool_csv(ov: Overview) -> str:
    pool = ov.pool
    header = ["run", "team"] + ["judged_at_%d" % k for k in pool.cutoffs] + ["unique_relevant"]
    return _csv(header, [[r.run, r.team] + [r.judged[k] for k in pool.cutoffs] + [r.unique_relevant]
                         for r in pool.rows])


def reusability_csv(ov: Overview) -> str:
    return _csv(["team", "run", "measure", "full", "reduced", "rank_full", "rank_reduced", "removed"],
                [[r.team, r.run, r.measure, r.full, r.reduced, r.rank_full, r.rank_reduced, r.removed]
                 for r in ov.reuse.rows])


def reusability_summary_csv(ov: Overview) -> str:
    reuse = ov.reuse
    return _csv(["measure", "pool_depth", "runs", "teams", "tau", "largest_rank_change", "run"],
                [[reuse.measure, reuse.depth, len(reuse.rows), len({r.team for r in reuse.rows}), reuse.tau,
                  reuse.largest_rank_change, reuse.largest_change_run]])


def discpower_names(runs: Sequence[str]) -> List[str]:
    """Run names as Discpower's whitespace-split files can hold them: every whitespace character becomes '_' (a
    participant's name 'my run' would otherwise be read as two runs and shift every column after it), and a name
    that then equals another gets '#2', '#3', ... so the runs stay told apart. Names without whitespace are kept."""
    out, seen = [], set(r for r in runs if not any(c.isspace() for c in r))
    for run in runs:
        name = "".join("_" if c.isspace() else c for c in run)
        if name != run:
            base, k = name, 2
            while name in seen:
                name, k = "%s#%d" % (base, k), k + 1
        seen.add(name)
        out.append(name)
    return out


def discpower_files(ov: Overview) -> Dict[str, str]:
    """Sakai's Discpower layout: `runs` (one run name a line), `<measure>.test_data` (one line per topic, the runs'
    scores space-separated in the order of `runs`) and `<measure>.test_data.pvalues.<B>` (`left right |diff| p`
    for every pair in that order), so `Random-test runs <measure>.test_data B` can cross-check the p-values. Run
    names with whitespace are written as discpower_names() makes them."""
    files = {}
    trials = ov.settings["trials"]
    for test in ov.significance:
        runs = discpower_names(test.matrix.runs)
        files["discpower/runs"] = "".join("%s\n" % r for r in runs)
        name = "discpower/%s.test_data" % test.measure
        files[name] = "".join(" ".join(number(float(v)) for v in row) + "\n" for row in test.matrix.values)
        lines = []
        for i in range(len(runs)):
            for j in range(i + 1, len(runs)):
                lines.append("%s %s %s %s\n" % (runs[i], runs[j], number(abs(float(test.means[i] - test.means[j]))),
                                                number(float(test.p[i, j]))))
        files["%s.pvalues.%d" % (name, trials)] = "".join(lines)
    return files


def report_json(ov: Overview) -> str:
    data = {"runscore": __version__, "settings": ov.settings, "measures": ov.measures,
            "significance_measures": [t.measure for t in ov.significance],
            "topics": {t.measure: list(t.matrix.topics) for t in ov.significance}, "notes": ov.notes}
    return json.dumps(data, indent=2, allow_nan=False) + "\n"


def all_files(ov: Overview, discpower: bool = False) -> Dict[str, str]:
    """File name (relative to DIR) -> text, for every file the report writes."""
    files = {"means.csv": means_csv(ov), "significance.csv": significance_csv(ov), "tau.csv": tau_csv(ov),
             "report.json": report_json(ov), "means.tex": latex.means_table(ov),
             "significance.tex": latex.significance_table(ov), "report.html": overview_html.page(ov)}
    if ov.pool is not None:
        files["pool.csv"] = pool_csv(ov)
    if ov.reuse is not None:
        files["reusability.csv"] = reusability_csv(ov)
        files["reusability_summary.csv"] = reusability_summary_csv(ov)
    if discpower:
        files.update(discpower_files(ov))
    return files


def check_output(folder: str) -> str:
    """The absolute report folder, refused before any work when it cannot be one (exit 2)."""
    folder = os.path.abspath(folder)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ConfigError("-o %s exists and is not a folder" % folder)
    if not os.path.isdir(os.path.dirname(folder)):
        raise ConfigError("-o %s: its parent folder does not exist" % folder)
    return folder


def write_all(folder: str, files: Dict[str, str]) -> List[str]:
    """Write every file into `folder` (created if needed) or none: all are written beside it first, then moved."""
    folder = check_output(folder)
    parent = os.path.dirname(folder)
    try:
        staging = tempfile.mkdtemp(prefix=".runscore-report-", dir=parent)
    except OSError as exc:
        raise ConfigError("cannot write the report beside %s: %s" % (folder, exc.strerror or exc))
    try:
        for name, text in files.items():
            path = os.path.join(staging, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        os.makedirs(folder, exist_ok=True)
        for name in files:
            target = os.path.join(folder, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.replace(os.path.join(staging, name), target)
    except OSError as exc:
        raise ConfigError("cannot write the report into %s: %s" % (folder, exc.strerror or exc))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sorted(files)
