"""What every rule family of the linter shares: Codabench's limits, the findings list, YAML line numbers and
the resolution of file references inside the bundle.
"""
import datetime
import re
import zipfile
from typing import Any, Dict, List, Optional, Tuple

import yaml

from ...errors import ERROR, WARNING, Diagnostic
from .archive import BundleView

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
# Rules that post nothing by themselves: Codabench's StrategyFactory (src/apps/leaderboards/strategies.py) maps
# every rule but Force_Last, Force_Latest_Multiple and Force_Best to ManualModeStrategy; the default is Add.
MANUAL_SUBMISSION_RULES = ("Add", "Add_And_Delete", "Add_And_Delete_Multiple")
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


class LinterBase:
    """Collects findings; `where(*path)` gives the line of a YAML node so each finding points at it. The rule
    families (v2_yaml, v1_yaml, program, reference, archive) are mixins of this class."""

    def __init__(self, bundle: BundleView, worker_data: Optional[str] = None):
        self.bundle = bundle
        self.found: List[Diagnostic] = []
        self.lines: Dict[Tuple, int] = {}
        # The worker's data folder (the contents of a build's <task-id>.worker-data/): a reference folder that
        # points there is loaded from it; without it only the pointer's form is checked.
        self.worker_data = worker_data

    def check_submission_limits(self, phase: Dict, name: Any, where: Tuple, v1: bool = False) -> None:
        """`max_submissions_per_day` and `max_submissions` of a phase: positive whole numbers, the daily one at most
        the total. Missing, Codabench takes 5 and 100 (CodaLab v1: 999 a day), which is no campaign's rule: a
        warning (docs/codabench.md, "Submission limits")."""
        values = {}
        for key in ("max_submissions_per_day", "max_submissions"):
            if key not in phase:
                self.warning("submission-limits", "phase %r does not set %s: the platform's default (%s) applies, "
                             "not the campaign's rule" % (name, key, ("999" if v1 else "5") if key.endswith("day")
                                                          else "100"), where)
                continue
            value = phase[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                self.error("submission-limits", "%s of phase %r must be a positive whole number, not %r"
                           % (key, name, value), where + (key,))
                continue
            values[key] = value
        if len(values) == 2 and values["max_submissions_per_day"] > values["max_submissions"]:
            self.warning("submission-limits", "phase %r allows %d submissions a day but %d in all"
                         % (name, values["max_submissions_per_day"], values["max_submissions"]),
                         where + ("max_submissions_per_day",))

    def error(self, code: str, message: str, path: Tuple = (), file: str = YAML_NAME) -> None:
        self.found.append(Diagnostic(file, self.where(path) if file == YAML_NAME else 0, ERROR, message, code))

    def warning(self, code: str, message: str, path: Tuple = (), file: str = YAML_NAME) -> None:
        self.found.append(Diagnostic(file, self.where(path) if file == YAML_NAME else 0, WARNING, message, code))

    def where(self, path: Tuple) -> int:
        path = tuple(str(p) for p in path)
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 0)

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

    def check_file_ref(self, ref: Any, what: str, where: Tuple, non_empty: bool = False,
                       text: bool = False) -> None:
        if not isinstance(ref, str) or not ref.strip():
            self.error("file-missing", "%s must name a file of the bundle" % what, where)
            return
        name = clean_ref(ref)
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
        name = clean_ref(ref)
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


def clean_ref(ref: str) -> str:
    name = ref.strip().replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    return name.strip("/")


def line_index(text: bytes) -> Dict[Tuple, int]:
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
