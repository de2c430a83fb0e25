"""An organiser's own task from a form in YAML, without Python: `load_form(path) -> Task` (docs/own-campaign.md).

Why forms: the seven seed tasks are modules written for their campaigns; a new campaign with TREC runs and graded
qrels is a handful of choices (title, grade scale, measures, depth), which a form states and a JSON schema checks.
A form is read here once, checked against `runscore/schemas/form-<kind>.json` with every problem told as
`FORM.yaml:LINE: error: <field>: ...`, and built by the module of its `kind:` (one module a kind, each reusing the
readers and measures the seed tasks use) into a Task that the registry then holds like the seven
(`tasks.register`): every command that takes `--task T` takes `--form FILE` (`tasks.form_arguments`, called once by
the command line before any command reads its arguments), so that no command asks whether its task is a form.

Hostile forms: YAML aliases (the "billion laughs") and a key given twice are refused by the loader task.yaml uses,
a form bigger than MAX_FORM_BYTES is not read, numbers are bounded by the schema, and every string is bounded.
"""
import difflib
import importlib
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ...errors import ConfigError
from ..base import Task, _strict_loader, short_repr

# kind -> the module (of this package) that builds it; each defines build(form, path, lines) -> Task and TEMPLATE.
KINDS = {"trec-ranking": "trec_ranking", "classification": "classification", "qa": "qa"}
MAX_FORM_BYTES = 1 << 18          # a real form is a page; a bigger file is not read


class FormLines:
    """Where each field of a form is written: the line of a field by its path (("columns", 0, "measure")), or of
    the nearest field above it that is written."""

    def __init__(self, path: str, lines: Dict[Tuple, int]):
        self.path = path
        self._lines = lines

    def line(self, field: Sequence) -> int:
        field = tuple(field)
        while field and field not in self._lines:
            field = field[:-1]
        return self._lines.get(field, 1)

    def error(self, field: Sequence, message: str) -> ConfigError:
        """`FORM.yaml:LINE: error: <field>: message`."""
        return ConfigError("%s: %s" % (field_name(field), message), self.path, self.line(field))


def field_name(field: Sequence) -> str:
    """`columns[1].measure` for ("columns", 1, "measure"); `form` for the whole form."""
    text = ""
    for part in field:
        text += "[%d]" % part if isinstance(part, int) else ("." if text else "") + str(part)
    return text or "form"


def _node_lines(node, at: Tuple, out: Dict[Tuple, int]) -> None:
    import yaml

    out.setdefault(at, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                out[at + (key_node.value,)] = key_node.start_mark.line + 1
                _node_lines(value_node, at + (key_node.value,), out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _node_lines(item, at + (index,), out)


def read_form_yaml(path: str) -> Tuple[Dict[str, Any], FormLines]:
    """The form as a dict, and where its fields are written; ConfigError at the line for bad YAML."""
    import yaml

    try:
        with open(path, "rb") as handle:
            content = handle.read(MAX_FORM_BYTES + 1)
    except OSError as exc:
        raise ConfigError("cannot read the form: %s" % (exc.strerror or exc), path)
    if len(content) > MAX_FORM_BYTES:
        raise ConfigError("the form is bigger than %d KB; a form is a page of settings" % (MAX_FORM_BYTES >> 10), path)
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError("the form is not UTF-8 text (byte %d)" % exc.start, path)
    loader = _strict_loader()(text)
    lines: Dict[Tuple, int] = {}
    try:
        node = loader.get_single_node()
        if node is not None:
            _node_lines(node, (), lines)
        data = loader.construct_document(node) if node is not None else None
    except ConfigError as exc:
        raise ConfigError(exc.args[0].replace("task.yaml", "a form"), path, exc.line)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise ConfigError("not YAML: %s" % short_repr(problem), path, mark.line + 1 if mark else 0)
    except RecursionError:
        raise ConfigError("not a form: nested too deeply", path)
    except (ValueError, OverflowError) as exc:
        raise ConfigError("not a form: %s" % short_repr(str(exc)), path)
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise ConfigError("a form is a mapping of fields (kind:, name:, title: ...), not %s"
                          % ("an empty file" if data is None else type(data).__name__), path, 1)
    return data, FormLines(path, lines)


def _schema_problems(data: Dict[str, Any], schema: Dict[str, Any], lines: FormLines) -> List[ConfigError]:
    """Every way the form breaks its kind's schema, at its line, in the order of the lines."""
    import jsonschema

    problems = []
    for error in jsonschema.Draft7Validator(schema).iter_errors(data):
        field = list(error.absolute_path)
        problems.append(lines.error(field, _schema_message(error, field)))
        if error.validator == "additionalProperties":
            problems[-1] = _unknown_fields(error, field, lines) or problems[-1]
    problems.sort(key=lambda e: e.line)
    return problems


def _unknown_fields(error, field, lines: FormLines) -> Optional[ConfigError]:
    known = sorted(error.schema.get("properties", {}))
    unknown = [key for key in error.instance if key not in known] if isinstance(error.instance, dict) else []
    if not unknown:
        return None
    key = unknown[0]
    close = difflib.get_close_matches(str(key), known, n=3)
    hint = "did you mean %s? " % ", ".join(close) if close else ""
    return lines.error(field + [key], "unknown field; %sknown here: %s" % (hint, ", ".join(known)))


def _schema_message(error, field) -> str:
    value = short_repr(error.instance, 40)
    kind = error.validator
    if kind == "required":
        return error.message.replace("'", "") .replace("is a required property", "is missing")
    if kind == "enum":
        choices = [str(c) for c in error.validator_value]
        close = difflib.get_close_matches(str(error.instance), choices, n=1)
        hint = " (did you mean %s?)" % close[0] if close else ""
        return "%s is not one of %s%s" % (value, ", ".join(choices), hint)
    if kind == "anyOf":
        return "%s is not %s" % (value, error.schema.get("description", "what the form takes here"))
    if kind == "type":
        return "%s should be %s" % (value, {"integer": "a whole number", "string": "text", "object": "a mapping",
                                            "array": "a list", "number": "a number", "boolean": "true or false"}
                                    .get(str(error.validator_value), str(error.validator_value)))
    if kind in ("minimum", "maximum"):
        return "%s must be %s %s" % (value, "at least" if kind == "minimum" else "at most", error.validator_value)
    if kind in ("maxLength", "minLength"):
        return "text of %d characters; %s %d" % (len(error.instance), "at most" if kind == "maxLength" else
                                                 "at least", error.validator_value)
    if kind in ("maxItems", "minItems"):
        return "a list of %d; %s %d" % (len(error.instance), "at most" if kind == "maxItems" else "at least",
                                       error.validator_value)
    if kind == "pattern":
        return "%s does not match %s%s" % (value, error.validator_value,
                                           " (%s)" % error.schema["description"] if "description" in error.schema
                                           else "")
    return short_repr(error.message, 120)


def common_fields(task: Task, form: Dict[str, Any], path: str, lines: FormLines, run_file_help: str) -> None:
    """The fields every kind has: name, title, tag, description, the run-file rules; the form's path."""
    import re

    task.form_path = os.path.abspath(path)
    task.form = form
    task.id = form["name"]
    task.title = form["title"]
    task.tag = form.get("tag") or form["title"][:16]
    task.description = form.get("description") or form["title"]
    runs = form.get("runs") or {}
    task.run_file_help = run_file_help
    task.name_pattern = runs.get("name_pattern")
    task.hidden_phase_runs = runs.get("runs_per_submission", 1)
    try:
        re.compile(task.name_pattern or "")
    except re.error as exc:
        raise lines.error(["runs", "name_pattern"], "not a regular expression: %s" % exc)
    team_rule(task, runs.get("team", "name-without-number"), lines)


def team_rule(task: Task, rule: str, lines: FormLines) -> None:
    """The form's rule for a run's team when the platform does not say (a pool or report of run files): why a form
    states it: runs named run1 ... run7 are one team "run" by NTCIR's rule, which a TREC organiser does not expect."""
    import re

    if rule == "name-without-number":
        task.team_rule = "the run's name without its trailing number (run1, run2 -> run; the form's runs.team: " \
                         "name-without-number)"
        return
    if rule == "name":
        task.team_from_name = lambda name: name
        task.team_rule = "the run's whole name, each run its own team (the form's runs.team: name)"
        return
    try:
        pattern = re.compile(rule)
    except re.error as exc:
        raise lines.error(["runs", "team"], "not name-without-number, name, or a regular expression: %s" % exc)
    if pattern.groups < 1:
        raise lines.error(["runs", "team"], "%s is not name-without-number or name, and as a regular expression it "
                          "has no group: the team is its first group, e.g. ([A-Za-z]+)-.*" % short_repr(rule, 40))

    def team_from_name(name: str) -> str:
        found = pattern.match(name)
        return found.group(1) if found and found.group(1) else name

    task.team_from_name = team_from_name
    task.team_rule = "the first group of the form's runs.team %s, matched at the start of the run's name (a name " \
                     "it does not match: the whole name)" % rule


def primary_named(form: Dict[str, Any], lines: FormLines) -> None:
    """ConfigError when the form's `primary` names no column as written (its measure or title): checked with the
    columns' own problems, so that a form with a bad column and a bad primary is told both at once."""
    primary = form.get("primary")
    if primary is None:
        return
    written = [str(c.get(field)) for c in form["columns"] for field in ("measure", "title", "key") if c.get(field)]
    if primary not in written:
        raise lines.error(["primary"], "%r is no column; columns: %s" % (
            primary, ", ".join(str(c.get("title") or c["measure"]) for c in form["columns"])))


def primary_first(columns: List, form: Dict[str, Any], lines: FormLines) -> Tuple:
    """The columns with the form's `primary` first (its title, key or measure as written); the first by default."""
    primary = form.get("primary")
    if primary is None:
        return tuple(columns)
    written = [col["measure"] for col in form["columns"]]
    found = [c for c, measure in zip(columns, written) if primary in (c.title, c.key, c.measure, measure)]
    if not found:
        raise lines.error(["primary"], "%r is no column; columns: %s" % (primary, ", ".join(c.title for c in columns)))
    return tuple([found[0]] + [c for c in columns if c is not found[0]])


def load_form(path: str) -> Task:
    """The Task a form describes; ConfigError (every problem, each at its line) when the form is not valid."""
    from ...validate import load_schema

    data, lines = read_form_yaml(path)
    kind = data.get("kind")
    if kind not in KINDS:
        close = difflib.get_close_matches(str(kind), list(KINDS), n=1)
        hint = " (did you mean %s?)" % close[0] if close else ""
        raise lines.error(["kind"], "%s is not a kind of form%s; kinds: %s"
                          % ("missing" if kind is None else short_repr(kind, 40), hint, ", ".join(KINDS)))
    problems = _schema_problems(data, load_schema("form-%s" % kind), lines)
    if problems:
        raise ConfigError(problems[0].args[0], path, problems[0].line, problems[1:])
    module = importlib.import_module("%s.%s" % (__name__, KINDS[kind]))
    return module.build(data, path, lines)


def template(kind: str, name: str) -> str:
    """The commented form `runscore new-task KIND NAME` writes."""
    module = importlib.import_module("%s.%s" % (__name__, KINDS[kind]))
    return module.TEMPLATE.replace("{name}", name).replace("{title}", name.replace("-", " ").capitalize())


# ------------------------------------------------------------------------------ forms in a bundle ---
# Where a competition's scoring program carries its form (runscore bundle --form writes it there): every phase, the
# worker's copy of the formal reference and the starting kit's dry run then know the task as they know the seven.
INSTALLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "installed")


def installed_forms() -> List[Task]:
    """The tasks of the forms the scoring program carries (none in the repository's own package)."""
    if not os.path.isdir(INSTALLED):
        return []
    return [load_form(os.path.join(INSTALLED, name)) for name in sorted(os.listdir(INSTALLED))
            if name.endswith(".yaml")]
