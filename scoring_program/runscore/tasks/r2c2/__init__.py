"""NTCIR-19 R2C2: the PR run layer (pr_format), the AC block parser (ac_format), PassageKey resolution
(passages), judgement labels (labels), the non-official automatic judge (autojudge), and the task forms pr and ac.
"""
