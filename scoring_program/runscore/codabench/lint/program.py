"""Rules about the scoring program a phase or task points at (metadata, command, entry file).
"""
from typing import Tuple

import yaml

from ..competition_yaml import SCORING_COMMAND
from .archive import BundleView
from .base import LinterBase, METADATA_KEYS


class ProgramRules(LinterBase):
    def check_program(self, program: BundleView, where: Tuple) -> None:
        label = program.label
        descriptor = "metadata" if program.exists("metadata") else "metadata.yaml" \
            if program.exists("metadata.yaml") else None
        if descriptor is None:
            tops = program.top_level()
            if len(tops) == 1 and program.exists(tops[0] + "/metadata"):
                self.error("program-metadata", "the scoring program is inside a folder %s/: put its contents at the "
                           "root (\"Program directory missing 'metadata.yaml/metadata'\")" % tops[0], where)
            else:
                self.error("program-metadata", "the scoring program has no metadata file at its root", where)
            return
        try:
            meta = yaml.safe_load(program.read(descriptor))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            self.error("program-metadata", "%s/%s is not valid YAML: %s" % (label, descriptor, exc), where)
            return
        if not isinstance(meta, dict):
            self.error("program-metadata", "%s/%s must be a mapping with `command:`" % (label, descriptor), where)
            return
        extra = sorted(set(meta) - METADATA_KEYS)
        if extra:
            self.error("program-metadata", "%s/%s has keys %s: only command and description are allowed (the v1 "
                       "worker downloads other string values as bundles)" % (label, descriptor, ", ".join(extra)),
                       where)
        if meta.get("command") != SCORING_COMMAND:
            self.error("program-command", "%s/%s: command is %r; it must be exactly %r (no shell: single spaces, "
                       "no quotes)" % (label, descriptor, meta.get("command"), SCORING_COMMAND), where)
        if not program.exists("score.py"):
            self.error("program-files", "the scoring program has no score.py at its root", where)
        if not program.exists("runscore/__init__.py"):
            self.error("program-files", "the scoring program has no runscore package", where)
