package okra

import (
	"context"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
)

// denseReady makes the dense half of the assembled retriever ready: the
// scope's sentence embeddings (embedded once, through the answer's
// retrieval; a window scores by the mean of its sentences' vectors). It
// returns the embedding model, or "" and why there is none: no embedding
// model configured, or embedding failed (the answer warns). The
// organizer's weights then have no dense scores to weigh and windows are
// ranked by BM25 alone; the plan says so. Only cancellation is an error.
func denseReady(ctx context.Context, rt *engine.Runtime) (model, why string, err error) {
	// Segments are runs of sentences, so the sentence level is the one
	// needed.
	return rt.Retrieval().Dense(ctx, docstore.SentenceLevel)
}
