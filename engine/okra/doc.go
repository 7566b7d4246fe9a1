// Package okra is OkraLong (Hui et al. 2025, "OkraLong: A Flexible
// Retrieval-Augmented Framework for Long-Text Query Processing"): an
// analyzer characterises the question, an organizer turns that into a
// plan, and an executor runs the plan's operators and answers with
// sentence-level citations. Two strategies:
//
//   - okra: the framework.
//   - okra-precise: okra with the paper's precise mode — when the answer
//     says the context is insufficient, the whole documents are read
//     (LongCite's LAC-S, generate.Whole) and that answer is returned.
//
// # Analyzer (section 3.2, Table 7)
//
// Primary retrieval fetches three segments of about 150 tokens (the
// assembled retriever below at 1:1); the analyzer model — analyzer_model in
// the config, else model; the paper fine-tuned Llama-3.2-1B for this —
// reads them and the question with Table 7's prompt and answers a
// dictionary: question type (extractive, abstractive, arithmetic,
// multi-bridge, multi-source), information type (exact, semantic, same)
// and whether the context contains the evidence (yes, no). The request
// does not set response_format json_object: OpenAI refuses it for a prompt
// that does not say "JSON", and Table 7 says "dictionary"; the reply is
// read leniently (JSON or a Python dict, anywhere in the text). A reply
// that is missing, malformed or outside those values — or a failed call —
// falls back to the rule-based analyzer (rules.go), and the plan says so:
// analysis.source "rules (model reply unusable: …)". With analyzer=rules,
// or no model, the rules are all there is (source "rules").
//
// # Organizer (section 3.4, Appendix B.3)
//
// The plan: abstractive (contextual) questions get eight segments, the
// others five; when the analysis finds no evidence the granularity grows
// from 150 to 400 tokens (contextual) or 256 (factoid). Exact information
// weighs min-max-normalised BM25 and dense scores of the top 20 at 3:2,
// semantic at 2:3, same at 1:1; segments under 0.1 of the best are
// dropped. Multi-bridge questions take the step-wise reasoner, multi-source
// ones the query splitter, arithmetic ones context extension; extractive
// and abstractive ones retrieve and generate.
//
// Dense scores come from the answer's retrieval (engine.Retrieval: the
// configured embedding model's sentence vectors, stored in the library; a
// segment scores by the mean of its sentences' vectors). With no
// embedding model configured, or when embedding fails (a warning says
// so), there is nothing to fuse: segments are ranked by BM25 alone, the
// plan's weights say dense_available false with a note, and the plan
// stage says "BM25 alone (no dense scores for the paper's 3:2)". The
// cut-off then acts on B.3's min-max normalisation of that one list (its
// top 20, the best 1 and the 20th 0), as it would on the fused sum. A
// configured rerank model reorders the segments the cut-off keeps and so
// picks those used (plan.reranker; the stage ends "then reordered by
// …"), as it does for every strategy; the paper has no reranker.
//
// The plan is emitted as engine.Event{Plan: *Plan} (and again as the
// executor adds sub-questions, reasoning steps, the context size and
// precise mode's decision), with a one-line stage such as
//
//	plan: multi-bridge, exact information, no evidence found (model) → step-wise reasoner, 5 × 256-token segments, BM25 alone (no dense scores for the paper's 3:2)
//
// engine.Run saves the last one as Answer.Plan, which ask --json prints as
// "plan": summary, analysis {question_type, information_type,
// evidence_contained, source, model}, workflow, granularity, segments,
// weights {lexical, dense, dense_available, note}, cutoff, reranker,
// operators, reasons, and sub_queries, steps, context and precise when
// they apply.
//
// # Executor (section 3.3, Appendix B.3, Tables 8 and 9)
//
//   - Assembled retriever (Appendix B.3), retrieve.MinMax over
//     engine/retrieve's on-the-fly segments of the plan's granularity (no
//     overlap: the paper does not give one, and neighbouring segments
//     are what the context processor merges). OkraLong calls these
//     segments, as this comment and the plan do; the code calls them
//     windows (retrieve.Windowing, Plan.Windows), since a segment in
//     citelens is the index's. The sparse retriever's top
//     20 are the segments its BM25 sentence hits propose, scored by BM25
//     over the segment's text; the dense retriever's top 20 are its own:
//     the segments closest in meaning (the mean of their sentences'
//     vectors) among those holding the sentences dense search finds
//     closest to the question, and BM25's. Each
//     list's scores are min-max normalised over the list (its best 1,
//     its 20th 0), and a segment scores S = w_e·S_exact + w_s·S_semantic
//     with the plan's weights scaled to sum to 1, a list it is not in
//     counting 0 (retrieve.FuseMinMax). Segments under 0.1 of the best
//     are dropped — what only one retriever found, near the bottom of its
//     list — and the top k of the rest kept.
//   - Context processor: table recovery (a segment ending or starting
//     inside a table — lines of pipes, tabs, aligned columns or numbers —
//     grows through the rest of it and the line above it), context
//     extension for arithmetic questions (each segment grows by up to its
//     granularity in tokens on each side), and merging (segments of a
//     document that overlap, touch or lie within two sentences of each
//     other become one passage).
//   - Query splitter (Table 8): sub-questions, one a line; each retrieves
//     its own segments and the final answer reads their union. Fewer than
//     two usable lines: the question itself is retrieved for.
//   - Step-wise reasoner (Table 9): each round retrieves for the current
//     query and asks for the evidence so far and a next query over all the
//     segments gathered; it stops when the model answers, gives no next
//     query, repeats one, or after steps rounds (default 3).
//   - Final generation: engine/generate's LongCite prompt over the kept
//     segments' sentences in document order with their real indices, so
//     citations resolve exactly as LAC-S's would.
//
// # Precise mode (section 5.1)
//
// okra-precise adds to the question the instruction to answer
// "unanswerable" when the document lacks the information (the paper's
// footnote 1, whose wording it does not print). An answer that says the
// question is unanswerable from its context — "unanswerable", or "the
// document does not contain", "cannot be determined from the text", "not
// mentioned in the context" and the like (generate.Unanswerable), not a
// negative statement about the world ("does not have", "no data") — or
// has no statement, is followed by the stage "…: the context is
// insufficient; rereading the whole documents" and LongCite's LAC-S over
// the scope; its answer is returned with a warning, and plan.precise says
// why. An answer that merely cites nothing falls back as every
// strategy's does (generate.Settle).
package okra
