#!/usr/bin/env python3
"""library-qa: "answered in the first three statements", from the records
`citelens eval --out FILE` writes (one JSON line per question:
{"scores": ..., "answer": {"id": ..., "statements": [{"text": ...}, ...]}}).

A question is answered when the text of the answer's first three
statements, joined with newlines, contains every string of its answer key
(questions.jsonl's "answers"), or one of that string's alternatives
(questions_meta.jsonl's "alternatives"), case-folded and with every run of
white space collapsed to one space: the same normalisation as answer_hit
(citations.Score's foldSpace). Unlike answer_hit, only the statements'
own text counts (what the reader sees first, not the cited passages), only
the first three statements, and every key string is required.

    python3 answered_first3.py OUT.jsonl [--data DIR] [--n 3] [--per-question]

prints the figure over the questions in OUT.jsonl, then by kind.
"""
import argparse, json, os, sys
from collections import defaultdict


def fold(s):
    return " ".join(s.lower().split())


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def answered(statements, keys, alternatives, n):
    hay = fold("\n".join(s.get("text", "") for s in statements[:n]))
    return all(any(fold(k) in hay for k in [key] + alternatives.get(key, [])) for key in keys)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", help="the --out FILE of citelens eval")
    ap.add_argument("--data", default=os.path.dirname(os.path.abspath(__file__)),
                    help="the data set folder (questions.jsonl, questions_meta.jsonl)")
    ap.add_argument("--n", type=int, default=3, help="how many leading statements count")
    ap.add_argument("--per-question", action="store_true", help="print each question's result")
    args = ap.parse_args()

    golds = {q["id"]: q for q in load(os.path.join(args.data, "questions.jsonl"))}
    meta_path = os.path.join(args.data, "questions_meta.jsonl")
    meta = {m["id"]: m for m in load(meta_path)} if os.path.exists(meta_path) else {}

    total, hits = 0, 0
    by_kind = defaultdict(lambda: [0, 0])
    for rec in load(args.records):
        ans = rec.get("answer") or {}
        qid = ans.get("id")
        if qid not in golds:
            sys.exit("record for unknown question %r" % qid)
        keys = golds[qid].get("answers") or []
        if not keys:
            continue
        m = meta.get(qid, {})
        ok = answered(ans.get("statements") or [], keys, m.get("alternatives", {}), args.n)
        total += 1
        hits += ok
        kind = m.get("kind", "?")
        by_kind[kind][0] += ok
        by_kind[kind][1] += 1
        if args.per_question:
            print("%s\t%s\t%d\t%s" % (qid, kind, ok, golds[qid]["question"]))
    if total == 0:
        sys.exit("no records with an answer key")
    print(json.dumps({"answered_first%d" % args.n: round(hits / total, 3), "questions": total,
                      "by_kind": {k: "%d/%d" % tuple(v) for k, v in sorted(by_kind.items())}}))


if __name__ == "__main__":
    main()
