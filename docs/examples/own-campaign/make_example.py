"""A small made-up ranking campaign with four grades, for docs/own-campaign.md: 6 topics, 40 documents, qrels
graded 0-3 (topic 6 has no relevant document), a collection of one-line documents, topics, and four runs of three
teams. Seeded, so every value of the page is the same on every machine.

Usage: python3 make_example.py DIR   (writes DIR/collection.tsv, DIR/topics.tsv, DIR/qrels/qrels.txt, DIR/runs/*)
"""
import os
import random
import sys

TOPICS = ["%d" % t for t in range(1, 7)]
DOCS = ["doc%02d" % i for i in range(40)]
RUNS = {"alpha1": 0.8, "alpha2": 0.5, "beta1": 0.3, "gamma1": 0.0}       # how much each run knows of the qrels


def main(folder: str) -> None:
    rnd = random.Random(2026)
    for sub in ("qrels", "runs"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    qrels = {}
    with open(os.path.join(folder, "qrels", "qrels.txt"), "w", encoding="utf-8", newline="\n") as out:
        for topic in TOPICS:
            for doc in rnd.sample(DOCS, 15):
                grade = 0 if topic == "6" else rnd.choice([0, 0, 1, 2, 3])
                qrels[topic, doc] = grade
                out.write("%s 0 %s %d\n" % (topic, doc, grade))
    with open(os.path.join(folder, "collection.tsv"), "w", encoding="utf-8", newline="\n") as out:
        out.write("".join("%s\tDocument %s: a made-up abstract.\n" % (doc, doc) for doc in DOCS))
    with open(os.path.join(folder, "topics.tsv"), "w", encoding="utf-8", newline="\n") as out:
        out.write("".join("%s\tMade-up topic %s\n" % (topic, topic) for topic in TOPICS))
    for name, knows in RUNS.items():
        with open(os.path.join(folder, "runs", name), "w", encoding="utf-8", newline="\n") as out:
            for topic in TOPICS:
                scored = sorted(DOCS, key=lambda d: -(knows * qrels.get((topic, d), 0) + rnd.random()))
                for rank, doc in enumerate(scored[:20], 1):
                    out.write("%s Q0 %s %d %.4f %s\n" % (topic, doc, rank, 100.0 - rank, name))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
