package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/citelens/citelens/llm/llmtest"
)

// TestSearchRanksThroughRetrieval: search ranks as answers do. With only
// a chat model configured it calls no model and ranks by words, finding
// nothing for a word the document does not use; with an embedding model
// it embeds the library and finds, by meaning, the sentences that say it
// in other words; --words keeps to BM25 and calls nothing.
func TestSearchRanksThroughRetrieval(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithConcepts([]string{"approval", "consent"}))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	c.ok("add", sample)
	const query = "approval"
	search := func(args ...string) []searchHit {
		t.Helper()
		var hits []searchHit
		if err := json.Unmarshal([]byte(c.ok(append([]string{"search", "--json", "--k", "3"}, append(args, query)...)...)), &hits); err != nil {
			t.Fatal(err)
		}
		return hits
	}
	found := func(hits []searchHit) bool {
		for _, h := range hits {
			if strings.Contains(h.Text, "consent") {
				return true
			}
		}
		return false
	}
	words := search()
	if n := len(srv.Requests()); n != 0 || len(words) != 0 {
		t.Fatalf("without an embedding model: %d requests; hits %+v", n, words)
	}

	t.Setenv("CITELENS_EMBED_MODEL", llmtest.DefaultEmbedModel)
	fused := search()
	reqs, texts := embedRequests(srv)
	if reqs == 0 || texts < 2 || !found(fused) {
		t.Errorf("with an embedding model: %d requests (%d texts); hits %+v", reqs, texts, fused)
	}
	again := search("--words")
	if r2, _ := embedRequests(srv); r2 != reqs {
		t.Errorf("search --words made %d model requests", r2-reqs)
	}
	if len(again) != len(words) {
		t.Fatalf("--words: %+v, want %+v", again, words)
	}
	for i := range words {
		if again[i].Doc != words[i].Doc || again[i].First != words[i].First || again[i].Score != words[i].Score {
			t.Errorf("--words hit %d: %+v, want BM25's %+v", i, again[i], words[i])
		}
	}
}
