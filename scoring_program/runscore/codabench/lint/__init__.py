"""Check a competition bundle (a folder or the upload zip) against every rule of shared/specs/codabench.md.

Why our own linter: the public validator (codalab-yaml-validator) has a stale schema, ignores the scoring
program's `metadata` and exits 0 on "deep" errors; Codabench itself only tells at upload time, often with an
opaque message, and some mistakes (a column key the scorer never writes) are never reported at all: the
leaderboard just shows `n/a`. Each finding is a Diagnostic `FILE:LINE: error|warning: message` with a rule code;
the rules of Codabench v2 (`version: 2`) and of CodaLab v1.5 (no version) are told apart by the YAML itself.
"""
import datetime
import io
import os
import re
import shutil
import tempfile
import zipfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import yaml

from .bundle import DOCKER_IMAGE, SCORING_COMMAND, score_keys
from .errors import ERROR, WARNING, ConfigError, Diagnostic
from .tasks import all_tasks, get_task

YAML_NAME = "competition.yaml"
MAX_COLUMN_KEY = 36
MAX_COLUMN_TITLE = 36
MAX_LEADERBOARD_TITLE = 64
MAX_LEADERBOARD_KEY = 36
MAX_TITLE_V2 = 256
MAX_TITLE_V1 = 100
MAX_LABEL_V1 = 50
QUEUE_TIME_CAP = 600
SUBMISSION_RULES = ("Add", "Add_And_Delete", "Add_And_Delete_Multiple", "Force_Last", "Force_Latest_Multiple",
                    "Force_Best")
COMPUTATIONS = ("avg", "sum", "min", "max")
V2_REQUIRED = ("title", "image", "terms", "pages", "tasks", "phases", "leaderboards")
V1_HTML = ("overview", "evaluation", "terms", "data")
V1_TOP_KEYS = {"title", "description", "image", "has_registration", "end_date", "force_submission_to_leaderboard",
               "disallow_leaderboard_modifying", "enable_detailed_results", "competition_docker_image",
               "admin_names", "allow_teams", "enable_forum", "anonymous_leaderboard", "enable_per_submission_metadata",
               "allow_public_submissions", "enable_teams", "require_team_approval", "show_datasets_from_yaml",
               "reward", "html", "phases", "leaderboard", "allow_organizer_teams", "hide_top_three",
               "hide_chart", "allow_submission_comments", "queue"}
METADATA_KEYS = {"command", "description"}
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$")
COLUMN_KEY = re.compile(r"[A-Za-z0-9_]+")
JUNK = re.compile(r"(^|/)(__pycache__|__MACOSX|\.DS_Store|\.git|\.venv|tests|utilities)(/|$)|\.pyc$")


# ------------------------------------------------------------------------------------- the bundle's files ---

class BundleView:
    """The files of a bundle (or of a folder or zip inside it) by '/'-separated name, whatever it is stored in."""

    def __init__(self, names: Sequence[str], reader: Callable[[str], bytes], label: str):
        self.names = list(names)          # in storage order (zip order matters for CodaLab v1)
        self._set = set(self.names)
        self._reader = reader
        self.label = label
        self.is_zip = False

    @classmethod
    def from_folder(cls, folder: str, label: str = "") -> "BundleView":
        names = []
        for dirpath, dirnames, filenames in os.walk(folder):
            # A working tree, not an upload: its VCS, virtualenv and caches are never part of what is uploaded.
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for name in sorted(filenames):
                names.append(os.path.relpath(os.path.join(dirpath, name), folder).replace(os.sep, "/"))

        def read(name: str) -> bytes:
            with open(os.path.join(folder, *name.split("/")), "rb") as handle:
                return handle.read()

        return cls(names, read, label or folder)

    @classmethod
    def from_zip(cls, data: bytes, label: str) -> "BundleView":
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = [i.filename for i in archive.infolist() if not i.is_dir()]
        view = cls(names, archive.read, label)
        view.is_zip = True
        return view

    @classmethod
    def from_members(cls, members: Dict[str, bytes], label: str, is_zip: bool = True) -> "BundleView":
        """A bundle held in memory ({name: content}, in order), as the builder makes it before zipping."""
        view = cls(list(members), members.__getitem__, label)
        view.is_zip = is_zip
        return view

    def exists(self, name: str) -> bool:
        return name in self._set

    def is_dir(self, name: str) -> bool:
        prefix = name.strip("/") + "/"
        return any(n.startswith(prefix) for n in self.names)

    def read(self, name: str) -> bytes:
        return self._reader(name)

    def sub(self, folder: str) -> "BundleView":
        prefix = folder.strip("/") + "/"
        names = [n[len(prefix):] for n in self.names if n.startswith(prefix)]
        return BundleView(names, lambda n: self._reader(prefix + n), prefix.rstrip("/"))

    def top_level(self) -> List[str]:
        return sorted({n.split("/")[0] for n in self.names})

    def extract(self, target: str) -> None:
        for name in self.names:
            path = os.path.join(target, *name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(self.read(name))


def open_bundle(path: str) -> BundleView:
    if os.path.isdir(path):
        return BundleView.from_folder(path)
    if not os.path.isfile(path):
        raise ConfigError("%s does not exist" % path)
    if not zipfile.is_zipfile(path):
        raise ConfigError("%s is neither a folder nor a zip file" % path)
    with open(path, "rb") as handle:
        return BundleView.from_zip(handle.read(), path)


# ------------------------------------------------------------------------------------- the linter ---

class Linter:
    """Collects findings; `where(*path)` gives the line of a YAML node so each finding points at it."""

    def __init__(self, bundle: BundleView):
        self.bundle = bundle
        self.found: List[Diagnostic] = []
        self.lines: Dict[Tuple, int] = {}

    def error(self, code: str, message: str, path: Tuple = (), file: str = YAML_NAME) -> None:
        self.found.append(Diagnostic(file, self.where(path) if file == YAML_NAME else 0, ERROR, message, code))

    def warning(self, code: str, message: str, path: Tuple = (), file: str = YAML_NAME) -> None:
        self.found.append(Diagnostic(file, self.where(path) if file == YAML_NAME else 0, WARNING, message, code))

    def where(self, path: Tuple) -> int:
        path = tuple(str(p) for p in path)
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 0)

    # ------------------------------------------------------------------------------ entry ---
    def run(self) -> List[Diagnostic]:
        if not self.bundle.exists(YAML_NAME):
            nested = [n for n in self.bundle.names if n.endswith("/" + YAML_NAME)]
            if nested:
                self.error("yaml-at-root", "competition.yaml is not at the root of the bundle but in %s: zip the "
                           "folder's contents, not the folder (cd bundle && zip -r ../bundle.zip .)"
                           % nested[0].rsplit("/", 1)[0] + "/", file=self.bundle.label)
            else:
                self.error("yaml-at-root", "no competition.yaml at the root of the bundle", file=self.bundle.label)
            return self.found
        text = self.bundle.read(YAML_NAME)
        try:
            data = yaml.safe_load(text)
            self.lines = _line_index(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            self.found.append(Diagnostic(YAML_NAME, mark.line + 1 if mark else 0, ERROR,
                                         "not valid YAML: %s" % getattr(exc, "problem", exc), "yaml-syntax"))
            return self.found
        if not isinstance(data, dict):
            self.error("yaml-mapping", "competition.yaml must be a mapping of keys to values")
            return self.found
        if self.bundle.is_zip:
            self.check_junk()
            if self.bundle.names[0] != YAML_NAME:
                self.warning("zip-order", "competition.yaml is not the first entry of the zip (CodaLab v1 reads the "
                             "first entry whose name contains .yaml; the builder writes it first)",
                             file=self.bundle.label)
        version = data.get("version")
        if version == 2 or version == "2":
            self.check_v2(data)
        elif version in (None, 1, 1.5, "1", "1.5"):
            if any(k in data for k in ("leaderboards", "pages", "tasks", "terms", "docker_image")):
                self.error("v2-version", "no `version: 2`, yet Codabench v2 keys (%s): without it Codabench reads "
                           "the bundle as v1.5 and fails with \"HTML pages could not be found in the yaml file\""
                           % ", ".join(k for k in ("leaderboards", "pages", "tasks", "terms", "docker_image")
                                       if k in data))
            else:
                self.check_v1(data)
        else:
            self.error("v2-version", "version %r is not 2 (Codabench) nor absent/1.5 (CodaLab)" % version,
                       ("version",))
        return self.found

    def check_junk(self) -> None:
        junk = [n for n in self.bundle.names if JUNK.search(n)]
        if junk:
            self.warning("zip-junk", "%d file(s) that do not belong in a bundle (tests, caches, macOS or VCS "
                         "files), e.g. %s" % (len(junk), ", ".join(junk[:3])), file=self.bundle.label)

    # ------------------------------------------------------------------------------ Codabench v2 ---
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

    def date(self, value: Any, where: Tuple) -> Optional[datetime.datetime]:
        if isinstance(value, datetime.datetime):
            return value
        if isinstance(value, datetime.date):
            return datetime.datetime(value.year, value.month, value.day)
        if isinstance(value, str) and ISO_DATE.match(value.strip()):
            text = value.strip()
            for form in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
                try:
                    return datetime.datetime.strptime(text, form)
                except ValueError:
                    continue
        self.error("date-format", "date %r is not ISO `YYYY-MM-DD HH:MM:SS` (other forms are read month-first "
                   "by the platform)" % (value,), where)
        return None

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
            for t in tasks:
                written += score_keys([get_task(x) for x in _reference_tasks(task_refs[t])])
            if not tasks:
                continue
            self.compare_keys(written, column_keys, "phase %r" % phase.get("name", i), ("phases", i, "tasks"))

    def compare_keys(self, written: List[str], column_keys: List[str], phase: str, where: Tuple) -> None:
        for key in written:
            if key not in column_keys:
                self.error("score-keys", "%s: the scoring program writes %r, which no leaderboard column has: the "
                           "score is dropped silently" % (phase, key), where)
        for key in column_keys:
            if key not in written:
                self.error("score-keys", "%s: column %r is never written by the scoring program for this "
                           "phase's reference data: it would show n/a" % (phase, key), where)

    # ------------------------------------------------------------------------------ shared checks ---
    def check_file_ref(self, ref: Any, what: str, where: Tuple, non_empty: bool = False,
                       text: bool = False) -> None:
        if not isinstance(ref, str) or not ref.strip():
            self.error("file-missing", "%s must name a file of the bundle" % what, where)
            return
        name = _clean(ref)
        if not self.bundle.exists(name):
            self.error("file-missing", "%s %r is not in the bundle" % (what, ref), where)
            return
        content = self.bundle.read(name)
        if non_empty and not content.strip():
            self.error("file-empty", "%s %r is empty" % (what, ref), where)
        if text:
            try:
                content.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.error("file-encoding", "%s %r is not UTF-8 (byte %d): the platform decodes pages as UTF-8"
                           % (what, ref, exc.start), where)

    def resolve(self, ref: Any, where: Tuple, what: str, zip_only: bool = False) -> Optional[BundleView]:
        """The view of a folder or a .zip named in the YAML, or None (with an error) when it is not there."""
        if not isinstance(ref, str) or not ref.strip():
            self.error("path-missing", "%s must name a folder or a .zip of the bundle" % what, where)
            return None
        name = _clean(ref)
        if zip_only and not name.endswith(".zip"):
            self.error("v1-zip-ref", "%s %r must be a .zip inside the bundle (CodaLab v1 supports no folders)"
                       % (what, ref), where)
            return None
        if name.endswith(".zip") and self.bundle.exists(name):
            try:
                return BundleView.from_zip(self.bundle.read(name), name)
            except zipfile.BadZipFile:
                self.error("path-missing", "%s %r is not a valid zip" % (what, ref), where)
                return None
        if not zip_only and self.bundle.is_dir(name):
            return self.bundle.sub(name)
        self.error("path-missing", "%s %r is not in the bundle" % (what, ref), where)
        return None

    def check_program(self, program: BundleView, where: Tuple) -> None:
        label = program.label
        descriptor = "metadata" if program.exists("metadata") else "metadata.yaml" \
            if program.exists("metadata.yaml") else None
        if descriptor is None:
            tops = program.top_level()
            if len(tops) == 1 and program.exists(tops[0] + "/metadata"):
                self.error("program-metadata", "the scoring program is inside a folder %s/: put its contents at the "
                           "root (\"Program directory missing 'metadata.yaml/metadata'\")" % tops[0], where)
            else:
                self.error("program-metadata", "the scoring program has no metadata file at its root", where)
            return
        try:
            meta = yaml.safe_load(program.read(descriptor))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            self.error("program-metadata", "%s/%s is not valid YAML: %s" % (label, descriptor, exc), where)
            return
        if not isinstance(meta, dict):
            self.error("program-metadata", "%s/%s must be a mapping with `command:`" % (label, descriptor), where)
            return
        extra = sorted(set(meta) - METADATA_KEYS)
        if extra:
            self.error("program-metadata", "%s/%s has keys %s: only command and description are allowed (the v1 "
                       "worker downloads other string values as bundles)" % (label, descriptor, ", ".join(extra)),
                       where)
        if meta.get("command") != SCORING_COMMAND:
            self.error("program-command", "%s/%s: command is %r; it must be exactly %r (no shell: single spaces, "
                       "no quotes)" % (label, descriptor, meta.get("command"), SCORING_COMMAND), where)
        if not program.exists("score.py"):
            self.error("program-files", "the scoring program has no score.py at its root", where)
        if not program.exists("runscore/__init__.py"):
            self.error("program-files", "the scoring program has no runscore package", where)

    def check_reference(self, reference: BundleView, where: Tuple) -> None:
        label = reference.label
        descriptors = [n for n in reference.names if n.split("/")[-1] in ("metadata", "metadata.yaml")]
        if descriptors:
            self.error("reference-metadata", "%s holds %s: a file named metadata is read as a bundle descriptor by "
                       "the platform workers" % (label, descriptors[0]), where)
        known = {t.id for t in all_tasks()}
        tasks = _reference_tasks(reference)
        if not tasks:
            self.error("reference-tasks", "%s holds no task folder (expected one or more of %s)"
                       % (label, ", ".join(sorted(known))), where)
            return
        if not reference.exists("task.yaml"):
            others = [n for n in reference.top_level() if n not in known and "/" not in n.rstrip("/")
                      and reference.is_dir(n)]
            for name in others:
                self.warning("reference-tasks", "%s/%s/ is not a task id of this scoring program; it is ignored"
                             % (label, name), where)
        tmp = tempfile.mkdtemp(prefix="runscore-lint-")
        try:
            reference.extract(tmp)
            from .codabench import task_references

            task_references(tmp)
        except ConfigError as exc:
            message = str(exc).replace(tmp + os.sep, "").replace(tmp, label)
            self.error("reference-load", "%s cannot be loaded: %s" % (label, message), where)
        except Exception as exc:   # a loader's own bug: still a finding about this bundle, not a linter crash
            message = ("%s: %s" % (type(exc).__name__, exc)).replace(tmp + os.sep, "").replace(tmp, label)
            self.error("reference-load", "%s cannot be loaded (unexpected %s)" % (label, message), where)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    # ------------------------------------------------------------------------------ CodaLab v1.5 ---
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
                    written = score_keys([get_task(x) for x in _reference_tasks(reference)])
                    self.compare_keys(written, column_keys, "phase %s" % number, ("phases", number))

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


# ------------------------------------------------------------------------------------- helpers ---

def _clean(ref: str) -> str:
    name = ref.strip().replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    return name.strip("/")


def _reference_tasks(reference: BundleView) -> List[str]:
    """Task ids whose reference data is in this view (registry order), as score.py would find them."""
    if reference.exists("task.yaml"):
        try:
            own = yaml.safe_load(reference.read("task.yaml"))
        except yaml.YAMLError:
            own = None
        if isinstance(own, dict) and own.get("task") in {t.id for t in all_tasks()}:
            return [own["task"]]
    return [t.id for t in all_tasks() if reference.is_dir(t.id)]


def _line_index(text: bytes) -> Dict[Tuple, int]:
    """{path of keys/indexes: 1-based line} of every node of a YAML document."""
    index: Dict[Tuple, int] = {}
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is None:
        return index

    def walk(node, path):
        index.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path + (str(key.value),)
                index[sub] = key.start_mark.line + 1
                walk(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, path + (str(i),))

    walk(root, ())
    return index


def lint_bundle(bundle: BundleView) -> List[Diagnostic]:
    return Linter(bundle).run()


def lint_path(path: str) -> List[Diagnostic]:
    """Every finding about the bundle folder or zip at `path` (ConfigError when it is neither)."""
    return lint_bundle(open_bundle(path))


def print_report(found: List[Diagnostic], out=None) -> None:
    import sys

    out = out or sys.stdout
    for diagnostic in found:
        print("%s [%s]" % (diagnostic, diagnostic.code), file=out)
    errors = sum(1 for d in found if d.severity == ERROR)
    warnings = len(found) - errors
    print("bundle %s: %d error(s), %d warning(s)" % ("rejected" if errors else "ok", errors, warnings), file=out)
