"""api.compare: `runscore compare --json` from a ScoreResult, a {run: {topic: value}} dict or a topics x runs
matrix (compare.py's tests, imported only when called: scipy is not read at import)."""
from typing import Any, Dict, Mapping, Optional, Sequence

import numpy as np

from ..errors import ConfigError
from ..tasks import get_task
from ..tasks.base import ParsedRun, RunScores
from .scoring import ScoreResult


def compare(scores: Any, measure: Optional[str] = None, runs: Optional[Sequence[str]] = None,
            topics: Optional[Sequence[str]] = None, trials: int = 5000, bootstrap: int = 10000, seed: int = 0,
            confidence: float = 0.95, correction: str = "holm") -> Dict[str, Any]:
    """`runscore compare --json` from per-topic scores: paired t and Wilcoxon (with a family-wise correction),
    randomised Tukey HSD, bootstrap CIs and effect sizes for every pair of runs (docs/compare.md).

    scores: a ScoreResult (measure defaults to the task's primary measure, as the CLI), a dict
    {run: {topic: value}} or {run: {topic: {measure: value}}} (then `measure` is required), or a topics x runs
    matrix (numpy array or nested lists) with `runs` (and optionally `topics`) naming its columns and rows.
    A topic some run has no value for counts 0 for it, with a note (as the CLI).
    """
    from .. import compare as analysis

    if trials < 1 or bootstrap < 1:
        raise ConfigError("trials and bootstrap must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise ConfigError("confidence must be between 0 and 1, got %r" % (confidence,))
    task_id = ""
    if isinstance(scores, ScoreResult):
        task = get_task(scores.task)
        task_id = task.id
        scored = scores.scored
        if len(scored) < 2:
            raise ConfigError("comparing needs at least 2 runs; got %d" % len(scored))
        measure = analysis.choose_measure(task, scored, measure)
    else:
        scored, measure = _scored_from(scores, measure, runs, topics)
    matrix = analysis.build_matrix(scored, measure)
    comparison = analysis.compare(matrix, trials=trials, bootstrap=bootstrap, seed=seed, confidence=confidence,
                                  correction=correction)
    return analysis.comparison_json(comparison, task_id)


def _scored_from(scores, measure, runs, topics):
    """(ParsedRun, RunScores) pairs, as a task would have made them, from a dict or a matrix."""
    if isinstance(scores, Mapping):
        scored = []
        for name, rows in scores.items():
            if not isinstance(rows, Mapping):
                raise ConfigError("run %s: per-topic scores are a {topic: value} dict" % name)
            per_topic = {}
            for topic, value in rows.items():
                if isinstance(value, Mapping):
                    if measure is None:
                        raise ConfigError("per-topic rows hold several measures: say which to compare (measure=)")
                    if measure in value:
                        per_topic[str(topic)] = {measure: _number(value[measure], name, topic)}
                else:
                    per_topic[str(topic)] = {measure or "score": _number(value, name, topic)}
            scored.append((ParsedRun(str(name), str(name), None), RunScores({}, per_topic)))
        if len(scored) < 2:
            raise ConfigError("comparing needs at least 2 runs; got %d" % len(scored))
        return scored, measure or "score"
    try:
        values = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError("scores are a ScoreResult, a {run: {topic: value}} dict or a topics x runs matrix")
    if values.ndim != 2:
        raise ConfigError("a score matrix has 2 dimensions (topics x runs), got %d" % values.ndim)
    runs = list(runs) if runs is not None else ["run%d" % (i + 1) for i in range(values.shape[1])]
    topics = list(topics) if topics is not None else [str(i + 1) for i in range(values.shape[0])]
    if len(runs) != values.shape[1] or len(topics) != values.shape[0]:
        raise ConfigError("the matrix is %d topics x %d runs, but %d run and %d topic names were given"
                          % (values.shape[0], values.shape[1], len(runs), len(topics)))
    rows = {run: {topic: float(values[i, j]) for i, topic in enumerate(topics)} for j, run in enumerate(runs)}
    return _scored_from(rows, measure, None, None)


def _number(value: Any, run: str, topic: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError("run %s topic %s: %r is not a number" % (run, topic, value))
