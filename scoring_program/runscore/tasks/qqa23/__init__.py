"""Qur'an QA 2023 Task B (task qqa23-mrc): the run file, the official checker's rules and pAP@10.

One job per module, in flow order: `run_json` reads the run with line numbers, `checker` applies the official
submission checker's rules (and what it forgot), `gold` reads the QRCD gold file, `segment` and `text` hold
the official answer normalisation, `pap` computes partial average precision exactly as the official scorer;
`mrc` is the task form that wires them.
"""
