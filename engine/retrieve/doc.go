// Package retrieve ranks the sentences, chunks and windows of sentences
// (cut when asked for) of a library's documents against a question. It is the one
// ranking pipeline every strategy calls: the library (docstore) stores
// postings, fields and statistics and scores nothing; BM25, BM25F over the
// heading path, proximity, noise demotion, dense fusion and reranking all
// live here.
//
//	r := retrieve.New(lib)
//	ps, err := r.Sentences(ctx, question, retrieve.Options{Docs: ids, K: 5})
//	cs, err := r.Chunks(ctx, question, retrieve.Options{K: 8})
//	ws, err := r.Windows(ctx, question, retrieve.Windowing{Tokens: 256, Overlap: 50}, opt)
//	hits, err := retrieve.Search(lib, retrieve.ParseQuery(q), retrieve.SearchOptions{K: 10}) // plain BM25
//	cs, err := r.Derived(ctx, question, retrieve.DerivedOptions{Set: set, Kinds: kinds, K: 8}) // RAIDD's derived units
//
// A strategy does not call a Retriever itself: it ranks through its
// answer's retrieval (engine.Runtime.Retrieval), which supplies the
// configured embedding model (Fusion.Dense, a DenseSearcher over vectors
// stored in the library) and reranker, with one policy for their
// failures. The library scores nothing: it stores postings, statistics
// and vectors and scans them (docstore.Index.Read and
// Derived.ReadPostings, one reader of one format of postings that one BM25
// here scores; Vectors.ScanCosines and Derived.ScanCosines, one cosine
// scan); every ranking, top-k and fusion is here.
//
// Every result is a Passage: document, sentence range, byte range, page,
// heading path, context (Options.Expand neighbours) and its component
// Scores. Options restrict the scope to documents, pages or any sentence
// filter.
//
// # What the library knows of a document
//
// At ingest (docstore/structure) every sentence gets its section — so its
// heading path, "7 Data import > 7.1 Spreadsheet-like data" — from the
// loader's headings (Markdown, HTML, DOCX, EPUB, a PDF's outline and type
// sizes) or the text's own (numbered headings that continue the
// document's numbering, ARTICLE/Section keywords, lines in capitals, title
// lines over prose); flags for contents lines, page furniture, code and
// fragments; and, for a table row, its table, whose caption and column
// headers are indexed as the row's context. Compound words ("pointsize",
// "pushBack") also index their parts.
//
// # The sentence ranking and its weights
//
// Measured on four data sets of different kinds: HotpotQA (53 multi-hop
// questions over Wikipedia paragraphs), manuals-qa (80 user-style
// questions over five Debian manuals, many paraphrased or answered only
// under a heading), testdata/rintro-qa (39 questions over a software
// manual) and testdata/papers-qa (20 questions over four research papers
// at once); engine/extractive's TestExperiments prints the ablation, and
// weights were chosen by their average effect over all four rather than
// the best figure on one.
//
//  1. Candidates: the index's BM25 top Pool (200) sentences, the first
//     sentences of the sections whose headings match best
//     (Weights.HeadingFollowers of Weights.HeadingSections), and, with an
//     embedding model, dense search's own top sentences. Headings are
//     context, never results.
//  2. Context, BM25F-style: a query term in the sentence's heading counts
//     as Weights.Heading occurrences in the sentence, less for each level up
//     the path (Weights.Ancestor); in a table row's caption or column
//     headers as Weights.TableContext; in an adjacent sentence of the same
//     paragraph as 0.3 of one (Weights.Neighbour), so "By default, these
//     options are off." under "Zeroaxis" is about the zero axis; in the
//     command a sentence leads in to as 0.5 of one (Weights.Command), so
//     "Use this command line:" is about the command under it, which its
//     statement cites with it.
//  3. Score: the idf-weighted, length-normalised BM25 of those term
//     frequencies, times 1 + bonuses: query terms close together
//     (Weights.Proximity), query terms among the first six words
//     (Weights.Subject), the question's multi-word names found in order
//     (Weights.Phrase), the first sentence of a section (Weights.Lead), a fact
//     of the kind the question asks for (Weights.Answer: "when" wants a
//     year or date, "who" a name, "how do I" a lead-in to a
//     command ("You need to configure it as:" over "# dpkg-reconfigure
//     locales") or a long option ("If --leak-check=full is given"); Weights.Quantity, larger: "how many", "how much", "how
//     precise", "the least…" want a quantity, a number that starts with
//     its digits and is not the question's own, so "bzip2" and "sha256"
//     state none; a question asking for a default, "unless told
//     otherwise", wants a line that gives its word a value,
//     "bzfile(description, compression = 9)", at Weights.Quantity too),
//     and the share of
//     the question the sentence's section covers (Weights.Section). Asked
//     of several documents, a sentence is scaled by how much its document
//     is about the question (DocumentWeight, documentPriors), so a huge
//     document that holds every word somewhere does not crowd out the
//     small one written about it; and within each document a question's
//     term weighs between its idf in the scope and in that document
//     (LocalWeight, localWeights), so the word that names a manual, rare
//     in the library and everywhere in the manual, picks the manual but
//     not the sentence. Contents
//     lines, furniture, code and fragments are scaled by Weights.Noise so
//     they never outrank body text with the same terms. A question that
//     asks for a default in other words ("unless I change it", "out of
//     the box") adds "default" to the query (Weights.Default), and the
//     words that only frame a question ("happens" in "what happens if",
//     "mean" in "what does X mean", "much" in "how much", "unless told
//     otherwise") weigh FrameWeight of a term.
//  4. Second hop: the names in the two best sentences (not a table row's
//     or code's labels) join the query at half weight and the candidates
//     are ranked again, so a multi-hop question reaches the bridge
//     entity's own sentences (Weights.Hop). Aliases the documents give
//     and, after a weak first pass, feedback's words widen the query the
//     same way (alias.go, feedback.go). Each text is read once a request
//     (tokenise) and each ranking reads it against its own query
//     (tokens.against), so these passes stem nothing twice.
//  5. Fusion (Options.Fusion): with an embedding model every candidate
//     gets a dense score and the lexical and dense scores are combined by
//     the fusion's Rule — reciprocal rank by default, or OkraLong's
//     min-max sum (FuseMinMax) when the strategy's paper fixes it; with a
//     rerank model the best Fusion.RerankTop are reordered by it, and a
//     reranker that fails leaves the fused order with a warning.
//  6. Selection: greedy by marginal gain. Once a selected sentence (or its
//     heading) has a query term, that term keeps half its weight
//     (Weights.Covered), so the set covers the question's different parts;
//     near-duplicates (term-set Jaccard >= 0.8) are skipped.
//
// Evidence recall at k = 5 statements (citelens eval, extractive):
// HotpotQA 0.768 → 0.863, manuals-qa 0.575 → 0.706, rintro-qa 0.923 →
// 0.974, papers-qa 0.80 → 0.80 (before this model → with it; the
// strategy's merging of adjacent sentences is part of the figure);
// testdata/licenses-qa (48 contract-review questions over three licences
// as PDFs, one at a time) 0.792 with plain BM25, 0.938 with it.
package retrieve
