"""The ranking wing: reading runs and qrels (as records, or as numpy columns for big files), the ranking rule and
the join with the judgements (label), the exact per-topic evaluation (rankeval) and the columnar fast path.

Dependencies point one way: fastpath -> rankeval -> label; the readers know nothing of measures.
"""
