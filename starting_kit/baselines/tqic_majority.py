"""Majority-class baseline for temporalia-tqic: every test query gets the most frequent class of the training set.

Usage: python3 starting_kit/baselines/tqic_majority.py TRAIN_GOLD TEST_QUERIES GROUP_ID [RUN_ID] > tqic_GROUP_ID

TRAIN_GOLD: labelled queries, a TSV 'id<TAB>class' file (header optional) or the official XML
(<query><id>…</id>…<temporal_class>…</temporal_class></query>). TEST_QUERIES: the queries to classify, a TSV whose
first column is the id (header optional) or the official XML. Writes a run in the official format (header line,
then 'id<TAB>class<TAB>group_id<TAB>run_id'), classes spelt as the run format asks (`recent`, not `recency`).

Why: the floor every classifier must beat (on the formal set it scores the share of the largest gold class), and a
run that is valid by construction. Ties between equally frequent classes go to the first of past, recency,
future, atemporal, so the output is deterministic.
"""
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter

CLASSES = ("past", "recency", "future", "atemporal")
SPELLING = {"past": "past", "recent": "recency", "recency": "recency", "future": "future", "atemporal": "atemporal"}
RUN_SPELLING = {"past": "past", "recency": "recent", "future": "future", "atemporal": "atemporal"}


def read_queries(path):
    """[(id, class or None)] from the official XML or a TSV file (id first, class second if present)."""
    if path.lower().endswith(".xml"):
        root = ElementTree.parse(path).getroot()
        return [(q.findtext("id").strip(), (q.findtext("temporal_class") or "").strip() or None)
                for q in root.iter("query")]
    rows = []
    with open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, 1):
            fields = [f.strip() for f in line.rstrip("\r\n").split("\t")]
            if not fields[0] or (number == 1 and fields[0].lower() == "id"):
                continue
            rows.append((fields[0], fields[1] if len(fields) > 1 and fields[1] else None))
    return rows


def majority_class(labels):
    """The most frequent canonical class; ties broken by the order of CLASSES."""
    counts = Counter(SPELLING[label.lower()] for label in labels if label and label.lower() in SPELLING)
    if not counts:
        raise ValueError("the training file holds no labelled query")
    return max(CLASSES, key=lambda k: (counts[k], -CLASSES.index(k)))


def run_lines(query_ids, label, group_id, run_id):
    yield "id\tclass\tgroup_id\trun_id\n"
    for qid in query_ids:
        yield "%s\t%s\t%s\t%s\n" % (qid, RUN_SPELLING[label], group_id, run_id)


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    train, test, group_id = argv[1], argv[2], argv[3]
    run_id = argv[4] if len(argv) == 5 else group_id + "_majority"
    try:
        label = majority_class([c for _, c in read_queries(train)])
        queries = [qid for qid, _ in read_queries(test)]
    except (OSError, ValueError, ElementTree.ParseError, AttributeError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    sys.stdout.writelines(run_lines(queries, label, group_id, run_id))
    print("majority class %s for %d queries" % (label, len(queries)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
