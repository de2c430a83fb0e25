"""The package as a user gets it.

Cheap (in `make test`): `pip install runscore` depends on numpy only, and trec_eval, the pytrec_eval drop-in and
api.trec_eval run without scipy, PyYAML or jsonschema while the commands that need one say which extra to install;
the package page (README-pypi.md) has no link that is dead on a package index; the classifiers name every Python
it is tested on; the pytrec-eval-terrier stand-in wheel is well-formed and makes `import pytrec_eval` runscore's;
the install recipe of the docs is the one package-check runs.

Slow (a build and fresh venvs: `make package-check`, part of .ci/run; skipped unless RUNSCORE_PACKAGE_TEST=1):
`python -m build` makes an sdist and a wheel that `twine check` passes, both carry the LICENSE; the wheel
installed in a fresh venv on every Python 3.9-3.13 found (numpy only) runs trec_eval and the drop-in, and with
its extras runs every command; installed beside ir_measures and BEIR by the documented recipe, `pip check` is
clean, no C extension is installed and they compute runscore's numbers (equal to pytrec-eval-terrier's here).
Why: a researcher adopts the wheel, not the repository; a missing package-data file, a dependency pulled in
for nothing or a broken recipe shows only there.
"""
import base64
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from importlib.metadata import PackageNotFoundError, metadata, requires, version

import pytest

from conftest import ROOT

SLOW = pytest.mark.skipif(os.environ.get("RUNSCORE_PACKAGE_TEST") != "1",
                          reason="slow (build + venvs): `make package-check` runs it")
PYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
# requires-python: the range the classifiers and package-check give, and the one every page states in words
PYTHON_RANGE = ">=%s,<3.%d" % (PYTHONS[0], int(PYTHONS[-1].split(".")[1]) + 1)
PYTHON_WORDS = "Python %s to %s" % (PYTHONS[0], PYTHONS[-1])
# The recipe of docs/python-api.md and README-pypi.md, run as written by test_beside_ir_measures_and_beir.
RECIPE = ["pip install .", "runscore pytrec-eval-wheel -o wheels",
          "pip install --find-links wheels -c wheels/constraints.txt ir_measures beir", "pip check"]
OPTIONAL = ("scipy", "yaml", "jsonschema")


def run(argv, **kwargs):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800, **kwargs)
    assert done.returncode == 0, "%s failed:\n%s" % (" ".join(argv), done.stdout.decode(errors="replace")[-3000:])
    return done.stdout.decode()


def installed_metadata():
    try:
        return metadata("runscore"), requires("runscore") or []
    except PackageNotFoundError:
        pytest.skip("runscore is not installed as a distribution here (make setup installs it)")


# ------------------------------------------------------------------------------------------- cheap ---

def test_the_dependencies_are_numpy_and_each_extra_says_what_it_adds():
    meta, required = installed_metadata()
    plain = [r for r in required if ";" not in r]
    assert [re.split(r"[<>=]", r)[0] for r in plain] == ["numpy"]
    extras = {}
    for line in required:
        if ";" in line:
            name, marker = line.split(";", 1)
            extras.setdefault(re.search(r'extra == "([^"]+)"', marker).group(1), set()).add(
                re.split(r"[<>=]", name.strip())[0])
    assert extras["tasks"] == {"PyYAML", "jsonschema"} and extras["stats"] == {"scipy"}
    assert extras["all"] == extras["tasks"] | extras["stats"] and extras["all"] <= extras["test"]
    classifiers = meta.get_all("Classifier")
    assert ["Programming Language :: Python :: %s" % v for v in PYTHONS] == [
        c for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    from pip._vendor.packaging.specifiers import SpecifierSet
    assert SpecifierSet(meta["Requires-Python"]) == SpecifierSet(PYTHON_RANGE)


def test_one_python_range_everywhere():
    """pyproject's requires-python and classifiers, the Pythons package-check installs on, and the words of every
    page a user reads before installing say one range (they once said "3.9 or newer" here, "3.9 to 3.13" there)."""
    pyproject = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    assert re.search(r'^requires-python = "%s"' % re.escape(PYTHON_RANGE), pyproject, re.M)
    assert re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject) == PYTHONS
    pages = ["README.md", "README-pypi.md", "docs/development.md", "docs/python-api.md", "starting_kit/README.md",
             "pages/data.md", "starting_kit/dry_run.py"]
    for page in pages:
        text = " ".join(open(os.path.join(ROOT, page), encoding="utf-8").read().split())
        assert PYTHON_WORDS in text, page
        other = re.findall(r"Python 3\.\d+(?:\+| or (?:newer|later)|-3\.\d+| to 3\.\d+)", text)
        assert set(other) == {PYTHON_WORDS}, (page, other)


def test_the_package_page_never_tells_to_install_runscore_from_an_index_it_is_not_on():
    """README-pypi.md once said `pip install runscore`, which no index holds for this project: every install line
    installs the source, and the page says where the package comes from until it is published."""
    page = open(os.path.join(ROOT, "README-pypi.md"), encoding="utf-8").read()
    assert "## Where it comes from" in page and "not on a package index yet" in page
    told = re.sub(r"## Where it comes from\n.*?\n## ", "## ", page, flags=re.S)     # (it names the bare line)
    lines = re.findall(r"(?:^|`)(pip install [^`\n]+)", told, re.M)
    assert lines and all(not re.match(r"pip install \"?runscore\b", line) for line in lines), lines


def markdown_links(text):
    return re.findall(r"\]\(([^)\s]+)", text) + re.findall(r"^\[[^\]]+\]:\s*(\S+)", text, re.M) + \
        re.findall(r'(?:href|src)="([^"]+)"', text)


def test_the_package_page_has_no_link_that_is_dead_on_a_package_index():
    """The long description is README-pypi.md, written for the package page: README.md's relative links
    (docs/..., the repository's files) would point nowhere on an index."""
    pyproject = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    assert re.search(r'^readme = "README-pypi.md"', pyproject, re.M)
    page = open(os.path.join(ROOT, "README-pypi.md"), encoding="utf-8").read()
    assert all(link.startswith(("https://", "http://", "#")) for link in markdown_links(page)), \
        markdown_links(page)
    for extra in ("runscore[tasks]", "runscore[stats]", "runscore[all]"):
        assert extra in page
    assert markdown_links("see [docs](docs/x.md)\n[b]: ./y") == ["docs/x.md", "./y"]      # (the check checks)


LIGHT = r"""
import json, sys, io, contextlib
for name in %r:
    sys.modules[name] = None                       # as if not installed
import runscore.pytrec_eval as pytrec_eval
from runscore import api, cli
out = {"dropin": pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"map", "P.1"}).evaluate(
    {"q": {"a": 1.0, "b": 2.0}})}
out["api"] = api.trec_eval({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 2.0}}, ["map", "nDCG@10", "RR@1"],
                           complete=True)["all"]
import runscore.commands
names = list(cli.BUILTIN_COMMANDS) + list(runscore.commands.command_modules())   # what `runscore --help` lists
helps = [[n if n == "trec_eval" else n.replace("_", "-"), "--help"] for n in names]
for args in [["trec_eval", sys.argv[1], sys.argv[2]], ["--help"], ["score", "--task", "temporalia-tqic", "--ref",
             sys.argv[3], sys.argv[4]]] + helps + [["compare", "--task", "temporalia-tqic", "--ref", sys.argv[3],
                                                     sys.argv[4]], ["report", "--help"]]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = cli.main(args)
        except SystemExit as exc:
            code = exc.code
    out[" ".join(args[:2]) if "--help" in args[1:] else args[0]] = [code, stdout.getvalue(), stderr.getvalue()]
out["loaded"] = sorted(m for m in ("scipy", "yaml", "jsonschema", "pandas") if sys.modules.get(m) is not None)
print(json.dumps(out))
"""


def test_trec_eval_and_the_drop_in_need_numpy_only(tmp_path):
    qrels, run_file = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run_file.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 2.0 r\n")
    out = json.loads(run([sys.executable, "-c", LIGHT % (OPTIONAL,), str(qrels), str(run_file),
                          os.path.join(ROOT, "reference_data", "temporalia-tqic"),
                          os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tqic", "tqic_sample")],
                         env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program"))))
    assert out["dropin"] == {"q": {"map": 0.5, "P_1": 0.0}}
    assert out["api"] == {"map": 0.5, "nDCG@10": 0.6309297535714575, "RR@1": 0.0}
    assert out["trec_eval"][0] == 0 and "map                   \tall\t0.5000" in out["trec_eval"][1]
    assert out["--help"][0] == 0 and "compare             (needs scipy: pip install 'runscore[stats]')" in \
        out["--help"][1]
    assert out["score"][0] == 2 and "PyYAML is needed" in out["score"][2] and "runscore[tasks]" in out["score"][2]
    # every command's --help is readable without scipy, PyYAML and jsonschema; running one still says what it needs
    helps = {key.split()[0]: value for key, value in out.items() if key.endswith(" --help")}
    assert len(helps) >= 14 and {"compare", "report", "bundle", "judgements"} <= set(helps)
    for name, (code, stdout, stderr) in helps.items():
        assert code == 0 and stdout.startswith("usage: runscore %s " % name) and stderr == "", (name, stderr)
    assert out["compare"][0] == 2 and "pip install 'runscore[stats]'" in out["compare"][2]
    assert "internal error" not in json.dumps(out) and out["loaded"] == []


def test_the_stand_in_wheel_is_well_formed_and_makes_pytrec_eval_runscores(tmp_path):
    from runscore.pytrec_eval import wheel as pytrec_eval_wheel

    first, constraints = pytrec_eval_wheel.write(str(tmp_path / "a"))
    second, _ = pytrec_eval_wheel.write(str(tmp_path / "b"))
    assert open(first, "rb").read() == open(second, "rb").read()             # deterministic
    assert os.path.basename(first) == "pytrec_eval_terrier-%s-py3-none-any.whl" % pytrec_eval_wheel.version()
    assert re.fullmatch(r"0\.5\.11\.dev0\+runscore\.[0-9a-z.]+", pytrec_eval_wheel.version())
    assert open(constraints).read().splitlines()[-1] == "pytrec-eval-terrier==%s" % pytrec_eval_wheel.version()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        record = archive.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
        for line in record.splitlines():
            name, digest, size = line.rsplit(",", 2)
            if digest:
                data = archive.read(name)
                assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
                    b"=").decode() and int(size) == len(data), name
        assert sorted(line.rsplit(",", 2)[0] for line in record.splitlines()) == sorted(names)
        meta = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        archive.extractall(str(tmp_path / "site"))
    # no dependency an index could serve under a name of ours (dependency confusion): none at all
    assert "Name: pytrec-eval-terrier\n" in meta and "Requires-Dist" not in meta
    # unpacked ahead of the real pytrec-eval-terrier: `import pytrec_eval` is runscore's, with no warning,
    # and ir_measures computes with it without register()
    code = ("import warnings; warnings.simplefilter('error'); import pytrec_eval, runscore.pytrec_eval as r; "
            "assert pytrec_eval is r, pytrec_eval; import ir_measures; "
            "print(ir_measures.calc_aggregate([ir_measures.RR], {'q': {'a': 1}}, {'q': {'a': 1.0, 'b': 2.0}}), "
            "ir_measures.pytrec_eval.pytrec_eval.__name__)")
    pytest.importorskip("ir_measures", reason="ir_measures (test extra) is not installed")
    printed = run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path / "site"), os.path.join(ROOT, "scoring_program")])))
    assert printed.split() == ["{RR:", "0.5}", "runscore.pytrec_eval"]


def plain_wheel(folder, name, version_text):
    """A minimal wheel of `name` at `version_text` (metadata only), as an index would serve the real release."""
    info = "%s-%s.dist-info" % (name.replace("-", "_"), version_text)
    path = os.path.join(folder, "%s-%s-py3-none-any.whl" % (name.replace("-", "_"), version_text))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(info + "/METADATA", "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version_text))
        archive.writestr(info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(info + "/RECORD", "")
    return path


@pytest.mark.parametrize("request_, constrained, real_there, picked", [
    pytest.param("pytrec-eval-terrier==0.5.11", False, True, "0.5.11", marks=SLOW),  # the real one asked: the real
    ("pytrec-eval-terrier==0.5.11", False, False, None),          # ... never the stand-in, even when it is alone
    pytest.param("pytrec-eval-terrier", False, True, "0.5.11", marks=SLOW),  # unpinned: the real (.dev0: pre-release)
    pytest.param("pytrec-eval-terrier>=0.5.5", True, True, "stand-in", marks=SLOW),  # ir_measures' under -c
])
def test_pip_hands_the_stand_in_only_to_whom_asks_for_it(tmp_path, request_, constrained, real_there, picked):
    """How pip picks among the stand-in and the real pytrec-eval-terrier 0.5.11 (a metadata-only wheel of that
    version here, as an index would serve it): resolved offline, nothing installed (3 of the 4 resolutions in
    `make package-check`; test_the_stand_in_versions_as_pips_specifiers_read_them checks all 4 cheaply)."""
    from runscore.pytrec_eval import wheel as pytrec_eval_wheel

    folder = str(tmp_path / "wheels")
    _, constraints = pytrec_eval_wheel.write(folder)
    if real_there:
        plain_wheel(folder, "pytrec-eval-terrier", "0.5.11")
    report = str(tmp_path / "report.json")
    argv = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index",
            "--disable-pip-version-check", "-q", "--find-links", folder, "--report", report, request_]
    done = subprocess.run(argv + (["-c", constraints] if constrained else []), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    if picked is None:
        assert done.returncode != 0 and b"No matching distribution found for pytrec-eval-terrier==0.5.11" in \
            done.stdout, done.stdout
        return
    assert done.returncode == 0, done.stdout
    found = [item["metadata"]["version"] for item in json.load(open(report))["install"]]
    assert found == [pytrec_eval_wheel.version() if picked == "stand-in" else picked]


def test_the_stand_in_versions_as_pips_specifiers_read_them():
    """The version rules pip applies (its packaging library): `==0.5.11` and an unpinned request take the real
    release over the stand-in, the constraints file's pin and ir_measures', BEIR's and mteb's requirements take
    the stand-in when it is the only one."""
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.version import Version

    from runscore.pytrec_eval import wheel as pytrec_eval_wheel

    ours, real = Version(pytrec_eval_wheel.version()), Version("0.5.11")
    assert list(SpecifierSet("==0.5.11").filter([ours])) == []
    assert list(SpecifierSet("==0.5.11").filter([ours, real])) == [real]
    assert list(SpecifierSet("").filter([ours, real])) == [real]
    assert list(SpecifierSet("==%s" % ours).filter([ours, real])) == [ours]
    for required in (">=0.5.5", "", ">=0.5.6"):          # ir_measures 0.4, BEIR 2.2, mteb
        assert list(SpecifierSet(required).filter([ours])) == [ours]


def test_the_recipe_package_check_runs_is_the_documented_one():
    """The package page and docs/python-api.md install runscore from its source (it is on no index yet: a bare
    `pip install runscore` would fetch whatever an index holds under that name); the rest of the recipe follows."""
    for page, first in (("README-pypi.md", RECIPE[0]), (os.path.join("docs", "python-api.md"), "pip install .")):
        text = open(os.path.join(ROOT, page), encoding="utf-8").read()
        at = [text.find("\n%s\n" % line) for line in [first] + RECIPE[1:]]
        assert -1 not in at and at == sorted(at), "%s: the recipe's lines, in order: %s" % (page, RECIPE)


# ------------------------------------------------------------------------------------------- slow ---

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    pytest.importorskip("build", reason="the `build` package (test extra) is not installed")
    run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), ROOT])
    wheels, sdists = glob.glob(str(out / "*.whl")), glob.glob(str(out / "*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    return wheels[0], sdists[0]


@SLOW
def test_twine_check_passes_and_both_carry_the_licence_and_the_package_page(built):
    wheel, sdist = built
    pytest.importorskip("twine", reason="twine (test extra) is not installed")
    assert "PASSED" in run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist])
    licence = open(os.path.join(ROOT, "LICENSE"), "rb").read()
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        in_wheel = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
        assert in_wheel and archive.read(in_wheel[0]) == licence
        meta = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta and "pytrec_eval" in meta.split("\n\n")[0]
    page = open(os.path.join(ROOT, "README-pypi.md"), encoding="utf-8").read()
    assert meta.split("\n\n", 1)[1].strip() == page.strip()
    assert "Classifier: Programming Language :: Python :: 3.13" in meta
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[-1]: m for m in archive.getmembers()}
        assert archive.extractfile(members["LICENSE"]).read() == licence
        assert {"README-pypi.md", "README.md", "docs/python-api.md", "docs/trec_eval.md"} <= set(members)


def venv_python(folder, python=sys.executable):
    run([python, "-m", "venv", str(folder)])
    return str(folder / "bin" / "python")


def installed(python):
    listed = json.loads(run([python, "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"]))
    return {re.sub(r"[-_.]+", "-", item["name"]).lower(): item["version"] for item in listed}     # (PEP 503 names)


@SLOW
def test_the_wheel_with_its_extras_installs_in_a_fresh_venv_and_runs(built, tmp_path):
    wheel, _ = built
    python = venv_python(tmp_path / "venv")
    bin_dir = os.path.dirname(python)
    # the dependencies at the versions of this venv (pip's cache has them), through the wheel's extras
    pins = ["%s==%s" % (name, version(name)) for name in ("numpy", "scipy", "PyYAML", "jsonschema")]
    run([python, "-m", "pip", "install", "-q"] + pins + [wheel + "[all]"])
    away = str(tmp_path)                # not the repository: the installed package is what runs
    assert "usage: runscore" in run([os.path.join(bin_dir, "runscore"), "--help"], cwd=away)
    scored = run([os.path.join(bin_dir, "runscore"), "score", "--task", "temporalia-tqic", "--ref",
                  os.path.join(ROOT, "reference_data", "temporalia-tqic"),
                  os.path.join(ROOT, "starting_kit", "sample_submission", "temporalia-tqic", "tqic_sample"),
                  "--json"], cwd=away)
    assert '"sample_run1"' in scored and '"accuracy": 0.8' in scored
    code = ("import runscore, runscore.pytrec_eval as p; assert runscore.__file__.startswith(%r); p.register(); "
            "import pytrec_eval; e = pytrec_eval.RelevanceEvaluator({'q': {'a': 1}}, {'map'}); "
            "print(pytrec_eval.__version__, e.evaluate({'q': {'a': 1.0, 'b': 2.0}})['q']['map'])"
            % str(tmp_path / "venv"))
    assert run([python, "-c", code], cwd=away).split() == [version("runscore"), "0.5"]
    run([python, "-m", "pip", "check"])


def pyenv_python(minor):
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/%s.*/bin/python%s" % (minor, minor))))
    return found[-1] if found else None


@SLOW
@pytest.mark.parametrize("minor", PYTHONS)
def test_the_light_install_on_every_python(built, tmp_path, minor):
    """`pip install runscore` on each Python of the classifiers: numpy and nothing else; trec_eval and the
    drop-in run; a command that needs an extra says which; `pip check` is clean."""
    base = pyenv_python(minor)
    if base is None:
        pytest.skip("Python %s is not under ~/.pyenv/versions" % minor)
    wheel, _ = built
    python = venv_python(tmp_path / "venv", base)
    run([python, "-m", "pip", "install", "-q", wheel])
    assert set(installed(python)) - {"pip", "setuptools", "wheel"} == {"numpy", "runscore"}
    run([python, "-m", "pip", "check"])
    runscore = os.path.join(os.path.dirname(python), "runscore")
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 2.0 r\n2 Q0 c 1 inf r\n")
    printed = subprocess.run([runscore, "trec_eval", "-m", "map", "-m", "P.1", str(tmp_path / "qrels"),
                              str(tmp_path / "run")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert printed.stdout.decode().splitlines() == ["map                   \tall\t0.7500",
                                                    "P_1                   \tall\t0.5000"]
    assert b"'inf' is not a decimal number; trec_eval reads it as inf" in printed.stderr
    code = ("import runscore.pytrec_eval as p; print(p.RelevanceEvaluator({'q': {'a': 1}}, {'map'}).evaluate("
            "{'q': {'a': 1.0, 'b': 2.0}})['q']['map'])")
    assert run([python, "-c", code], cwd=str(tmp_path)).split() == ["0.5"]
    helped = subprocess.run([runscore, "compare", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=str(tmp_path), timeout=120)        # readable before scipy is installed
    assert helped.returncode == 0 and helped.stdout.startswith(b"usage: runscore compare"), helped.stderr
    needs = subprocess.run([runscore, "compare", "--task", "ntcir1-adhoc", "--ref", "nowhere", "run"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path), timeout=120)
    assert needs.returncode == 2 and b"pip install 'runscore[stats]'" in needs.stderr, needs.stderr


def beside(python, tmp_path, wheel, packages):
    """The documented recipe in a venv: runscore, the stand-in and its constraints, then `packages`."""
    run([python, "-m", "pip", "install", "-q", wheel])                                     # pip install runscore
    run([os.path.join(os.path.dirname(python), "runscore"), "pytrec-eval-wheel", "-o", "wheels"], cwd=str(tmp_path))
    run([python, "-m", "pip", "install", "-q", "--find-links", "wheels", "-c", "wheels/constraints.txt"] + packages,
        cwd=str(tmp_path))
    run([python, "-m", "pip", "check"])
    versions = installed(python)
    assert "+runscore." in versions["pytrec-eval-terrier"]
    assert not glob.glob(os.path.join(os.path.dirname(os.path.dirname(python)), "lib", "python*", "site-packages",
                                      "pytrec_eval_ext*"))          # no C extension
    return versions


ADOPTED = r"""
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
from adopter_side import case
warnings.simplefilter("ignore")         # (the drop-in's about infinite scores)
out = {}
import ir_measures, pytrec_eval
from ir_measures import AP, P, RR, Judged, R, nDCG
for seed in range(5):
    qrels, run = case(seed)
    out["ir_measures %d" % seed] = {str(m): v for m, v in ir_measures.calc_aggregate(
        [nDCG @ 10, P @ 10, AP, R @ 100, RR, RR @ 10, Judged @ 10], qrels, run).items()}
    if "beir" in sys.argv[2:]:
        from beir.retrieval.evaluation import EvaluateRetrieval
        out["beir %d" % seed] = EvaluateRetrieval.evaluate(qrels, run, [1, 3, 10, 100])
out["module"] = pytrec_eval.__name__
print(json.dumps(out))
"""


def adopted(python, *libraries):
    """What ir_measures (and BEIR) compute on a few seeded cases of tests/adopter_side.py, in `python`."""
    return json.loads(run([python, "-c", ADOPTED, os.path.join(ROOT, "tests")] + list(libraries)))


@SLOW
def test_beside_ir_measures_by_the_recipe_pip_check_is_clean_and_nothing_else_comes(built, tmp_path):
    python = venv_python(tmp_path / "venv")
    versions = beside(python, tmp_path, built[0], ["ir_measures"])
    assert set(versions) - {"pip", "setuptools", "wheel"} == {"numpy", "runscore", "pytrec-eval-terrier",
                                                               "ir-measures"}
    ours = adopted(python)
    assert ours.pop("module") == "runscore.pytrec_eval"
    theirs = adopted(sys.executable)        # this venv: the real pytrec-eval-terrier
    assert theirs.pop("module") == "pytrec_eval" and ours == theirs


def cpu_torch(minor):
    """A CPU-only torch wheel for Python `minor` in pip's find-links folders (the default build brings gigabytes
    of CUDA libraries), or RUNSCORE_TORCH (a wheel or a requirement), or None: pip's own choice."""
    if os.environ.get("RUNSCORE_TORCH"):
        return os.environ["RUNSCORE_TORCH"]
    folders = os.environ.get("PIP_FIND_LINKS", "").split()
    tag = "cp%s" % minor.replace(".", "")
    found = [w for folder in folders for w in glob.glob(os.path.join(folder, "torch-*+cpu-%s-*.whl" % tag))]
    return sorted(found)[-1] if found else None


@SLOW
def test_beside_ir_measures_and_beir_by_the_recipe_pip_check_is_clean(built, tmp_path):
    """BEIR's full install (sentence-transformers and so torch, which a BEIR user has anyway: a CPU build is
    installed first when pip's find-links hold one) with the stand-in: `pip check` clean, no pytrec-eval-terrier
    downloaded, and BEIR's and ir_measures' numbers equal to those on pytrec-eval-terrier (this venv's)."""
    minor = next((m for m in PYTHONS if pyenv_python(m) and cpu_torch(m)), "%d.%d" % sys.version_info[:2])
    python = venv_python(tmp_path / "venv", pyenv_python(minor) or sys.executable)
    if cpu_torch(minor):
        run([python, "-m", "pip", "install", "-q", cpu_torch(minor)])
    command = RECIPE[2].split()
    assert command[:6] == ["pip", "install", "--find-links", "wheels", "-c", "wheels/constraints.txt"]
    beside(python, tmp_path, built[0], command[6:])
    ours = adopted(python, "beir")
    assert ours.pop("module") == "runscore.pytrec_eval"
    pytest.importorskip("beir", reason="beir is not installed here (make setup installs it with --no-deps)")
    theirs = adopted(sys.executable, "beir")
    assert theirs.pop("module") == "pytrec_eval" and ours == theirs


def test_the_wheel_command_says_what_is_wrong_with_its_folder(tmp_path, capsys):
    """`-o` naming a file, or a folder inside one, is the user's mistake (exit 2 and why), not an internal error;
    a folder with a space is quoted in the command it prints, and a line break in its name cannot add a line to
    the constraints file (pip reads every line of it)."""
    import shlex

    from runscore.cli import main

    (tmp_path / "a-file").write_text("")
    for target in ("a-file", "a-file/sub"):
        assert main(["pytrec-eval-wheel", "-o", str(tmp_path / target)]) == 2
        err = capsys.readouterr().err
        assert "internal error" not in err and "cannot write the wheel into" in err
    folder = str(tmp_path / "my wheels")
    assert main(["pytrec-eval-wheel", "-o", folder]) == 0
    assert "--find-links %s -c " % shlex.quote(folder) in capsys.readouterr().out
    folder = str(tmp_path / "w\n--index-url=x")
    assert main(["pytrec-eval-wheel", "-o", folder]) == 0
    lines = open(os.path.join(folder, "constraints.txt"), encoding="utf-8").read().splitlines()
    assert len(lines) == 2 and lines[0].startswith("#") and not any(line.startswith("--") for line in lines)
