package longcite

import (
	"context"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
)

// The rankings behind rag's retrieval, through the answer's retrieval
// (engine.Retrieval, engine/retrieve's rankings with the configured
// models).

// rankSentences returns the top k sentences for the question, as
// engine/retrieve ranks them (re-ranked with their context, selected to
// cover the question's parts, fused with dense similarity when an
// embedding model is configured), best first.
func rankSentences(ctx context.Context, rt *engine.Runtime, k int, f retrieve.Fusion) ([]generate.SentenceRef, error) {
	ps, err := rt.Retrieval().Sentences(ctx, rt.Question(), retrieve.Options{K: k, Fusion: f, Context: rt.Previous()})
	if err != nil {
		return nil, err
	}
	return generate.Refs(rt, ps, false), nil
}

// chunkRef is chunk Chunk of the Doc-th document of the scope.
type chunkRef struct{ Doc, Chunk int }

// rankChunks returns the top k stored chunks for the question (fused with
// dense similarity when an embedding model is configured, unless f ranks
// by words), best first.
func rankChunks(ctx context.Context, rt *engine.Runtime, k int, f retrieve.Fusion) ([]chunkRef, error) {
	ps, err := rt.Retrieval().Chunks(ctx, rt.Question(), retrieve.Options{K: k, Fusion: f, Context: rt.Previous()})
	if err != nil {
		return nil, err
	}
	out := make([]chunkRef, 0, len(ps))
	for _, p := range ps {
		d, ok := rt.Place(p.Doc)
		if !ok {
			continue
		}
		// A passage of the chunk level is one stored chunk.
		if c, ok := generate.StoredChunk(rt.Docs()[d], p.First, p.Last); ok {
			out = append(out, chunkRef{Doc: d, Chunk: c})
		}
	}
	return out, nil
}
