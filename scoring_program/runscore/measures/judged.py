"""What a measure reads of one topic: the grades of its ranked documents and the grades of its judgements.

Why a module of its own in measures/: the measures are functions of grades, never of document ids or run files;
the ranking wing (ranking/label.py, the columnar join) makes these arrays and imports this module, and no
module of measures/ imports the ranking wing, so a measure can be read and tested with numpy alone.
"""
from dataclasses import dataclass, field

import numpy as np

NOT_IN_POOL = -1    # retrieved but absent from the qrels (trec_eval RELVALUE_NONPOOL)
UNJUDGED = -2       # in the qrels with a negative grade: pooled but unjudged (trec_eval RELVALUE_UNJUDGED)

# Measures keep one counter per grade 0..max (as trec_eval does), so an absurd grade would exhaust memory: every
# reader of judgements (ranking/qrels.py, the columnar reader, the in-memory qrels) refuses a grade beyond it.
MAX_GRADE = 1000000


@dataclass
class JudgedTopic:
    """One topic after labelling.

    rels: the qrels grade of each retrieved document in rank order (after truncation), NOT_IN_POOL for a
          document the qrels do not list, UNJUDGED for one the qrels list with a negative grade.
    judged: every grade the qrels give this topic (negative grades included), in qrels file order.
    level: the relevance level; a document is relevant iff its grade >= level.
    """

    rels: np.ndarray
    judged: np.ndarray
    level: int = 1
    # num_rel and relevant, kept with what they were computed from: every measure of a topic asks for them
    # (32 measures with all_trec), and a caller may replace rels (-J) after the first question.
    _known: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def num_rel(self) -> int:
        """Judged documents at the level or above; a negative grade never counts (trec_eval counts grades >= 0
        only, also with -l 0 or below)."""
        known = self._known.get("num_rel")
        if known is None or known[0] is not self.judged or known[1] != self.level:
            known = self._known["num_rel"] = (self.judged, self.level,
                                              int(np.count_nonzero(self.judged >= max(self.level, 0))))
        return known[2]

    @property
    def num_ret(self) -> int:
        return int(self.rels.shape[0])

    @property
    def relevant(self) -> np.ndarray:
        """Boolean array: is the document at each rank relevant (read-only: it is shared by the measures)."""
        known = self._known.get("relevant")
        if known is None or known[0] is not self.rels or known[1] != self.level:
            relevant = self.rels >= self.level
            relevant.flags.writeable = False
            known = self._known["relevant"] = (self.rels, self.level, relevant)
        return known[2]
