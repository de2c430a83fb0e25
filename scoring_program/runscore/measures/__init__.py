"""Measures: small pure functions of grades and scores (what a measure reads of a topic: judged.py), each declared once in a
registry; they import only numpy, the standard library, measures/ and errors.py/numeric.py."""
