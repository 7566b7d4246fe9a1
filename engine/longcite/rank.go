package longcite

import (
	"context"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/generate"
)

// The rankings behind trimming (longcite) and retrieval (rag). They are
// the index's BM25 over the scope (docstore.Library.Search), kept behind
// these two functions so that engine/retrieve's ranking can replace them
// in one place.

// rankSentences returns up to k sentences of docs ranked against
// question, best first.
func rankSentences(ctx context.Context, lib *docstore.Library, question string, docs []*docstore.Document, k int) ([]generate.SentenceRef, error) {
	hits, err := search(ctx, lib, question, docs, docstore.SentenceLevel, k)
	if err != nil {
		return nil, err
	}
	index := docIndex(docs)
	out := make([]generate.SentenceRef, 0, len(hits))
	for _, h := range hits {
		if d, ok := index[h.Doc]; ok && h.Index < len(docs[d].Sentences) {
			out = append(out, generate.SentenceRef{Doc: d, Sentence: h.Index, Score: h.Score})
		}
	}
	return out, nil
}

// chunkRef is chunk Chunk of the Doc-th document of the scope.
type chunkRef struct{ Doc, Chunk int }

// rankChunks returns up to k chunks of docs ranked against question, best
// first.
func rankChunks(ctx context.Context, lib *docstore.Library, question string, docs []*docstore.Document, k int) ([]chunkRef, error) {
	hits, err := search(ctx, lib, question, docs, docstore.ChunkLevel, k)
	if err != nil {
		return nil, err
	}
	index := docIndex(docs)
	out := make([]chunkRef, 0, len(hits))
	for _, h := range hits {
		if d, ok := index[h.Doc]; ok && h.Index < len(docs[d].Chunks) {
			out = append(out, chunkRef{Doc: d, Chunk: h.Index})
		}
	}
	return out, nil
}

func search(ctx context.Context, lib *docstore.Library, question string, docs []*docstore.Document, level docstore.Level, k int) ([]docstore.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids := make([]docstore.DocID, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	return lib.Search(docstore.ParseQuery(question), docstore.SearchOptions{Level: level, Docs: ids, K: max(k, 1)})
}

func docIndex(docs []*docstore.Document) map[docstore.DocID]int {
	m := make(map[docstore.DocID]int, len(docs))
	for i, d := range docs {
		m[d.ID] = i
	}
	return m
}
