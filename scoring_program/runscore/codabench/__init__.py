"""The platform wing: what Codabench/CodaLab runs (entry: score.py's main), the bundle builder (bundle, its pages)
and the bundle linter (lint/, one module per rule family).
"""
