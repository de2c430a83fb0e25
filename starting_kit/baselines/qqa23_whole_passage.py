"""The Qur'an QA 2023 Task B organisers' whole-passage baseline (task qqa23-mrc): every question answered by its
whole passage.

Usage: python3 starting_kit/baselines/qqa23_whole_passage.py QRCD_PREPROCESSED.jsonl OUTPUT.json

Why: it is the reference point of the official leaderboard (user watheq9; dev pAP@10 0.25484), and a run that
is valid by construction. Each answer is the preprocessed passage, tokens 0 .. #tokens-1, rank 1, score 1.
The output is byte-identical to the organisers' `whole_passage_baseline.json` for the same input file. Use the
*_preprocessed.jsonl file (each '.' a token): token positions are counted in it.
"""
import json
import sys


def whole_passage_run(records):
    """{pq_id: [one answer spanning the whole passage]}, in the order of the input file."""
    return {record["pq_id"]: [{"answer": record["passage"], "strt_token_indx": 0,
                               "end_token_indx": len(record["passage"].split()) - 1, "rank": 1, "score": 1}]
            for record in records}


def read_jsonl(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        records = read_jsonl(argv[1])
    except (OSError, ValueError) as exc:
        print("error: cannot read %s: %s" % (argv[1], exc), file=sys.stderr)
        return 2
    if any("." in token and token != "." for record in records for token in record["passage"].split()):
        print("warning: %s looks like a raw QRCD file (full stops attached to words); token positions are "
              "defined on the *_preprocessed.jsonl file" % argv[1], file=sys.stderr)
    with open(argv[2], "w", encoding="utf-8") as handle:
        handle.write(json.dumps(whole_passage_run(records), ensure_ascii=False))
    print("wrote %d questions to %s" % (len(records), argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
