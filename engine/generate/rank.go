package generate

import (
	"context"
	"slices"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
)

// RankScope ranks every sentence of the answer's scope that shares a term
// with the question by plain BM25, best first, with its score: the
// ranking FitScope trims a scope longer than the model's context by.
// Trimming keeps hundreds or thousands of sentences, so the re-ranker's
// finer order of the top few would change nothing that is kept, while
// BM25 scores let FitScope weigh a hit's neighbours against weaker hits.
func RankScope(ctx context.Context, rt *engine.Runtime) ([]SentenceRef, error) {
	total := 0
	for _, d := range rt.Docs() {
		total += len(d.Sentences)
	}
	ps, err := rt.Retrieval().Sentences(ctx, rt.Question(), retrieve.Options{K: max(total, 1), Plain: true, KeepDuplicates: true,
		Context: rt.Previous(), Fusion: retrieve.Fusion{Rule: retrieve.Words}})
	if err != nil {
		return nil, err
	}
	return Refs(rt, ps, true), nil
}

// Refs turns sentence passages of the answer's scope into references for
// fitting, with their scores when withScores.
func Refs(rt *engine.Runtime, ps []retrieve.Passage, withScores bool) []SentenceRef {
	out := make([]SentenceRef, 0, len(ps))
	for _, p := range ps {
		d, ok := rt.Place(p.Doc)
		if !ok || p.First < 0 || p.First >= len(rt.Docs()[d].Sentences) {
			continue
		}
		r := SentenceRef{Doc: d, Sentence: p.First}
		if withScores {
			r.Score = p.Score
		}
		out = append(out, r)
	}
	return out
}

// StoredChunk finds the stored chunk of d that is exactly sentences
// first..last (a passage of retrieval's chunk level).
func StoredChunk(d *docstore.Document, first, last int) (int, bool) {
	c, ok := slices.BinarySearchFunc(d.Chunks, first, func(c docstore.Chunk, f int) int { return int(c.First) - f })
	return c, ok && int(d.Chunks[c].Last) == last
}
