"""Start-up costs every command pays: numpy's OpenBLAS would start one thread per core at import, as
much CPU as the rest of numpy's import, for commands that multiply no matrices. The program entry points ask for
one thread unless the user chose otherwise; a library import leaves the user's process alone."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

PROGRAM = os.path.join(ROOT, "scoring_program")
SHOW = "import os, sys; from runscore.cli import main; main(sys.argv[1:]); print(os.environ.get('OPENBLAS_NUM_THREADS'))"


def _run(code, env_value, *args):
    env = dict(os.environ, PYTHONPATH=PROGRAM)
    env.pop("OPENBLAS_NUM_THREADS", None)
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    done = subprocess.run([sys.executable, "-c", code] + list(args), env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


@pytest.mark.parametrize("given, expected", [(None, "1"), ("3", "3")])
def test_the_command_line_asks_for_one_blas_thread_unless_the_user_chose(given, expected):
    assert _run(SHOW, given, "tasks") == expected


def test_importing_the_library_leaves_the_blas_threads_alone():
    code = "import os, runscore.pytrec_eval, runscore.api; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    assert _run(code, None) == "None"


def test_score_py_asks_for_one_blas_thread_before_numpy_is_imported():
    text = open(os.path.join(PROGRAM, "score.py")).read()
    main = text[text.index('if __name__ == "__main__":'):]
    assert main.index('os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")') < main.index("_check_dependencies()")


def test_importing_the_api_reads_neither_scipy_nor_the_campaign_wing():
    """api.compare and api.report import what they need when called: a notebook that only scores or runs
    trec_eval does not pay for scipy, the statistics (compare.py) or the campaign wing at import."""
    code = ("import sys, runscore.api\nprint(' '.join(sorted(n for n in sys.modules if n.split('.')[0] == 'scipy' "
            "or n.startswith(('runscore.campaign', 'runscore.compare', 'runscore.commands')))))")
    assert _run(code, None) == ""
