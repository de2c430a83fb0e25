"""Which of numpy's SIMD dispatch targets to switch off (NPY_DISABLE_CPU_FEATURES) to run the bit-for-bit suites
under another instruction set on this machine: `python tests/cpu_dispatch.py avx512` (or `avx512,avx2`) prints
the list, empty when the CPU has none of them or the numpy cannot dispatch to them, and says which on stderr.

Why computed, not written down: numpy 1.22 refuses to start ("You cannot disable CPU features ...") when asked to
disable a feature the CPU lacks or one of its baseline, so a fixed list fails on every machine but one. numpy's
own tables say which targets exist (__cpu_dispatch__), which this CPU has (__cpu_features__) and which are always
on (__cpu_baseline__); numpy 2 names its x86 levels X86_V3 (AVX2) and X86_V4 (AVX-512).
"""
import sys
from typing import List, Sequence

FAMILIES = {
    "avx512": lambda name: name.startswith("AVX512") or name == "X86_V4",
    "avx2": lambda name: name in ("AVX", "F16C", "FMA3", "AVX2", "X86_V3"),
}


def _tables():
    try:
        from numpy._core import _multiarray_umath as umath    # numpy 2 (numpy.core warns there)
    except ImportError:
        from numpy.core import _multiarray_umath as umath     # numpy 1.x
    return umath.__cpu_dispatch__, umath.__cpu_features__, umath.__cpu_baseline__


def features_to_disable(families: Sequence[str]) -> List[str]:
    """The dispatch targets of these families that this CPU runs and numpy can switch off, in numpy's order."""
    dispatch, features, baseline = _tables()
    chosen = [FAMILIES[f] for f in families]
    return [name for name in dispatch
            if features.get(name) and name not in baseline and any(member(name) for member in chosen)]


def main(argv: Sequence[str]) -> int:
    families = [f for f in (argv[0] if argv else "").split(",") if f]
    unknown = [f for f in families if f not in FAMILIES]
    if not families or unknown:
        print("usage: cpu_dispatch.py FAMILY[,FAMILY] (families: %s)" % ", ".join(FAMILIES), file=sys.stderr)
        return 2
    names = features_to_disable(families)
    if not names:
        print("note: this CPU and numpy have no %s dispatch target to switch off: numpy already runs the other "
              "loops here" % " or ".join(families), file=sys.stderr)
    print(" ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
