#!/usr/bin/env python3
"""Builds questions.jsonl for papers-qa: questions about the four seed
papers (the folder named by CITELENS_PAPERS), asked of all four together (a
multi-document scope). The papers are not copied here; the evaluation
harness links them into a docs/ folder at test time. Gold texts are located
in the papers (whitespace may differ) and stored as byte offsets.

Run from this folder: python3 make_questions.py > questions.jsonl
"""
import json, os, re, sys

SEEDS = os.environ["CITELENS_PAPERS"]
L, R, D, O = ("001_dfb1723c2c6a6c0d.txt", "002_99b8a8e68e0b4bb8.txt",
              "003_85e9d350c9d010ba.txt", "004_98e0db758992f33d.txt")
DOCS = [L, R, D, O]
texts = {d: open(os.path.join(SEEDS, d), "rb").read().decode("utf-8") for d in DOCS}

# (question, mode, [(doc, gold text)])
QS = [
 ("What is LongBench-Cite?", "any",
  [(L, "We first introduce LongBench-Cite, an automated benchmark for assessing current LLMs' performance in Long-Context Question Answering with Citations (LQAC)"),
   (L, "We introduce LongBench-Cite, an automatic benchmark for the task of LQAC")]),
 ("How many instances does the LongCite-45k dataset contain?", "all",
  [(L, "we construct LongCite-45k, a large-scale SFT dataset that consists of 44,600 high-quality")]),
 ("How long are the chunks that CoF retrieves?", "all",
  [(L, "chunks (each has a fixed length of 128 tokens")]),
 ("How many stages does the CoF pipeline have?", "all",
  [(L, "CoF comprises four stages")]),
 ("Which base models were fine-tuned to make LongCite-8B and LongCite-9B?", "all",
  [(L, "Finally, we utilize LongCite-45k to fine-tune GLM-4-9B")]),
 ("How many long-context models were evaluated with the LAC-S strategy?", "all",
  [(L, "We first evaluate 7 popular long-context LLMs (3 proprietary and 4 open-source models")]),
 ("What does RAIDD stand for?", "all",
  [(R, "which we call Retrieval from AI Derived Documents (RAIDD)")]),
 ("What documents does RAIDD derive at ingest time?", "any",
  [(R, "These derived documents are either summaries of each chunk, sets of questions from each chunk, or both."),
   (R, "RAIDD derives new documents from the input by prompting a GPT feature extractor to summarize and generate questions from the original documents.")]),
 ("How many questions are generated per 1024 tokens of text?", "all",
  [(R, "we generate 32 questions for every 1024 tokens of text.")]),
 ("Which chunk size and overlap were chosen for the test set?", "all",
  [(R, "we settled on a chunk size of 256, overlap of 50")]),
 ("How were the validation and test questions chosen?", "all",
  [(R, "we use the first 100 questions of the dataset, as our validation set for choosing hyperparameters")]),
 ("What is the summary of the previous chunk used for when generating summaries?", "all",
  [(R, "We condition this generation with the original text as well as the summary of the previous chunk to maintain coherence.")]),
 ("How does the dynamic in-context editing method decompose a question?", "any",
  [(D, "We propose a novel method that dynamically decomposes the question into sub-questions, forming a Directed Acyclic Graph (DAG)"),
   (D, "The proposed method interactively generates sub-questions and extracts relevant facts.")]),
 ("Why are facts extracted from the retrieved chunks instead of keeping the chunks?", "all",
  [(D, "To reduce storage of the context window, after receiving")]),
 ("When does the retrieval and fact extraction loop stop?", "all",
  [(D, "the retrieval and fact extraction steps are repeated until the original complex task is solved.")]),
 ("What are the three components of OkraLong?", "any",
  [(O, "OkraLong adopts fine-grained orchestration through three synergistic components: analyzer, organizer and executor."),
   (O, "The analyzer characterizes the task states, which guide the organizer in dynamically scheduling the workflow.")]),
 ("What does the executor do in OkraLong?", "all",
  [(O, "The executor carries out the execution and generates the final answer.")]),
 ("Why is feeding the whole long text to the model expensive?", "all",
  [(O, "given that the cost of LLMs escalate with data volume, employing LC with voluminous text may prove prohibitively expensive")]),
 ("What is wrong with iterative retrieval workflows?", "all",
  [(O, "iterative workflow requires frequent LLM calls, escalating financial costs")]),
 ("Why do RAG methods give worse answers in long-context scenarios according to LongCite?", "all",
  [(L, "RAG often leads to compromised answer quality due to incomplete context information")]),
]

def find(doc, gold):
    text = texts[doc]
    pat = r"\s+".join(re.escape(w) for w in gold.split())
    ms = list(re.finditer(pat, text))
    if not ms:
        sys.exit("not found in %s: %s" % (doc, gold))
    if len(ms) > 1:
        print("warning: %d matches for %r, using the first" % (len(ms), gold), file=sys.stderr)
    m = ms[0]
    start = len(text[:m.start()].encode("utf-8"))
    return {"doc": doc, "start": start, "end": start + len(m.group(0).encode("utf-8")), "text": m.group(0)}

for i, (q, mode, golds) in enumerate(QS, 1):
    print(json.dumps({"id": "papers-%02d" % i, "question": q, "answers": [], "docs": DOCS,
                      "evidence": [find(d, g) for d, g in golds], "evidence_mode": mode}, ensure_ascii=False))
