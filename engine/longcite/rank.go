package longcite

import (
	"context"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
)

// The rankings behind trimming (longcite) and retrieval (rag), from
// engine/retrieve.

// rankAll returns every sentence of docs that shares a term with the
// question, ranked by plain BM25, best first, with its score. Trimming
// keeps hundreds or thousands of sentences, so the re-ranker's finer order
// of the top few would change nothing that is kept, while BM25 scores let
// FitScope weigh a hit's neighbours against weaker hits.
func rankAll(ctx context.Context, r *retrieve.Retriever, question string, docs []*docstore.Document) ([]generate.SentenceRef, error) {
	total := 0
	for _, d := range docs {
		total += len(d.Sentences)
	}
	ps, err := r.Sentences(ctx, question, retrieve.Options{Docs: ids(docs), K: max(total, 1), Plain: true, KeepDuplicates: true})
	if err != nil {
		return nil, err
	}
	return sentenceRefs(docs, ps, true), nil
}

// rankSentences returns the top k sentences for the question, as
// engine/retrieve ranks them (re-ranked with their context, selected to
// cover the question's parts, fused with dense similarity when f has a
// scorer), best first.
func rankSentences(ctx context.Context, r *retrieve.Retriever, question string, docs []*docstore.Document, k int, f retrieve.Fusion) ([]generate.SentenceRef, error) {
	ps, err := r.Sentences(ctx, question, retrieve.Options{Docs: ids(docs), K: k, Fusion: f})
	if err != nil {
		return nil, err
	}
	return sentenceRefs(docs, ps, false), nil
}

// chunkRef is chunk Chunk of the Doc-th document of the scope.
type chunkRef struct{ Doc, Chunk int }

// rankChunks returns the top k stored chunks for the question (fused with
// dense similarity when f has a scorer), best first.
func rankChunks(ctx context.Context, r *retrieve.Retriever, question string, docs []*docstore.Document, k int, f retrieve.Fusion) ([]chunkRef, error) {
	ps, err := r.Chunks(ctx, question, retrieve.Options{Docs: ids(docs), K: k, Fusion: f})
	if err != nil {
		return nil, err
	}
	index := docIndex(docs)
	out := make([]chunkRef, 0, len(ps))
	for _, p := range ps {
		d, ok := index[p.Doc]
		if !ok {
			continue
		}
		// A passage of the chunk level is one stored chunk; find it by its
		// first sentence (chunks are in sentence order).
		cs := docs[d].Chunks
		lo, hi := 0, len(cs)
		for lo < hi {
			mid := (lo + hi) / 2
			if int(cs[mid].First) < p.First {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(cs) && int(cs[lo].First) == p.First && int(cs[lo].Last) == p.Last {
			out = append(out, chunkRef{Doc: d, Chunk: lo})
		}
	}
	return out, nil
}

// sentenceRefs turns sentence passages into references to the scope,
// with their scores when withScores.
func sentenceRefs(docs []*docstore.Document, ps []retrieve.Passage, withScores bool) []generate.SentenceRef {
	index := docIndex(docs)
	out := make([]generate.SentenceRef, 0, len(ps))
	for _, p := range ps {
		d, ok := index[p.Doc]
		if !ok || p.First < 0 || p.First >= len(docs[d].Sentences) {
			continue
		}
		r := generate.SentenceRef{Doc: d, Sentence: p.First}
		if withScores {
			r.Score = p.Score
		}
		out = append(out, r)
	}
	return out
}

func ids(docs []*docstore.Document) []docstore.DocID {
	out := make([]docstore.DocID, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

func docIndex(docs []*docstore.Document) map[docstore.DocID]int {
	m := make(map[docstore.DocID]int, len(docs))
	for i, d := range docs {
		m[d.ID] = i
	}
	return m
}
