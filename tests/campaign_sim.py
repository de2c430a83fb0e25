"""A simulated NTCIR-1 campaign for the report tests and benchmark: teams of runs, a hidden truth, and qrels made
by judging the depth-k pool of the runs (as a real campaign does), written as run files and a reference folder.

Why: the reusability test (leave one team out) needs judgements that come from the runs' own pool, so that some
relevant documents were found by one team only; the sample data has one run.
"""
import os
import string

import numpy as np


def team_names(count):
    """Letters-only team names (ntcir1-adhoc's team is the Run-ID without its trailing number)."""
    letters = string.ascii_lowercase
    return ["t" + letters[k // 26] + letters[k % 26] for k in range(count)]


def ntcir1_campaign(folder, teams=4, runs_per_team=2, topics=8, docs=60, run_length=40, judged_depth=20, seed=0):
    """Write `folder`/runs/<Run-ID> and `folder`/ref/ (task.yaml + graded qrels 0..3); returns (runs dir, ref dir,
    truth {topic: {doc: grade}}). A run's score of a document is its quality times the true grade plus its team's
    and its own noise, so runs of one team retrieve alike and teams find different relevant documents."""
    rng = np.random.default_rng(seed)
    runs_dir, ref_dir = os.path.join(folder, "runs"), os.path.join(folder, "ref")
    os.makedirs(runs_dir)
    os.makedirs(ref_dir)
    topic_ids = ["%04d" % (31 + k) for k in range(topics)]
    doc_ids = ["gakkai-%07d" % k for k in range(docs)]
    truth = {t: {d: int(g) for d, g in zip(doc_ids, rng.choice(4, size=docs, p=[0.6, 0.2, 0.12, 0.08]))}
             for t in topic_ids}
    rankings = {}
    for team in team_names(teams):
        team_noise = {t: rng.normal(0, 1.0, size=docs) for t in topic_ids}
        team_skill = rng.uniform(0.2, 1.6)
        for number in range(1, runs_per_team + 1):
            run_id = "%s%d" % (team, number)
            quality = team_skill * rng.uniform(0.7, 1.3)
            lines = []
            rankings[run_id] = {}
            for t in topic_ids:
                grades = np.array([truth[t][d] for d in doc_ids], dtype=float)
                scores = quality * grades + team_noise[t] + rng.normal(0, 0.6, size=docs)
                order = np.argsort(-scores, kind="stable")[:run_length]
                rankings[run_id][t] = [doc_ids[i] for i in order]
                for rank, i in enumerate(order, 1):
                    lines.append("%s\t0\t%s\t%d\t%.6f\t%s" % (t, doc_ids[i], rank, scores[i], run_id))
            with open(os.path.join(runs_dir, run_id), "w", encoding="utf-8") as handle:
                handle.write("\n".join(lines) + "\n")
    judged = {t: set() for t in topic_ids}
    for ranking in rankings.values():
        for t, ranked in ranking.items():
            judged[t].update(ranked[:judged_depth])
    with open(os.path.join(ref_dir, "qrels.txt"), "w", encoding="utf-8") as handle:
        for t in topic_ids:
            for d in sorted(judged[t]):
                handle.write("%s 0 %s %d\n" % (t, d, truth[t][d]))
    with open(os.path.join(ref_dir, "task.yaml"), "w", encoding="utf-8") as handle:
        handle.write("task: ntcir1-adhoc\ngraded_qrels: qrels.txt\ntopics: [%s]\n"
                     % ", ".join("'%s'" % t for t in topic_ids))
    return runs_dir, ref_dir, truth
