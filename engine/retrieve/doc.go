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
// Measured on three data sets of different kinds: HotpotQA (53 multi-hop
// questions over Wikipedia paragraphs), testdata/rintro-qa (39 questions
// over a software manual) and testdata/papers-qa (20 questions over four
// research papers at once); engine/extractive's TestExperiments prints the
// ablation (each idea alone, and the default without each), and the
// weights were chosen by their average effect over all three sets rather
// than the best figure on one.
//
//  1. Candidates: the index's BM25 top Pool (300) sentences. Heading lines
//     (a short line alone after a blank line, starting with a capital, a
//     digit or #: an article title, a manual section title) are context,
//     never results.
//  2. Context, BM25F-style: a query term in the sentence's heading counts
//     as one more occurrence in the sentence (Model.Heading), and one in an
//     adjacent sentence of the same paragraph as 0.3 of one (Model.Neighbour),
//     so "He is an American director" under "Scott Derrickson" is about
//     Scott Derrickson.
//  3. Score: the idf-weighted, length-normalised BM25 of those term
//     frequencies, times 1 + bonuses: query terms close together
//     (Model.Proximity), query terms among the first six words, i.e. the
//     sentence is about them (Model.Subject), the question's multi-word
//     names found in order in the sentence or its heading (Model.Phrase),
//     the first sentence of a section (Model.Lead), and a fact of the kind
//     the question asks for (Model.Answer: "when" wants a year or date,
//     "how many" a number, "who" a name).
//  4. Second hop: the names in the two best sentences (capitalised words
//     the question lacks, the 8 rarest) join the query at half weight and
//     the candidates are ranked again, so a multi-hop question reaches the
//     bridge entity's own sentences (Model.Hop).
//  5. Selection: greedy by marginal gain. Once a selected sentence (or its
//     heading) has a query term, that term keeps half its weight
//     (Model.Covered), so the set covers the question's different parts;
//     near-duplicates (term-set Jaccard >= 0.8) are skipped.
//
// Effect at k = 5 (evidence_recall, HotpotQA / rintro-qa / papers-qa):
// plain BM25 0.55 / 0.82 / 0.70; the model 0.77 / 0.92 / 0.80.
package retrieve
