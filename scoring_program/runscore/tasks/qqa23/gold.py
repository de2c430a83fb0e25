"""The QRCD v1.2 gold file (JSONL, one question-passage pair a line), read strictly.

Why strict: the scorer maps answers to tokens through `start_char`, so a gold answer that does not sit at its
offset, or a raw (not preprocessed) passage whose full stops cling to words, would silently shift every
position. Such a file is the organiser's mistake (ConfigError, exit 2), reported at its line.
"""
import json
from dataclasses import dataclass
from typing import Any, Dict, List

from ...errors import ConfigError, ConfigErrors
from ...numeric import json_loads
from ...textfile import lone_surrogate, numbered_lines, read_text


@dataclass(frozen=True)
class GoldRecord:
    pq_id: str
    passage: str
    answers: List[Dict[str, Any]]      # {"text": str, "start_char": int}; empty = zero-answer question
    line: int

    @property
    def tokens(self) -> List[str]:
        return self.passage.split()


def read_gold(path: str) -> List[GoldRecord]:
    """Every record in file order (the official mean runs over them all)."""
    records: List[GoldRecord] = []
    first_line: Dict[str, int] = {}
    problems = ConfigErrors()
    for line_no, line in numbered_lines(read_text(path, error_class=ConfigError)):
        if not line.strip():
            continue
        with problems.catch():            # every bad line is told at once, not the first only
            record = _record(line, path, line_no)
            if record.pq_id in first_line:
                raise ConfigError("duplicate pq_id %s (first at line %d)" % (record.pq_id, first_line[record.pq_id]),
                                  path, line_no)
            first_line[record.pq_id] = line_no
            records.append(record)
    problems.check()
    if not records:
        raise ConfigError("the gold file holds no records", path)
    return records


def _record(line: str, path: str, line_no: int) -> GoldRecord:
    def fail(message: str) -> ConfigError:
        return ConfigError(message, path, line_no)

    try:
        data = json_loads(line)
    except json.JSONDecodeError as exc:
        raise fail("not a JSON object: %s (column %d); QRCD files hold one JSON object a line" % (exc.msg, exc.colno))
    except (ValueError, RecursionError) as exc:    # a number too long for int(), nesting too deep
        raise fail("not a usable JSON object (%s)" % str(exc)[:80])
    if not isinstance(data, dict):
        raise fail("not a JSON object; QRCD files hold one JSON object a line")
    broken = lone_surrogate(line, data)
    if broken:
        raise fail(broken)
    for name, kind in (("pq_id", str), ("passage", str), ("answers", list)):
        if not isinstance(data.get(name), kind):
            raise fail("field %r is missing or not a %s" % (name, "list" if kind is list else "string"))
    passage = data["passage"]
    if passage != " ".join(passage.split()):
        raise fail("pq_id %s: the passage has leading, trailing or repeated spaces" % data["pq_id"])
    if any("." in token and token != "." for token in passage.split()):
        raise fail("pq_id %s: a full stop is attached to a word; this looks like the raw QRCD file, and the "
                   "scorer needs the preprocessed one (*_preprocessed.jsonl, each '.' its own token)" % data["pq_id"])
    answers = []
    for k, answer in enumerate(data["answers"], 1):
        if not (isinstance(answer, dict) and isinstance(answer.get("text"), str) and answer["text"]
                and isinstance(answer.get("start_char"), int) and not isinstance(answer["start_char"], bool)):
            raise fail("pq_id %s, answer %d: needs a non-empty string 'text' and an integer 'start_char'"
                       % (data["pq_id"], k))
        start, text = answer["start_char"], answer["text"]
        if start < 0 or passage[start:start + len(text)] != text:
            raise fail("pq_id %s, answer %d: the text %r is not at start_char %d of the passage"
                       % (data["pq_id"], k, text, start))
        answers.append({"text": text, "start_char": start})
    return GoldRecord(data["pq_id"], passage, answers, line_no)
