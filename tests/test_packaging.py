"""The package as a user gets it: `python -m build` makes an sdist and a wheel that `twine check` passes, both
carry the LICENSE, and the wheel installed in a fresh venv (no repository on the path) runs `runscore --help`,
scores a shipped sample and imports runscore.pytrec_eval.

Why: a researcher adopts the wheel, not the repository; a missing package-data file or licence shows only there.
Slow (a build and a venv): it runs in `make package-check` (part of .ci/run), and skips in `make test` unless
RUNSCORE_PACKAGE_TEST=1.
"""
import glob
import os
import subprocess
import sys
import tarfile
import zipfile
from importlib.metadata import version

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(os.environ.get("RUNSCORE_PACKAGE_TEST") != "1",
                                reason="slow (build + venv): `make package-check` runs it")


def run(argv, **kwargs):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900, **kwargs)
    assert done.returncode == 0, "%s failed:\n%s" % (" ".join(argv), done.stdout.decode(errors="replace")[-3000:])
    return done.stdout.decode()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    pytest.importorskip("build", reason="the `build` package (test extra) is not installed")
    run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), ROOT])
    wheels, sdists = glob.glob(str(out / "*.whl")), glob.glob(str(out / "*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    return wheels[0], sdists[0]


def test_twine_check_passes_and_both_carry_the_licence(built):
    wheel, sdist = built
    pytest.importorskip("twine", reason="twine (test extra) is not installed")
    assert "PASSED" in run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist])
    licence = open(os.path.join(ROOT, "LICENSE"), "rb").read()
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        in_wheel = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
        assert in_wheel and archive.read(in_wheel[0]) == licence
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "pytrec_eval" in metadata.split("\n\n")[0]
    with tarfile.open(sdist) as archive:
        member = next(m for m in archive.getmembers() if m.name.count("/") == 1 and m.name.endswith("/LICENSE"))
        assert archive.extractfile(member).read() == licence


def test_the_wheel_installs_in_a_fresh_venv_and_runs(built, tmp_path):
    wheel, _ = built
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    # the run-time dependencies at the versions of this venv (pip's cache has them), then the wheel alone
    pins = ["%s==%s" % (name, version(name)) for name in ("numpy", "scipy", "PyYAML", "jsonschema")]
    run([python, "-m", "pip", "install", "-q"] + pins)
    run([python, "-m", "pip", "install", "-q", "--no-deps", wheel])
    away = str(tmp_path)                # not the repository: the installed package is what runs
    assert "usage: runscore" in run([str(venv / "bin" / "runscore"), "--help"], cwd=away)
    scored = run([str(venv / "bin" / "runscore"), "score", "--task", "temporalia-tqic", "--ref",
                  os.path.join(ROOT, "reference_data", "temporalia-tqic"),
                  os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tqic", "tqic_sample"),
                  "--json"], cwd=away)
    assert '"sample_run1"' in scored and '"accuracy": 0.8' in scored
    code = ("import runscore, runscore.pytrec_eval as p; assert runscore.__file__.startswith(%r); p.register(); "
            "import pytrec_eval; e = pytrec_eval.RelevanceEvaluator({'q': {'a': 1}}, {'map'}); "
            "print(pytrec_eval.__version__, e.evaluate({'q': {'a': 1.0, 'b': 2.0}})['q']['map'])" % str(venv))
    assert run([python, "-c", code], cwd=away).split() == [version("runscore"), "0.5"]
