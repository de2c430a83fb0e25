"""pAP@10, partial average precision at cut-off 10, exactly as the official Qur'an QA 2023 Task B scorer.

Why so many small steps: the official scorer (QQA23_TaskB_eval.py) is not plain AP over spans. It maps token
positions into the passage with stop words and full stops deleted, drops some predictions before the cut-off,
groups predictions by normalised text, splits a prediction that covers two golds, re-ranks, matches greedily
with token F1 and credits each distinct gold text once. Every step below is one function named after the step
of the spec (shared/specs/qqa23-mrc.md section 4.2) so the code can be read next to it.

Spans are inclusive token ranges [start, end] in the normalised passage; an "empty" span has end < start.
"""
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from .segment import Segmenter
from .text import answer_text, is_removed_token, passage_tokens

CUTOFF = 10
# Outcome of one record, for the per-question report.
SCORED, ABSTAINED_CORRECTLY, MISSING, ANSWERED_NO_ANSWER, ABSTAINED_WRONGLY, ALL_DROPPED = (
    "scored", "abstained correctly", "missing from the run", "answered a zero-answer question",
    "abstained on an answerable question", "every prediction dropped")


@dataclass(frozen=True)
class Span:
    start: int
    end: int

    def __len__(self) -> int:
        return max(0, self.end - self.start + 1)


@dataclass(frozen=True)
class Gold:
    text: str
    span: Span


@dataclass(frozen=True)
class Prediction:
    """A prediction that survived filtering: normalised text and adjusted span."""

    text: str
    span: Span


@dataclass(frozen=True)
class Entry:
    """One (prediction, overlapped gold) pair of the grouping step; gold is None when it overlaps none."""

    span: Span
    gold: Optional[Gold]
    overlap: Optional[Span]
    rank: int


@dataclass
class RecordScore:
    """pAP of one record, how it came about, and the match value of each re-ranked item (step 10)."""

    pap: float
    outcome: str
    matches: Tuple[float, ...] = ()
    gold_texts: Tuple[str, ...] = ()          # distinct normalised gold texts, in sorted gold order
    predicted_texts: Tuple[str, ...] = ()     # normalised texts of the scored predictions (after the cut-off)

    @property
    def distinct_gold_texts(self) -> int:
        return len(self.gold_texts)


# ---------------------------------------------------------------------------------------------- helpers ---
def intersection(a: Span, b: Span) -> Optional[Span]:
    start, end = max(a.start, b.start), min(a.end, b.end)
    return Span(start, end) if start <= end and len(a) and len(b) else None


def token_f1(predicted: Span, gold: Span) -> float:
    """Token F1 of two position lists (each position occurs once, so the multiset overlap is the range overlap)."""
    common = intersection(predicted, gold)
    if common is None:
        return 0.0
    precision, recall = len(common) / len(predicted), len(common) / len(gold)
    return 2 * precision * recall / (precision + recall)


class PositionMap:
    """Maps a token position of the preprocessed passage to its position once stop words and "." are removed."""

    def __init__(self, passage: str, segment: Segmenter):
        self.tokens = passage_tokens(passage, segment)
        self.removed_so_far: List[int] = []       # R(x): removed tokens among tokens[0..x]
        count = 0
        for token in self.tokens:
            count += is_removed_token(token)
            self.removed_so_far.append(count)

    def removed_up_to(self, x: int) -> int:
        if x < 0:
            return 0
        if x >= len(self.tokens):
            return self.removed_so_far[-1] if self.tokens else 0
        return self.removed_so_far[x]

    def start(self, s: int) -> int:
        """A start on a removed token moves to the next kept token, except on the passage's last token."""
        moved = 1 if 0 <= s < len(self.tokens) - 1 and is_removed_token(self.tokens[s]) else 0
        return s - self.removed_up_to(s) + moved

    def end(self, e: int) -> int:
        return e - self.removed_up_to(e)


def char_to_token(passage: str) -> List[int]:
    """Token index of every character of the space-joined passage (a token's following space is its own)."""
    index: List[int] = []
    for k, token in enumerate(passage.strip().split()):
        index.extend([k] * (len(token) + 1))
    return index


# ------------------------------------------------------------------------------------------ the steps ---
def gold_answers(passage: str, answers: Sequence[Dict], positions: PositionMap, segment: Segmenter) -> List[Gold]:
    """Step 4: each gold answer as (normalised text, adjusted span), stably sorted by adjusted start."""
    token_of = char_to_token(passage)
    golds = []
    for answer in answers:
        first = token_of[answer["start_char"]]
        last = token_of[answer["start_char"] + len(answer["text"]) - 1]
        golds.append(Gold(answer_text(answer["text"], segment), Span(positions.start(first), positions.end(last))))
    return sorted(golds, key=lambda g: g.span.start)


def surviving_predictions(answers: Sequence[Dict], positions: PositionMap, segment: Segmenter,
                          cutoff: int) -> List[Prediction]:
    """Steps 5-6: list order is the ranking (rank is not read); empty texts and spans are dropped, then cut."""
    survivors = []
    for answer in answers:
        text = answer_text(answer["answer"], segment)
        span = Span(positions.start(answer["strt_token_indx"]), positions.end(answer["end_token_indx"]))
        if text and span.start <= span.end:
            survivors.append(Prediction(text, span))
    return survivors[:cutoff]


def group_by_text(predictions: Sequence[Prediction], golds: Sequence[Gold]) -> "OrderedDict[str, List[Entry]]":
    """Step 7: entries per normalised text; a repeated text that overlaps no gold is dropped."""
    groups: "OrderedDict[str, List[Entry]]" = OrderedDict()
    for rank, prediction in enumerate(predictions, 1):
        hits = [(gold, intersection(prediction.span, gold.span)) for gold in golds]
        hits = [(gold, common) for gold, common in hits if common is not None]
        if hits:
            groups.setdefault(prediction.text, []).extend(Entry(prediction.span, gold, common, rank)
                                                          for gold, common in hits)
        elif prediction.text not in groups:
            groups[prediction.text] = [Entry(prediction.span, None, None, rank)]
    return groups


def split_group(entries: Sequence[Entry], emitted: List[Tuple[Span, float]]) -> None:
    """Step 8: emit (span, float rank) items for one text group; a prediction covering two golds is split.

    `emitted` is the list of the whole record: a second split of the same group removes the last item emitted.
    """
    if len(entries) == 1 and entries[0].gold is not None:
        emitted.append((entries[0].span, float(entries[0].rank)))
        return
    first_rank = float(entries[0].rank)
    offset = 1 / (len(entries) + 1)
    current = [entry.span for entry in entries]
    split_done = False
    second = None
    for k, entry in enumerate(entries):
        if entry.gold is None:
            emitted.append((entry.span, float(entry.rank)))
            continue
        if k + 1 >= len(entries):
            continue
        following = entries[k + 1]
        if entry.gold.text == following.gold.text:
            emitted.append((entry.span, float(entry.rank)))
            emitted.append((following.span, float(following.rank)))
            continue
        if split_done:
            emitted.pop()
            current[k] = second
            offset += 0.05
        if intersection(entry.overlap, following.overlap) is not None:
            if token_f1(entry.span, entry.gold.span) >= token_f1(entry.span, following.gold.span):
                emitted.append((entry.span, float(entry.rank)))
            else:
                emitted.append((following.span, float(following.rank)))
            continue
        between = Span(entry.overlap.end + 1, following.overlap.start - 1)
        if len(between) == 0:
            first = Span(current[k].start, entry.overlap.end)
            second = Span(following.overlap.start, current[k + 1].end)
        else:
            middle = between.start + len(between) // 2
            first = Span(current[k].start, middle - 1)
            second = Span(middle, current[k + 1].end)
        first_part_rank = first_rank + offset
        emitted.append((first, first_part_rank))
        emitted.append((second, first_part_rank + offset))      # (r0 + off) + off, as the official float sum
        split_done = True


def rerank(emitted: Sequence[Tuple[Span, float]]) -> List[Span]:
    """Step 9: stable sort by float rank; the position in the result is the new rank."""
    return [span for span, _ in sorted(emitted, key=lambda item: item[1])]


def greedy_matches(ranked: Sequence[Span], golds: Sequence[Gold]) -> List[float]:
    """Step 10: each item takes the best unmatched gold by token F1 (first strict maximum); a match uses up
    every gold with the same text."""
    unmatched = list(golds)
    matches = []
    for span in ranked:
        best, best_gold = 0.0, None
        for gold in unmatched:
            f1 = token_f1(span, gold.span)
            if f1 > best:
                best, best_gold = f1, gold
        if best > 0:
            unmatched = [gold for gold in unmatched if gold.text != best_gold.text]
        matches.append(best)
    return matches


def partial_average_precision(matches: Sequence[float], distinct_gold_texts: int) -> float:
    """Step 11: sum over matched ranks i of (sum of match values up to i) / i, over the distinct gold texts."""
    cumulative = total = 0.0
    for rank, value in enumerate(matches, 1):
        if value:
            cumulative += value
            total += cumulative / rank
    return total / distinct_gold_texts


# ------------------------------------------------------------------------------------------- a record ---
def score_record(passage: str, gold: Sequence[Dict], predictions: Optional[Sequence[Dict]], segment: Segmenter,
                 cutoff: int = CUTOFF) -> RecordScore:
    """pAP of one question-passage pair. predictions None = the pq_id is missing from the run."""
    positions = PositionMap(passage, segment)
    golds = gold_answers(passage, gold, positions, segment)
    texts = tuple(OrderedDict.fromkeys(g.text for g in golds))
    if predictions is None:
        return RecordScore(0.0, MISSING, (), texts)
    if not gold:
        return RecordScore(1.0, ABSTAINED_CORRECTLY) if not predictions else RecordScore(0.0, ANSWERED_NO_ANSWER)
    if not predictions:
        return RecordScore(0.0, ABSTAINED_WRONGLY, (), texts)
    survivors = surviving_predictions(predictions, positions, segment, cutoff)
    if not survivors:
        return RecordScore(0.0, ALL_DROPPED, (), texts)    # the official scorer crashes here
    emitted: List[Tuple[Span, float]] = []
    for entries in group_by_text(survivors, golds).values():
        split_group(entries, emitted)
    matches = greedy_matches(rerank(emitted), golds)
    return RecordScore(partial_average_precision(matches, len(texts)), SCORED, tuple(matches), texts,
                       tuple(p.text for p in survivors))
