"""What a task is: a form to fill in, not a framework to learn.

A task module declares its id, how its run files are recognised, its options (with defaults and help), its
leaderboard columns (primary first), and four functions: load the reference, parse-and-check a run file,
score a run. Everything else (discovery, reporting, the CLI, Codabench) is shared and reads these declarations.
"""
import copy
import difflib
import io
from contextlib import contextmanager
from functools import lru_cache
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..errors import ConfigError, Diagnostics, RunError
from .assessing import AssessmentForm
from .pooling import Pooling
from ..textfile import JSON_LAYOUT, LAYOUT_MIN_LINES, LAYOUT_MISS_SHARE, describe_layout, layout_misses


# Runs of one task scored from one submission on the platform (docs/limits.md: a submission of this many tiny runs
# scores in a few seconds, far from Codabench's 600 s; the CLI has no such cap).
MAX_RUNS_PER_SUBMISSION = 100
# Runs of one submission scored in a phase whose reference data is hidden, for a task whose campaign sets no cap of
# its own: every run's leaderboard values are read off the detailed page, so the runs a submission may hold bound
# what a team can learn of the hidden reference per submission (docs/codabench.md, "How much a leaderboard tells").
HIDDEN_PHASE_RUNS = 1
# The number that ends a run's name, before an extension of letters (`ntc1`, `bigIR_run01.json`): Task.run_number.
RUN_NUMBER = re.compile(r"([0-9]{1,9})(?:\.[A-Za-z]+)?$")


# The words of the trec_eval-like options on the pages (Option.says), shared by the tasks and forms that rank runs.
TIE_ORDER_SAYS = {"desc": "ties by docno descending", "asc": "ties by docno ascending"}
PRECISION_SAYS = {"single": "scores as C floats", "double": "scores as written (doubles)"}
INTERP_SAYS = {"ceil": "interpolation as trec_eval 7.2", "v9": "interpolation as trec_eval 9 and 10",
               "v10": "interpolation as trec_eval 10.0"}
MAX_DOCS_SAYS = "at most %s documents a topic"
DUPLICATES_SAYS = {"error": "a repeated line refused", "keep_first": "a repeated line's first kept"}


@dataclass(frozen=True)
class Option:
    """A documented, configurable choice (set in the reference folder's task.yaml under `options:`)."""

    name: str
    default: Any
    help: str
    choices: Optional[Sequence[Any]] = None
    minimum: Optional[float] = None      # bounds of a numeric option (docs/limits.md)
    maximum: Optional[float] = None
    # What a value means to a reader of the scores, for the rules line of the pages (Task.rules_sentence): a phrase
    # per value ({"desc": "ties by docno descending"}), or one phrase with %s for the value. None: `name=value`.
    says: Any = field(default=None, hash=False, compare=False)

    def saying(self, value: Any) -> str:
        if isinstance(self.says, dict) and value in self.says:
            return self.says[value]
        if isinstance(self.says, str):
            return self.says % (value,)
        return "%s=%s" % (self.name, ("true" if value else "false") if isinstance(value, bool) else value)

    def check(self, value: Any, where: str) -> Any:
        if self.choices is not None and (isinstance(value, (list, dict)) or value not in self.choices):
            raise ConfigError("option %s = %s is not one of %s"
                              % (self.name, short_repr(value), ", ".join(repr(c) for c in self.choices)), where)
        numeric = isinstance(self.default, (int, float)) and not isinstance(self.default, bool)
        if self.choices is None and self.default is not None:
            wrong = not isinstance(value, type(self.default)) and not (isinstance(self.default, float)
                                                                       and isinstance(value, int))
            if wrong or (numeric and isinstance(value, bool)):     # YAML `true` is not the number 1
                raise ConfigError("option %s = %s should be of type %s"
                                  % (self.name, short_repr(value), type(self.default).__name__), where)
        if numeric and self.minimum is not None and value < self.minimum:
            raise ConfigError("option %s = %s must be at least %g" % (self.name, short_repr(value), self.minimum),
                              where)
        if numeric and self.maximum is not None and value > self.maximum:
            raise ConfigError("option %s = %s must be at most %g" % (self.name, short_repr(value), self.maximum),
                              where)
        return value


def short_repr(value: Any, limit: int = 80) -> str:
    """repr() of a configuration value, bounded: a YAML value built from aliases may be huge."""
    import reprlib

    shown = reprlib.Repr()
    shown.maxstring, shown.maxother, shown.maxlevel = limit, limit, 3
    text = shown.repr(value)
    return text if len(text) <= limit * 2 else text[:limit * 2] + "..."


SORTING = {"higher": "desc", "lower": "asc"}     # Codabench's `sorting` of a column, from the measure's direction


@dataclass(frozen=True)
class Column:
    """A leaderboard column.

    key: the column's own part of the leaderboard key ([a-z0-9_]; the task id is prefixed to it); title: at
    most 36 characters; measure: the key of RunScores.measures it shows, when it is not `key` itself.
    per_topic: the per-topic value whose mean over the topics is the measure, when the task reports it per topic
    under another name (a topic's 0/1 `correct` is what accuracy averages); topics_ending: the measure is that
    mean over the topics whose id ends so only (Temporalia's P@20 of one temporal class: subtopics 001p, 002p...).
    The campaign report tests and bootstraps such a measure over those per-topic values, once it has checked that
    each run's mean of them is the run's official value.
    """

    key: str
    title: str
    measure: str = ""
    sorting: str = "desc"
    precision: int = 4
    per_topic: str = ""
    topics_ending: str = ""

    def __post_init__(self):
        object.__setattr__(self, "measure", self.measure or self.key)     # frozen: set once, here


@dataclass
class ParsedRun:
    """One run, checked and ready to score. A file can hold several runs (told apart by a run_id column)."""

    name: str
    path: str
    data: Any
    # The teams the run names, with their lines (Task.teams_named), and the team that wrote it (Task.team_of),
    # noted when the file is checked so that the platform's rules and the campaign's identity rules still hold
    # after score.py or a campaign command frees `data` once the run is scored or reduced to its ranking.
    teams: Optional[Dict[str, int]] = None
    # The file's lines that hold this run's records when the file holds several runs (a Temporalia file may hold
    # three run_ids), for the run's receipt; None when the whole file is this run.
    lines: Optional[int] = None
    team: Optional[str] = None


class RankedItem(NamedTuple):
    """One entry of a run's ranking as its task reads it: the item key (document id, R2C2 passage key), its text
    if the run carries it, and the id of its document in the collection (the item itself, or R2C2's docID). A
    tuple: a campaign's pool makes hundreds of thousands of them."""

    item: str
    text: Optional[str] = None
    document: Optional[str] = None


# Disclosure levels of a phase, lowest first (codabench/disclosure.py decides what each level shows). A
# task says what each of its outputs is computed from: a note (Note), an extra table ("shown_from") and a per-topic
# value (Task.per_topic_effectiveness) name the lowest level that may show them; anything unmarked needs `full`.
AGGREGATE, PER_TOPIC, FULL = "aggregate", "per_topic", "full"
DISCLOSURE_LEVELS = (AGGREGATE, PER_TOPIC, FULL)


class Note(str):
    """A note with the lowest disclosure level that may show it. A plain str note counts as `full`: a note computed
    from individual gold items (topics without relevant documents, questions without a gold answer) is never
    shown in a hidden phase unless its task marks it otherwise."""

    shown_from = FULL

    def __new__(cls, text: str, shown_from: str = AGGREGATE) -> "Note":
        note = super().__new__(cls, text)
        note.shown_from = shown_from
        return note


def public_note(text: str) -> Note:
    """A note computed from the run and the public question list only: shown at every level."""
    return Note(text, AGGREGATE)


@dataclass(frozen=True)
class ReferenceSize:
    """A campaign's hidden reference, counted: items (judged documents, labelled queries, questions; None when the
    sources do not say), the label levels an item takes (one judgement is worth log2(levels) bits), the topics a
    run answers (each has its own per-topic values), what an item is, and where the numbers come from."""

    items: Optional[int]
    levels: int
    topics: Optional[int]
    unit: str
    source: str


@dataclass
class RunScores:
    """Scores of one run: overall values, values per topic, and notes worth showing the participant."""

    measures: Dict[str, float]
    per_topic: Dict[str, Dict[str, float]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    # Extra tables for the detailed report, each {"caption", "header", "rows"} (e.g. a confusion matrix, or
    # per-question text that per_topic's numbers cannot hold).
    tables: List[Dict[str, Any]] = field(default_factory=list)


class Task:
    """Base class of every task. Subclasses fill in the class attributes and the four methods."""

    id = ""
    title = ""
    tag = ""                       # short name that prefixes the leaderboard titles of a multi-task bundle
    description = ""               # one line, shown by `runscore tasks`
    # What the task calls the unit its per-topic values are of, as a participant reads it on the detailed results
    # ("correct per question (6 questions)", a "question" column): an item of a classification, a question of QA.
    topic_unit = "topic"
    run_file_help = ""             # what a run file of this task is called / looks like
    name_pattern: Optional[str] = None   # regex on the file's base name that claims a run file
    # Files a run of this task may read beside it (e.g. the PR runs an AC run cites). When no task of the
    # competition claims such a file as a run, it is kept as a companion instead of being rejected.
    companion_pattern: Optional[str] = None
    options: Sequence[Option] = ()
    # Named sets of option values a reader knows (("trec_eval 9.0.8", {"tie_order": "desc", ...}), ...): the rules
    # line names the first set the options in force match (rules_sentence); rules no option changes, said with them.
    rules_presets: Sequence[Tuple[str, Dict[str, Any]]] = ()
    fixed_rules: Sequence[str] = ()
    columns: Sequence[Column] = ()
    # The campaign's cap on one team's runs (None: no cap); team_of tells the team of a run (pipeline.check_run_limit).
    max_runs_per_team: Optional[int] = None
    # The campaign's rule on submissions to the hidden (formal) phase, (per day, in all), written into
    # competition.yaml by codabench/competition_yaml.py (None: runscore's defaults, codabench/bundle_plan.py).
    formal_submissions: Optional[Tuple[int, int]] = None
    # The platform's resource cap on a task's runs in one submission (docs/limits.md; score.py only).
    max_runs_per_submission: Optional[int] = MAX_RUNS_PER_SUBMISSION
    # The cap on a submission's runs in a hidden phase when the campaign has none (max_runs_per_team None); see
    # hidden_phase_cap.
    hidden_phase_runs: int = HIDDEN_PHASE_RUNS
    # True when the runs parse() gives against the whole reference differ from those it gives against the public
    # part (public_reference): r2c2 joins the judgement labels and replays the assessed runs while parsing. A
    # hidden phase then parses each valid file a second time, against the whole reference, and tells the
    # participant of that pass only whether it rejected the file (submission.py).
    runs_need_reference = False
    # The size of the campaign's real hidden reference, for the bound on what its leaderboard can tell
    # (codabench/channel.py); None when the sources do not give it.
    hidden_reference: Optional["ReferenceSize"] = None
    per_topic_measures: Sequence[str] = ()   # keys of RunScores.per_topic shown in reports, in order
    # The per-topic values that are effectiveness measures, shown at the `per_topic` disclosure level (None: the
    # per_topic_measures that are not counts; a count such as num_rel is computed from the gold items).
    per_topic_effectiveness: Optional[Sequence[str]] = None
    # The value a leaderboard column shows when a valid run has no value of its measure (e.g. r2c2-ac without
    # labels); None = every run has every column's measure. Documented per task; never a silent 0.
    leaderboard_placeholder: Optional[float] = None
    # Values that are counts or yes/no flags, shown as integers (names starting num_ or n_ are counts anyway).
    count_measures: Sequence[str] = ()
    # format_value's (is a count, decimals) of each measure name, found once a name (a table of 1,000 runs formats
    # 60,000 values), kept with the columns and counts it was found from: a task given others starts afresh.
    _formats: Optional[Tuple[Sequence, Sequence, Dict[str, Tuple[bool, int]]]] = None
    # What the campaign wing asks of a pooled task (tasks/assessing.py): label scales, where the judged text comes
    # from, the collection's encoding, topic ids. None: the task is not pooled for assessment.
    assessment: "Optional[AssessmentForm]" = None
    # What the campaign wing asks of a pooled task (tasks/pooling.py): what is pooled (ranks 1..k of the task's
    # rankings, or every unit of every run), how the labels become its reference folder, what a reference judges
    # and how it loses a team's items. None: the task is not pooled (`runscore pool` does not offer it).
    pooling: "Optional[Pooling]" = None
    # Suffixes a measure name takes in this task (ntcir1-adhoc: `map_rel1`, `map_rel2`); a typed name without one
    # (`map`, `AP`) means the first.
    measure_variants: Sequence[str] = ()

    # Every task of the registry, handed in by the registry (tasks/__init__.py) when it loads: a form names the other
    # task that claims a file (wrong_layout), and a form cannot import the registry, which imports every form.
    registered: Callable[[], Sequence["Task"]] = staticmethod(lambda: ())

    # ---------------------------------------------------------------------------- discovery ---
    def claims_name(self, basename: str) -> bool:
        return bool(self.name_pattern) and re.fullmatch(self.name_pattern, basename) is not None

    def claims_companion(self, basename: str) -> bool:
        return bool(self.companion_pattern) and re.fullmatch(self.companion_pattern, basename) is not None

    def rules_sentence(self, options: Dict[str, Any]) -> str:
        """`rules: trec_eval 9.0.8 (scores as C floats, ties by docno descending, ...)`: the scoring rules in force,
        in words a participant reads, for every page that shows scores. Read from the options in force (task.yaml's
        or --option's, else the defaults) and the task's declared presets, never from a task id; empty for a task
        without options. Options are not secret: two references with the same aggregates give the same line."""
        values = {option.name: options.get(option.name, option.default) for option in self.options}
        if not values:
            return ""
        said = list(self.fixed_rules) + [option.saying(values[option.name]) for option in self.options]
        named = next((name for name, preset in self.rules_presets
                      if all(values.get(k) == v for k, v in preset.items())), None)
        return "rules: %s (%s)" % (named or "the task's options", ", ".join(said))

    def team_of(self, run: ParsedRun) -> str:
        """The team that wrote a run, for the per-team cap ("" when the run does not tell: the submitter)."""
        return ""

    def inferred_team(self, run: ParsedRun) -> str:
        """The team a run is credited to when the platform does not say whose it is (a loose file, a receipt):
        the team the run names, else its name without the trailing run number (NTCIR-1's Run-ID is the group's
        id plus a sequential number: ntc1, ntc2 -> ntc), else its name. The pool, the report and the receipts
        all credit a run so. The team noted when the run was checked (ParsedRun.team) holds once a campaign
        command has dropped the run's records."""
        team = run.team if run.team is not None else self.team_of(run)
        return team or self.team_from_name(run.name)

    # The rule team_from_name follows, in words, for the notes of pool and report (a form states its own rule).
    team_rule = "the team the run names, else the run's name without its trailing number (ntc1, ntc2 -> ntc)"

    def team_from_name(self, name: str) -> str:
        """The team of a run that names none, from its name (the rule team_rule says)."""
        return re.sub(r"[-_]?[0-9]+$", "", name) or name

    def teams_named(self, run: ParsedRun) -> Dict[str, int]:
        """Every team a run names, with the line that first names it (0: the file name), for the platform's rule
        that a submission is one team's (pipeline.check_run_limit). A run naming no team gives {}."""
        team = self.team_of(run)
        return {team: 0} if team else {}

    def run_number(self, run: ParsedRun) -> Optional[int]:
        """The number a team gives a run (`ntc1` -> 1, `TEAM-AC-2` -> 2, `bigIR_run01.json` -> 1): the run with
        the lowest number is the team's primary run, the one a hidden phase's leaderboard row shows
        (docs/codabench.md). Default: the digits that end the run's name (before a file extension); None when
        it has none (such runs come after numbered ones, in submission order)."""
        match = RUN_NUMBER.search(run.name)
        return int(match.group(1)) if match else None

    @property
    def hidden_phase_cap(self) -> int:
        """The runs of one submission a hidden phase scores unless the reference's task.yaml sets
        runs_per_submission: the campaign's cap, else hidden_phase_runs."""
        return self.max_runs_per_team if self.max_runs_per_team is not None else self.hidden_phase_runs

    def answered_topics(self, run: ParsedRun) -> Optional[List[str]]:
        """The topics a parsed run answers, as official_topics writes them (None: the task cannot tell, and a
        collecting phase's topic list is not checked)."""
        return None

    def official_topics(self, listed: Sequence[str]) -> Set[str]:
        """The topic ids a run may answer, from an official list as an organiser writes it (a collecting phase's
        task.yaml `topics:`), in the form answered_topics gives."""
        return {str(t) for t in listed}

    def companion_error(self, path: str, display: str):
        """A RunError when a companion file (see companion_pattern) cannot be read at all, else None."""
        return None

    def sniff(self, head: str) -> bool:
        """Does the start of a file (decoded text) look like a run of this task?"""
        return False

    def wrong_layout(self, text: str, diags: Diagnostics, separator: Optional[str], min_fields: int,
                     max_fields: int = 0) -> bool:
        """When most lines of a run are not in this task's layout, say once what the file looks like (comma- or
        semicolon-separated, JSON, a run of another task) and return True: the caller then stops, instead of
        reporting one field-count error per line."""
        sample, misses = layout_misses(text, separator, min_fields, max_fields)
        if sample and separator != JSON_LAYOUT and sample[0][1].lstrip()[:1] in ("{", "["):
            misses = sample                                  # JSON splits into any number of fields
        elif len(misses) < max(LAYOUT_MIN_LINES, LAYOUT_MISS_SHARE * len(sample)):
            return False
        other = self._other_task_claiming(text)
        found = describe_layout(text, separator, min_fields, max_fields)
        if other is not None:
            diags.error(misses[0][0], "the file looks like a run of task %s, not of %s; a run of %s is %s"
                        % (other.id, self.id, self.id, self.run_file_help))
        elif found is not None:
            diags.error(found[0], "the file looks %s; a run of %s is %s" % (found[1], self.id, self.run_file_help))
        else:
            return False
        return True

    def _other_task_claiming(self, text: str) -> "Optional[Task]":
        head = text[:4096]
        for task in Task.registered():
            if task.id != self.id and task.sniff(head):
                return task
        return None

    # ---------------------------------------------------------------------------- options ---
    def resolve_options(self, raw: Optional[Dict[str, Any]], where: str = "task.yaml") -> Dict[str, Any]:
        raw = dict(raw or {})
        known = {o.name: o for o in self.options}
        resolved = {}
        for name in raw:
            if not isinstance(name, str):      # `0x1F:` or `true:` in task.yaml (found by make fuzz)
                raise ConfigError("option name %s is not a name; known options: %s"
                                  % (short_repr(name), ", ".join(sorted(known)) or "none"), where)
            if name not in known:
                close = difflib.get_close_matches(name, list(known), n=3)
                hint = " (did you mean %s?)" % ", ".join(close) if close else ""
                raise ConfigError("unknown option %r for task %s%s; known options: %s"
                                  % (name, self.id, hint, ", ".join(sorted(known)) or "none"), where)
        for name, option in known.items():
            resolved[name] = option.check(raw[name], where) if name in raw else option.default
        return resolved

    # ---------------------------------------------------------------------------- the four steps ---
    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> Any:
        """Read the reference (a folder with task.yaml, or a single file). Raise ConfigError on defects."""
        raise NotImplementedError

    def parse(self, path: str, display: str, diags: Diagnostics, reference: Any,
              options: Dict[str, Any]) -> List[ParsedRun]:
        """Parse and check one run file, reporting every problem to `diags`. `reference` may be None
        (checking without reference data: only the rules that need no reference apply), or what
        public_reference gave (a hidden phase)."""
        raise NotImplementedError

    def read_file(self, path: str, display: str, reference: Any, options: Dict[str, Any],
                  max_errors: int = 50) -> Tuple[List[ParsedRun], Diagnostics]:
        """parse() with what it finds collected, never raised: the runs it gave and the diagnostics (a RunError
        from a reader becomes one). A file is valid for this task when the diagnostics hold no error."""
        diags = Diagnostics(display, max_errors)
        runs: List[ParsedRun] = []
        try:
            runs = self.parse(path, display, diags, reference, options)
        except RunError as exc:
            diags.add(exc.diagnostic)
        return runs, diags

    def public_reference(self, reference: Any) -> Any:
        """What of a loaded reference the participants are given anyway to write their runs (the official topic or
        question ids; QRCD's passages), in the form parse() takes, with every judgement, label and gold answer
        left out. A hidden phase checks runs against this alone, so that nothing its messages say can come from
        the hidden items (codabench/disclosure.py). Default None: the task checks runs against no reference there."""
        return None

    def score(self, run: ParsedRun, reference: Any, options: Dict[str, Any]) -> RunScores:
        raise NotImplementedError

    def score_runs(self, runs: List[ParsedRun], reference: Any, options: Dict[str, Any]) -> List[RunScores]:
        """The scores of several runs, in order; a task whose per-run cost is mostly fixed set-up scores them
        together (same numbers as `score` one by one)."""
        return [self.score(run, reference, options) for run in runs]

    # ---------------------------------------------------------------------------- rankings (campaign) ---
    def ranked_lists(self, run: ParsedRun, options: Dict[str, Any],
                     depth: Optional[int] = None) -> "Optional[Dict[str, List[RankedItem]]]":
        """A run's ranking per topic by the task's own rule, as far as the evaluation reads it (its document cap),
        at most `depth` items a topic: what a campaign's pool takes from the run (campaign/pool.py). None when
        the task's runs are not rankings."""
        return None

    def ranked_run(self, run: ParsedRun, options: Dict[str, Any]) -> ParsedRun:
        """What a campaign command keeps of a checked run to score it again (the report's leave-one-team-out scores
        each team's runs against judgements without that team's items): a run this task scores exactly as `run`
        against any of its references with these options, as small as the task can make it. Default: the run."""
        return run

    # ---------------------------------------------------------------------------- measure names ---
    def measure_key(self, name: str, available: Sequence[str], what: str = "measure") -> str:
        """The key in `available` that a typed measure name means; ConfigError with the close names if none.

        Accepted: the key itself (`map_rel1`), its leaderboard key (`ntcir1_adhoc_map_rel1`) or column title,
        any case, trec_eval's `-m` spelling (`P.10`), ir_measures-style names (`AP`, `P@10`, `nDCG@10`), and
        for tasks with measure_variants the name without its suffix (`map` = `map_rel1`).
        """
        from ..measures.names import close_names, spellings, squash   # here: names imports the NTCIREVAL kernels

        if name in available:
            return name
        typed = name.strip()
        for column in self.columns:
            if typed.lower() in (self.leaderboard_key(column), column.key, column.title.lower()) \
                    and column.measure in available:
                return column.measure
        by_form: Dict[str, List[str]] = {}
        for key in available:
            by_form.setdefault(squash(key), []).append(key)
        forms = spellings(typed)
        if typed.lower().startswith(self.key_prefix + "_"):          # a leaderboard key of a measure not shown
            forms += spellings(typed[len(self.key_prefix) + 1:])
        for form in forms:
            for candidate in [form] + [form + squash(v) for v in self.measure_variants]:
                if len(by_form.get(candidate, ())) == 1:
                    return by_form[candidate][0]
        close = close_names(typed, list(available), n=3, suffixes=self.measure_variants)
        hint = " (did you mean %s?)" % ", ".join(close) if close else ""
        kind = "%s measures" % what if what != "measure" else "measures"
        listing = ("; %s: %s" % (kind, ", ".join(available)) if len(available) <= 12 else
                   "; %d %s (`runscore score --json` names them all)" % (len(available), kind))
        raise ConfigError("unknown measure %r for task %s%s" % (name, self.id, hint if close else listing))

    # ---------------------------------------------------------------------------- number format ---
    def is_count(self, name: str) -> bool:
        """Is the value of measure `name` a count (shown as an integer)?"""
        if name in self.count_measures or re.match(r"(num|n)_", name):
            return True
        return any(c.measure == name and c.precision == 0 for c in self.columns)

    def format_value(self, name: str, value: Any) -> str:
        """The one text form of a value of measure `name` in every text output and page: a count as an integer,
        a measure at its leaderboard column's precision (4 decimals when it has no column); None as ''."""
        if value is None:
            return ""
        number = float(value)
        known = self._formats
        if known is None or known[0] is not self.columns or known[1] is not self.count_measures:
            known = self._formats = (self.columns, self.count_measures, {})
        found = known[2].get(name)
        if found is None:
            found = known[2][name] = (self.is_count(name),
                                      next((c.precision for c in self.columns if c.measure == name), 4))
        if found[0] and number.is_integer():
            return "%d" % number
        return "%.*f" % (found[1], number)

    # ---------------------------------------------------------------------------- derived ---
    @property
    def key_prefix(self) -> str:
        return self.id.replace("-", "_")

    def leaderboard_key(self, column: Column) -> str:
        return "%s_%s" % (self.key_prefix, column.key)

    @property
    def primary(self) -> Column:
        return self.columns[0]

    def better(self, measure: str) -> Optional[str]:
        """Which values of a measure are better: "higher", "lower", or None (a description, e.g. a count, that
        ranks nothing). Every retrieval, classification and QA measure of the registries is higher-better; a
        task with other measures overrides this from its measure registry. A leaderboard column sorts by it
        (SORTING), and a column without a direction comes after every ranked one (codabench/leaderboard.py)."""
        return "higher"

    def value_range(self, column: Column) -> Tuple[float, float]:
        """The lowest and highest value a leaderboard column can show (its placeholder included), for the bound on
        what a leaderboard tells of the hidden reference (codabench/channel.py): every retrieval, classification
        and QA measure of the registries lies in [0, 1]."""
        low = 0.0 if self.leaderboard_placeholder is None else min(0.0, self.leaderboard_placeholder)
        return low, 1.0

    def leaderboard_value(self, scores: "RunScores", column: Column) -> float:
        """The value a leaderboard column shows for a run: its measure, or the task's documented placeholder
        when the run has none (KeyError when the task declares no placeholder: a bug of the task)."""
        value = scores.measures.get(column.measure)
        if value is None:
            if self.leaderboard_placeholder is None:
                raise KeyError("task %s gave no value of %s" % (self.id, column.measure))
            return self.leaderboard_placeholder
        return value


# task.yaml as last read, by path: (its bytes, its checked content). A scoring reads it three or four times (the
# competition's tasks, the options, the task's files, the phase's disclosure level) and PyYAML's pure-Python parser
# takes 1-3 ms each time; the bytes are read again and compared, so an edited file is always parsed again.
_TASK_YAML_READ: Dict[str, Tuple[bytes, Dict[str, Any]]] = {}
_TASK_YAML_KEPT_BYTES = 1 << 16          # a bigger task.yaml (never a real one) is parsed every time


def read_task_yaml(folder: str) -> Dict[str, Any]:
    """The reference folder's task.yaml as a dict ({} when absent)."""
    path = os.path.join(folder, "task.yaml")
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, "rb") as handle:
            content = handle.read(_TASK_YAML_KEPT_BYTES + 1)
    except OSError:
        content = None
    if content is None or len(content) > _TASK_YAML_KEPT_BYTES:
        return _parse_task_yaml(path, lambda: open(path, encoding="utf-8"))
    kept = _TASK_YAML_READ.get(path)
    if kept is not None and kept[0] == content:
        return copy.deepcopy(kept[1])
    # the bytes just compared are the ones parsed (the same text stream as a file opened as text would give)
    data = _parse_task_yaml(path, lambda: io.TextIOWrapper(io.BytesIO(content), encoding="utf-8"))
    if len(_TASK_YAML_READ) >= 32:
        _TASK_YAML_READ.clear()
    _TASK_YAML_READ[path] = (content, copy.deepcopy(data))
    return data


def _parse_task_yaml(path: str, text_stream) -> Dict[str, Any]:
    import yaml

    try:
        with text_stream() as handle:
            data = yaml.load(handle, Loader=_strict_loader())
    except ConfigError as exc:
        raise ConfigError(exc.args[0], path, exc.line)
    except yaml.YAMLError as exc:
        # YAML's own message spans several lines; keep its problem and the line it names, on one line.
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise ConfigError("cannot read task.yaml: %s" % problem, path, mark.line + 1 if mark else 0)
    except UnicodeDecodeError as exc:
        raise ConfigError("cannot read task.yaml: %s" % exc, path)
    except RecursionError:
        raise ConfigError("cannot read task.yaml: nested too deeply", path)
    except (ValueError, OverflowError) as exc:   # an integer of more than 4,300 digits (found by make fuzz)
        raise ConfigError("cannot read task.yaml: %s" % short_repr(str(exc)), path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("task.yaml must be a mapping of keys to values", path)
    if "task" in data and not isinstance(data["task"], str):
        raise ConfigError("task must be a task id (see `runscore tasks`), not %s" % short_repr(data["task"]), path)
    return data


@lru_cache(maxsize=1)
def _strict_loader():
    """A SafeLoader that refuses what task.yaml never needs and PyYAML silently accepts: a key given twice (the
    second `options:` replaced the first) and aliases (`*a`: a few lines can expand to gigabytes when printed)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise ConfigError("YAML aliases (*%s) are not accepted in task.yaml; write the value out"
                                  % event.anchor, "", event.start_mark.line + 1)
            return super().compose_node(parent, index)

        def construct_mapping(self, node, deep=False):
            seen = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:       # an unhashable key: PyYAML words it
                    break
                if first is not None:
                    raise ConfigError("key %s is given twice (first at line %d); give it once"
                                      % (short_repr(key), first), "", key_node.start_mark.line + 1)
                seen[key] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep)

    return StrictLoader


def reference_file(folder: str, name: str, what: str) -> str:
    """Path of a file named in task.yaml, relative to the reference folder; ConfigError if missing."""
    if not isinstance(name, str) or not name:
        raise ConfigError("%s file name in task.yaml must be a file name, not %r" % (what, name),
                          os.path.join(folder, "task.yaml"))
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        raise ConfigError("%s file %r named in task.yaml does not exist" % (what, name),
                          os.path.join(folder, "task.yaml"))
    return path


# ------------------------------------------------------------------------------ one submission ---
class SubmissionCache:
    """Caches that live while one submission (one score.py run, one CLI call) is checked, when its files do not
    change: a task may keep there what every run of the submission reads (r2c2-ac: the PR runs beside its AC
    runs, parsed once however many AC runs cite them, so a submission's cost grows with its files, not their
    square). Outside submission_scope() nothing is kept,
    since a file may be rewritten between two calls within one file-system timestamp tick."""

    active = False
    caches: List[dict] = []

    @classmethod
    def register(cls, cache: dict) -> dict:
        cls.caches.append(cache)
        return cache

    @classmethod
    def clear(cls) -> None:
        for cache in cls.caches:
            cache.clear()


@contextmanager
def submission_scope():
    SubmissionCache.clear()
    SubmissionCache.active = True
    try:
        yield
    finally:
        SubmissionCache.active = False
        SubmissionCache.clear()


# ------------------------------------------------------------------------------ helpers of the forms ---
def first_line(head: str) -> Optional[str]:
    """The first non-blank line of a file's start (what `sniff` looks at), or None. Leading blank lines, however
    many, are skipped (discover.read_head starts the head at the first non-blank byte)."""
    for line in head.splitlines():
        if line.strip():
            return line
    return None


def report_duplicate(diags: Diagnostics, line_no: int, message: str, options: Dict[str, Any],
                     kept: str = "the first line is kept") -> None:
    """A repeated id under a task's `duplicates` option: an error, or with keep_first a warning (the caller
    keeps the first line)."""
    if options["duplicates"] == "keep_first":
        diags.warning(line_no, "%s; %s" % (message, kept))
    else:
        diags.error(line_no, message)
