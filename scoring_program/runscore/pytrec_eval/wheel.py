"""A local wheel named pytrec-eval-terrier whose `pytrec_eval` module is runscore.pytrec_eval (the stand-in).

Why: ir_measures, BEIR and mteb declare a dependency on pytrec-eval-terrier (a C extension that brings scipy) and
`import pytrec_eval` by name. Installed without their dependencies, `pip check` fails, and ir_measures silently
falls back to other providers (other numbers) when the import fails. With this wheel installed, pip counts
pytrec-eval-terrier as installed (`pip check` is clean, nothing else is downloaded for it) and `import pytrec_eval`
gives runscore's module in every program of the environment, with no register() to forget. It is built on the
user's machine and never published, and a constraints file beside it keeps pip from replacing it
(docs/python-api.md). Deterministic: the same runscore writes the same bytes.

Two choices keep it from being handed to anyone who did not ask for it, or from bringing anything else in:
* its version is a development release of the release it matches, with runscore's version as a local label
  (`0.5.11.dev0+runscore.<version>`): `pytrec-eval-terrier==0.5.11` does not match it (the real release does), and
  pip takes a development release only when it is pinned (the constraints file) or nothing else satisfies the
  request, so beside an index that serves the real one, only the constraints file picks the stand-in;
* it declares no dependency: `Requires-Dist: runscore` would make pip install whatever an index serves under that
  name (dependency confusion: no index holds runscore for us). It needs the runscore of the environment that wrote
  it, and says so when it is missing.
"""
import base64
import hashlib
import os
import re
import zipfile
from typing import List, Tuple

from .. import __version__
from ..errors import printable

DISTRIBUTION = "pytrec-eval-terrier"
# The pytrec-eval-terrier release runscore.pytrec_eval is verified against (tests/test_pytrec_eval_compat.py).
MATCHES = "0.5.11"
MODULE = '''"""pytrec_eval standing in for pytrec-eval-terrier: runscore's pure-Python pytrec_eval.

Written by `runscore pytrec-eval-wheel`, so that code importing pytrec_eval by name (ir_measures, BEIR, mteb)
computes with runscore, and pip counts pytrec-eval-terrier as installed. `pip uninstall pytrec-eval-terrier`
removes it; installing the real pytrec-eval-terrier then gives the C extension back.
"""
import sys

__runscore_stand_in__ = True
try:
    from runscore.pytrec_eval import register
except ImportError as exc:
    raise ImportError("pytrec_eval here is runscore's stand-in (pytrec-eval-terrier %s), which needs runscore "
                      "in this environment: %s. Install runscore (pip install . in its clone), or "
                      "`pip uninstall pytrec-eval-terrier` and install the real one" % (VERSION, exc)) from exc

sys.modules[__name__] = register()
'''


def version() -> str:
    """The stand-in's version: a development release of the release it matches, with runscore's version as a
    local label (PEP 440), so that `==0.5.11` and an unpinned request get the real release (see above)."""
    return "%s.dev0+runscore.%s" % (MATCHES, re.sub(r"[^A-Za-z0-9.]", ".", __version__))


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def files() -> List[Tuple[str, bytes]]:
    """(path in the wheel, content) of every file, RECORD last."""
    info = "pytrec_eval_terrier-%s.dist-info" % version()
    metadata = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: runscore's pure-Python pytrec_eval "
                "standing in for pytrec-eval-terrier (written by runscore pytrec-eval-wheel, never published)\n"
                "License-Expression: MIT\nRequires-Python: >=3.9\n" % (DISTRIBUTION, version()))
    wheel = ("Wheel-Version: 1.0\nGenerator: runscore %s\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
             % __version__)
    module = MODULE.replace("(VERSION, exc)", "(%r, exc)" % version())
    listed = [("pytrec_eval/__init__.py", module.encode("utf-8")), (info + "/METADATA", metadata.encode("utf-8")),
              (info + "/WHEEL", wheel.encode("utf-8")), (info + "/top_level.txt", b"pytrec_eval\n")]
    record = "".join(_record_line(name, data) + "\n" for name, data in listed) + info + "/RECORD,,\n"
    return listed + [(info + "/RECORD", record.encode("utf-8"))]


def write(folder: str) -> Tuple[str, str]:
    """The wheel and a constraints file pinning it (`pip install -c`), written into `folder`: their paths."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "pytrec_eval_terrier-%s-py3-none-any.whl" % version())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files():
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    constraints = os.path.join(folder, "constraints.txt")
    with open(constraints, "w", encoding="utf-8") as handle:
        # the comment names the folder on one line (pip reads every other line of the file as a constraint)
        handle.write("# pip install --find-links %s -c %s ir_measures beir: pytrec-eval-terrier is runscore's\n"
                     "%s==%s\n" % (printable(folder), printable(constraints), DISTRIBUTION, version()))
    return path, constraints
