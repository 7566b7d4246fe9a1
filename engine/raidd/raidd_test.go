package raidd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/llm/llmtest"
)

// fixture is a library of two documents with their derived documents, a
// scripted model and an environment.
type fixture struct {
	lib  *docstore.Library
	docs []*docstore.Document
	m    *model
	srv  *llmtest.Server
	env  *engine.Env
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	lib, docs := enginetest.Library(t, "../../testdata/declaration.txt", enginetest.WriteFile(t, "survey.txt", survey(40)))
	f := &fixture{lib: lib, docs: docs, m: newModel()}
	f.srv = llmtest.New(t, llmtest.WithResponder(f.m.respond))
	f.env = enginetest.Env(t, lib, enginetest.Config(f.srv))
	dv := &Deriver{Library: lib, Client: f.env.LLM}
	if _, err := dv.Derive(t.Context(), []docstore.DocID{docs[0].ID, docs[1].ID}, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) ask(t *testing.T, strategy, question string, opts []engine.Setting) (*engine.Answer, *enginetest.Events, error) {
	t.Helper()
	s, err := engine.New(strategy, f.env)
	if err != nil {
		t.Fatal(err)
	}
	var ev enginetest.Events
	ans, err := engine.Run(t.Context(), f.env, s, engine.Request{Question: question, Options: opts}, ev.Emit)
	return ans, &ev, err
}

// derivedTexts are every summary and question stored for docs.
func derivedTexts(t *testing.T, lib *docstore.Library, docs []*docstore.Document) []string {
	t.Helper()
	var out []string
	for _, d := range docs {
		recs, err := lib.Derived().Chunks(d.ID, SetFor(llmtest.DefaultModel))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			out = append(out, r.Summary)
			out = append(out, r.Questions...)
		}
	}
	return out
}

// checkOriginalOnly checks that an answer cites only sentences of the
// documents that its prompt showed under their real numbers, and that the
// prompt holds no derived text.
func checkOriginalOnly(t *testing.T, f *fixture, ans *engine.Answer) {
	t.Helper()
	prompt := f.m.lastAnswerPrompt()
	shown := shownSentences(prompt)
	if len(shown) == 0 {
		t.Fatal("the answering prompt shows no numbered sentences")
	}
	for _, text := range derivedTexts(t, f.lib, f.docs) {
		if strings.Contains(prompt, text) {
			t.Fatalf("the answering prompt holds derived text %q", text)
		}
	}
	// Numbers are the scope's global sentence numbers: the documents'
	// sentences in scope order.
	byNum := map[int]string{}
	offset := 0
	for _, d := range f.docs {
		for i := range d.Sentences {
			byNum[offset+i] = d.SentenceText(i)
		}
		offset += len(d.Sentences)
	}
	for n, text := range shown {
		if strings.Join(strings.Fields(text), " ") != strings.Join(strings.Fields(byNum[n]), " ") {
			t.Errorf("<C%d> shows %q; the scope's sentence %d is %q", n, text, n, byNum[n])
		}
	}
	cites := 0
	for _, st := range ans.Statements {
		for _, c := range st.Citations {
			cites++
			d := docOf(t, f.docs, c.Doc)
			if c.Start < 0 || c.End > len(d.Text) || c.Text != d.Text[c.Start:c.End] {
				t.Errorf("citation %+v is not the document's bytes", c)
			}
			if c.Start != int(d.Sentences[c.First].Start) || c.End != int(d.Sentences[c.Last].End) {
				t.Errorf("citation %+v is not whole sentences %d-%d", c, c.First, c.Last)
			}
		}
	}
	if cites == 0 {
		t.Error("the answer cites nothing")
	}
}

func docOf(t *testing.T, docs []*docstore.Document, id docstore.DocID) *docstore.Document {
	t.Helper()
	for _, d := range docs {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("citation of %s, not in the scope", id)
	return nil
}

// TestStrategiesAnswerFromOriginalChunks: each variant finds the chunk a
// question is about through its own keys — summaries for the S variants,
// questions for the Q variants, and the raw text too for the + variants
// and U — shows the original chunks in document order under their real
// sentence numbers, never derived text, and its citations resolve to the
// documents' bytes.
func TestStrategiesAnswerFromOriginalChunks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		strategy, question, target string
		matchedBy                  string
	}{
		// "conflagration" is a word only the summaries use.
		{"raidd-s", "Which conflagration destroyed the mill?", millSentence, "summary"},
		// "watercraft" is a word only the questions use.
		{"raidd-q", "What watercraft carried the crew?", ferrySentence, "question"},
		{"raidd-s+", "Which conflagration destroyed the mill?", millSentence, "summary"},
		{"raidd-q+", "What watercraft carried the crew?", ferrySentence, "question"},
		// "lamp" and "1911" are in neither: only the raw text has them.
		{"raidd-s+", "What happened when the lamp fell in 1911?", millSentence, "raw"},
		{"raidd-q+", "What happened when the lamp fell in 1911?", millSentence, "raw"},
		{"raidd-u", "What happened when the lamp fell in 1911?", millSentence, "raw"},
		{"raidd-u", "Which conflagration destroyed the mill?", millSentence, "summary"},
		{"raidd-u", "What watercraft carried the crew?", ferrySentence, "question"},
	}
	for _, c := range cases {
		t.Run(c.strategy+" "+c.matchedBy, func(t *testing.T) {
			f.m.setWant(c.target)
			ans, ev, err := f.ask(t, c.strategy, c.question, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOriginalOnly(t, f, ans)
			cited := ans.Statements[0].Citations
			if len(cited) != 1 || cited[0].Text != c.target {
				t.Errorf("cites %+v, want the sentence %q", cited, c.target)
			}
			plan, ok := ev.Plan().(Retrieval)
			if !ok || len(plan.Chunks) == 0 || len(plan.Chunks) > DefaultK {
				t.Fatalf("plan %+v, want 1 to %d chunks", ev.Plan(), DefaultK)
			}
			top := plan.Chunks[0]
			d := docOf(t, f.docs, top.Doc)
			var topText strings.Builder
			for s := top.First; s <= top.Last; s++ {
				topText.WriteString(d.SentenceText(s))
			}
			// With rank fusion the chunk is credited to its best-ranked
			// kind; the key the case is about must rank it first.
			if (top.MatchedBy != c.matchedBy && top.Ranks[c.matchedBy] != 1) || !strings.Contains(topText.String(), c.target) {
				t.Errorf("the best chunk was matched by %s (%q): %q", top.MatchedBy, top.Key, topText.String())
			}
			if c.matchedBy != "raw" && top.MatchedBy == c.matchedBy && !strings.Contains(top.Key, map[string]string{"summary": "conflagration", "question": "watercraft"}[c.matchedBy]) {
				t.Errorf("plan key %q", top.Key)
			}
			stages := strings.Join(ev.Stages, "\n")
			for _, want := range []string{"matching the question against", fmt.Sprintf("%d chunk", len(plan.Chunks)), "asking " + llmtest.DefaultModel} {
				if !strings.Contains(stages, want) {
					t.Errorf("stages lack %q:\n%s", want, stages)
				}
			}
		})
	}
	// The raw text's words alone are not enough for the variants without
	// raw text.
	for _, s := range []string{"raidd-s", "raidd-q"} {
		if _, _, err := f.ask(t, s, "lamp 1911", nil); !errors.Is(err, engine.ErrNothingRetrieved) {
			t.Errorf("%s on raw-only words: %v", s, err)
		}
	}
	// Plain BM25 over the same windows cannot find the summary's word.
	ps, err := retrieve.New(f.lib).Windows(context.Background(), "conflagration", retrieve.Windowing{Tokens: ChunkTokens, Overlap: ChunkOverlap}, retrieve.Options{})
	if err != nil || len(ps) != 0 {
		t.Errorf("raw windows found %d for a summary-only word (%v)", len(ps), err)
	}
}

// TestDistinctChunksAndStages: raidd-q keeps the top questions of
// distinct chunks, and the stages count the keys and locate the chunks.
func TestDistinctChunksAndStages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ans, ev, err := f.ask(t, "raidd-q", "What about the nearest river?", engine.Settings("k", "3"))
	if err != nil {
		t.Fatal(err)
	}
	plan := ev.Plan().(Retrieval)
	if len(plan.Chunks) != 3 {
		t.Fatalf("plan has %d chunks, want 3", len(plan.Chunks))
	}
	seen := map[[2]any]bool{}
	for _, c := range plan.Chunks {
		k := [2]any{c.Doc, c.Chunk}
		if seen[k] {
			t.Errorf("chunk %d of %s retrieved twice", c.Chunk, c.Doc)
		}
		seen[k] = true
	}
	units, _ := f.lib.Derived().Units(SetFor(llmtest.DefaultModel), []docstore.DocID{f.docs[0].ID, f.docs[1].ID})
	want := "matching the question against " + humanize.Count(units[docstore.DerivedQuestion]) + " questions written by test-model"
	if !slices.Contains(ev.Stages, want) {
		t.Errorf("stages %q lack %q", ev.Stages, want)
	}
	if !slices.ContainsFunc(ev.Stages, func(s string) bool {
		return strings.HasPrefix(s, "3 chunks from ") && strings.Contains(s, "sentences ")
	}) {
		t.Errorf("stages %q do not locate the chunks", ev.Stages)
	}
	if ans.Usage.LLMCalls != 1 {
		t.Errorf("the answer made %d calls, want 1", ans.Usage.LLMCalls)
	}
}

// TestNeedsDerivation: asked about documents without derived documents, a
// strategy spends nothing and says what deriving costs and how; with
// derive=yes it derives first, reporting progress as stages.
func TestNeedsDerivation(t *testing.T) {
	lib, docs := enginetest.TextLibrary(t, "survey.txt", survey(40))
	m := newModel()
	srv := llmtest.New(t, llmtest.WithResponder(m.respond), llmtest.WithModels(llmtest.DefaultModel, "small-model"))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, err := engine.New("raidd-s", env)
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ := Chunks(docs[0])
	_, err = engine.Run(t.Context(), env, s, engine.Request{Question: "Which conflagration destroyed the mill?"}, nil)
	var nd *NeedsDerivation
	if !errors.As(err, &nd) || !errors.Is(err, ErrNeedsDerivation) {
		t.Fatalf("error %v, want *NeedsDerivation", err)
	}
	for _, r := range srv.Requests() {
		if r.Chat != nil || r.Embed != nil {
			t.Fatalf("a model was asked (%s) before deriving was asked for", r.Path)
		}
	}
	if nd.Calls != 2*len(chunks) || nd.Chunks != len(chunks) || nd.PromptTokens < 300*len(chunks) || nd.CompletionTokens == 0 || len(nd.Docs) != 1 {
		t.Errorf("estimate %+v for %d chunks", nd.Estimate, len(chunks))
	}
	msg := err.Error()
	for _, want := range []string{"survey.txt has none yet", "citelens derive --doc " + string(docs[0].ID), "--opt derive=yes", "model calls"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}

	var ev enginetest.Events
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "Which conflagration destroyed the mill?",
		Options: engine.Settings("derive", "yes")}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	if m.derivations() != 2*len(chunks) {
		t.Errorf("%d derivation calls for %d chunks, want the authors' two each", m.derivations(), len(chunks))
	}
	stages := strings.Join(ev.Stages, "\n")
	for _, want := range []string{"deriving summaries and questions with test-model for " + humanize.Count(len(chunks)) + " chunks of survey.txt",
		"derived " + humanize.Count(len(chunks)) + " chunks of survey.txt: " + humanize.Count(2*len(chunks)) + " calls", "asking test-model"} {
		if !strings.Contains(stages, want) {
			t.Errorf("stages lack %q:\n%s", want, stages)
		}
	}
	// The answer's usage is the answer's: derivation is reported apart.
	if ans.Usage.LLMCalls != 1 {
		t.Errorf("answer usage %+v, want the one answering call", ans.Usage)
	}

	// Another model's derived documents are offered, and used on request.
	cfg := enginetest.Config(srv)
	cfg.Model = "small-model"
	env2 := enginetest.Env(t, lib, cfg)
	s2, _ := engine.New("raidd-s", env2)
	_, err = engine.Run(t.Context(), env2, s2, engine.Request{Question: "mill"}, nil)
	if !errors.As(err, &nd) || !slices.Equal(nd.Others, []string{llmtest.DefaultModel}) || !strings.Contains(err.Error(), "derive_model=test-model") {
		t.Fatalf("with another model's documents: %v", err)
	}
	before := m.derivations()
	if _, err := engine.Run(t.Context(), env2, s2, engine.Request{Question: "Which conflagration destroyed the mill?",
		Options: engine.Settings("derive_model", llmtest.DefaultModel)}, nil); err != nil {
		t.Fatal(err)
	}
	if m.derivations() != before {
		t.Error("derive_model derived again")
	}
	if got := srv.ChatRequests(); got[len(got)-1].Model != "small-model" {
		t.Errorf("answered by %q, want the configured small-model", got[len(got)-1].Model)
	}
}

// TestDeriveYesCancelled: cancelling while deriving for an answer keeps
// what was derived and answers nothing.
func TestDeriveYesCancelled(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.TextLibrary(t, "survey.txt", survey(40))
	m := newModel()
	ctx, cancel := context.WithCancel(t.Context())
	m.fault = func(n int, r deriveReq) (llmtest.Reply, bool) {
		if n == 5 { // the third chunk's summary
			cancel()
		}
		return llmtest.Reply{}, false
	}
	srv := llmtest.New(t, llmtest.WithResponder(m.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, _ := engine.New("raidd-u", env)
	ans, err := engine.Run(ctx, env, s, engine.Request{Question: "mill", Options: engine.Settings("derive", "yes")}, nil)
	if !errors.Is(err, context.Canceled) || ans == nil || !ans.Partial || len(ans.Statements) != 0 {
		t.Fatalf("cancelled derive=yes: %+v, %v", ans, err)
	}
	infos, _ := lib.List()
	st, _ := lib.Derived().Status(infos[0].ID, SetFor(llmtest.DefaultModel))
	if st.Done < 2 || st.Complete() {
		t.Errorf("status after cancelling %+v: what was derived should be kept", st)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]engine.Setting{engine.Settings("k", "0"), engine.Settings("k", "x"), engine.Settings("derive", "maybe"),
		engine.Settings("derive_model", " "), engine.Settings("level", "chunk"), engine.Settings("format", "xml")} {
		if _, err := options.Parse("raidd-s", bad); !errors.Is(err, engine.ErrOption) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	o, err := options.Parse("raidd-s", engine.Settings("k", "4", "derive", "yes", "derive_model", "m", "max_citations", "0"))
	if err != nil || o.Int("k") != 4 || !o.Bool("derive") || o.String("derive_model") != "m" || o.Int("max_citations") != 0 {
		t.Errorf("%+v %v", o, err)
	}
	if _, err := engine.New("raidd-s", &engine.Env{Library: nil}); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("no library: %v", err)
	}
	lib, _ := enginetest.TextLibrary(t, "a.txt", "One sentence here.")
	if _, err := engine.New("raidd-q", &engine.Env{Library: lib, Config: config.Default()}); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("no model: %v", err)
	}
	for _, v := range Variants {
		if _, ok := engine.Lookup(v.Name); !ok || !IsRAIDD(v.Name) {
			t.Errorf("%s is not registered", v.Name)
		}
	}
}

// TestRankFusion: the + variants and raidd-u rank each kind's chunks on
// their own and fuse the ranks, so a chunk's own text is taken when it
// ranks higher among the raw chunks than the derived keys' chunks do
// among theirs, and a chunk several keys find comes first; fuse=score
// ranks all units in one BM25 collection instead.
func TestRankFusion(t *testing.T) {
	f := newFixture(t)
	const question = "Which conflagration destroyed the mill when the lamp fell, and how far did the river rise?"
	_, ev, err := f.ask(t, "raidd-u", question, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := ev.Plan().(Retrieval)
	kinds := map[string]int{}
	for i, c := range plan.Chunks {
		want := 0.0
		for _, r := range c.Ranks {
			want += 1 / float64(rrfK+r)
		}
		if d := c.Score - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("chunk %d scores %v; its ranks %v fuse to %v", c.Chunk, c.Score, c.Ranks, want)
		}
		if i > 0 && c.Score > plan.Chunks[i-1].Score {
			t.Errorf("chunks out of order: %+v", plan.Chunks)
		}
		if best := c.Ranks[c.MatchedBy]; slices.ContainsFunc(slices.Collect(maps.Values(c.Ranks)), func(r int) bool { return r < best }) {
			t.Errorf("chunk %d credited to %s (rank %d) though ranked better elsewhere: %v", c.Chunk, c.MatchedBy, best, c.Ranks)
		}
		kinds[c.MatchedBy]++
	}
	// Every kind brings its own best chunks: the summary word, the raw
	// words and the common words each lead one kind's ranking.
	if len(kinds) < 2 {
		t.Errorf("chunks credited to %v; rank fusion should mix the kinds", kinds)
	}
	if top := plan.Chunks[0]; len(top.Ranks) < 2 {
		t.Errorf("the best chunk %+v was found by one kind only", top)
	}
	if !slices.ContainsFunc(ev.Stages, func(s string) bool { return strings.Contains(s, "8 chunks (") && strings.Contains(s, " by their ") }) {
		t.Errorf("stages do not say which keys found the chunks: %q", ev.Stages)
	}
	if str := plan.String(); !strings.HasPrefix(str, "raidd-u matched 8 chunks: sentences ") || !strings.Contains(str, " #1") {
		t.Errorf("plan summary %q", str)
	}
	// One collection: plain BM25 scores, no ranks.
	_, ev, err = f.ask(t, "raidd-u", question, engine.Settings("fuse", "score"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ev.Plan().(Retrieval).Chunks {
		if c.Ranks != nil || c.Score < 1 {
			t.Errorf("fuse=score chunk %+v", c)
		}
	}
}

// TestPlainPrompt: prompt=plain answers from the retrieved chunks with the
// paper's plain QA prompt (LlamaIndex's default, no sentence numbers, no
// citations asked for), then cites the answer as CoF does.
func TestPlainPrompt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var plain []string
	var mu sync.Mutex
	f.srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		p := r.Last()
		switch {
		case strings.HasPrefix(p, "Context information is below."):
			mu.Lock()
			plain = append(plain, p)
			mu.Unlock()
			return llmtest.Text("Governments derive their just powers from the consent of the governed.")
		case strings.Contains(p, "[Existing Answer Start]"):
			return llmtest.Text("<statement>Governments derive their just powers from the consent of the governed.<cite>[1]</cite></statement>")
		case strings.Contains(p, "[Passage Start]"):
			return llmtest.Text("[0-0]")
		}
		return f.m.respond(r)
	})
	ans, ev, err := f.ask(t, "raidd-u", "Where do governments derive their just powers from?", engine.Settings("prompt", PromptPlain))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 1 || strings.Contains(plain[0], "<C") || strings.Contains(plain[0], "<statement>") || !strings.HasSuffix(plain[0], "Query: Where do governments derive their just powers from?\nAnswer: ") {
		t.Errorf("plain QA prompts: %q", plain)
	}
	if len(ans.Statements) != 1 || len(ans.Statements[0].Citations) == 0 || !ev.HasStage("plain QA prompt") {
		t.Errorf("statements %+v, stages %q", ans.Statements, ev.Stages)
	}
}
