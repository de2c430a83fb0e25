"""Task datasearch-qa: NTCIR-16 Data Search 2, QA subtask (English and Japanese questions on statistical data).

Seed: shared/seeds/003_5e1cf95967db9c51.txt; spec: shared/specs/datasearch-qa.md. Official: the run format
(`<SYSDESC>…</SYSDESC>`, then `QUESTION_ID<TAB>ANSWER` for all test questions), exact match (primary) and
macro-averaged F1 over word SETS. Everything else (gold format, normalisation, Japanese tokenisation, missing
and duplicate ids, empty answers) is Proposed in spec section 4 and is an option here or stated below.
A SQuAD v1.1-compatible pair of scores (bag-of-words F1, max over golds) is reported for comparison.
"""
import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ..errors import ConfigError, ConfigErrors, Diagnostics
from ..measures.qa import (exact_match, make_normalizer, make_tokenizer, max_set_f1, mean, squad11_exact_match,
                           squad11_f1, squad11_max_over_golds)
from ..numeric import json_loads
from ..textfile import lone_surrogate, numbered_lines, read_text
from ..validate import record_schema
from .base import (AGGREGATE, Column, Option, ParsedRun, ReferenceSize, RunScores, Task, first_line, public_note,
                   read_task_yaml, reference_file, report_duplicate)

LANGUAGES = {"E": "English", "J": "Japanese"}
LANGUAGE_NAMES = {"e": "E", "en": "E", "english": "E", "j": "J", "ja": "J", "japanese": "J"}
QID_LANGUAGE = re.compile(r"DS2-QA-([EJ])-")
QID_FORM = re.compile(r"DS2-QA-[EJ]-[0-9]+")
OPEN_TAG = "<SYSDESC>"
# The seed's own example `<SYSDESC>BERT-based approach<SYSDESC>` lacks the slash: accepted with a warning.
CLOSING_TAGS = ("</SYSDESC>", "<SYSDESC>")


def split_sysdesc(line: str) -> Optional[Tuple[str, Optional[str]]]:
    """(description, closing tag or None) of a `<SYSDESC>...</SYSDESC>` line (tags in any case), or None.

    String operations, not a regular expression: a lazy pattern backtracked quadratically on a long line.
    """
    text = line.strip()
    if text[:len(OPEN_TAG)].upper() != OPEN_TAG:
        return None
    body = text[len(OPEN_TAG):]
    upper = body.upper()
    for closing in CLOSING_TAGS:
        if upper.endswith(closing):
            return body[:-len(closing)], body[-len(closing):]
    return body, None
PLACEHOLDER = "[REPLACE ME]"


class Question:
    def __init__(self, qid: str, answers: List[str], lang: str, line: int):
        self.qid = qid
        self.answers = answers
        self.lang = lang
        self.line = line


class Gold:
    """Gold questions in file order."""

    def __init__(self, questions: Dict[str, Question]):
        self.questions = questions


class QaRun:
    def __init__(self, sysdesc: Optional[str]):
        self.sysdesc = sysdesc
        self.answers: Dict[str, str] = {}
        self.lines: Dict[str, int] = {}


class DatasearchQa(Task):
    id = "datasearch-qa"
    topic_unit = "question"
    # "One run per team per day" (the task page): one run a submission, one submission a day on the platform
    max_runs_per_team = 1
    formal_submissions = (1, 100)
    hidden_reference = ReferenceSize(None, 2, None, "test questions (an answer string each; one judgement = whether "
                                     "one candidate answer is correct)",
                                     "specs/datasearch-qa.md: the number of test questions is not in the sources")
    title = "NTCIR-16 Data Search 2 QA"
    tag = "DS2-QA"
    description = "NTCIR-16 Data Search 2 QA (English and Japanese): exact match, macro F1 over word sets"
    run_file_help = ("first line <SYSDESC>description</SYSDESC>, then 'QUESTION_ID<TAB>ANSWER' lines "
                     "(DS2-QA-E-… / DS2-QA-J-…)")
    options = (
        Option("normalization", "strict", "Normaliser of the exact_match column: strict = Unicode NFKC, strip, "
               "whitespace runs collapsed (Proposed); squad = strict, then SQuAD's lower-case, ASCII "
               "punctuation and English article removal.", ("strict", "squad")),
        Option("strip_digit_grouping", False, "Remove a ',' between digits when exactly three digits follow "
               "(13,510,000 = 13510000) before every comparison (Proposed default: off)."),
        Option("ja_tokenizer", "char", "Words of Japanese answers for F1: char = the non-space characters of the "
               "strict-normalised answer (Proposed); whitespace = split on spaces.", ("char", "whitespace")),
        Option("f1_both_empty", 1.0, "Set F1 when the prediction and a gold answer both have no word (e.g. '' vs "
               "'the' in English): 1.0 (Proposed, as SQuAD v2.0) or 0.0 (as SQuAD v1.1).", (1.0, 0.0)),
        Option("missing_question", "zero", "A test question without an answer line: scores 0 and the denominator "
               "stays all questions (Proposed, SQuAD v1.1), or the run is rejected.", ("zero", "error")),
        Option("duplicates", "error", "The same QUESTION_ID twice: an error (Proposed: one answer per question), or "
               "keep the first line and warn.", ("error", "keep_first")),
        Option("tab_in_answer", "keep", "A TAB after the first one: kept as part of the answer with a warning "
               "(Proposed), or the run is rejected.", ("keep", "error")),
        Option("require_sysdesc", False, "Reject a run whose first line is not <SYSDESC>...</SYSDESC> (Proposed "
               "default: a warning only)."),
    )
    columns = (
        Column("exact_match", "Exact match", per_topic="em"),
        Column("macro_f1", "Macro F1 (word sets)", per_topic="f1"),
        Column("exact_match_e", "Exact match (English)"),
        Column("exact_match_j", "Exact match (Japanese)"),
        Column("macro_f1_e", "Macro F1 (English)"),
        Column("macro_f1_j", "Macro F1 (Japanese)"),
        Column("exact_match_squad", "Exact match (SQuAD normalised)", per_topic="em_squad"),
        Column("squad11_f1", "SQuAD v1.1 F1 (bag of words)"),
    )
    per_topic_measures = ("em", "f1", "em_squad", "squad11_em", "squad11_f1")

    def sniff(self, head: str) -> bool:
        line = first_line(head)
        return line is not None and (line.lstrip().upper().startswith("<SYSDESC>")
                                     or QID_LANGUAGE.match(line) is not None)

    # ------------------------------------------------------------------------------ reference ---
    def public_reference(self, reference: Gold) -> Gold:
        """The test questions without their answers: the questions are given to participants."""
        return Gold({qid: Question(qid, [], q.lang, q.line) for qid, q in reference.questions.items()})

    def load_reference(self, ref_path: str, options: Dict[str, Any]) -> Gold:
        if os.path.isfile(ref_path):
            return read_gold(ref_path)
        config = read_task_yaml(ref_path)
        if "gold" not in config:
            raise ConfigError("task.yaml must name the gold answer file (gold: FILE, JSONL or TSV)",
                              os.path.join(ref_path, "task.yaml"))
        return read_gold(reference_file(ref_path, str(config["gold"]), "gold"))

    # ------------------------------------------------------------------------------ parsing ---
    def parse(self, path: str, display: str, diags: Diagnostics, reference: Optional[Gold],
              options: Dict[str, Any]) -> List[ParsedRun]:
        text = read_text(path, display)
        if self.wrong_layout(text, diags, "\t", 2):
            return []
        schema = record_schema("datasearch-qa.record")
        run = QaRun(None)
        first_content = True
        blank_lines: List[int] = []
        tab_lines: List[int] = []
        for line_no, line in numbered_lines(text):
            if not line.strip():
                blank_lines.append(line_no)
                continue
            if first_content:
                first_content = False
                if self._read_sysdesc(line, line_no, run, diags, options):
                    continue
            elif line.lstrip().upper().startswith("<SYSDESC>"):
                diags.error(line_no, "a <SYSDESC> line is allowed only as the first line of the file")
                continue
            if "\t" not in line:
                diags.error(line_no, "expected QUESTION_ID<TAB>ANSWER, found no TAB")
                continue
            qid, answer = line.split("\t", 1)
            qid = qid.strip()
            if "\t" in answer and options["tab_in_answer"] == "error":
                diags.error(line_no, "the answer holds a TAB (a line is QUESTION_ID<TAB>ANSWER, one TAB)")
                continue
            problems = schema.errors({"qid": qid, "answer": answer})
            if problems:
                diags.error(line_no, "; ".join(problems))
                continue
            if "\t" in answer:
                tab_lines.append(line_no)     # warned only for a line that is read ("kept" would contradict an error)
            if qid in run.lines:
                report_duplicate(diags, line_no, "duplicate QUESTION_ID %s (first answered at line %d)"
                                 % (qid, run.lines[qid]), options, "the first answer is kept")
                continue
            run.answers[qid] = answer
            run.lines[qid] = line_no
        if blank_lines:
            diags.warning(blank_lines[0], "blank line ignored" + _more(blank_lines))
        if tab_lines:
            diags.warning(tab_lines[0], "the answer holds a TAB; everything after the first TAB is kept as the "
                          "answer" + _more(tab_lines))
        if not run.answers and not diags.has_errors:
            diags.error(0, "the file holds no answer lines")
        if reference is not None and run.answers:
            self._check_against_reference(run, reference, diags, options)
        elif reference is None:
            odd = [q for q in run.answers if QID_FORM.fullmatch(q) is None]
            if odd:
                diags.warning(run.lines[odd[0]], "QUESTION_ID %s is not of the form DS2-QA-E-#### or DS2-QA-J-####"
                              % odd[0] + _more(odd))
        return [ParsedRun(os.path.basename(display), display, run)]

    @staticmethod
    def _read_sysdesc(line: str, line_no: int, run: QaRun, diags: Diagnostics, options: Dict[str, Any]) -> bool:
        """Read the first line as <SYSDESC>; True if it was one. Missing: a warning (or an error)."""
        parts = split_sysdesc(line)
        if parts is None:
            message = "the first line should be <SYSDESC>description of the system</SYSDESC>"
            if options["require_sysdesc"]:
                diags.error(line_no, message)
            else:
                diags.warning(line_no, message + "; the run is scored without a description")
            return False
        run.sysdesc = parts[0].strip()
        closing = parts[1]
        if closing is None:
            diags.warning(line_no, "the <SYSDESC> line has no closing </SYSDESC>; the rest of the line is taken "
                          "as the description")
        elif "/" not in closing:
            diags.warning(line_no, "the closing tag lacks the slash: write </SYSDESC> (accepted)")
        if not run.sysdesc or run.sysdesc == PLACEHOLDER:
            diags.warning(line_no, "the system description is empty or still %s" % PLACEHOLDER)
        return True

    @staticmethod
    def _check_against_reference(run: QaRun, gold: Gold, diags: Diagnostics, options: Dict[str, Any]) -> None:
        unknown = [q for q in run.answers if q not in gold.questions]
        if unknown:
            diags.warning(run.lines[unknown[0]], "%d QUESTION_ID(s) are not test questions and are ignored: %s"
                          % (len(unknown), _id_list(unknown)))
        missing = [q for q in gold.questions if q not in run.answers]
        if len(missing) == len(gold.questions):
            diags.error(0, "the run answers none of the %d test questions" % len(gold.questions))
        elif missing:
            message = ("no answer for %d of the %d test questions (the run must answer all of them): %s"
                       % (len(missing), len(gold.questions), _id_list(missing)))
            if options["missing_question"] == "error":
                diags.error(0, message)
            else:
                diags.warning(0, message + "; they score 0")

    # ------------------------------------------------------------------------------ scoring ---
    def score(self, run: ParsedRun, reference: Gold, options: Dict[str, Any]) -> RunScores:
        data: QaRun = run.data
        digits = options["strip_digit_grouping"]
        em_normalize = make_normalizer(options["normalization"], digits)
        squad_normalize = make_normalizer("squad", digits)
        tokens = {lang: make_tokenizer(lang, options["ja_tokenizer"], digits) for lang in LANGUAGES}
        per_topic: Dict[str, Dict[str, float]] = {}
        rows = []
        for qid, question in reference.questions.items():
            prediction = data.answers.get(qid)
            if prediction is None:
                values = {"em": 0.0, "f1": 0.0, "em_squad": 0.0, "squad11_em": 0.0, "squad11_f1": 0.0}
            else:
                golds = question.answers
                values = {"em": exact_match(prediction, golds, em_normalize),
                          "f1": max_set_f1(prediction, golds, tokens[question.lang], options["f1_both_empty"]),
                          "em_squad": exact_match(prediction, golds, squad_normalize),
                          "squad11_em": squad11_max_over_golds(squad11_exact_match, prediction, golds),
                          "squad11_f1": squad11_max_over_golds(squad11_f1, prediction, golds)}
            per_topic[qid] = values
            rows.append([qid, question.lang, " | ".join(question.answers),
                         "(no answer)" if prediction is None else prediction or "(empty answer)",
                         "%.0f" % values["em"], "%.4f" % values["f1"]])

        def average(key: str, lang: Optional[str] = None) -> float:
            return mean([per_topic[q][key] for q, question in reference.questions.items()
                         if lang is None or question.lang == lang])

        measures = {"exact_match": average("em"), "macro_f1": average("f1")}
        for lang in LANGUAGES:
            measures["exact_match_%s" % lang.lower()] = average("em", lang)
            measures["macro_f1_%s" % lang.lower()] = average("f1", lang)
        measures.update({"exact_match_squad": average("em_squad"), "squad11_em": average("squad11_em"),
                         "squad11_f1": average("squad11_f1")})
        counts = {lang: sum(1 for q in reference.questions.values() if q.lang == lang) for lang in LANGUAGES}
        missing = sum(1 for q in reference.questions if q not in data.answers)
        measures.update({"num_q": float(len(reference.questions)), "num_q_e": float(counts["E"]),
                         "num_q_j": float(counts["J"]), "num_missing": float(missing)})
        notes = [public_note("%s: no %s question in the reference; its columns are reported as 0"
                             % (run.name, LANGUAGES[lang])) for lang in LANGUAGES if not counts[lang]]
        if missing:
            notes.append(public_note("%s: %d test question(s) without an answer score 0" % (run.name, missing)))
        setting = ("normalization=%s, strip_digit_grouping=%s, ja_tokenizer=%s, f1_both_empty=%s; F1 over word sets, "
                   "max over gold answers; means over all %d test questions"
                   % (options["normalization"], digits, options["ja_tokenizer"], options["f1_both_empty"],
                      len(reference.questions)))
        tables = [{"caption": "Configuration and system description: %s" % run.name, "header": ["item", "value"],
                   "rows": [["scoring", setting], ["SYSDESC", data.sysdesc if data.sysdesc is not None else
                                                   "(none)"]], "shown_from": AGGREGATE},
                  {"caption": "Per question: %s" % run.name,
                   "header": ["question", "lang", "gold answers", "prediction", "EM", "F1"], "rows": rows}]
        return RunScores(measures, per_topic, notes, tables)


# ------------------------------------------------------------------------------ gold file ---

def read_gold(path: str) -> Gold:
    """Gold answers from JSONL ({"qid", "answers": [...], "lang"?}) or TSV (`qid<TAB>answer`, a qid repeated
    for each further acceptable answer). Language = the letter after DS2-QA- unless `lang` says otherwise."""
    jsonl = path.lower().endswith((".jsonl", ".json"))
    questions: Dict[str, Question] = {}
    problems = ConfigErrors()
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip():
            continue
        with problems.catch():            # every bad line is told at once, not the first only
            if jsonl:
                qid, answers, lang = _gold_json_line(line, path, line_no)
            else:
                if line.startswith("#") or (line_no == 1 and line.lower().split("\t")[:2] == ["qid", "answer"]):
                    continue
                if "\t" not in line:
                    raise ConfigError("expected 'qid<TAB>answer'", path, line_no)
                qid, answer = line.split("\t", 1)
                qid, answers, lang = qid.strip(), [answer], None
                if qid in questions:
                    questions[qid].answers.append(answer)
                    continue
            if not qid or qid in questions:
                raise ConfigError("duplicate qid %s (first at line %d)" % (qid, questions[qid].line) if qid else
                                  "empty qid", path, line_no)
            questions[qid] = Question(qid, answers, _language(qid, lang, path, line_no), line_no)
    problems.check()
    if not questions:
        raise ConfigError("the gold file holds no question", path)
    return Gold(questions)


def _gold_json_line(line: str, path: str, line_no: int):
    try:
        record = json_loads(line)
    except (ValueError, RecursionError) as exc:    # bad JSON, a number too long for int(), nesting too deep
        raise ConfigError("not a JSON object: %s" % str(exc)[:80], path, line_no)
    if not isinstance(record, dict):
        raise ConfigError("expected a JSON object with qid and answers", path, line_no)
    broken = lone_surrogate(line, record)
    if broken:
        raise ConfigError(broken, path, line_no)
    qid, answers, lang = record.get("qid"), record.get("answers"), record.get("lang")
    if not isinstance(qid, str):
        raise ConfigError("qid must be a string", path, line_no)
    if not (isinstance(answers, list) and answers and all(isinstance(a, str) for a in answers)):
        raise ConfigError("answers of %s must be a non-empty list of strings" % qid, path, line_no)
    if lang is not None and not isinstance(lang, str):
        raise ConfigError("lang of %s must be a string (E or J)" % qid, path, line_no)
    return qid.strip(), list(answers), lang


def _language(qid: str, lang: Optional[str], path: str, line_no: int) -> str:
    if lang is not None:
        code = LANGUAGE_NAMES.get(lang.strip().lower())
        if code is None:
            raise ConfigError("lang %r of %s is not E (English) or J (Japanese)" % (lang, qid), path, line_no)
        return code
    match = QID_LANGUAGE.match(qid)
    if match is None:
        raise ConfigError("the language of %s is unknown: the id does not start with DS2-QA-E- or DS2-QA-J- and "
                          "there is no lang field" % qid, path, line_no)
    return match.group(1)


def _more(lines: List[int]) -> str:
    return " (and %d more lines like it)" % (len(lines) - 1) if len(lines) > 1 else ""


def _id_list(ids: List[str], limit: int = 10) -> str:
    return ", ".join(ids[:limit]) + (" ..." if len(ids) > limit else "")


TASK = DatasearchQa()
