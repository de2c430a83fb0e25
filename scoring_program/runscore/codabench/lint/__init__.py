"""Check a competition bundle (a folder or the upload zip) against every rule of shared/specs/codabench.md.

Why our own linter: the public validator (codalab-yaml-validator) has a stale schema, ignores the scoring
program's `metadata` and exits 0 on "deep" errors; Codabench itself only tells at upload time, often with an
opaque message, and some mistakes (a column key the scorer never writes) are never reported at all: the
leaderboard just shows `n/a`. Each finding is a Diagnostic `FILE:LINE: error|warning: message` with a rule code;
the rules of Codabench v2 (`version: 2`) and of CodaLab v1.5 (no version) are told apart by the YAML itself.

One module per rule family: v2_yaml, v1_yaml, program, reference, archive (the zip itself); base holds what
they share, and Linter below joins them.
"""
from typing import List, Optional

import yaml

from ...errors import ERROR, Diagnostic
from .archive import ArchiveRules, BundleView, open_bundle
from .base import YAML_NAME, LinterBase, line_index
from .program import ProgramRules
from .reference import ReferenceRules
from .v1_yaml import V1Rules
from .v2_yaml import V2Rules

__all__ = ["BundleView", "Linter", "lint_bundle", "lint_path", "open_bundle", "print_report"]


class Linter(V2Rules, V1Rules, ProgramRules, ReferenceRules, ArchiveRules, LinterBase):
    """The linter: one mixin per rule family (v2_yaml, v1_yaml, program, reference, archive); run() is the entry."""

    # ------------------------------------------------------------------------------ entry ---
    def run(self) -> List[Diagnostic]:
        if not self.bundle.exists(YAML_NAME):
            nested = [n for n in self.bundle.names if n.endswith("/" + YAML_NAME)]
            if nested:
                self.error("yaml-at-root", "competition.yaml is not at the root of the bundle but in %s: zip the "
                           "folder's contents, not the folder (cd bundle && zip -r ../bundle.zip .)"
                           % nested[0].rsplit("/", 1)[0] + "/", file=self.bundle.label)
            else:
                self.error("yaml-at-root", "no competition.yaml at the root of the bundle", file=self.bundle.label)
            return self.found
        text = self.bundle.read(YAML_NAME)
        try:
            data = yaml.safe_load(text)
            self.lines = line_index(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            self.found.append(Diagnostic(YAML_NAME, mark.line + 1 if mark else 0, ERROR,
                                         "not valid YAML: %s" % getattr(exc, "problem", exc), "yaml-syntax"))
            return self.found
        if not isinstance(data, dict):
            self.error("yaml-mapping", "competition.yaml must be a mapping of keys to values")
            return self.found
        if self.bundle.is_zip:
            self.check_junk()
            if self.bundle.names[0] != YAML_NAME:
                self.warning("zip-order", "competition.yaml is not the first entry of the zip (CodaLab v1 reads the "
                             "first entry whose name contains .yaml; the builder writes it first)",
                             file=self.bundle.label)
        version = data.get("version")
        if version == 2 or version == "2":
            self.check_v2(data)
        elif version in (None, 1, 1.5, "1", "1.5"):
            if any(k in data for k in ("leaderboards", "pages", "tasks", "terms", "docker_image")):
                self.error("v2-version", "no `version: 2`, yet Codabench v2 keys (%s): without it Codabench reads "
                           "the bundle as v1.5 and fails with \"HTML pages could not be found in the yaml file\""
                           % ", ".join(k for k in ("leaderboards", "pages", "tasks", "terms", "docker_image")
                                       if k in data))
            else:
                self.check_v1(data)
        else:
            self.error("v2-version", "version %r is not 2 (Codabench) nor absent/1.5 (CodaLab)" % version,
                       ("version",))
        return self.found


def lint_bundle(bundle: BundleView, worker_data: Optional[str] = None) -> List[Diagnostic]:
    return Linter(bundle, worker_data).run()


def lint_path(path: str, worker_data: Optional[str] = None) -> List[Diagnostic]:
    """Every finding about the bundle folder or zip at `path` (ConfigError when it is neither); worker_data: the
    worker's data folder for a formal phase whose reference is kept there."""
    return lint_bundle(open_bundle(path), worker_data)


def print_report(found: List[Diagnostic], out=None) -> None:
    import sys

    out = out or sys.stdout
    for diagnostic in found:
        print("%s [%s]" % (diagnostic, diagnostic.code), file=out)
    errors = sum(1 for d in found if d.severity == ERROR)
    warnings = len(found) - errors
    print("bundle %s: %d error(s), %d warning(s)" % ("rejected" if errors else "ok", errors, warnings), file=out)
