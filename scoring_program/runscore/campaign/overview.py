"""The overview paper's numbers: every run's means, the randomised Tukey HSD between runs, group letters, tau
between measures, judged@k and leave-one-team-out, computed once for every file of `runscore report`.

Why a module of its own: the CSV, LaTeX and HTML writers must print the same numbers, so they all read one
Overview built here. The scores come from the task's own `score` (the code `runscore score` runs), the Tukey HSD
from runscore/compare.py (the code `runscore compare` runs), so a report can never disagree with either.
"""
import fnmatch
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import compare as analysis
from .. import ties
from ..errors import ConfigError
from ..pipeline import LoadedReference
from ..tasks.base import Column, ParsedRun, RunScores, Task
from . import agreement_tau, letters, ranking_tasks, reusability
from .pool import teams_found

DEFAULT_TRIALS = 10000
DEFAULT_SEED = 0
DEFAULT_ALPHA = 0.05

@dataclass
class CampaignRun:
    """One scored run of the campaign: its unique label, its team, and what the task made of it."""

    label: str
    team: str
    run: ParsedRun
    scores: RunScores
    vouched: bool = True        # the platform said whose the run is (False: its team is Task.team_rule's)


@dataclass
class Significance:
    """The randomised Tukey HSD of one measure over the topics x runs matrix (runs in the campaign's order)."""

    measure: str
    matrix: analysis.ScoreMatrix
    means: np.ndarray
    p: np.ndarray
    residual_variance: float
    order: List[int]                       # run columns by mean, best first

    def column(self, label: str) -> int:
        return self.matrix.runs.index(label)

    def pairs(self) -> List[Tuple[str, str, float, float, float]]:
        """(run_a, run_b, diff, p, ES_E) for every pair, run_a the one with the higher mean (equal means, as
        runscore.ties decides: input order, diff 0)."""
        out = []
        runs = self.matrix.runs
        equal = ties.tie_classes(self.means, len(self.matrix.topics))
        for k, a in enumerate(self.order):
            for b in self.order[k + 1:]:
                diff = float(self.means[a] - self.means[b]) if equal[a] != equal[b] else 0.0
                out.append((runs[a], runs[b], diff, float(self.p[a, b]), effect_size_e(diff, self.residual_variance)))
        return out


def effect_size_e(diff: float, residual_variance: float) -> float:
    """Sakai's ES_E = diff / sqrt(V_E) (docs/compare.md); 0 for equal means, inf when V_E is 0."""
    if residual_variance > 0:
        return diff / math.sqrt(residual_variance)
    return 0.0 if diff == 0 else math.inf


@dataclass
class Overview:
    task: Task
    runs: List[CampaignRun]                # best first by the primary measure
    measures: List[str]                    # the leaderboard measures, primary first
    titles: Dict[str, str]
    sorting: Dict[str, str]                # measure -> desc | asc
    groups: Dict[str, str]                 # run label -> group letters ('' when there is no test)
    significance: List[Significance]       # primary first, then --measure; runs in the order given
    tau: List[agreement_tau.TauRow]
    pool: Optional["reusability.PoolTable"]
    reuse: Optional["reusability.Reusability"]
    settings: Dict[str, Any]
    notes: List[str] = field(default_factory=list)

    def value(self, run: CampaignRun, measure: str) -> Optional[float]:
        value = run.scores.measures.get(measure)
        return None if value is None else float(value)

    def per_topic(self, measure: str) -> Optional[analysis.ScoreMatrix]:
        """The topics x runs matrix of a measure (runs in self.runs order), or None without per-topic values."""
        scored = [(r.run, r.scores) for r in self.runs]
        if measure not in analysis.per_topic_measure_names(scored):
            return None
        matrix = analysis.build_matrix(scored, measure)
        matrix.runs = [r.label for r in self.runs]
        return matrix


def leaderboard_measures(task: Task) -> List[str]:
    """The measures of the task's leaderboard columns, primary first, each once."""
    return list(dict.fromkeys(c.measure for c in task.columns))


def topic_count(runs: Sequence[CampaignRun]) -> int:
    """The most topics a run's means average over: the n of the tie rule (runscore.ties)."""
    return max([len(r.scores.per_topic) for r in runs] + [1])


def sort_runs(task: Task, runs: Sequence[CampaignRun]) -> List[CampaignRun]:
    """Best first by the primary measure (the leaderboard's sorting); runs without a value last; equal means
    (runscore.ties: the same number whatever its last bits) keep the order given."""
    primary = task.primary
    sign = -1.0 if primary.sorting == "desc" else 1.0
    values = np.array([np.nan if r.scores.measures.get(primary.measure) is None
                       else float(r.scores.measures[primary.measure]) for r in runs])
    equal = ties.tie_classes(values, topic_count(runs))

    def key(position):
        return (bool(np.isnan(equal[position])), sign * equal[position] if not np.isnan(equal[position]) else 0.0,
                position)

    return [runs[k] for k in sorted(range(len(runs)), key=key)]


def per_topic_key(task: Task, runs: Sequence[CampaignRun], measure: str) -> Optional[str]:
    """The per-topic key whose mean is each run's `measure`: the measure itself when the task reports it per
    topic, else the per-topic value its column names (Column.per_topic, over every topic) when every run's mean of
    it is its official value; else None."""
    scored = [(r.run, r.scores) for r in runs]
    available = analysis.per_topic_measure_names(scored)
    if measure in available:
        return measure
    column = _column_of(task, measure)
    key = column.per_topic if column is not None and not column.topics_ending else None
    if not key or key not in available:
        return None
    matrix = analysis.build_matrix(scored, key)
    official = [r.scores.measures.get(measure) for r in runs]
    if matrix.notes or any(v is None for v in official) or not matrix.topics:
        return None
    return key if np.allclose(matrix.values.mean(axis=0), official, rtol=1e-9, atol=1e-12) else None


def _column_of(task: Task, measure: str) -> Optional[Column]:
    """The leaderboard column showing `measure` (the first, when several do)."""
    return next((c for c in task.columns if c.measure == measure), None)


def significance(runs: Sequence[CampaignRun], measure: str, trials: int, seed: int, key: Optional[str] = None
                 ) -> Significance:
    """The randomised Tukey HSD of `measure` (per-topic values under `key`, by default the measure's own name)
    exactly as `runscore compare` computes it: the same matrix, the same seed, the same p-values."""
    scored = [(r.run, r.scores) for r in runs]
    matrix = analysis.build_matrix(scored, key or measure)
    matrix.runs = [r.label for r in runs]
    matrix.measure = measure
    if len(matrix.topics) < 2:
        raise ConfigError("the significance test of %s needs at least 2 topics with values, got %d"
                          % (measure, len(matrix.topics)))
    p = analysis.randomised_tukey_hsd(matrix.values, trials, seed)
    means = matrix.values.mean(axis=0)
    order = analysis.mean_order(means, len(matrix.topics))
    return Significance(measure, matrix, means, p, analysis.residual_variance(matrix.values), order)


def tau_inputs(task: Task, overview_runs: Sequence[CampaignRun], measures: Sequence[str]
               ) -> Tuple[Dict[str, np.ndarray], Dict[str, Optional[np.ndarray]], List[str]]:
    """Means per measure (runs with a value of every measure) and per-topic values on one union topic set (NaN
    where a measure has no value), kept only where their column means are the official means."""
    scored = [(r.run, r.scores) for r in overview_runs]
    usable = [m for m in measures if all(r.scores.measures.get(m) is not None for r in overview_runs)]
    means = {m: np.array([float(r.scores.measures[m]) for r in overview_runs]) for m in usable}
    topics: List[str] = []
    seen = set()
    for _, scores in scored:
        for topic in scores.per_topic:
            if topic not in seen:
                seen.add(topic)
                topics.append(topic)
    per_topic: Dict[str, Optional[np.ndarray]] = {}
    notes = []
    for m in usable:
        column = _column_of(task, m)
        if column is not None and column.per_topic and column.topics_ending:   # a mean over some topics only
            key, suffix = column.per_topic, column.topics_ending
        else:
            key, suffix = per_topic_key(task, overview_runs, m) or m, ""
        values = np.full((len(topics), len(scored)), np.nan)
        for col, (_, scores) in enumerate(scored):
            for row, topic in enumerate(topics):
                if not topic.endswith(suffix):
                    continue
                value = scores.per_topic.get(topic, {}).get(key)
                if value is not None:
                    values[row, col] = float(value)
        per_topic[m] = values if values.size and _column_means_match(values, means[m]) else None
        if per_topic[m] is None:
            notes.append("%s is not a mean of per-topic values: its tau intervals are left empty" % m)
    return means, per_topic, notes


def _column_means_match(values: np.ndarray, means: np.ndarray) -> bool:
    with warnings.catch_warnings():              # a run without any value: nanmean warns, the check fails
        warnings.simplefilter("ignore", RuntimeWarning)
        found = np.nanmean(values, axis=0) if np.isnan(values).any() else values.mean(axis=0)
    return bool(np.all(np.isfinite(found)) and np.allclose(found, means, rtol=1e-9, atol=1e-12))


def check_settings(trials: int, alpha: float, confidence: float, tau_bootstrap: int, pool_depth: Optional[int]):
    """Bad settings are usage errors (exit 2), found before any run is read."""
    if trials < 1:
        raise ConfigError("--trials must be at least 1, got %d" % trials)
    if not 0.0 < alpha < 1.0:
        raise ConfigError("--alpha must be between 0 and 1, got %r" % alpha)
    if not 0.0 < confidence < 1.0:
        raise ConfigError("--confidence must be between 0 and 1, got %r" % confidence)
    if tau_bootstrap < 0:
        raise ConfigError("--tau-bootstrap must be at least 0, got %d" % tau_bootstrap)
    if pool_depth is not None and pool_depth < 1:
        raise ConfigError("--pool-depth must be at least 1, got %d" % pool_depth)


def tukey_family(labels: Sequence[str], only: Sequence[str] = (), exclude: Sequence[str] = ()) -> List[str]:
    """The runs (labels, in the order given) that Tukey's HSD compares: those matching a pattern of `only` (all
    when empty), less those matching a pattern of `exclude` (shell patterns: `baseline*`). Why a choice: the HSD
    controls the error over the family it is given, so adding runs (baselines) makes every pair's p larger (0.0097
    without two baselines, 0.18 with them on a real campaign); the organiser decides which comparisons the paper
    makes. A pattern that matches no run is an error (a misspelt run would silently stay in the family)."""
    unmatched = [pattern for pattern in list(only) + list(exclude)
                 if not any(fnmatch.fnmatchcase(label, pattern) for label in labels)]
    if unmatched:
        raise ConfigError("--runs/--exclude: %s match%s no run; the runs are %s"
                          % (", ".join(unmatched), "es" if len(unmatched) == 1 else "",
                             ", ".join(labels[:20]) + (" ..." if len(labels) > 20 else "")))
    family = [label for label in labels if not only or any(fnmatch.fnmatchcase(label, p) for p in only)]
    family = [label for label in family if not any(fnmatch.fnmatchcase(label, p) for p in exclude)]
    if len(labels) > 1 and len(family) < 2:
        raise ConfigError("--runs/--exclude leave %d run(s) for Tukey's HSD; it compares at least 2"
                          % len(family))
    return family


def family_note(labels: Sequence[str], family: Sequence[str]) -> str:
    """How the report says its family: every run, or which are left out."""
    left_out = [label for label in labels if label not in set(family)]
    if not left_out:
        return "Tukey's HSD family: all %d runs" % len(labels)
    return "Tukey's HSD family: %d of %d runs (left out, no group letters: %s)" % (
        len(family), len(labels), ", ".join(left_out[:20]) + (" ..." if len(left_out) > 20 else ""))


def once_each(ordered: Sequence[CampaignRun]) -> List[str]:
    """The runs' notes, each said once: a note that several runs carry word for word (topics without relevant
    documents: the reference's, not the run's) is one line naming how many runs, not one line a run."""
    runs_of: Dict[str, List[str]] = {}
    for r in ordered:
        for note in r.scores.notes:
            runs_of.setdefault(note, []).append(r.label)
    notes = []
    for note, labels in runs_of.items():
        if len(labels) == 1:
            notes.append(note if note.startswith(labels[0]) else "%s: %s" % (labels[0], note))
        elif len(labels) == len(ordered):
            notes.append("%s (every run)" % note)
        else:
            notes.append("%s (%d runs: %s)" % (note, len(labels), ", ".join(labels[:10]) +
                                               (" ..." if len(labels) > 10 else "")))
    return notes


def rules(task: Task, options: Dict[str, Any]) -> Dict[str, Any]:
    """The scoring rules the report used: every option the task's form declares, with its value in force (the
    reference's task.yaml or --option, else the form's default). Read from the form, never from a task id, so a
    form that defaults to trec_eval 9.0.8's rules says so as NTCIR-1 says its own."""
    return {option.name: options.get(option.name, option.default) for option in task.options}


def rules_line(task: Task, options: Dict[str, Any]) -> str:
    """`rules: interp_cutoff=ceil, max_docs=1000 (set), ...`: what changes the numbers, said once in the report."""
    if not task.options:
        return ""
    defaults = {option.name: option.default for option in task.options}
    return "rules: %s (the task's options: task.yaml's options or --option NAME=VALUE set them)" % (
        ", ".join("%s=%s%s" % (name, _rule_value(value), " (set)" if value != defaults[name] else " (default)")
                  for name, value in rules(task, options).items()))


def _rule_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def build(task: Task, reference: LoadedReference, runs: Sequence[CampaignRun], extra_measures: Sequence[str] = (),
          trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED, alpha: float = DEFAULT_ALPHA,
          tau_bootstrap: int = agreement_tau.DEFAULT_TAU_BOOTSTRAP, confidence: float = 0.95,
          pool_depth: Optional[int] = None, only: Sequence[str] = (), exclude: Sequence[str] = ()) -> Overview:
    """Every number of the report. Needs at least 2 runs; the tests need at least 2 topics. only / exclude:
    the family of Tukey's HSD (tukey_family); the means, tau and pool figures keep every run."""
    if not runs:
        raise ConfigError("a report needs at least 1 run")
    check_settings(trials, alpha, confidence, tau_bootstrap, pool_depth)
    family = set(tukey_family([r.label for r in runs], only, exclude))
    ordered = sort_runs(task, runs)
    measures = leaderboard_measures(task)
    titles = {c.measure: c.title for c in reversed(list(task.columns))}
    sorting = {c.measure: c.sorting for c in reversed(list(task.columns))}
    notes: List[str] = []
    scored = [(r.run, r.scores) for r in ordered]
    available = analysis.per_topic_measure_names(scored)
    tested: Dict[str, str] = {}
    primary_key = per_topic_key(task, ordered, task.primary.measure)
    if len(runs) < 2:
        notes.append("one run: no significance test, no group letters, no tau")
    elif primary_key is not None:
        tested[task.primary.measure] = primary_key
    else:
        notes.append("the primary measure %s is not a mean of per-topic values: no significance test, no group "
                     "letters" % task.primary.measure)
    for name in extra_measures:
        key = task.measure_key(name, sorted(set(available) | set(measures)), "per-topic")
        found = per_topic_key(task, ordered, key)
        if len(runs) < 2:
            continue
        if found is None:
            raise ConfigError("measure %s is not a mean of per-topic values in task %s; per-topic measures: %s"
                              % (name, task.id, ", ".join(available)))
        tested.setdefault(key, found)
    # The tests see the runs in the order given, as `runscore compare` does: the random permutations depend on the
    # column order, so the same files in the same order with the same seed give the same p-values.
    compared = [r for r in runs if r.label in family]
    tests = [significance(compared, m, trials, seed, key) for m, key in tested.items()]
    groups = {r.label: "" for r in ordered}
    if tests and tests[0].measure == task.primary.measure:
        column = {r.label: k for k, r in enumerate(compared)}
        found = letters.compact_letters(tests[0].p, [column[r.label] for r in ordered if r.label in column], alpha)
        groups.update((r.label, found[column[r.label]]) for r in ordered if r.label in column)
    if len(runs) > 1:
        notes.append(family_note([r.label for r in runs], [r.label for r in compared]))
    tau: List[agreement_tau.TauRow] = []
    if len(runs) > 1:
        means, per_topic, tau_notes = tau_inputs(task, ordered, measures)
        notes.extend(tau_notes)
        tau = agreement_tau.tau_table(means, per_topic, tau_bootstrap, seed, confidence)
    pool = reuse = None
    if ranking_tasks.is_ranking_task(task):
        campaign_pool = reusability.campaign_pool(reference, ordered, pool_depth)
        pool = reusability.pool_table(reference, ordered, pool_depth, campaign_pool)
        teams = list(dict.fromkeys(r.team for r in ordered))
        if pool_depth is not None and len(teams) < 2:     # leaving the only team out empties the qrels: no figure
            notes.append("no leave-one-team-out reusability: it needs runs of two teams or more, and every run is "
                         "of team %s (a run's team is its download's owner, else %s)"
                         % (teams[0] if teams else "-", task.team_rule))
        elif pool_depth is not None:
            reuse = reusability.leave_one_team_out(reference, ordered, pool_depth, campaign_pool)
    settings = {"task": task.id, "trials": trials, "seed": seed, "alpha": alpha, "tau_bootstrap": tau_bootstrap,
                "confidence": confidence, "pool_depth": pool_depth, "topics": len(tests[0].matrix.topics)
                if tests else None, "tukey_family": [r.label for r in compared],
                "rules": rules(task, reference.options or {})}
    found_teams = teams_found(task, [(r.label, r.team, r.vouched) for r in ordered])
    if found_teams:
        notes.append(found_teams[len("note: "):])
    notes.extend(once_each(ordered))
    for t in tests:
        notes.extend(t.matrix.notes)
    return Overview(task, ordered, measures, titles, sorting, groups, tests, tau, pool, reuse, settings,
                    list(dict.fromkeys(notes)))
