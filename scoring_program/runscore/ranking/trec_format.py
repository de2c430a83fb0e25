"""Reader for TREC run ("results") files as trec_eval reads them, but strict where trec_eval is silently lenient.

Format: `qid iter docno rank sim run_id [ignored ...]`, whitespace-separated; iter and rank are ignored, the
run id of the last line is the run's. trec_eval reads a score `abc` as 0, keeps duplicate documents until they
abort the evaluation, and numbers its "Malformed line" messages without comment lines. We report every
defect at once with the physical line number and refuse to score (exit 1).
"""
import re
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, Optional

from ..errors import Diagnostics
from .rankeval import TopicRun
from ..textfile import decode_utf8, numbered_lines

FIELDS = "qid iter docno rank sim run_id"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_FINITE_MAX = sys.float_info.max
_FINITE_MIN = -_FINITE_MAX


@dataclass
class TrecRun:
    topics: Dict[str, TopicRun] = field(default_factory=OrderedDict)
    run_id: str = ""


def parse_trec_run(data: bytes, path: str, comments: bool = False, max_errors: int = 50,
                   keep_first_duplicate: bool = False) -> (TrecRun, Diagnostics):
    """Parse run bytes; `comments` makes lines starting with `#` comments (trec_eval 10.0).

    A repeated (topic, docno) is an error; with `keep_first_duplicate` it is a warning and the first line wins.
    """
    diags = Diagnostics(path, max_errors)
    run = TrecRun()
    try:
        text = decode_utf8(data, path)
    except Exception as exc:   # RunError from decode_utf8: keep it as a diagnostic
        diagnostic = getattr(exc, "diagnostic", None)
        diags.error(diagnostic.line if diagnostic else 0, diagnostic.message if diagnostic else str(exc))
        return run, diags
    first_line: Dict[str, Dict[str, int]] = {}     # topic -> docno -> line of its first occurrence
    topics = run.topics
    number = _NUMBER.fullmatch
    for line_no, line in numbered_lines(text):
        fields = line.split()
        if not fields or (comments and fields[0].startswith("#")):
            continue
        if len(fields) < 6:
            diags.error(line_no, "malformed line: %d field(s), expected at least 6: %s" % (len(fields), FIELDS))
            continue
        qid, docno, sim_text = fields[0], fields[2], fields[4]
        if not number(sim_text):
            diags.error(line_no, "score (field 5) %r is not a number" % sim_text)
            continue
        sim = float(sim_text)
        if not _FINITE_MIN <= sim <= _FINITE_MAX:
            diags.error(line_no, "score (field 5) %r is out of range for a double" % sim_text)
            continue
        seen = first_line.get(qid)
        if seen is None:
            seen = first_line[qid] = {}
            topics[qid] = TopicRun()
        elif docno in seen:
            report = diags.warning if keep_first_duplicate else diags.error
            report(line_no, "duplicate docno %s in topic %s (first seen at line %d%s)"
                   % (docno, qid, seen[docno], "; this line is ignored" if keep_first_duplicate else ""))
            continue
        seen[docno] = line_no
        topic = topics[qid]
        topic.docnos.append(docno)
        topic.scores.append(sim)
        topic.lines.append(line_no)
        run.run_id = fields[5]
    if not first_line and not diags.has_errors:
        diags.error(0, "the run has no result lines")
    return run, diags


def read_trec_run(path: str, comments: bool = False, max_errors: int = 50, data: Optional[bytes] = None,
                  keep_first_duplicate: bool = False):
    """Read and parse a run file (or the given bytes, e.g. stdin); OSError propagates to the caller."""
    if data is None:
        with open(path, "rb") as handle:
            data = handle.read()
    return parse_trec_run(data, path, comments, max_errors, keep_first_duplicate)
