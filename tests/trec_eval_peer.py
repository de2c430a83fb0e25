"""The real trec_eval binaries (built from ../shared by ../shared/bin/build-trec-eval) and a seeded generator of
tricky qrels/run pairs, for the differential tests of `runscore trec_eval` (test_trec_eval_differential.py).

The generator aims at what separates a drop-in from a look-alike: ties (also float-only ties in 9.0.8),
every C-isspace separator and the bytes that are NOT separators to C (0x1C, NBSP, U+2000 in UTF-8), a BOM,
CRLF, non-ASCII and long docnos, scores atof reads leniently (`abc`, `0x1A`, `1.5x`, `inf`, `1e400`), grades
atol reads leniently (`1.5`, `rel`, `+2`), negative grades, duplicate docnos, topics on one side only, blank
and malformed lines. Known trec_eval defects are left out on purpose (docs/trec_eval.md says why): NaN scores
(the order depends on the C library's qsort), 10.0's qrels comment bugs and a run without any result line
under 10.0.
"""
import io
import os
import random
import shutil
import subprocess
import sys
from typing import List, Optional, Tuple

SHARED = os.environ.get("RUNSCORE_SHARED") or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                          "..", "shared")
BUILD = os.path.join(SHARED, "bin", "build-trec-eval")
_BUILT = {}


def binary(version: str, o2: bool = False) -> Tuple[Optional[str], str]:
    """(path of the trec_eval binary, "") or (None, why it is not available)."""
    key = (version, o2)
    if key not in _BUILT:
        if not os.path.isfile(BUILD):
            _BUILT[key] = (None, "needs the trec_eval %s binary, which ../shared/bin/build-trec-eval builds from the NIST "
                                 "sources (https://github.com/usnistgov/trec_eval) in ../shared/peers/trec_eval/%s; "
                                 "it is absent (what ../shared holds and how a clone gets it: docs/development.md, "
                                 "'Peer test data')" % (version, version))
        elif not shutil.which("gcc") and not shutil.which("cc"):
            _BUILT[key] = (None, "no C compiler to build trec_eval")
        else:
            argv = [BUILD, version] + (["--O2"] if o2 else [])
            done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            path = done.stdout.decode().strip().splitlines()[-1] if done.stdout.strip() else ""
            if done.returncode or not os.path.isfile(path):
                _BUILT[key] = (None, "building trec_eval %s failed: %s" % (version, done.stderr.decode()[-300:]))
            else:
                _BUILT[key] = (path, "")
    return _BUILT[key]


def run_peer(path: str, args: List[str], cwd: str) -> Tuple[bytes, int, bytes]:
    done = subprocess.run([path] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, timeout=60)
    return done.stdout, done.returncode, done.stderr


def run_runscore(args: List[str]) -> Tuple[bytes, int, bytes]:
    """`runscore trec_eval ARGS` in this process (as fast as the C tool for small files), stdout as bytes."""
    from runscore.commands import trec_eval
    saved = sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    wrapped = (io.TextIOWrapper(out, encoding="utf-8", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True))
    sys.stdout, sys.stderr = wrapped
    try:
        code = trec_eval.run(args)
    finally:
        sys.stdout, sys.stderr = saved
        for stream in wrapped:
            stream.flush()
            stream.detach()
    return out.getvalue(), code, err.getvalue()


# ---------------------------------------------------------------------------------------------- generator ---

TOPICS = [b"1", b"2", b"10", b"01", b"q\xc2\xa0x", b"t\x1cz", b"301"]
DOCNOS = [b"d1", b"d2", b"d3", b"d10", b"D2", b"d\xc3\xa9", b"d\xe2\x80\x80e", b"a\x1cb", b"doc-" + b"x" * 300,
          b"d4", b"d5", b"d6"]
SCORES = [b"0.5", b"1", b"0.25", b"0.5", b"2", b"-1", b"1.0000000001", b"1.00000001", b"3e-2", b".5", b"5.",
          b"+0.5", b"0", b"-0"]
ODD_SCORES = [b"abc", b"0x1A", b"1.5x", b"inf", b"-inf", b"1e400", b"1e39", b"-1e39", b"0x1.8p1", b"1e-400",
              b"infinity", b"1e", b".", b"-"]
GRADES = [b"0", b"1", b"1", b"2", b"3", b"-1", b"0", b"1"]
ODD_GRADES = [b"1.5", b"rel", b"+2", b"02", b"-0", b"2x"]
SEPARATORS = [b" ", b"\t", b"  ", b" \t ", b"\v", b"\f", b"\r"]


def _separator(rng: random.Random, plain: bool) -> bytes:
    return b" " if plain or rng.random() < 0.7 else rng.choice(SEPARATORS)


def _join(rng: random.Random, fields: List[bytes], plain: bool) -> bytes:
    line = fields[0]
    for f in fields[1:]:
        line += _separator(rng, plain) + f
    if not plain and rng.random() < 0.05:
        line = rng.choice([b" ", b"\t"]) + line
    if not plain and rng.random() < 0.05:
        line += rng.choice([b" ", b"\t", b"\r"])
    return line


def pair(seed: int, v10: bool = False) -> Tuple[bytes, bytes]:
    """A seeded (qrels, run) pair; about one in six is malformed somewhere, on purpose."""
    rng = random.Random(seed)
    plain = rng.random() < 0.3
    topics = rng.sample(TOPICS[:4] if plain else TOPICS, rng.randint(1, 4))
    docnos = DOCNOS[:4] + DOCNOS[9:] if plain else DOCNOS
    qrels_lines, run_lines = [], []
    qrels_topics = [t for t in topics if rng.random() < 0.85] or topics[:1]
    run_topics = [t for t in topics if rng.random() < 0.85] or topics[-1:]
    for t in qrels_topics:
        chosen = rng.sample(docnos, rng.randint(1, min(6, len(docnos))))
        if not plain and rng.random() < 0.04:
            chosen.append(chosen[0])                    # a duplicate judgement
        for d in chosen:
            grade = rng.choice(ODD_GRADES) if not plain and rng.random() < 0.08 else rng.choice(GRADES)
            qrels_lines.append(_join(rng, [t, b"0", d, grade], plain))
    for t in run_topics:
        chosen = [rng.choice(docnos) for _ in range(rng.randint(1, 8))] if rng.random() < 0.08 else \
            rng.sample(docnos, rng.randint(1, min(8, len(docnos))))
        for i, d in enumerate(chosen):
            score = rng.choice(ODD_SCORES) if not plain and rng.random() < 0.07 else rng.choice(SCORES)
            fields = [t, b"Q0", d, b"%d" % (i + 1), score, b"run" + (b"A" if rng.random() < 0.9 else b"B")]
            if rng.random() < 0.05:
                fields.append(b"extra")
            run_lines.append(_join(rng, fields, plain))
    rng.shuffle(run_lines)
    if rng.random() < 0.5:
        rng.shuffle(qrels_lines)
    if not plain:
        if rng.random() < 0.1:
            run_lines.insert(rng.randrange(len(run_lines) + 1), rng.choice([b"", b"   ", b"\t"]))
        if rng.random() < 0.04:
            run_lines.insert(rng.randrange(len(run_lines) + 1), b"1 Q0 d1 1 0.5")      # 5 fields
        if rng.random() < 0.03:
            qrels_lines.insert(rng.randrange(len(qrels_lines) + 1), rng.choice([b"", b"1 0 d1", b"1 0 d1 1 x"]))
        if rng.random() < 0.06:
            run_lines.insert(rng.randrange(len(run_lines) + 1), b"# a comment line")
        if v10 and rng.random() < 0.05 and len(qrels_lines) > 1:
            qrels_lines.insert(rng.randrange(len(qrels_lines) - 1), b"# one comment, not last")
    end = b"\r\n" if not plain and rng.random() < 0.1 else b"\n"
    qrels = end.join(qrels_lines) + (end if rng.random() < 0.9 else b"")
    run = end.join(run_lines) + (end if rng.random() < 0.9 else b"")
    if not plain and rng.random() < 0.05:
        run = b"\xef\xbb\xbf" + run
    if not plain and rng.random() < 0.05:
        qrels = b"\xef\xbb\xbf" + qrels
    return qrels, run


# Option sets: those users run trec_eval with (-q, -c, -M, -l, -J, ...), and the measures' parameter forms.
OPTION_SETS = [
    [],
    ["-q"],
    ["-q", "-c"],
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-M", "3", "-m", "all_trec"],
    ["-q", "-J", "-m", "all_trec"],
    ["-q", "-l", "2", "-m", "all_trec"],
    ["-q", "-l", "-1", "-m", "all_trec"],
    ["-q", "-l", "0", "-m", "all_trec"],
    ["-q", "-M", "0", "-m", "all_trec"],
    ["-q", "-c", "-M", "2", "-l", "2"],
    ["-n", "-m", "set", "-m", "runid"],
    ["-q", "-m", "ndcg.1=3,2=9", "-m", "P.1,2,3", "-m", "iprec_at_recall..25,.5", "-m", "utility.2,-1,0,0"],
    ["-q", "-m", "11pt_avg.0.3,0.7", "-m", "Rprec_mult.0.5", "-m", "relstring.3", "-m", "success.1,2"],
    ["-q", "-c", "-J", "-m", "all_trec"],
]


def compare(qrels: bytes, run: bytes, options: List[str], version: str, folder: str):
    """None when runscore and trec_eval agree (stdout bytes and exit code), else a description."""
    peer, why = binary(version)
    if peer is None:
        raise RuntimeError(why)
    with open(os.path.join(folder, "qrels"), "wb") as handle:
        handle.write(qrels)
    with open(os.path.join(folder, "run"), "wb") as handle:
        handle.write(run)
    q, r = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    want = run_peer(peer, options + [q, r], folder)
    got = run_runscore(options + (["--v10"] if version == "10.0" else []) + [q, r])
    if want[:2] == got[:2]:
        return None
    return "trec_eval %s %s: exit %d vs runscore %d\n--- trec_eval stdout/stderr:\n%s\n%s\n--- runscore:\n%s\n%s" % (
        version, " ".join(options), want[1], got[1], want[0].decode("latin-1")[-1500:],
        want[2].decode("latin-1")[-300:], got[0].decode("latin-1")[-1500:], got[2].decode("latin-1")[-500:])
