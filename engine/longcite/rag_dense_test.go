package longcite

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/llm/llmtest"
	"github.com/citelens/citelens/internal/enginetest"
)

// TestRAGDenseFusion: with an embedding model configured, rag embeds the
// scope's units of its level once (engine/dense), then only the question;
// a failing embedder leaves BM25 alone, with a warning.
func TestRAGDenseFusion(t *testing.T) {
	lib, docs := enginetest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<statement>Taxes were imposed without consent.<cite></cite></statement>")
	}))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	env := enginetest.Env(t, lib, cfg)
	embedded := func() []int {
		var n []int
		for _, r := range srv.Requests() {
			if r.Embed != nil {
				n = append(n, len(r.Embed.Input))
			}
		}
		return n
	}
	var ev collect
	ans, err := ask(t, env, RAGName, engine.Request{Question: "taxes imposed without consent", Options: engine.Settings("k", "5")}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := embedded(); len(got) != 2 || got[0] != len(d.Sentences) || got[1] != 1 {
		t.Errorf("embedding requests of %v texts, want the %d sentences then the question", got, len(d.Sentences))
	}
	if len(ans.Warnings) != 0 || !strings.Contains(strings.Join(ev.stages, "\n"), "embedding") {
		t.Errorf("warnings %q, stages %q", ans.Warnings, ev.stages)
	}
	// Chunks are a level of their own.
	if _, err := ask(t, env, RAGName, engine.Request{Question: "taxes", Options: engine.Settings("level", "chunk")}, nil); err != nil {
		t.Fatal(err)
	}
	if got := embedded(); len(got) != 4 || got[2] != len(d.Chunks) || got[3] != 1 {
		t.Errorf("after a chunk-level question: embedding requests %v", got)
	}
	// A failing embedder: the answer comes from BM25, with a warning.
	cfg.EmbedModel = "missing-embedder"
	env = enginetest.Env(t, lib, cfg)
	ans, err = ask(t, env, RAGName, engine.Request{Question: "taxes imposed without consent"}, nil)
	if err != nil || len(ans.Statements) != 1 || len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "ranked by words only") {
		t.Errorf("with a failing embedder: %v, %+v", err, ans.Warnings)
	}
}
