"""Task r2c2-ac: NTCIR-19 R2C2 answers with confidence; HMR, Accuracy, MNP, R_O, R_U, avconf, OB from labels.

Seed: shared/seeds/000_13a97d0348fb03bd.txt; spec: shared/specs/r2c2.md sections 1.2, 2, 3, 5, 6 and 8. This
module only wires the stages: the block parser (runscore.tasks.r2c2.ac_format), PassageKey resolution against the
PR-run pool of the reference and the PR runs sent with the run (runscore.tasks.r2c2.passages), the judgement
labels (runscore.tasks.r2c2.labels), the non-official automatic judge (runscore.tasks.r2c2.autojudge) and the measures
(runscore.measures.confidence).
"""
import os
import re
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from ...errors import ConfigError, Diagnostics
from ...measures import confidence as cm
from .pr_format import RUN_NAME_PATTERN as PR_RUN_NAME_PATTERN
from .ac_format import AC_RUN_NAME_PATTERN, CONFIDENCE_RULES, ACRun, parse_ac_run
from .passages import PassagePool, companion_problem, load_pool, missing_rank_message, submission_pr_runs, unknown_run_message
from .autojudge import MATCH_RULES, matches, read_gold_answers
from .pr_format import normalise_qid
from .assessed import (CHANGED_PARTS, UNCHECKED_LABELS, AssessedAC, answer_fingerprint, nugget_fingerprint,
                       read_assessed_ac_runs)
from .labels import Labels, read_labels, unused_labels
from ...textfile import numbered_lines, read_text
from ..assessing import RUN, AssessmentForm, LabelScale
from ..base import (Column, public_note, Option, ParsedRun, ReferenceSize, RunScores, Task, first_line,
                    read_task_yaml, reference_file)

AUTO_NOTE = "auto_* measures: NON-OFFICIAL automatic judge (normalised match against the gold answers)"
# What a run without judgement labels cannot have (each needs y_t, the label of an answer), and what the auto
# judge reports; avconf, n_answered and the nugget counts need neither.
LABEL_MEASURES = ("hmr", "accuracy", "mnp", "r_o", "r_u", "ob", "n_correct", "brier_unofficial",
                  "ece_unofficial")
AUTO_MEASURES = ("hmr", "accuracy", "r_o", "r_u", "ob")


class ACReference:
    """Official topics, the PR-run pool, labels (None if the reference has none), gold answers (may be {}).
    public: the official topics alone (R2C2AC.public_reference): a run is then checked for its format, its
    topics and its citations of the PR runs sent with it, and nothing is joined."""

    def __init__(self, topics: List[str], pool: PassagePool, labels: Optional[Labels], golds: Dict[str, List[str]],
                 assessed: Optional[Dict[str, AssessedAC]] = None, public: bool = False):
        self.topics = topics
        self.pool = pool
        self.labels = labels
        self.golds = golds
        self.assessed = assessed      # run name -> fingerprints of what was judged; None: labels unchecked
        self.public = public


class JudgedTopic:
    """One official question of one run, joined with everything known about it."""

    def __init__(self, qid: str, answered: bool, confidence: float, answer: str):
        self.qid = qid
        self.answered = answered
        self.confidence = confidence       # 0-100 scale
        self.answer = answer
        self.correct: Optional[int] = None  # from labels
        self.auto_correct: Optional[int] = None
        self.n_nuggets = 0
        self.n_unresolved = 0
        self.n_entailed = 0
        self.n_relevant = 0
        self.changed = 0                   # judged parts that differ from the assessed run (labels not applied)


class JudgedRun:
    def __init__(self, run: ACRun, topics: Dict[str, JudgedTopic], labelled: bool):
        self.run = run
        self.topics = topics
        self.labelled = labelled


class Replay:
    """Checks one uploaded run against the fingerprints of the run assessed under its name (tasks/r2c2/assessed.py);
    every difference is told on its own line, as an error or (changed_parts: unjudged) a warning. Messages name only
    what the participant sent: never the assessed text, a reference path or a line of a label file."""

    def __init__(self, assessed: Optional[AssessedAC], run_name: str, rule: str, diags: Diagnostics):
        self.assessed = assessed or AssessedAC()
        self.run_name = run_name
        self.rule = rule
        self.diags = diags
        self.left: Dict[str, Any] = {}
        self.differences = 0

    def _tell(self, line: int, message: str, instead: str) -> None:
        self.differences += 1
        if self.rule == "error":
            self.diags.error(line, message + "; a replay leaderboard scores only the runs as they were assessed "
                             "(docs/r2c2-ac.md)")
        else:
            self.diags.warning(line, "%s; %s" % (message, instead))

    def same_answer(self, qid: str, block) -> bool:
        if self.assessed.answers.get(qid) == answer_fingerprint(block.answer, block.confidence):
            return True
        self._tell(block.answer_line or block.line, "question %s: the answer or its Confidence differs from run %s "
                   "as it was assessed, so its label does not apply" % (qid, self.run_name),
                   "counted as incorrect")
        return False

    def same_nugget(self, qid: str, nugget, pr_run: str) -> bool:
        left = self.left.get(qid)
        if left is None:
            left = self.left[qid] = Counter(self.assessed.nuggets.get(qid, ()))
        fingerprint = nugget_fingerprint(nugget.number, pr_run, nugget.rank, nugget.text)
        if left[fingerprint] > 0:
            left[fingerprint] -= 1
            return True
        self._tell(nugget.line, "question %s: nugget line %d;%s;%d differs from run %s as it was assessed (its "
                   "NuggetNum, cited passage or text), so its label does not apply"
                   % (qid, nugget.number, nugget.pr_run if len(nugget.pr_run) <= 60 else nugget.pr_run[:57] + "...",
                      nugget.rank, self.run_name), "counted as not entailed")
        return False

    def missing_nuggets(self, qid: str, block, changed_lines: int) -> int:
        """Nugget lines of the assessed answer that this run leaves out (beyond the `changed_lines` it changed in
        place): told, and returned so that they stay in the NugPrec denominator (dropping the non-relevant lines
        of an assessed run would raise its MNP)."""
        left = self.left.get(qid)
        if left is None:
            left = Counter(self.assessed.nuggets.get(qid, ()))
        missing = max(0, sum(left.values()) - changed_lines)
        if missing:
            self._tell(block.line, "question %s: %d nugget line(s) of run %s as it was assessed are missing here"
                       % (qid, missing, self.run_name), "they stay in the NugPrec denominator, as not relevant")
        return missing

    def missing_questions(self, blocks, official) -> None:
        """Official questions the assessed run answers that this run leaves out or empty (counted, not named)."""
        missing = [q for q in self.assessed.answers if q in official and (q not in blocks or not blocks[q].answered)]
        if missing:
            self._tell(0, "%d question(s) answered in run %s as it was assessed are not answered here"
                       % (len(missing), self.run_name), "they count as absent")


# What assessors judge (the official Stage A and Stage B, specs/r2c2.md 2): each distinct answer of a question,
# correct or not, and each distinct nugget against the passage it cites. The reference writer turns a nugget's 1
# into entailed and its 2 into entailed and relevant where the answer is labelled correct.
ASSESSMENT = AssessmentForm(
    scales={"answer": LabelScale(("0", "1"), ("0", "1"), ("incorrect", "correct"),
                                 ("the answer does not answer the question correctly",
                                  "the answer is correct")),
            "nugget": LabelScale(("0", "1", "2"), ("0", "1", "2"),
                                 ("not entailed", "entailed", "entailed and helpful"),
                                 ("the cited passage does not support the nugget (a bogus nugget)",
                                  "the cited passage supports the nugget",
                                  "supported, and it helps derive a correct answer to the question"))},
    default_unit="nugget", text_source=RUN, normalise_topic=normalise_qid)


class R2C2AC(Task):
    id = "r2c2-ac"
    title = "NTCIR-19 R2C2 answers with confidence (AC)"
    tag = "R2C2-AC"
    description = "NTCIR-19 R2C2 AC runs [Team]-AC-[1-4]: HMR, Accuracy, MNP, R_O, R_U, avconf, OB from labels"
    run_file_help = ("a file named [TeamName]-AC-[RunNumber] (RunNumber 1-4, optional .txt), UTF-8 <D0001> ... "
                     "</D0001> blocks of 'Answer;Confidence' and 'NuggetNum;PRrunname;PassageRank;Nugget' lines")
    name_pattern = AC_RUN_NAME_PATTERN + r"(\.txt)?"
    companion_pattern = PR_RUN_NAME_PATTERN + r"(\.txt)?"   # the submission's own PR runs, cited by nuggets
    max_runs_per_team = 4
    formal_submissions = (4, 4)     # up to 4 AC runs per team (the seed)
    options = (
        Option("confidence_out_of_range", "error", "A Confidence outside [0-100]: an error (the seed) or clamped "
               "into the range with a warning. Proposed.", CONFIDENCE_RULES),
        Option("empty_block", "absent", "An empty element <D0005></D0005>: the question counts as absent from "
               "the run (not in n_s; Proposed, spec open question 4) or as answered wrongly at confidence 0.",
               ("absent", "wrong")),
        Option("submission_pr_runs", True, "Resolve PassageKeys also against the PR runs lying next to the AC "
               "run in the submission (files named [Team]-{PG|PO}-[1-4]); the reference pool wins on a name "
               "clash."),
        Option("unresolved_nuggets", "not_entailed", "A nugget whose PassageKey names no passage: not entailed "
               "whatever its label says (as the official Stage A treats it), or its label is used as given.",
               ("not_entailed", "labels")),
        Option("unlabelled_runs", "error", "A run without judgement labels in the reference: an error (replay "
               "of the official labels: only assessed runs can be scored), or auto_only: the measures that need "
               "labels (HMR, Accuracy, MNP, R_O, R_U, OB) are not computed (labelled = 0; a leaderboard column "
               "shows -2, not judged), avconf, n_answered and the nugget counts are, and only the "
               "non-official auto_* measures judge the run.",
               ("error", "auto_only")),
        Option("changed_parts", "error", "Replay: a judged part (an answer with its confidence, a nugget line) "
               "that differs from the run as assessed (task.yaml assessed_runs), or a question the assessed run "
               "answers and this one does not: an error, one per line (default: a replay leaderboard scores only "
               "the assessed runs), or unjudged: a warning per line, and the labels do not apply there (a changed "
               "answer counts as incorrect, a changed nugget as not entailed).", CHANGED_PARTS),
        Option("unchecked_labels", "error", "Labels without the assessed runs to check an uploaded run against "
               "(no assessed_runs in task.yaml): a reference error (default), or trust: labels apply by run "
               "name alone (only for a researcher scoring the very files that were assessed, never on a "
               "leaderboard: any file named like an assessed run would earn its labels).", UNCHECKED_LABELS),
        Option("auto_match", "contains", "Rule of the NON-OFFICIAL automatic judge: contains = a normalised gold "
               "answer occurs as whole words in the normalised answer; exact = equal after normalisation.",
               MATCH_RULES),
        Option("ece_bins", 10, "Equal-width confidence bins of the non-official ECE diagnostic (1-1000).",
               minimum=1, maximum=1000),
    )
    columns = (
        Column("hmr", "HMR"),
        Column("accuracy", "Accuracy (answered)"),
        Column("mnp", "MNP (mean nugget precision)"),
        Column("r_o", "R_O (overconfidence reward)"),
        Column("r_u", "R_U (underconfidence reward)"),
        Column("auto_hmr", "HMR (auto judge, unofficial)"),
        Column("auto_accuracy", "Accuracy (auto, unofficial)"),
        # Descriptions, not rankings (no better direction: OB is best at 0): after every ranked column, so
        # they never decide the order of two rows that differ in a ranked measure.
        Column("avconf", "avconf (average confidence)"),
        Column("ob", "OB (avconf - accuracy)"),
        Column("n_answered", "n (questions answered)", precision=0),
    )
    # A leaderboard column whose measure a run cannot have (no labels, or no gold answers for auto_*) shows this
    # value: below every HMR, Accuracy, MNP, R_O, R_U (in [0, 1]) and OB (in [-1, 1]), so it is never read as a
    # score and such a run is never shown above a judged one (docs/r2c2-ac.md).
    leaderboard_placeholder = -2.0
    assessment = ASSESSMENT
    per_topic_measures = ("answered", "confidence", "correct", "nugprec", "n_nuggets", "n_unresolved",
                          "n_entailed", "n_relevant", "auto_correct")
    count_measures = ("answered", "correct", "auto_correct")     # 1 or 0 per question
    per_topic_effectiveness = ("answered", "confidence", "correct", "nugprec", "auto_correct")
    # The labels are joined and the assessed runs replayed while parsing: a hidden phase parses twice.
    runs_need_reference = True
    hidden_reference = ReferenceSize(None, 2, 64, "labels of the assessed runs' answers and nugget lines (correct or "
                                     "not, entailed or not) and the gold answers of 64 questions",
                                     "specs/r2c2.md: 65 questions, 64 scored; the number of labels depends on "
                                     "the runs assessed")

    def value_range(self, column) -> Tuple[float, float]:
        """OB is avconf - accuracy; n counts the answered questions (R2C2 has 65); every column may show the
        placeholder."""
        low, high = {"ob": (-1.0, 1.0), "n_answered": (0.0, 65.0)}.get(column.measure, (0.0, 1.0))
        return min(low, self.leaderboard_placeholder), high

    def better(self, measure: str) -> Optional[str]:
        """From the measure registry (measures/confidence.py); auto_* as their labelled twins; counts rank
        nothing."""
        return cm.BETTER.get(measure[len("auto_"):] if measure.startswith("auto_") else measure)

    def team_of(self, run: ParsedRun) -> str:
        match = re.fullmatch(AC_RUN_NAME_PATTERN, run.name)
        return match.group("team") if match else run.name

    def run_number(self, run: ParsedRun) -> Optional[int]:
        """RunNumber of `[TeamName]-AC-[RunNumber]`."""
        match = re.fullmatch(AC_RUN_NAME_PATTERN, run.name)
        return int(match.group("number")) if match else None

    def companion_error(self, path: str, display: str):
        return companion_problem(path, display)

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        return line is not None and re.match(r"\s*<[Dd][0-9]{3,4}>", line) is not None

    def answered_topics(self, run: ParsedRun) -> Optional[List[str]]:
        return [q for q, block in run.data.run.blocks.items() if block.answered]

    def official_topics(self, listed) -> set:
        return {normalise_qid(str(t)) or str(t) for t in listed}

    # ------------------------------------------------------------------------------ reference ---
    def public_reference(self, reference: ACReference) -> ACReference:
        """The official questions only: the PR-run pool (with its aliases), the labels, the gold answers and the
        assessed runs stay hidden (which runs the pool holds and which were assessed too)."""
        return ACReference(list(reference.topics), PassagePool({}), None, {}, public=True)

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> ACReference:
        if not os.path.isdir(ref_path):
            raise ConfigError("the r2c2-ac reference is a folder with task.yaml (topics, pr_runs, labels, "
                              "gold answers), not a single file", ref_path)
        config = read_task_yaml(ref_path)
        where = os.path.join(ref_path, "task.yaml")
        aliases = config.get("pr_run_aliases") or {}
        if not isinstance(aliases, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in aliases.items()):
            raise ConfigError("pr_run_aliases must map display names to PR run names", where)
        if "pr_runs" in config:
            pool = load_pool(os.path.join(ref_path, str(config["pr_runs"])), aliases)
        else:
            pool = PassagePool({}, aliases)
        labels = None
        if "answer_labels" in config:
            nugget_path = None
            if "nugget_labels" in config:
                nugget_path = reference_file(ref_path, str(config["nugget_labels"]), "nugget labels")
            labels = read_labels(reference_file(ref_path, str(config["answer_labels"]), "answer labels"),
                                 nugget_path, aliases)
        elif "nugget_labels" in config:
            raise ConfigError("nugget_labels needs answer_labels too (relevance requires a correct answer)", where)
        if labels is None and options["unlabelled_runs"] == "error":
            raise ConfigError("the reference has no judgement labels (answer_labels); add them, or set the option "
                              "unlabelled_runs: auto_only to judge runs only by the non-official auto judge", where)
        golds: Dict[str, List[str]] = {}
        if "gold_answers" in config:
            golds = read_gold_answers(reference_file(ref_path, str(config["gold_answers"]), "gold answers"))
        topics = self._topics(ref_path, config, where, golds)
        assessed = None
        if "assessed_runs" in config:
            folder = config["assessed_runs"]
            if not isinstance(folder, str) or not folder:
                raise ConfigError("assessed_runs must name a folder of the assessed AC run files", where)
            assessed = read_assessed_ac_runs(os.path.join(ref_path, folder), aliases)
        if labels is not None and assessed is None and options["unchecked_labels"] == "error":
            raise ConfigError("the labels cannot be checked against an uploaded run: add assessed_runs (a folder "
                              "holding the AC runs as they were assessed), or set unchecked_labels: trust (labels "
                              "by run name alone; any file named like an assessed run then earns its labels)",
                              where)
        if labels is not None and assessed is not None:
            lacking = sorted(labels.runs - set(assessed))
            if lacking:
                raise ConfigError("labelled run(s) without an assessed copy in assessed_runs: %s"
                                  % ", ".join(lacking[:10]), where)
        return ACReference(topics, pool, labels, golds, assessed)

    @staticmethod
    def _topics(ref_path: str, config: Dict[str, Any], where: str, golds: Dict[str, List[str]]) -> List[str]:
        listed = config.get("topics")
        if listed is None:
            if not golds:
                raise ConfigError("task.yaml must give the official topic list (topics: a file or a list)", where)
            return sorted(golds)
        if isinstance(listed, list):
            raw = [(0, str(t)) for t in listed]
            source = where
        else:
            source = reference_file(ref_path, str(listed), "topics")
            raw = [(n, line) for n, line in numbered_lines(read_text(source, error_class=ConfigError))
                   if line.strip()]
        topics = []
        for line_no, text in raw:
            qid = normalise_qid(text)
            if qid is None:
                raise ConfigError("%r is not a question id" % text.strip(), source, line_no)
            if qid in topics:
                raise ConfigError("question %s is listed twice" % qid, source, line_no)
            topics.append(qid)
        if not topics:
            raise ConfigError("the official topic list is empty", source)
        return topics

    # ------------------------------------------------------------------------------ parsing ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[ACReference],
              options: Dict[str, Any]) -> List[ParsedRun]:
        run = parse_ac_run(path, display, diags, confidence_rule=options["confidence_out_of_range"])
        pool = reference.pool if reference is not None else PassagePool({})
        if options["submission_pr_runs"]:
            pool = pool.merged(submission_pr_runs(path, display, diags, pool if reference is not None else None))
        if reference is None:
            self._resolve_all(run, run.blocks, pool, diags, False, options["unresolved_nuggets"])
            return [ParsedRun(run.name, display, JudgedRun(run, {}, False))]
        if reference.public:       # the topics only; a citation of a run outside the submission is not told
            self._check_topics(run, reference, diags)
            self._resolve_all(run, run.blocks, pool, diags, False, options["unresolved_nuggets"])
            return [ParsedRun(run.name, display, JudgedRun(run, {}, False))]
        official = self._check_topics(run, reference, diags)
        blocks = {q: b for q, b in run.blocks.items() if q in official}
        resolved = self._resolve_all(run, blocks, pool, diags, True, options["unresolved_nuggets"])
        labels = reference.labels
        labelled = labels is not None and labels.has_run(run.name)
        if not labelled and options["unlabelled_runs"] == "error":
            diags.error(0, "the reference has no judgement labels for run %s; this leaderboard replays the "
                        "official labels, so only assessed runs can be scored" % run.name)
        topics: Dict[str, JudgedTopic] = {}
        used_answers, used_nuggets = set(), set()
        check = Replay(reference.assessed.get(run.name), run.name, options["changed_parts"], diags) \
            if labelled and reference.assessed is not None and not diags.has_errors else None
        for qid, block in blocks.items():
            if not block.answered and options["empty_block"] == "absent":
                continue
            # here the block is answered, or empty and counted as a wrong answer at confidence 0
            topic = JudgedTopic(qid, True, block.confidence or 0.0, block.answer or "")
            topics[qid] = topic
            if reference.golds:
                topic.auto_correct = int(block.answered and matches(block.answer, reference.golds.get(qid, []),
                                                                    options["auto_match"]))
            topic.n_nuggets = len(block.nuggets)
            topic.n_unresolved = sum(1 for n in block.nuggets if not resolved[n.line])
            if labelled:
                self._join_labels(topic, block, run.name, labels, pool, resolved, options, diags,
                                  used_answers, used_nuggets, check)
        if check is not None:
            check.missing_questions(blocks, official)
        # Counts of unused labels help an organiser whose labels miss the assessed run; for a run that differs
        # from it they would only tell the participant how many labels the assessed run has.
        if labelled and (check is None or not check.differences):
            for message in unused_labels(labels, run.name, used_answers, used_nuggets):
                diags.warning(0, message)
        return [ParsedRun(run.name, display, JudgedRun(run, topics, labelled))]

    @staticmethod
    def _check_topics(run: ACRun, reference: ACReference, diags: Diagnostics) -> set:
        """Blocks of questions that are not official are ignored (a warning); a run answering none is an error."""
        official = set(reference.topics)
        unknown = [q for q in run.blocks if q not in official]
        if unknown:
            diags.warning(run.blocks[unknown[0]].line, "%d block(s) for questions that are not official are "
                          "ignored: %s" % (len(unknown), ", ".join(unknown[:10]) + (" ..." if len(unknown) > 10
                                                                                    else "")))
        if run.blocks and not official & set(run.blocks):
            diags.error(0, "no block answers an official question (%s ... %s)"
                        % (reference.topics[0], reference.topics[-1]))
        return official

    @staticmethod
    def _join_labels(topic: JudgedTopic, block, run_name: str, labels: Labels, pool: PassagePool,
                     resolved: Dict[int, bool], options: Dict[str, Any], diags: Diagnostics,
                     used_answers: set, used_nuggets: set, check: Optional["Replay"] = None) -> None:
        """Fill the label-based fields of one topic: correctness, entailed and relevant nugget lines; with
        `check`, a label applies only to a part as it was assessed."""
        answer = labels.answers.get((run_name, topic.qid))
        if check is not None and block.answered and not check.same_answer(topic.qid, block):
            topic.changed += 1
            topic.correct = 0
            if answer is not None:
                used_answers.add((run_name, topic.qid))
        elif answer is None:
            if block.answered:
                diags.warning(block.answer_line, "no answer label for question %s of run %s; counted as "
                              "incorrect" % (topic.qid, run_name))
            topic.correct = 0
        else:
            used_answers.add((run_name, topic.qid))
            topic.correct = answer.correct
        changed_lines = 0
        for nugget in block.nuggets:
            key = labels.nugget_key(run_name, topic.qid, nugget.number, pool.name_of(nugget.pr_run), nugget.rank)
            if check is not None and not check.same_nugget(topic.qid, nugget, pool.name_of(nugget.pr_run)):
                topic.changed += 1
                changed_lines += 1
                if key in labels.nuggets:
                    used_nuggets.add(key)
                continue
            label = labels.nuggets.get(key)
            if label is None:
                diags.warning(nugget.line, "no label for nugget %d of question %s; counted as not entailed "
                              "and not relevant" % (nugget.number, topic.qid))
                continue
            used_nuggets.add(key)
            usable = resolved[nugget.line] or options["unresolved_nuggets"] == "labels"
            topic.n_entailed += int(usable and label.entailed)
            topic.n_relevant += int(usable and label.relevant and topic.correct == 1)
        if check is not None and block.answered:
            missing = check.missing_nuggets(topic.qid, block, changed_lines)
            topic.changed += missing
            topic.n_nuggets += missing

    @staticmethod
    def _resolve_all(run: ACRun, blocks, pool: PassagePool, diags: Diagnostics, warn_unknown: bool,
                     unresolved: str) -> Dict[int, bool]:
        """line -> does the nugget on that line cite an existing passage; warnings for those that do not (one
        per unknown run name, one per missing rank), saying what `unresolved` (the option) makes of them."""
        resolved: Dict[int, bool] = {}
        unknown_runs: Dict[str, List[int]] = {}
        for qid, block in blocks.items():
            for nugget in block.nuggets:
                found = pool.resolve(qid, nugget.pr_run, nugget.rank)
                resolved[nugget.line] = found.ok
                if found.ok:
                    continue
                if found.reason == "unknown_run":
                    unknown_runs.setdefault(nugget.pr_run, []).append(nugget.line)
                else:
                    diags.warning(nugget.line, missing_rank_message(qid, found.run_name, nugget.rank, unresolved))
        if warn_unknown:
            for written, lines in unknown_runs.items():
                diags.warning(lines[0], unknown_run_message(written, pool.name_of(written), list(pool.runs),
                                                            len(lines), unresolved))
        return resolved

    # ------------------------------------------------------------------------------ scoring ---
    def _placeholder_note(self) -> str:
        return " (a leaderboard column of one shows %g: not judged)" % self.leaderboard_placeholder

    def score(self, run: ParsedRun, reference: ACReference, options: Dict[str, Any]) -> RunScores:
        judged: JudgedRun = run.data
        answered = [judged.topics[t] for t in reference.topics if t in judged.topics and judged.topics[t].answered]
        notes: List[str] = []
        measures: Dict[str, float] = {}
        confidences = [t.confidence for t in answered]
        if judged.labelled:
            measures.update(cm.confidence_measures([t.correct for t in answered], confidences, options["ece_bins"]))
        else:
            # Only what needs no judgement is computed; the label-based measures are absent, not 0 (a 0 would
            # read as a judgement). A leaderboard column shows leaderboard_placeholder instead.
            measures["avconf"] = cm.avconf([c / 100.0 for c in confidences])
            measures["n_answered"] = float(len(answered))
            notes.append(public_note("%s: no judgement labels, so the measures that need them (%s) are not "
                                     "computed%s; avconf, n_answered and the nugget counts need none and are"
                                     % (run.name, ", ".join(LABEL_MEASURES), self._placeholder_note())))
        nugprec = {t.qid: cm.nugget_precision(t.n_relevant, t.n_nuggets)
                   for t in answered} if judged.labelled else {}
        if judged.labelled:
            measures["mnp"] = cm.mean_nugget_precision(nugprec, reference.topics)
        measures["labelled"] = 1.0 if judged.labelled else 0.0
        changed = sum(t.changed for t in judged.topics.values())
        measures["n_changed_parts"] = float(changed)
        if changed:
            notes.append("%s: %d judged part(s) differ from the run as it was assessed; the labels do not apply "
                         "there (option changed_parts: unjudged)" % (run.name, changed))
        measures["n_topics"] = float(len(reference.topics))
        measures["n_nuggets"] = float(sum(t.n_nuggets for t in answered))
        measures["n_nuggets_unresolved"] = float(sum(t.n_unresolved for t in answered))
        if not answered and judged.labelled:
            notes.append(public_note("%s answers no official question: Accuracy = avconf = 0 and R_O = R_U = HMR "
                                     "= 1 by convention; read HMR together with Accuracy" % run.name))
        elif not answered:
            notes.append(public_note("%s answers no official question: avconf = 0 by convention" % run.name))
        if reference.golds:
            auto = cm.confidence_measures([t.auto_correct or 0 for t in answered], confidences)
            for key in AUTO_MEASURES:
                measures["auto_" + key] = auto[key]
            notes.append(public_note("%s: %s (%s match)" % (run.name, AUTO_NOTE, options["auto_match"])))
            no_gold = [t for t in reference.topics if t not in reference.golds]
            if no_gold:
                notes.append("%d official question(s) have no gold answer; the auto judge counts their answers "
                             "wrong: %s" % (len(no_gold), ", ".join(no_gold[:10])))
        else:
            notes.append(public_note("no gold answers in the reference: the auto_* measures are not computed%s"
                                     % self._placeholder_note()))
        per_topic = {}
        for qid in reference.topics:
            topic = judged.topics.get(qid)
            row = {"answered": 0.0}
            if judged.labelled:
                row["nugprec"] = 0.0
            if topic is not None and topic.answered:
                row.update({"answered": 1.0, "confidence": topic.confidence / 100.0,
                            "n_nuggets": float(topic.n_nuggets), "n_unresolved": float(topic.n_unresolved)})
                if judged.labelled:
                    row.update({"correct": float(topic.correct), "n_entailed": float(topic.n_entailed),
                                "n_relevant": float(topic.n_relevant), "nugprec": nugprec.get(qid, 0.0)})
                if topic.auto_correct is not None:
                    row["auto_correct"] = float(topic.auto_correct)
            per_topic[qid] = row
        table_rows = [[t.qid, _short(t.answer), "%g" % t.confidence,
                       "" if t.correct is None else str(t.correct),
                       "" if t.auto_correct is None else str(t.auto_correct)] for t in answered]
        tables = [{"caption": "Answers: %s" % run.name,
                   "header": ["question", "answer", "Confidence", "correct (labels)", "correct (auto, non-official)"],
                   "rows": table_rows}]
        return RunScores(measures, per_topic, notes, tables)


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


TASK = R2C2AC()
