package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
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

// In a library opened for reading only, nothing embedded can be kept, so
// dense ranking embeds each question's candidates rather than every
// sentence of the scope (which it then failed to store, warned, and
// ranked by words alone), and says so as a stage.
func TestSearchReadOnlyEmbedsCandidates(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	ro, err := docstore.Open(lib.Path(), &docstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srv := llmtest.New(t)
	rep := &reporter{}
	ps, err := engine.Search(t.Context(), enginetest.Env(t, ro, modelConfig(srv, llmtest.DefaultEmbedModel, "")), "consent of the people", engine.SearchOptions{K: 5}, rep)
	if err != nil || len(ps) == 0 {
		t.Fatalf("search: %d hits, %v", len(ps), err)
	}
	if len(rep.warnings) > 0 {
		t.Errorf("warnings: %q", rep.warnings)
	}
	embedded := len(srv.EmbeddedTexts())
	if embedded == 0 || embedded >= docs[0].NumSents {
		t.Errorf("%d texts embedded for one question over %d sentences: want the candidates only", embedded, docs[0].NumSents)
	}
	if !slices.ContainsFunc(rep.stages, func(s string) bool { return strings.Contains(s, "open for reading only") }) {
		t.Errorf("no stage says the library is read-only: %q", rep.stages)
	}
}
