"""The same bits whatever instruction set numpy dispatches to (a process test: numpy picks its SIMD loops once, at
import, from NPY_DISABLE_CPU_FEATURES).

tests/dispatch_probe.py prints the exact bits of values from every kernel family; here it runs under numpy's native
dispatch and again with the AVX-512 targets, then the AVX-512 and AVX2 targets, switched off (the ones this CPU
has: tests/cpu_dispatch.py), and every line must be the same. `make test-dispatch` runs the bit-for-bit suites
themselves under those settings."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from cpu_dispatch import features_to_disable

PROBE = os.path.join(ROOT, "tests", "dispatch_probe.py")


def _probe(disabled):
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(disabled))
    done = subprocess.run([sys.executable, PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and not done.stderr, done.stderr[-3000:]
    return done.stdout.splitlines()


def test_every_kernel_gives_the_same_bits_under_every_simd_dispatch():
    settings = []
    for families in (["avx512"], ["avx512", "avx2"]):
        disabled = features_to_disable(families)
        if disabled and disabled not in settings:
            settings.append(disabled)
    if not settings:
        pytest.skip("this CPU has neither AVX-512 nor AVX2 targets that numpy dispatches to: one dispatch only")
    native = _probe([])
    assert len(native) > 20
    for disabled in settings:
        other = _probe(disabled)
        differ = [(a, b) for a, b in zip(native, other) if a != b]
        assert len(other) == len(native) and not differ, (
            "with %s switched off, %d of %d lines differ; first: %s" % (
                " ".join(disabled), len(differ), len(native), differ[0] if differ else "(line counts differ)"))
