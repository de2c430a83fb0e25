"""Codabench / CodaLab entry point: python3 $program/score.py $input $output (all logic is in runscore)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

REQUIRED = ("numpy", "yaml", "jsonschema")
# Found, not imported: runscore imports jsonschema only to word the message of a bad record (0.1 s a process).
FOUND_ONLY = ("jsonschema",)


def _check_dependencies() -> bool:
    import importlib.util

    missing = []
    for name in REQUIRED:
        try:
            if name in FOUND_ONLY:
                if importlib.util.find_spec(name) is None:
                    missing.append(name)
            else:
                __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        print("error: the scoring program needs Python packages %s, which this Docker image lacks; set the "
              "competition's docker_image to codalab/codalab-legacy:py39" % ", ".join(missing), file=sys.stderr)
        return False
    return True


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")     # before numpy's import: see runscore.cli._one_blas_thread
    if sys.version_info < (3, 9):
        print("error: the scoring program needs Python 3.9 or newer; set the competition's docker_image to "
              "codalab/codalab-legacy:py39", file=sys.stderr)
        sys.exit(2)
    if not _check_dependencies():
        sys.exit(2)
    from runscore.codabench.entry import main

    sys.exit(main(sys.argv))
