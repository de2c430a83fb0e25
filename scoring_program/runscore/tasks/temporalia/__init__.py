"""NTCIR-11 Temporalia: the shared TSV rules (format) and the two task forms, tqic and tir."""
