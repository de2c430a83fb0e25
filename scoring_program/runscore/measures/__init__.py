"""Measures: small pure functions over labelled rankings, each declared once in a registry."""
