"""CodaLab v1.5 rules (no `version`): the legacy keys, phases and the single leaderboard.
"""
from typing import Any, Dict, List, Optional

from ..leaderboard import score_keys
from ...tasks import get_task
from .archive import BundleView
from .base import (COLUMN_KEY, LinterBase, MAX_COLUMN_KEY, MAX_COLUMN_TITLE, MAX_LABEL_V1, MAX_TITLE_V1, V1_HTML,
                   V1_TOP_KEYS, YAML_NAME)
from .reference import reference_tasks


class V1Rules(LinterBase):
    def check_v1(self, data: Dict) -> None:
        unknown = sorted(set(data) - V1_TOP_KEYS)
        for key in unknown:
            self.error("v1-unknown-key", "unknown top-level key `%s`: CodaLab v1 passes these keys to its "
                       "Competition model and fails on unknown ones" % key, (key,))
        yamls = [n for n in self.bundle.names if n.endswith(".yaml") or ".yaml" in n]
        if yamls and yamls[0] != YAML_NAME:
            self.error("v1-first-yaml", "the first .yaml entry of the bundle is %s: CodaLab v1 reads the first entry "
                       "whose name contains .yaml; write competition.yaml first" % yamls[0])
        title = data.get("title")
        if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE_V1:
            self.error("v1-title", "title must be a non-empty text of at most %d characters" % MAX_TITLE_V1,
                       ("title",))
        if "image" in data:
            self.check_file_ref(data["image"], "image", ("image",), non_empty=True)
        self.check_docker(data, "competition_docker_image")
        if data.get("enable_detailed_results") is not True:
            self.warning("detailed-results", "enable_detailed_results is not True: participants will not see "
                         "detailed_results.html", ("enable_detailed_results",))
        pages = data.get("html")
        if not isinstance(pages, dict):
            self.error("v1-html", "html: is required, with overview, evaluation, terms and data pages")
        else:
            for key in V1_HTML:
                if key not in pages:
                    self.error("v1-html", "html.%s is required" % key, ("html",))
            for key, ref in pages.items():
                self.check_file_ref(ref, "html page %s" % key, ("html", key), non_empty=True, text=True)
        phases = data.get("phases")
        references: Dict[Any, Optional[BundleView]] = {}
        if not isinstance(phases, dict) or not phases:
            self.error("v1-phases", "phases must be a mapping of phase numbers to phases", ("phases",))
        else:
            starts = []
            for number, phase in phases.items():
                where = ("phases", number)
                if not isinstance(phase, dict):
                    self.error("v1-phases", "phase %s must be a mapping" % number, where)
                    continue
                if not isinstance(phase.get("phasenumber"), int):
                    self.error("v1-phases", "phase %s needs an integer phasenumber" % number, where)
                label = phase.get("label")
                if isinstance(label, str) and len(label) > MAX_LABEL_V1:
                    self.error("v1-phases", "phase label %r is longer than %d characters" % (label, MAX_LABEL_V1),
                               where + ("label",))
                self.check_submission_limits(phase, phase.get("label", number), where, v1=True)
                if "start_date" not in phase:
                    self.error("v1-phases", "phase %s needs a start_date" % number, where)
                else:
                    start = self.date(phase["start_date"], where + ("start_date",))
                    if start:
                        starts.append((phase.get("phasenumber", number), start, number))
                if "scoring_program" not in phase:
                    self.error("v1-phases", "phase %s needs a scoring_program (.zip)" % number, where)
                else:
                    program = self.resolve(phase["scoring_program"], where + ("scoring_program",), "scoring_program",
                                           zip_only=True)
                    if program is not None:
                        self.check_program(program, where + ("scoring_program",))
                if "reference_data" not in phase:
                    self.error("v1-phases", "phase %s needs reference_data: \"No reference data was supplied with "
                               "the competition bundle!\"" % number, where)
                    references[number] = None
                else:
                    references[number] = self.resolve(phase["reference_data"], where + ("reference_data",),
                                                      "reference_data", zip_only=True)
                    if references[number] is not None:
                        self.check_reference(references[number], where + ("reference_data",))
                for key in ("starting_kit", "input_data", "public_data", "ingestion_program"):
                    if key in phase:
                        self.resolve(phase[key], where + (key,), key, zip_only=True)
            starts.sort(key=lambda s: s[0] if isinstance(s[0], int) else 0)
            for before, after in zip(starts, starts[1:]):
                if after[1] <= before[1]:
                    self.error("v1-phase-dates", "phase %s starts (%s) no later than phase %s (%s): phases must "
                               "start in order" % (after[2], after[1], before[2], before[1]),
                               ("phases", after[2], "start_date"))
        column_keys = self.check_v1_leaderboard(data.get("leaderboard"))
        if column_keys is not None:
            for number, reference in references.items():
                if reference is not None:
                    ids = reference_tasks(reference)
                    written = score_keys([get_task(x) for x in ids])
                    self.compare_keys(written, column_keys, "phase %s" % number, ("phases", number))
                    self.check_ranking(ids, column_keys, "phase %s" % number, ("phases", number))
        if data.get("force_submission_to_leaderboard") is not True:
            self.warning("submission-rule-manual", "force_submission_to_leaderboard is not True: a scored "
                         "submission reaches the leaderboard only when the participant adds it by hand (and when "
                         "this bundle is read by Codabench, the default rule Add is its ManualModeStrategy)")

    def check_v1_leaderboard(self, board: Any) -> Optional[List[str]]:
        if not isinstance(board, dict):
            self.error("v1-leaderboard", "leaderboard: is required (leaderboards and columns) for scores to show",
                       ("leaderboard",))
            return None
        boards = board.get("leaderboards")
        labels = set()
        if not isinstance(boards, dict) or not boards:
            self.error("v1-leaderboard", "leaderboard.leaderboards must map names to {label, rank}",
                       ("leaderboard", "leaderboards"))
        else:
            for name, spec in boards.items():
                if not isinstance(spec, dict) or not isinstance(spec.get("label"), str) or "rank" not in spec:
                    self.error("v1-leaderboard", "leaderboard %s needs a label and a rank" % name,
                               ("leaderboard", "leaderboards", name))
                else:
                    labels.add(spec["label"])
        columns = board.get("columns")
        if not isinstance(columns, dict) or not columns:
            self.error("v1-leaderboard", "leaderboard.columns must map score keys to column settings",
                       ("leaderboard", "columns"))
            return None
        keys, seen_labels = [], {}
        for key, spec in columns.items():
            where = ("leaderboard", "columns", key)
            key = str(key)
            if not COLUMN_KEY.fullmatch(key) or len(key) > MAX_COLUMN_KEY:
                self.error("column-key", "column key %r must be letters, digits and _, at most %d characters"
                           % (key, MAX_COLUMN_KEY), where)
            if not isinstance(spec, dict):
                self.error("v1-leaderboard", "column %s must be a mapping" % key, where)
                continue
            parent = spec.get("leaderboard")
            if not isinstance(parent, dict) or not isinstance(parent.get("label"), str) or \
                    parent["label"] not in labels:
                self.error("v1-leaderboard", "column %s: leaderboard must be an alias (*NAME) of a declared "
                           "leaderboard" % key, where)
            label = spec.get("label")
            if not isinstance(label, str):
                self.error("column-title", "column %s needs a text label" % key, where)
                label = None
            elif len(label) > MAX_COLUMN_TITLE:
                self.error("column-title-length", "column label %r has %d characters; at most %d"
                           % (label, len(label), MAX_COLUMN_TITLE), where + ("label",))
            if label is not None and label in seen_labels:
                self.error("column-title-unique", "column label %r is used by %s and %s (duplicate labels broke "
                           "v1 leaderboards)" % (label, seen_labels[label], key), where + ("label",))
            seen_labels[label] = key
            if spec.get("sort", "desc") not in ("asc", "desc"):
                self.error("column-sorting", "column %s: sort must be asc or desc" % key, where + ("sort",))
            if "computed" in spec:
                self.warning("v1-computed", "column %s is computed: Codabench does not translate computed columns "
                             "(they show n/a)" % key, where + ("computed",))
                continue
            keys.append(key)
        return keys
