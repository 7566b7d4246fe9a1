// Package retrieve ranks the sentences, chunks and sentence-aligned
// segments of a library's documents against a question, on top of the
// index's BM25 (docstore.Library.Search).
//
//	r := retrieve.New(lib)
//	ps, err := r.Sentences(ctx, question, retrieve.Options{Docs: ids, K: 5})
//	cs, err := r.Chunks(ctx, question, retrieve.Options{K: 8})
//	ss, err := r.Segments(ctx, question, retrieve.Segmenting{Tokens: 256, Overlap: 50}, opt)
//
// Every result is a Passage: document, sentence range, byte range, page,
// heading, context (Options.Expand neighbours) and its component Scores.
// Options restrict the scope to documents, pages or any sentence filter.
// Dense similarity (embeddings) fuses in through Options.Fusion without
// changing callers: a DenseScorer scores the lexical top candidates, both
// scores are min-max normalised and mixed by weight (OkraLong's 3:2 or 1:1
// over the top 20), and Options.Cutoff drops what falls below a share of
// the best.
//
// # The sentence ranking model
//
// Measured on HotpotQA (53 multi-hop questions over Wikipedia paragraphs)
// and on testdata/rintro-qa (39 questions over a software manual); see
// engine/extractive's TestExperiments for the ablation of each idea.
//
//  1. Candidates: the index's BM25 top Pool (300) sentences. Heading lines
//     (a short capitalised line alone after a blank line: an article title,
//     a manual section title) are context, never results.
//  2. Context (BM25F-style): a query term in the sentence's heading counts
//     as one more occurrence in the sentence (Model.Heading), so a
//     sentence under "Scott Derrickson" that says "He is an American
//     director" is about Scott Derrickson. Neighbouring sentences can
//     count too (Model.Neighbour) but measured worse at small k, so are
//     off.
//  3. Score: the idf-weighted, length-normalised BM25 of those term
//     frequencies, times 1 + bonuses: the question's multi-word names found
//     as phrases in the sentence or its heading (Model.Phrase), the first
//     sentence of a section (Model.Lead: it says what the section is
//     about), a fact of the kind the question asks for ("when": a year or
//     date, "how many": a number, "who": a name; Model.Answer). Proximity of
//     query terms and their position at the sentence start were measured
//     and left off.
//  4. Second hop: the names in the two best sentences (capitalised words
//     the question lacks, the 8 rarest) join the query at half weight and
//     the candidates are ranked again; multi-hop questions find the bridge
//     entity's own sentences (Model.Hop).
//  5. Selection: greedy, by marginal gain: once a selected sentence (or
//     its heading) has a query term, that term keeps only half its weight
//     for the rest (Model.Covered), so the set covers the question's
//     different parts; near-duplicates (term-set Jaccard ≥ 0.8) are
//     skipped.
package retrieve
