"""Benchmark of the collection reader of the assessment pages (`runscore pool --collection`).

Why: the collections the pooled campaigns ship are 0.3 to 20 GB (specs/collections.md), and the pool must read the
few thousand pooled documents out of them in one pass. This writes a synthetic collection (TREC SGML, plain and
gzip, and JSON lines in R2C2's passage layout), asks for 800 random ids plus one that is absent (so every file is
read to its end), and prints the throughput. Figures: docs/performance.md.

    python benchmarks/collection_bench.py                 # about 700 MB of SGML, 300 MB of JSON lines
    python benchmarks/collection_bench.py --documents 30000 --keep /tmp/collections
"""
import argparse
import gzip
import json
import os
import random
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))

from runscore.campaign.collection import CollectionOptions, read_collection  # noqa: E402


def write_sgml(path: str, documents: int, rng: random.Random) -> None:
    words = ["w%d" % i for i in range(5000)]
    with open(path, "w", encoding="utf-8") as out:
        for d in range(documents):
            body = "\n".join("<P>" + " ".join(rng.choice(words) for _ in range(60)) + "</P>" for _ in range(6))
            out.write("<DOC>\n<DOCNO> LA%07d </DOCNO>\n<DATE>1990</DATE>\n<HEADLINE>%s</HEADLINE>\n<TEXT>\n%s\n"
                      "</TEXT>\n</DOC>\n" % (d, " ".join(rng.choice(words) for _ in range(8)), body))


def write_jsonl(path: str, passages: int, rng: random.Random) -> None:
    words = ["w%d" % i for i in range(5000)]
    with open(path, "w", encoding="utf-8") as out:
        for p in range(passages):
            out.write(json.dumps({"doc_id": "%d" % (100000 + p // 3), "chunk_id": p % 3, "title": "T%d" % p,
                                  "text": " ".join(rng.choice(words) for _ in range(350))}) + "\n")


def measure(label: str, path: str, wanted: set, size: int) -> None:
    start, cpu = time.time(), time.process_time()
    found = read_collection([path], wanted, CollectionOptions())
    wall = time.time() - start
    print("%-22s %7.0f MB  %6.1f s wall  %6.1f s CPU  %5.0f MB/s  %d of %d found"
          % (label, size / 1e6, wall, time.process_time() - cpu, size / 1e6 / wall, len(found.documents),
             len(wanted)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=300000, help="SGML documents (about 2.3 KB each)")
    parser.add_argument("--keep", help="write the collections here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="runscore-collection-bench-")
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(1)
    try:
        sgml, jsonl = os.path.join(folder, "la.sgml"), os.path.join(folder, "passages.jsonl")
        if not os.path.exists(sgml):
            write_sgml(sgml, args.documents, rng)
        if not os.path.exists(sgml + ".gz"):
            with open(sgml, "rb") as source, gzip.open(sgml + ".gz", "wb", compresslevel=1) as target:
                shutil.copyfileobj(source, target)
        if not os.path.exists(jsonl):
            write_jsonl(jsonl, args.documents // 2, rng)
        pick = random.Random(2)
        size = os.path.getsize(sgml)
        wanted = {"LA%07d" % pick.randrange(args.documents) for _ in range(800)} | {"ABSENT"}
        measure("TREC SGML, plain", sgml, wanted, size)
        measure("TREC SGML, gzip", sgml + ".gz", wanted, size)
        wanted = {"%d" % (100000 + pick.randrange(args.documents // 6)) for _ in range(800)} | {"ABSENT"}
        measure("JSON lines (R2C2)", jsonl, wanted, os.path.getsize(jsonl))
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
