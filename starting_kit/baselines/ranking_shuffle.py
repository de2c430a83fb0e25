"""Random re-ranking baseline for the ranking tasks: the same documents per topic as a given run, in a seeded
random order.

Usage: python3 starting_kit/baselines/ranking_shuffle.py --task ntcir1-adhoc|temporalia-tir RUN [--seed N]
                                                         [--run-id ID] > OUT

Why: without the document collections no retrieval model can run here, but the question a participant asks
first can still be answered: how much does my ordering add over a random order of the same candidates? Scoring
this file next to the run it came from shows it (the gap is what the ranking is worth). The output is valid by
construction and deterministic (Python's random.Random with the seed; ranks 1..n, similarities n..1, so the
similarity order and the rank order agree).

Shipped outputs (made from the sample submissions, seed 0):
  ntcir1-adhoc/shuf0     python3 ranking_shuffle.py --task ntcir1-adhoc ../sample_submission/ntcir1-adhoc/ntc1
                         --run-id shuf0
  temporalia-tir/tir_sample   (named tir_<group_id>, as the format asks; the sample file's first run)
                         python3 ranking_shuffle.py --task temporalia-tir ../sample_submission/temporalia-tir/tir_sample
                         --run-id sample_shuffled
"""
import argparse
import random
import sys
from collections import OrderedDict


def read_ntcir1(path):
    """{topic: [document ids]} of a NACSIS result file (Topic-ID Dummy Document-ID Rank Similarity Run-ID)."""
    topics = OrderedDict()
    with open(path, encoding="utf-8-sig") as handle:
        for line in handle:
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) >= 6:
                topics.setdefault(fields[0], []).append(fields[2])
    return topics


def write_ntcir1(topics, run_id, out):
    for topic, docs in topics.items():
        for rank, doc in enumerate(docs, 1):
            out.write("%s\t0\t%s\t%d\t%d\t%s\n" % (topic, doc, rank, len(docs) - rank + 1, run_id))


def read_tir(path):
    """({subtopic: [document ids]}, group id) of the first run of a Temporalia TIR run file (header, then
    id rank doc_id group_id run_id; a file may hold several runs, told apart by run_id)."""
    topics, group, first_run = OrderedDict(), "", None
    with open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle):
            fields = line.rstrip("\r\n").split("\t")
            if number == 0 and fields[0] == "id":
                continue
            if len(fields) >= 5:
                first_run = first_run or fields[4]
                if fields[4] == first_run:
                    topics.setdefault(fields[0], []).append(fields[2])
                    group = group or fields[3]
    return topics, group


def write_tir(topics, group, run_id, out):
    out.write("id\trank\tdoc_id\tgroup_id\trun_id\n")
    for topic, docs in topics.items():
        for rank, doc in enumerate(docs, 1):
            out.write("%s\t%d\t%s\t%s\t%s\n" % (topic, rank, doc, group, run_id))


def shuffled(topics, seed):
    generator = random.Random(seed)
    out = OrderedDict()
    for topic, docs in topics.items():
        docs = list(docs)
        generator.shuffle(docs)
        out[topic] = docs
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True, choices=("ntcir1-adhoc", "temporalia-tir"))
    parser.add_argument("run", help="the run whose documents are shuffled")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-id", default="shuffled")
    args = parser.parse_args(argv)
    if args.task == "ntcir1-adhoc":
        write_ntcir1(shuffled(read_ntcir1(args.run), args.seed), args.run_id, sys.stdout)
    else:
        topics, group = read_tir(args.run)
        write_tir(shuffled(topics, args.seed), group, args.run_id, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
