package longcite

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestRACSRoundTrip: rag shows the top k sentences in document order under
// their real numbers, and a citation of one resolves to its exact bytes.
func TestRACSRoundTrip(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	doc := docs[0]
	srv := llmtest.New(t)
	var cited, unshown int
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		s := parseShown(t, r.Last())
		cited = s.find(t, "Taxes on us without our Consent")
		unshown = s.nums[0]
		for s.texts[unshown] != "" {
			unshown++
		}
		return llmtest.Text(fmt.Sprintf(
			"<statement>Taxes were imposed without consent.<cite>[%d-%d]</cite></statement><statement>Something unseen.<cite>[%d-%d]</cite></statement>",
			cited, cited, unshown, unshown))
	})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var ev collect
	ans, err := ask(t, env, RAGName, engine.Request{Question: "taxes imposed without consent", Options: engine.Settings("k", "5")}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	s := parseShown(t, srv.ChatRequests()[0].Last())
	hits, err := retrieve.New(lib).Sentences(context.Background(), "taxes imposed without consent", retrieve.Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.nums) != len(hits) || len(hits) < 3 {
		t.Fatalf("the prompt shows %d sentences, want the %d retrieved (k=5)", len(s.nums), len(hits))
	}
	for _, h := range hits {
		if _, ok := s.texts[h.First]; !ok {
			t.Errorf("retrieved sentence %d is not shown as <C%d>", h.First, h.First)
		}
	}
	for i, n := range s.nums {
		if i > 0 && n <= s.nums[i-1] {
			t.Errorf("numbers not in document order: %v", s.nums)
		}
		if !sameWords(s.texts[n], doc.SentenceText(n)) {
			t.Errorf("<C%d> shows %q; sentence %d is %q", n, s.texts[n], n, doc.SentenceText(n))
		}
	}
	sp := ans.Statements[0].Citations
	if len(sp) != 1 || sp[0].First != cited || sp[0].Text != doc.SentenceText(cited) || sp[0].Text != doc.Text[sp[0].Start:sp[0].End] {
		t.Errorf("citation %+v, want sentence %d", sp, cited)
	}
	// A number the model was not shown is no citation.
	if st := ans.Statements[1]; len(st.Citations) != 0 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "was shown to the model") {
		t.Errorf("citation of unshown <C%d>: %+v", unshown, st)
	}
	if !strings.Contains(strings.Join(ev.stages, "\n"), "retrieving the 5 most relevant sentences") {
		t.Errorf("stages %q", ev.stages)
	}
}

var snippetRE = regexp.MustCompile(`(?m)^Snippet \[(\d+)\]\n`)

// TestRACCRoundTrip: level=chunk shows the top k chunks as numbered
// snippets in document order, and "[k]" resolves to the chunk's sentences.
func TestRACCRoundTrip(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	doc := docs[0]
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Text("<statement>The King imposed taxes without consent.<cite>[2]</cite></statement>"))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, env, RAGName, engine.Request{Question: "taxes imposed without consent", Options: engine.Settings("k", "3", "level", "chunk")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := srv.ChatRequests()[0].Last()
	_, p, _ = strings.Cut(p, "Now get ready to handle the following test case.")
	_, ctx, _ := strings.Cut(p, "[Contexts Start]\n")
	ctx, _, _ = strings.Cut(ctx, "\n[Context End]")
	locs := snippetRE.FindAllStringSubmatchIndex(ctx, -1)
	if len(locs) != 3 {
		t.Fatalf("%d snippets in the prompt, want 3:\n%s", len(locs), ctx)
	}
	var chunks []int // chunk index of each snippet
	for i, l := range locs {
		if k, _ := strconv.Atoi(ctx[l[2]:l[3]]); k != i+1 {
			t.Fatalf("snippet %d numbered %d", i+1, k)
		}
		end := len(ctx)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		text := strings.TrimSpace(ctx[l[1]:end])
		found := -1
		for c := range doc.Chunks {
			a, b := doc.ChunkSpan(c)
			if strings.TrimSpace(doc.Text[a:b]) == text {
				found = c
				break
			}
		}
		if found < 0 || (len(chunks) > 0 && found <= chunks[len(chunks)-1]) {
			t.Fatalf("snippet %d is not a chunk in document order: %q", i+1, text)
		}
		chunks = append(chunks, found)
	}
	sp := ans.Statements[0].Citations
	c := doc.Chunks[chunks[1]]
	a, b := doc.ChunkSpan(chunks[1])
	if len(sp) != 1 || sp[0].First != int(c.First) || sp[0].Last != int(c.Last) || sp[0].Text != doc.Text[a:b] {
		t.Errorf("[2] resolved to %+v, want chunk %d (sentences %d-%d)", sp, chunks[1], c.First, c.Last)
	}
}

func TestRAGNothingRetrieved(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	for _, level := range []string{"sentence", "chunk"} {
		_, err := ask(t, env, RAGName, engine.Request{Question: "zyxwvut qqqqq", Options: engine.Settings("level", level)}, nil)
		if !errors.Is(err, engine.ErrNothingRetrieved) || !strings.Contains(err.Error(), "longcite") {
			t.Errorf("level %s: err %v", level, err)
		}
	}
	if len(srv.ChatRequests()) != 0 {
		t.Error("asked the model with nothing to show it")
	}
}

// TestRAGTrimsToBudget: retrieved sentences beyond the model's context are
// dropped from the worst up.
func TestRAGTrimsToBudget(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, enginetest.WriteFile(t, "rainfall.txt", rainfallReport(300)))
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Text("<statement>Done.<cite></cite></statement>"))
	cfg := enginetest.Config(srv)
	cfg.ContextWindow, cfg.MaxOutput = 2600, 400
	env := enginetest.Env(t, lib, cfg)
	var ev collect
	if _, err := ask(t, env, RAGName, engine.Request{Question: "gauge calibrated crew", Options: engine.Settings("k", "300")}, ev.emit); err != nil {
		t.Fatal(err)
	}
	req := srv.ChatRequests()[0]
	if got := req.PromptTokens(); got > cfg.PromptBudget() {
		t.Errorf("prompt estimates %d tokens, over the budget of %d", got, cfg.PromptBudget())
	}
	n := len(parseShown(t, req.Last()).nums)
	if n == 0 || n >= 300 || !strings.Contains(strings.Join(ev.stages, "\n"), fmt.Sprintf("exceed the model's 3k context: kept the best %d", n)) {
		t.Errorf("%d sentences shown; stages %q", n, ev.stages)
	}
}

// TestLACC: longcite level=chunk (LAC-C) shows every chunk of the scope as
// a snippet, in document order, and "[k]" cites the k-th chunk; a scope
// longer than the context keeps its most relevant chunks.
func TestLACC(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	doc := docs[0]
	srv := llmtest.New(t)
	srv.Respond(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<statement>The King imposed taxes without consent.<cite>[2]</cite></statement>")
	})
	cfg := enginetest.Config(srv)
	env := enginetest.Env(t, lib, cfg)
	ans, err := ask(t, env, Name, engine.Request{Question: "taxes imposed without consent", Options: engine.Settings("level", "chunk")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(snippetRE.FindAllString(srv.ChatRequests()[0].Last(), -1)); n != len(doc.Chunks)+3 { // and the example's 3
		t.Errorf("%d snippets shown, want the %d chunks", n-3, len(doc.Chunks))
	}
	c := doc.Chunks[1]
	if sp := ans.Statements[0].Citations; len(sp) != 1 || sp[0].First != int(c.First) || sp[0].Last != int(c.Last) {
		t.Errorf("[2] resolved to %+v, want chunk 2 (sentences %d-%d)", sp, c.First, c.Last)
	}
	cfg.ContextWindow, cfg.MaxOutput = 3000, 500
	var ev collect
	trimmed, err := ask(t, enginetest.Env(t, lib, cfg), Name, engine.Request{Question: "taxes imposed without consent", Options: engine.Settings("level", "chunk")}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if p := srv.ChatRequests()[1].Last(); len(trimmed.Warnings) != 1 || !strings.Contains(trimmed.Warnings[0], "chunks read are the most relevant") || !strings.Contains(p, "Taxes on us without our Consent") {
		t.Errorf("trimmed LAC-C: warnings %q", trimmed.Warnings)
	}
	if _, err := ask(t, env, Name, engine.Request{Question: "q", Options: engine.Settings("level", "chunk", "format", "longcite-model")}, nil); !errors.Is(err, engine.ErrOption) {
		t.Errorf("LAC-C with the LongCite model format: %v", err)
	}
}
