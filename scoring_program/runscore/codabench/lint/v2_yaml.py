"""Codabench v2 rules (`version: 2`): pages, docker image, tasks, phases, leaderboards, columns, and the score
keys the scorer writes against the column keys.
"""
from typing import Any, Dict, List, Optional, Tuple

from ..competition_yaml import DOCKER_IMAGE
from ..leaderboard import score_keys
from ...tasks import get_task
from .archive import BundleView
from .base import (COLUMN_KEY, COMPUTATIONS, LinterBase, MAX_COLUMN_KEY, MAX_COLUMN_TITLE, MAX_LEADERBOARD_KEY,
                   MAX_LEADERBOARD_TITLE, MAX_TITLE_V2, MANUAL_SUBMISSION_RULES, QUEUE_TIME_CAP, SUBMISSION_RULES,
                   V2_REQUIRED)
from .reference import reference_tasks


class V2Rules(LinterBase):
    def check_v2(self, data: Dict) -> None:
        if "leaderboard" in data and "leaderboards" not in data:
            self.error("v2-plural-leaderboards", "`leaderboard:` must be plural `leaderboards:` with `version: 2` "
                       "(\"Could not find leaderboards in the competition yaml\")", ("leaderboard",))
        for key in V2_REQUIRED:
            if key not in data and not (key == "leaderboards" and "leaderboard" in data):
                self.error("v2-required", "required key `%s` is missing" % key)
        title = data.get("title")
        if "title" in data and (not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE_V2):
            self.error("v2-title", "title must be a non-empty text of at most %d characters" % MAX_TITLE_V2,
                       ("title",))
        if "image" in data:
            self.check_file_ref(data["image"], "image", ("image",), non_empty=True)
        if "terms" in data:
            self.check_file_ref(data["terms"], "terms", ("terms",), non_empty=True, text=True)
        self.check_pages(data.get("pages"))
        self.check_docker(data, "docker_image")
        if data.get("enable_detailed_results") is not True:
            self.warning("detailed-results", "enable_detailed_results is not True: participants will not see "
                         "detailed_results.html", ("enable_detailed_results",))
        task_refs = self.check_tasks(data.get("tasks"))
        self.check_phases(data.get("phases"), task_refs)
        columns = self.check_leaderboards(data.get("leaderboards"))
        if columns is not None and isinstance(data.get("phases"), list):
            self.check_score_keys_v2(data["phases"], task_refs, columns)
        self.check_collecting_phases(data, task_refs)
        self.check_hidden_outputs(data, task_refs)
        self.check_held_submissions(data, task_refs)

    def check_held_submissions(self, data: Dict, task_refs: Dict[int, Optional[BundleView]]) -> None:
        """A competition whose reference data lie on the organiser's worker (a task.yaml with `worker_data:`) must
        hold its submissions: with auto-run on, Codabench runs a participant's program on that worker, in every
        phase, with the data mounted, and what the program sets reaches its author (docs/codabench.md)."""
        if data.get("auto_run_submissions") is False:
            return
        tasks = data.get("tasks") if isinstance(data.get("tasks"), list) else []
        on_worker = [t.get("name", t.get("index")) for t in tasks if isinstance(t, dict)
                     and isinstance(t.get("index"), int) and _on_worker(task_refs.get(t["index"]))]
        if on_worker:
            self.error("auto-run-worker", "task %r keeps its reference data on the organisers' compute worker, but "
                       "the competition runs submissions as they arrive (auto_run_submissions is not false): a "
                       "participant's program would run there with the data mounted; set `auto_run_submissions: "
                       "false` and start submissions with `runscore admit`" % on_worker[0],
                       ("auto_run_submissions",))

    def check_hidden_outputs(self, data: Dict, task_refs: Dict[int, Optional[BundleView]]) -> None:
        """A phase whose reference data is hidden (task.yaml `detail:` other than full) should hide its outputs:
        without hide_output, any user (anonymous ones too) fetches the zip, logs and output files of every
        submission with a leaderboard row (docs/codabench.md, 'Every phase hides its outputs')."""
        phases = data.get("phases")
        if not isinstance(phases, list):
            return
        for i, phase in enumerate(phases):
            if not isinstance(phase, dict) or not isinstance(phase.get("tasks"), list) or phase.get("hide_output"):
                continue
            if any(isinstance(t, int) and _hidden(task_refs.get(t)) for t in phase["tasks"]):
                self.warning("hide-output", "phase %r scores against hidden reference data but does not set "
                             "`hide_output: true`: any user, signed in or not, can then download the zip, logs and "
                             "output files of every submission on its leaderboard" % phase.get("name", i),
                             ("phases", i))

    def check_collecting_phases(self, data: Dict, task_refs: Dict[int, Optional[BundleView]]) -> None:
        """A phase whose reference data collects runs (task.yaml `mode: collect`) posts rows without scores; a
        visible leaderboard would show them (empty cells sort first on PostgreSQL), so it should be hidden."""
        phases = data.get("phases")
        boards = data.get("leaderboards")
        if not isinstance(phases, list) or not isinstance(boards, list):
            return
        visible = [b for b in boards if isinstance(b, dict) and b.get("hidden") is not True]
        for i, phase in enumerate(phases):
            if not isinstance(phase, dict) or not isinstance(phase.get("tasks"), list):
                continue
            collecting = [t for t in phase["tasks"] if isinstance(t, int) and _collects(task_refs.get(t))]
            if collecting and visible:
                self.warning("collect-visible", "phase %r collects runs (its reference data says mode: collect) "
                             "but leaderboard %r is visible: its rows have no scores; set `hidden: true` until the "
                             "judgements exist and every run is scored again (docs/campaign.md)"
                             % (phase.get("name", i), visible[0].get("title", 0)), ("phases", i))

    def check_pages(self, pages: Any) -> None:
        if pages is None:
            return
        if not isinstance(pages, list):
            self.error("v2-pages", "pages must be a list of {title, file} (use `pages: []` for none)", ("pages",))
            return
        if not pages:
            self.warning("v2-pages", "pages is empty: participants see no overview or evaluation page", ("pages",))
        for i, page in enumerate(pages):
            if not isinstance(page, dict) or "title" not in page or "file" not in page:
                self.error("v2-pages", "page %d must have a title and a file" % i, ("pages", i))
                continue
            self.check_file_ref(page["file"], "page %r" % page["title"], ("pages", i, "file"), non_empty=True,
                                text=True)

    def check_docker(self, data: Dict, key: str) -> None:
        image = data.get(key)
        if image is None:
            self.error("docker-image", "%s is not set: the platform default image has no Python 3.9 (set %s)"
                       % (key, DOCKER_IMAGE))
        elif image != DOCKER_IMAGE:
            self.warning("docker-image", "%s is %r; the scoring program is built and tested for %s"
                         % (key, image, DOCKER_IMAGE), (key,))

    def check_tasks(self, tasks: Any) -> Dict[int, Optional[BundleView]]:
        """{task index: its reference data view (None when missing)}."""
        refs: Dict[int, Optional[BundleView]] = {}
        if tasks is None:
            return refs
        if not isinstance(tasks, list) or not tasks:
            self.error("v2-tasks", "tasks must be a non-empty list", ("tasks",))
            return refs
        for i, task in enumerate(tasks):
            where = ("tasks", i)
            if not isinstance(task, dict):
                self.error("v2-tasks", "task %d must be a mapping" % i, where)
                continue
            index = task.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                self.error("v2-task-index", "task %d has no integer index" % i, where)
                continue
            if index in refs:
                self.error("v2-task-index", "task index %d is used twice" % index, where + ("index",))
                continue
            if "key" in task:
                refs[index] = None
                self.warning("v2-task-key", "task %d refers to an existing task by key; its program and data "
                             "cannot be checked here" % index, where + ("key",))
                continue
            if "scoring_program" not in task:
                self.error("v2-task-program", "task %d has no scoring_program" % index, where)
            else:
                program = self.resolve(task["scoring_program"], where + ("scoring_program",), "scoring_program")
                if program is not None:
                    self.check_program(program, where + ("scoring_program",))
            if "reference_data" not in task:
                self.error("v2-task-reference", "task %d has no reference_data: the scoring program reads "
                           "input/ref/<task-id>/" % index, where)
                refs[index] = None
            else:
                refs[index] = self.resolve(task["reference_data"], where + ("reference_data",), "reference_data")
                if refs[index] is not None:
                    self.check_reference(refs[index], where + ("reference_data",))
        return refs

    def check_phases(self, phases: Any, task_refs: Dict[int, Optional[BundleView]]) -> None:
        if phases is None:
            return
        if not isinstance(phases, list) or not phases:
            self.error("v2-phases", "phases must be a non-empty list", ("phases",))
            return
        dated = []
        indexes = set()
        for i, phase in enumerate(phases):
            where = ("phases", i)
            if not isinstance(phase, dict):
                self.error("v2-phases", "phase %d must be a mapping" % i, where)
                continue
            index = phase.get("index", i)
            if not isinstance(index, int) or isinstance(index, bool):
                self.error("v2-phase-index", "phase index %r is not a whole number" % (index,), where + ("index",))
                index = i
            if index in indexes:
                self.error("v2-phase-index", "phase index %r is used twice" % index, where + ("index",))
            indexes.add(index)
            for key in ("name", "start"):
                if key not in phase:
                    self.error("v2-phase-required", "phase %r has no %s" % (phase.get("name", i), key), where)
            tasks = phase.get("tasks")
            if not isinstance(tasks, list) or not tasks:
                self.error("v2-phase-tasks", "phase %r must list its tasks (`tasks: [0]`): \"Phases must contain "
                           "at least one task\"" % phase.get("name", i), where)
            else:
                for t in tasks:
                    if not isinstance(t, int) or isinstance(t, bool) or t not in task_refs:
                        self.error("v2-phase-tasks", "phase %r refers to task %r, which is not a task index"
                                   % (phase.get("name", i), t), where + ("tasks",))
                if len(tasks) > 1:
                    self.warning("v2-multi-task-phase", "phase %r has %d tasks: Codabench repeats every column "
                                 "once per task and runs every upload through every task (one task per phase is "
                                 "recommended)" % (phase.get("name", i), len(tasks)), where + ("tasks",))
            self.check_submission_limits(phase, phase.get("name", i), where)
            limit = phase.get("execution_time_limit")
            if isinstance(limit, int) and limit > QUEUE_TIME_CAP:
                self.warning("v2-time-limit", "execution_time_limit %d is capped at %d s on the public queue"
                             % (limit, QUEUE_TIME_CAP), where + ("execution_time_limit",))
            for key in ("starting_kit", "public_data", "input_data"):
                if key in phase:
                    self.resolve(phase[key], where + (key,), key)
            start = self.date(phase.get("start"), where + ("start",)) if "start" in phase else None
            end = self.date(phase.get("end"), where + ("end",)) if phase.get("end") is not None else None
            if start and end and end <= start:
                self.error("v2-phase-dates", "phase %r ends (%s) before it starts (%s)"
                           % (phase.get("name", i), end, start), where + ("end",))
            dated.append((index if isinstance(index, int) else i, i, phase, start, end))
        dated.sort(key=lambda d: d[0])
        for n, (_, i, phase, start, end) in enumerate(dated):
            if n < len(dated) - 1 and end is None:
                self.error("v2-phase-dates", "phase %r needs an end: every phase but the last must end before "
                           "the next starts" % phase.get("name", i), ("phases", i))
            if n < len(dated) - 1:
                nxt = dated[n + 1]
                if end and nxt[3] and nxt[3] <= end:
                    self.error("v2-phase-overlap", "phase %r starts (%s) before phase %r ends (%s): phases must not "
                               "overlap (an end equal to the next start is rejected)"
                               % (nxt[2].get("name", nxt[1]), nxt[3], phase.get("name", i), end),
                               ("phases", nxt[1], "start"))

    def check_leaderboards(self, boards: Any) -> Optional[List[Dict]]:
        """The first leaderboard's columns (the only one attached to phases), or None."""
        if boards is None:
            return None
        if not isinstance(boards, list) or not boards:
            self.error("v2-leaderboards", "leaderboards must be a non-empty list", ("leaderboards",))
            return None
        if len(boards) > 1:
            self.warning("v2-leaderboards", "%d leaderboards: only the first is attached to the phases"
                         % len(boards), ("leaderboards",))
        first_columns: Optional[List[Dict]] = None
        for b, board in enumerate(boards):
            where = ("leaderboards", b)
            if not isinstance(board, dict):
                self.error("v2-leaderboards", "leaderboard %d must be a mapping" % b, where)
                continue
            title, key = board.get("title"), board.get("key")
            if not isinstance(title, str) or not title or len(title) > MAX_LEADERBOARD_TITLE:
                self.error("v2-leaderboard-title", "leaderboard %d needs a title of at most %d characters"
                           % (b, MAX_LEADERBOARD_TITLE), where + ("title",))
            if not isinstance(key, str) or not key or len(key) > MAX_LEADERBOARD_KEY:
                self.error("v2-leaderboard-key", "leaderboard %d needs a key of at most %d characters"
                           % (b, MAX_LEADERBOARD_KEY), where + ("key",))
            rule = board.get("submission_rule")
            if rule is not None and rule not in SUBMISSION_RULES:
                self.error("v2-submission-rule", "submission_rule %r is not one of %s"
                           % (rule, ", ".join(SUBMISSION_RULES)), where + ("submission_rule",))
            elif b == 0 and (rule is None or rule in MANUAL_SUBMISSION_RULES):
                self.warning("submission-rule-manual", "submission_rule %s posts no row by itself: Codabench hands "
                             "it to ManualModeStrategy (src/apps/leaderboards/strategies.py), so a finished "
                             "submission stays off the leaderboard until the participant adds it by hand, which "
                             "participants rarely know; Force_Latest_Multiple posts every scored submission, "
                             "Force_Best or Force_Last one row per participant"
                             % (rule if rule is not None else "(none: the default is Add)"),
                             where + (("submission_rule",) if rule is not None else ()))
            columns = self.check_columns(board.get("columns"), where)
            if b == 0:
                first_columns = columns
        return first_columns

    def check_columns(self, columns: Any, where: Tuple) -> List[Dict]:
        if not isinstance(columns, list) or not columns:
            self.error("v2-columns", "a leaderboard needs a non-empty list of columns", where + ("columns",))
            return []
        good, keys, titles, indexes = [], {}, {}, {}
        for c, column in enumerate(columns):
            at = where + ("columns", c)
            if not isinstance(column, dict):
                self.error("v2-columns", "column %d must be a mapping" % c, at)
                continue
            key, title, index = column.get("key"), column.get("title"), column.get("index")
            if not isinstance(key, str) or not COLUMN_KEY.fullmatch(key):
                self.error("column-key", "column %d needs a key of letters, digits and _ (the score key)" % c, at)
                continue
            if len(key) > MAX_COLUMN_KEY:
                self.error("column-key-length", "column key %r has %d characters; at most %d"
                           % (key, len(key), MAX_COLUMN_KEY), at + ("key",))
            if not isinstance(title, str) or not title:
                self.error("column-title", "column %r needs a title" % key, at)
            elif len(title) > MAX_COLUMN_TITLE:
                self.error("column-title-length", "column title %r has %d characters; at most %d"
                           % (title, len(title), MAX_COLUMN_TITLE), at + ("title",))
            elif title in titles:
                self.warning("column-title-unique", "column title %r is used twice (columns %r and %r)"
                             % (title, titles[title], key), at + ("title",))
            if isinstance(title, str):
                titles.setdefault(title, key)
            if key in keys:
                self.error("column-key-unique", "column key %r is used twice" % key, at + ("key",))
            keys[key] = c
            if not isinstance(index, int) or isinstance(index, bool):
                self.error("column-index", "column %r has no integer index" % key, at)
            elif index in indexes:
                self.error("column-index-unique", "column index %d is used by %r and %r"
                           % (index, indexes[index], key), at + ("index",))
            else:
                indexes[index] = key
            if column.get("sorting", "desc") not in ("asc", "desc"):
                self.error("column-sorting", "column %r: sorting must be asc or desc" % key, at + ("sorting",))
            precision = column.get("precision", 2)
            if not isinstance(precision, int) or isinstance(precision, bool) or precision < 0:
                self.error("column-precision", "column %r: precision must be a whole number" % key,
                           at + ("precision",))
            good.append(column)
        for c, column in enumerate(columns):
            if isinstance(column, dict) and "computation" in column:
                at = where + ("columns", c)
                if column["computation"] not in COMPUTATIONS:
                    self.error("column-computation", "computation %r is not one of %s"
                               % (column["computation"], ", ".join(COMPUTATIONS)), at + ("computation",))
                refs = column.get("computation_indexes")
                if not isinstance(refs, list) or not refs:
                    self.error("column-computation", "a computed column needs computation_indexes", at)
                    continue
                for ref in refs:
                    if ref == column.get("index"):
                        self.error("column-computation", "column %r computes from itself" % column.get("key"),
                                   at + ("computation_indexes",))
                    elif ref not in indexes:
                        self.error("column-computation", "computation_indexes: %r is not a column index" % (ref,),
                                   at + ("computation_indexes",))
        return good

    def check_score_keys_v2(self, phases: List, task_refs: Dict[int, Optional[BundleView]],
                            columns: List[Dict]) -> None:
        column_keys = [c["key"] for c in columns if "computation" not in c]
        for i, phase in enumerate(phases):
            if not isinstance(phase, dict) or not isinstance(phase.get("tasks"), list):
                continue
            written: List[str] = []
            tasks = [t for t in phase["tasks"] if isinstance(t, int) and task_refs.get(t) is not None]
            ids: List[str] = []
            for t in tasks:
                ids += reference_tasks(task_refs[t])
            written = score_keys([get_task(x) for x in ids])
            if not tasks:
                continue
            self.compare_keys(written, column_keys, "phase %r" % phase.get("name", i), ("phases", i, "tasks"))
            self.check_ranking(ids, column_keys, "phase %r" % phase.get("name", i), ("phases", i, "tasks"))

    def check_ranking(self, task_ids: List[str], column_keys: List[str], phase: str, where: Tuple) -> None:
        """Every valid submission must fill every column: Codabench orders rows by the primary column, then the
        others, as SQL sums (src/apps/api/serializers/leaderboards.py get_submissions) on PostgreSQL, where a
        descending sort puts NULLs FIRST, so a row with an empty column is ranked above every filled one."""
        for task_id in task_ids:
            own = set(score_keys([get_task(task_id)]))
            empty = [k for k in column_keys if k not in own]
            if empty and own & set(column_keys):
                self.error("ranking-empty-column", "%s: a valid submission of %s runs only leaves %s empty, and "
                           "Codabench ranks an empty cell first (NULLs first on a descending sort), above every "
                           "filled row; build one competition per task (runscore bundle --per-task)"
                           % (phase, task_id, _first_keys(empty)), where)

    def compare_keys(self, written: List[str], column_keys: List[str], phase: str, where: Tuple) -> None:
        for key in written:
            if key not in column_keys:
                self.error("score-keys", "%s: the scoring program writes %r, which no leaderboard column has: the "
                           "score is dropped silently" % (phase, key), where)
        for key in column_keys:
            if key not in written:
                self.error("score-keys", "%s: column %r is never written by the scoring program for this "
                           "phase's reference data: it would show n/a" % (phase, key), where)


def _first_keys(keys: List[str], shown: int = 3) -> str:
    text = ", ".join(repr(k) for k in keys[:shown])
    return text + (" and %d more column(s)" % (len(keys) - shown) if len(keys) > shown else "")


def _hidden(view: Optional[BundleView]) -> bool:
    """Does this reference data view hold a task.yaml whose `detail:` is not full (a hidden phase's data)?"""
    return any(isinstance(config, dict) and config.get("detail", "aggregate") != "full" for config in _configs(view))


def _configs(view: Optional[BundleView]) -> List[Any]:
    """The task.yaml files of a reference data view, read (those that cannot be read left out)."""
    if view is None:
        return []
    import yaml

    out = []
    for name in [n for n in view.names if n.rstrip("/").split("/")[-1] == "task.yaml"]:
        try:
            out.append(yaml.safe_load(view.read(name)))
        except (yaml.YAMLError, UnicodeDecodeError, ValueError):
            continue
    return out


def _on_worker(view: Optional[BundleView]) -> bool:
    """Does this reference data view point to data on the organiser's worker (task.yaml `worker_data:`)?"""
    return any(isinstance(config, dict) and "worker_data" in config for config in _configs(view))


def _collects(view: Optional[BundleView]) -> bool:
    """Does this reference data view hold a task.yaml saying `mode: collect` (at its root or in a task folder)?"""
    return any(isinstance(config, dict) and config.get("mode") == "collect" for config in _configs(view))
