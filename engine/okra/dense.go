package okra

import (
	"context"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/textproc"
)

// denseScorer returns the dense half of the assembled retriever: a scorer
// over the scope's stored sentence embeddings (embedding what is missing
// first, once, through engine/dense), or nil and why there is none. With
// no embedding model configured, or when embedding fails, the organizer's
// weights have no dense scores to weigh and segments are ranked by BM25
// alone; the plan says so. Only cancellation is an error.
func denseScorer(ctx context.Context, rt *engine.Runtime) (retrieve.DenseScorer, string, error) {
	if !dense.Enabled(rt.Env()) {
		return nil, "no embedding model configured", nil
	}
	// Segments are runs of sentences: the scorer gives each the mean of
	// its sentences' vectors, so the sentence level is the one needed.
	f, err := dense.ForEnv(ctx, rt.Env(), rt.IDs(), rt, docstore.SentenceLevel)
	switch {
	case err != nil && (ctx.Err() != nil || engine.Canceled(err)):
		return nil, "", err
	case err != nil:
		why := "embedding failed: " + clip(textproc.OneLine(err.Error()), 120)
		rt.Stagef("dense retrieval unavailable (%s); ranking by BM25 alone", why)
		return nil, why, nil
	case f.Dense == nil:
		return nil, "no embedding model configured", nil
	}
	return f.Dense, "", nil
}
