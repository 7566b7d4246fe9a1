package longcite

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestRAGDenseFusion: with an embedding model configured, rag embeds the
// scope's units of its level once (engine/dense), then only the question;
// a failing embedder leaves BM25 alone, with a warning.
func TestRAGDenseFusion(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		// Cites the first sentence or snippet shown: an answer that
		// cites nothing would fall back (generate.Settle).
		cite := "[1]"
		_, test, _ := strings.Cut(r.Last(), "Now get ready to handle the following test case.")
		if m := regexp.MustCompile(`<C(\d+)>`).FindStringSubmatch(test); m != nil {
			cite = "[" + m[1] + "-" + m[1] + "]"
		}
		return llmtest.Text("<statement>Taxes were imposed without consent.<cite>" + cite + "</cite></statement>")
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
	if err != nil || len(ans.Statements) != 1 || len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "ranking by words only") {
		t.Errorf("with a failing embedder: %v, %+v", err, ans.Warnings)
	}
}

// TestRAGFindsParaphrase: the sentence that answers shares no content
// word with the question; with an embedding model, dense retrieval
// proposes it, it is in the numbered context rag sends, and the model's
// citation of it resolves to its bytes.
func TestRAGFindsParaphrase(t *testing.T) {
	t.Parallel()
	const doc = `Annual report

The company invested heavily during the year. Capital markets were calm for most of the year.
Purchases of property, plant and equipment totalled 4.2 million dollars, mostly new presses.
The board met eleven times. Expenditure on travel fell by a third.
Revenue grew by eight percent, driven by export sales.
`
	const want = "Purchases of property, plant and equipment"
	lib, _ := enginetest.TextLibrary(t, "report.txt", doc)
	var prompt string
	srv := llmtest.New(t,
		llmtest.WithConcepts([]string{"capital expenditure", "purchases of property, plant and equipment"}),
		llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
			prompt = r.Messages[len(r.Messages)-1].Content
			nums, texts := enginetest.Numbered(prompt)
			for _, n := range nums {
				if strings.Contains(texts[n], want) {
					return llmtest.Text(fmt.Sprintf("<statement>It spent 4.2 million dollars.<cite>[%d-%d]</cite></statement>", n, n))
				}
			}
			return llmtest.Text("<statement>The context does not say.<cite></cite></statement>")
		}))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	ans, err := ask(t, enginetest.Env(t, lib, cfg), RAGName, engine.Request{Question: "How much capital expenditure did the firm make?", Options: engine.Settings("k", "3")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prompt, want) {
		t.Fatalf("the paraphrase is not in rag's context:\n%s", prompt)
	}
	if len(ans.Statements) != 1 || len(ans.Statements[0].Citations) != 1 || !strings.Contains(ans.Statements[0].Citations[0].Text, want) {
		t.Fatalf("answer %+v", ans.Statements)
	}
}
