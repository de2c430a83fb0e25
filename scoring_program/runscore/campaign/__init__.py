"""The campaign wing: what an organiser runs around the scorer (collect, pool, assess, judgements, report)."""
