"""The NTCIR-19 R2C2 AC-run format: `<Dnnnn>` blocks of an answer line and nugget lines, with physical lines.

Why a module of its own: the block grammar (tags, the answer line on the tag line or the next one, the split
on the LAST `;` of the answer line and on the FIRST three `;` of a nugget line) is the part of the task most
likely to be got wrong, and it needs no reference data. Seed: shared/seeds/000_13a97d0348fb03bd.txt; spec:
shared/specs/r2c2.md sections 1.2 and 8 (every variant of the assessed runs listed there is accepted).
"""
import re
from collections import OrderedDict
from typing import List, NamedTuple, Optional

from ...errors import Diagnostics
from .pr_format import bounded_int, normalise_run_name, short
from ...textfile import numbered_lines, read_text
from ...validate import record_schema

AC_RUN_NAME_PATTERN = r"(?P<team>\S(?:.*\S)?)-AC-(?P<number>[1-4])"
CONFIDENCE_RULES = ("error", "clamp")

_OPEN = re.compile(r"<[Dd]([0-9]+)>")                     # at the start of a line
_CLOSE_AT_END = re.compile(r"</[Dd]([0-9]+)>\s*$")        # at the end of a line (alone, or after content)
_TAG_LIKE = re.compile(r"<\s*/?\s*[A-Za-z]*\s*[0-9]+\s*>")  # something meant as a block tag
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")


class Nugget(NamedTuple):
    """One nugget line: NuggetNum, the PRrunname as written, PassageRank, the nugget text, its line."""

    number: int
    pr_run: str
    rank: int
    text: str
    line: int


class Block:
    """One `<Dnnnn>` element. `answer is None` for an empty element (the topic counts as absent, spec 1.2)."""

    def __init__(self, qid: str, line: int):
        self.qid = qid
        self.line = line                  # line of the opening tag
        self.answer: Optional[str] = None
        self.confidence: Optional[float] = None   # as written, on the 0-100 scale
        self.answer_line = 0
        self.nuggets: List[Nugget] = []

    @property
    def answered(self) -> bool:
        return self.answer is not None

    @property
    def c(self) -> float:
        """The confidence c_t in [0, 1] (Confidence / 100)."""
        return (self.confidence or 0.0) / 100.0


class ACRun:
    """A parsed AC run: its normalised name, the name used in messages, and the blocks by 4-digit qID."""

    def __init__(self, name: str, path: str, blocks: "OrderedDict[str, Block]"):
        self.name = name
        self.path = path
        self.blocks = blocks


def ac_run_name_problem(name: str) -> Optional[str]:
    """Why `name` (already normalised) breaks `[TeamName]-AC-[RunNumber]`, or None."""
    if re.fullmatch(AC_RUN_NAME_PATTERN, name):
        return None
    match = re.fullmatch(r"(.+)-([A-Za-z]+)-([0-9]+)", name)
    if match and match.group(2).upper() == "AC" and match.group(2) != "AC":
        return "run name %r: write AC in capitals (%s-AC-%s)" % (name, match.group(1), match.group(3))
    if match and match.group(2) == "AC":
        return "run name %r: the RunNumber must be an integer in the [1-4] range" % name
    if match and match.group(2) in ("PG", "PO"):
        return "run name %r is a PR run name; an AC run is named [TeamName]-AC-[RunNumber]" % name
    return "run name %r does not follow [TeamName]-AC-[RunNumber] (e.g. WASEDA-AC-3; RunNumber 1-4)" % name


def parse_ac_run(path: str, display: str, diags: Diagnostics, check_name: bool = True,
                 confidence_rule: str = "error") -> ACRun:
    """Read and check one AC run; every problem goes to `diags` (the run is valid iff none is an error).

    confidence_rule: a Confidence outside [0, 100] is an error ("error", the seed) or clamped with a warning.
    """
    name = normalise_run_name(display)
    if check_name:
        problem = ac_run_name_problem(name)
        if problem:
            diags.error(0, problem)
    parser = _BlockParser(diags, confidence_rule)
    for line_no, line in numbered_lines(read_text(path, display)):
        parser.feed(line_no, line)
    parser.finish()
    return ACRun(name, display, parser.blocks)


class _BlockParser:
    """A line-at-a-time state machine: outside a block, or inside one (before or after its answer line)."""

    def __init__(self, diags: Diagnostics, confidence_rule: str):
        self.diags = diags
        self.confidence_rule = confidence_rule
        self.schema = record_schema("r2c2-ac.nugget")
        self.blocks: "OrderedDict[str, Block]" = OrderedDict()
        self.open: Optional[Block] = None
        self.discard = False              # the open block is a duplicate: check its lines, keep nothing
        self.outside_start = 0            # first line of the current stretch of text outside blocks
        self.outside_count = 0
        self.blank_lines: List[int] = []
        self.non_integer_lines: List[int] = []
        self.any_block = False

    # ------------------------------------------------------------------------------ lines ---
    def feed(self, line_no: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            self.blank_lines.append(line_no)
            return
        opening = _OPEN.match(stripped)
        if opening:
            self._flush_outside()
            rest = stripped[opening.end():]
            if not self._open_block(line_no, opening.group(1), stripped[:opening.end()]):
                return
            self._content_then_close(line_no, rest)
            return
        if stripped.startswith("<") and _TAG_LIKE.match(stripped) and not stripped.startswith("</"):
            self._flush_outside()
            self.diags.error(line_no, "malformed block tag %r: a block opens with <D0001> (D and a 3- or "
                             "4-digit question id)" % _TAG_LIKE.match(stripped).group(0))
            return
        if self.open is None:
            closing = _CLOSE_AT_END.search(stripped)
            if closing and closing.start() == 0:
                self._flush_outside()
                self.diags.error(line_no, "closing tag %s without an open block" % closing.group(0).strip())
                return
            if not self.outside_count:
                self.outside_start = line_no
            self.outside_count += 1
            return
        self._content_then_close(line_no, stripped)

    def _content_then_close(self, line_no: int, text: str) -> None:
        """Content of an open block, possibly ending with its closing tag (`<D0005></D0005>`, `x;5</D0005>`)."""
        closing = _CLOSE_AT_END.search(text)
        content = text[:closing.start()] if closing else text
        if content.strip():
            if _TAG_LIKE.fullmatch(content.strip()):
                self.diags.error(line_no, "malformed block tag %r: a block closes with </D0001>"
                                 % content.strip())
            else:
                self._content(line_no, content)
        if closing:
            self._close_block(line_no, closing.group(1), closing.group(0).strip())

    def _open_block(self, line_no: int, digits: str, tag: str) -> bool:
        if len(digits) not in (3, 4):
            self.diags.error(line_no, "block tag %s: the question id must have 3 or 4 digits (e.g. <D0001>)"
                             % tag)
            return False
        qid = digits.zfill(4)
        if self.open is not None:
            self.diags.error(line_no, "block %s opens inside block <D%s> of line %d (blocks cannot be nested; "
                             "is </D%s> missing?)" % (tag, self.open.qid, self.open.line, self.open.qid))
            self._store_open()
        self.any_block = True
        block = Block(qid, line_no)
        self.discard = qid in self.blocks
        if self.discard:
            self.diags.error(line_no, "duplicate block for question %s (first block at line %d)"
                             % (qid, self.blocks[qid].line))
        self.open = block
        return True

    def _close_block(self, line_no: int, digits: str, tag: str) -> None:
        if self.open is None:
            self.diags.error(line_no, "closing tag %s without an open block" % tag)
            return
        if digits.zfill(4) != self.open.qid or len(digits) not in (3, 4):
            self.diags.error(line_no, "closing tag %s does not match the open block <D%s> of line %d"
                             % (tag, self.open.qid, self.open.line))
        self._store_open()

    def _store_open(self) -> None:
        if self.open is not None and not self.discard:
            self.blocks[self.open.qid] = self.open
        self.open = None
        self.discard = False

    def _content(self, line_no: int, content: str) -> None:
        block = self.open
        if block.answer is None:
            self._answer_line(block, line_no, content)
        else:
            self._nugget_line(block, line_no, content)

    # ------------------------------------------------------------------------------ fields ---
    def _answer_line(self, block: Block, line_no: int, content: str) -> None:
        answer, sep, confidence_text = content.rpartition(";")
        answer = answer.strip()
        hint = ""
        if _looks_like_nugget(content):
            hint = " (the answer line 'Answer;Confidence' must come before the nugget lines)"
        if not sep:
            self.diags.error(line_no, "answer line has no ';': expected 'Answer;Confidence' for question %s%s"
                             % (block.qid, hint))
            block.answer = content.strip()    # later lines of the block are still checked as nugget lines
            return
        text = confidence_text.strip()
        if _INTEGER.fullmatch(text):
            value = float(bounded_int(text))   # a huge digit string stays a (too large) number, never a crash
        elif _NUMBER.fullmatch(text):
            value = float(text)
            self.non_integer_lines.append(line_no)
        else:
            self.diags.error(line_no, "Confidence %r of question %s is not an integer in the [0-100] range%s"
                             % (short(text), block.qid, hint))
            block.answer = answer
            return
        if not 0.0 <= value <= 100.0:
            if self.confidence_rule == "clamp":
                clamped = min(max(value, 0.0), 100.0)
                self.diags.warning(line_no, "Confidence %s of question %s is outside [0-100]; clamped to %g"
                                   % (short(text), block.qid, clamped))
                value = clamped
            else:
                self.diags.error(line_no, "Confidence %s of question %s is outside the [0-100] range"
                                 % (short(text), block.qid))
        block.answer = answer
        block.confidence = value
        block.answer_line = line_no

    def _nugget_line(self, block: Block, line_no: int, content: str) -> None:
        fields = content.split(";", 3)
        if len(fields) < 4:
            extra = " (only one answer line per block)" if len(fields) == 2 else ""
            self.diags.error(line_no, "nugget line of question %s: expected 4 ';'-separated fields "
                             "'NuggetNum;PRrunname;PassageRank;Nugget', found %d%s"
                             % (block.qid, len(fields), extra))
            return
        record = {"NuggetNum": fields[0].strip(), "PRrunname": fields[1].strip(), "PassageRank": fields[2].strip()}
        problems = self.schema.errors(record)
        if problems:
            self.diags.error(line_no, "nugget line of question %s: %s" % (block.qid, "; ".join(problems)))
            return
        if not fields[3].strip():
            self.diags.warning(line_no, "nugget %s of question %s has an empty text" % (record["NuggetNum"],
                                                                                        block.qid))
        block.nuggets.append(Nugget(bounded_int(record["NuggetNum"]), record["PRrunname"],
                                    bounded_int(record["PassageRank"]), fields[3], line_no))

    # ------------------------------------------------------------------------------ end ---
    def _flush_outside(self) -> None:
        if self.outside_count:
            more = self.outside_count - 1
            self.diags.error(self.outside_start, "text outside a <Dnnnn> ... </Dnnnn> block%s"
                             % (" (and %d more lines after it)" % more if more else ""))
            self.outside_count = 0

    def finish(self) -> None:
        self._flush_outside()
        if self.open is not None:
            self.diags.error(self.open.line, "block <D%s> is not closed (no </D%s> before the end of the file)"
                             % (self.open.qid, self.open.qid))
            self._store_open()
        if self.blank_lines:
            n = len(self.blank_lines)
            self.diags.warning(self.blank_lines[0], "blank line ignored" +
                               (" (and %d more lines like it)" % (n - 1) if n > 1 else ""))
        if self.non_integer_lines:
            n = len(self.non_integer_lines)
            self.diags.warning(self.non_integer_lines[0], "Confidence is not an integer; scored as written / 100"
                               + (" (and %d more lines like it)" % (n - 1) if n > 1 else ""))
        answered = [b for b in self.blocks.values() if b.confidence is not None]
        if answered and all(b.confidence <= 1.0 for b in answered):
            self.diags.warning(answered[0].answer_line, "every Confidence lies in [0, 1]: Confidence is on the "
                               "0-100 scale (0.9 is read as 0.9%, not 90%)")
        if not self.any_block and not self.diags.has_errors:
            self.diags.error(0, "the file holds no <Dnnnn> block")


def _looks_like_nugget(content: str) -> bool:
    fields = content.split(";", 3)
    return len(fields) == 4 and fields[0].strip().isdigit() and _INTEGER.fullmatch(fields[2].strip()) is not None

