"""runscore from Python: score a task's runs, run trec_eval, compare systems, with the command line's numbers.

Why: people who rescore campaigns and compare systems work in notebooks and scripts; shelling out to the CLI and
parsing its text loses precision and the diagnostics. Each function here is the CLI's code path with Python
objects at both ends: `score` is `runscore score --json --per-topic`, `trec_eval` is `runscore trec_eval -q`
(full precision), `compare` is `runscore compare --json`, `report` is `runscore report`. Problems raise the CLI's
exceptions: RunError (the CLI exits 1; InvalidRunsError carries every diagnostic of every file) and ConfigError
(exit 2: bad usage, reference or option). Results are plain dicts and lists. The drop-in for pytrec_eval is the
module runscore.pytrec_eval. Documentation with examples: docs/python-api.md.

One module for each door, all re-exported here (`from runscore import api; api.score(...)`):
- scoring.py: score, ScoreResult, tasks;
- trec.py: trec_eval, the door that sorts the names asked: trec_eval's -m arguments go to trec_measures.py (the
  command's reading and main loop for files, the whole-run kernels for dicts and DataFrames), ir_measures names to
  ir_measures.py, and trec_reading.py reads what both are given (files, dicts, DataFrames);
- comparing.py: compare;
- reporting.py: report, ReportResult;
- inputs.py: what the doors share: load_reference, runs in memory, InvalidRunsError.
The modules are not named after their doors: a submodule `api.score` would be hidden by the function of that name.
Importing the API reads neither scipy nor the campaign wing: compare and report import them when called.
"""
from ..errors import ConfigError, Diagnostic, RunError
from ..pipeline import LoadedReference
from ..tasks import get_task
from ..tasks.base import Task
from .comparing import compare
from .inputs import InvalidRunsError, PathLike, RunInput, load_reference
from .reporting import ReportResult, report
from .scoring import ScoreResult, score, tasks
from .trec import TREC_EVAL_PREFIX, trec_eval

__all__ = ["tasks", "load_reference", "score", "ScoreResult", "InvalidRunsError", "trec_eval", "compare", "report",
           "ReportResult", "RunError", "ConfigError", "Diagnostic",
           # what the signatures name, importable from here as before the split
           "LoadedReference", "Task", "get_task", "PathLike", "RunInput", "TREC_EVAL_PREFIX"]

