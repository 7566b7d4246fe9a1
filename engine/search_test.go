package engine_test

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// Search ranks through the retrieval answers use: a configured reranker
// reorders its hits (each with the reranker's score, the best first),
// Words keeps to
// BM25's order with no request, and with no model configured the order
// is BM25's as it is, with no request either.
func TestSearchThroughRetrieval(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	const q = "consent of the people"
	words, err := engine.Search(t.Context(), enginetest.Env(t, lib, modelConfig(srv, "", "")), q, engine.SearchOptions{K: 5}, nil)
	if err != nil || len(words) == 0 || len(srv.Requests()) != 0 {
		t.Fatalf("without models: %d hits, %d requests, %v", len(words), len(srv.Requests()), err)
	}
	env := enginetest.Env(t, lib, modelConfig(srv, "", llmtest.DefaultRerankModel))
	rep := &reporter{}
	ps, err := engine.Search(t.Context(), env, q, engine.SearchOptions{K: 5}, rep)
	if err != nil || len(ps) == 0 {
		t.Fatalf("with a reranker: %v, %v", ps, err)
	}
	if len(srv.RerankRequests()) != 1 || len(rep.stages) != 1 || !strings.Contains(rep.stages[0], "reordered by "+llmtest.DefaultRerankModel) {
		t.Errorf("%d rerank requests, stages %q", len(srv.RerankRequests()), rep.stages)
	}
	for i := range ps {
		if ps[i].Scores.Rerank == 0 || ps[i].Scores.Rerank > ps[0].Scores.Rerank {
			t.Errorf("hit %d (%q, reranker's score %v) is not ranked by the reranker below the first (%v)", i, ps[i].Text, ps[i].Scores.Rerank, ps[0].Scores.Rerank)
		}
	}
	again, err := engine.Search(t.Context(), env, q, engine.SearchOptions{K: 5, Words: true}, nil)
	if err != nil || len(srv.RerankRequests()) != 1 || len(again) != len(words) {
		t.Fatalf("Words: %d hits, %d rerank requests, %v", len(again), len(srv.RerankRequests()), err)
	}
	for i := range words {
		if again[i].Doc != words[i].Doc || again[i].First != words[i].First || again[i].Score != words[i].Score {
			t.Errorf("Words hit %d: %+v, want BM25's %+v", i, again[i], words[i])
		}
	}
}
