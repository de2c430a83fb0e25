"""Structural validation with JSON Schema: the schemas are package files, published in the starting kit.

Why a fast path: line-based runs have millions of records, and jsonschema costs tens of microseconds per
record. For a flat record of string fields the schema's own `pattern`s are compiled once and tried first;
only a record that fails them goes through jsonschema, which then words the message. So the schema stays the
single statement of the format and the common case stays fast.
"""
import json
import os
import re
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Sequence

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")


@lru_cache(maxsize=None)
def load_schema(name: str) -> Dict[str, Any]:
    with open(os.path.join(SCHEMA_DIR, name + ".json"), encoding="utf-8") as handle:
        return json.load(handle)


@lru_cache(maxsize=None)
def _check_schema_once(name: str) -> bool:
    """A schema file is checked once per process, not once per run file (it costs milliseconds)."""
    import jsonschema

    jsonschema.Draft7Validator.check_schema(load_schema(name))
    return True


def schema_names() -> List[str]:
    return sorted(f[:-5] for f in os.listdir(SCHEMA_DIR) if f.endswith(".json"))


def _path_text(path) -> str:
    return "".join("[%d]" % p if isinstance(p, int) else (".%s" % p) for p in path).lstrip(".")


def describe(error) -> str:
    """A jsonschema error as a sentence naming the field, what was expected and what was found."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    where = schema.get("title") or _path_text(error.absolute_path)
    expected = schema.get("description")
    if error.validator == "pattern" and expected:
        message = "%r is not %s" % (error.instance, expected)
    elif error.validator == "required":
        message = error.message.replace("is a required property", "is missing")
    else:
        message = error.message
    return "%s: %s" % (where, message) if where else message


@lru_cache(maxsize=None)
def record_schema(name: str) -> "RecordSchema":
    """One RecordSchema a schema per process (its patterns compiled and its validator made once, not once a run
    file of a submission of many files)."""
    return RecordSchema(name)


class RecordSchema:
    """Validates records (dicts) against one schema; see the module docstring for the fast path.

    jsonschema is imported when a record first needs it (a schema that is not all string patterns, or a record
    that fails them): its import costs 80 ms, half of a valid run's whole check, and a valid run of a flat format
    never needs it. The shipped schemas are checked by tests/test_schemas.py."""

    def __init__(self, name: str):
        self.name = name
        self.schema = load_schema(name)
        self._validator = None
        props = self.schema.get("properties", {})
        self.patterns = {k: re.compile(v["pattern"]) for k, v in props.items()
                         if v.get("type") == "string" and "pattern" in v}
        self.fast = self.schema.get("type") == "object" and len(self.patterns) == len(props)

    def searches(self, keys: Sequence[str]) -> Optional[List[Callable[[str], Any]]]:
        """The patterns of the fields `keys` (a record's every property), as search functions: a record of
        strings that each one finds is valid (`errors` says [] without asking jsonschema), so a parser may try
        them on its fields before building the record. None when the schema has no such fast path."""
        if not self.fast or sorted(keys) != sorted(self.patterns):
            return None
        return [self.patterns[k].search for k in keys]

    @property
    def validator(self):
        if self._validator is None:
            import jsonschema

            _check_schema_once(self.name)
            self._validator = jsonschema.Draft7Validator(self.schema)
        return self._validator

    def errors(self, record: Dict[str, Any]) -> List[str]:
        if self.fast and all(isinstance(record.get(k), str) and p.search(record[k]) for k, p in
                             self.patterns.items()):
            return []
        return [describe(e) for e in sorted(self.validator.iter_errors(record), key=lambda e: list(e.path))]
