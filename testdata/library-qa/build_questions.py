#!/usr/bin/env python3
"""library-qa: find spec.py's gold anchors in the text citelens stores for
each document and write questions.jsonl (the set, in docs/EVAL.md's
layout) and questions_meta.jsonl (each question's kind and the answer
key's alternatives).

Run from this folder after fetch_docs.sh, with citelens built at $CITELENS
(default /tmp/citelens: go build -o /tmp/citelens ./cmd/citelens):

    python3 build_questions.py

Run it again after a change to text extraction moves the stored text: the
offsets index that text, not the files. It stops, naming the anchor, when
an anchor is missing or occurs more than once.
"""
import json, os, re, subprocess, sys, tempfile

from spec import DOCS, QS

KINDS = {"next-line", "alias", "prose-over-code", "crowded-out", "page-break", "table-row", "plain"}


def stored_texts():
    """The text citelens stores for each document under docs/, by file name."""
    binary = os.environ.get("CITELENS", "/tmp/citelens")
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "library.db")
        for d in DOCS:
            subprocess.run([binary, "--db", db, "add", os.path.join("docs", d)], check=True, capture_output=True)
        listing = subprocess.run([binary, "--db", db, "ls", "--json"], check=True, capture_output=True).stdout
        for doc in json.loads(listing):
            raw = subprocess.run([binary, "--db", db, "show", "--text", "--raw", doc["id"]], check=True, capture_output=True).stdout
            out[doc["name"]] = raw.decode("utf-8")
    missing = set(DOCS) - set(out)
    if missing:
        sys.exit("not in the library: %s" % ", ".join(sorted(missing)))
    return out


def pattern(anchor):
    """A regular expression for anchor: any run of white space for each
    space, and either kind of quote for each quote."""
    parts = []
    for word in anchor.split():
        w = ""
        for ch in word:
            if ch in "\"“”":
                w += "[\"“”]"
            elif ch in "'‘’":
                w += "['‘’]"
            else:
                w += re.escape(ch)
        parts.append(w)
    return r"\s+".join(parts)


def find(texts, doc, anchor, qid):
    t = texts[doc]
    ms = list(re.finditer(pattern(anchor), t))
    if len(ms) != 1:
        sys.exit("%s: anchor found %d times in %s (want once): %s" % (qid, len(ms), doc, anchor))
    m = ms[0]
    start = len(t[:m.start()].encode("utf-8"))
    end = start + len(m.group(0).encode("utf-8"))
    return {"doc": doc, "start": start, "end": end, "text": m.group(0)}


def fold(s):
    return " ".join(s.lower().split())


def main():
    texts = stored_texts()
    seen = set()
    with open("questions.jsonl", "w") as qf, open("questions_meta.jsonl", "w") as mf:
        for qid, kind, question, answers, mode, evidence, extra in QS:
            if qid in seen:
                sys.exit("%s: duplicate id" % qid)
            seen.add(qid)
            also = extra.get("also", [])
            if kind not in KINDS or not set(also) <= KINDS:
                sys.exit("%s: unknown kind in %s %s" % (qid, kind, also))
            ev = [find(texts, doc, a, qid) for doc, a in evidence]
            # The answer key is verbatim: each string occurs in some
            # evidence text, as a statement citing it would show it.
            for key in answers:
                if not any(fold(key) in fold(e["text"]) for e in ev):
                    sys.exit("%s: answer %r is in no evidence text" % (qid, key))
            docs = sorted({e["doc"] for e in ev})
            if len(docs) != 1:
                sys.exit("%s: evidence in %d documents" % (qid, len(docs)))
            qf.write(json.dumps({"id": qid, "question": question, "answers": answers, "docs": DOCS,
                                 "evidence": ev, "evidence_mode": mode}, ensure_ascii=False) + "\n")
            meta = {"id": qid, "kind": kind, "also": also, "doc": docs[0],
                    "alternatives": extra.get("alternatives", {})}
            if "note" in extra:
                meta["note"] = extra["note"]
            mf.write(json.dumps(meta, ensure_ascii=False) + "\n")
    print("%d questions" % len(seen), file=sys.stderr)


if __name__ == "__main__":
    main()
