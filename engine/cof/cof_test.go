package cof

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// rainfallReport is a report of unique facts: n paragraphs, one station
// each, three sentences each.
func rainfallReport(n int) string {
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	var b strings.Builder
	b.WriteString("Regional Rainfall Survey\n\n")
	for i := range n {
		fmt.Fprintf(&b, "Station %d, on the %s ridge, recorded %d millimetres of rain in %s. ", i, ridge(i), rain(i), months[i%12])
		fmt.Fprintf(&b, "Its gauge was last calibrated in %d by a crew of %d. ", 1990+i%30, 2+i%7)
		fmt.Fprintf(&b, "The nearest river rose by %d centimetres that month.\n\n", 5+(i*13)%80)
	}
	return b.String()
}

func rain(i int) int { return 100 + (i*37)%900 }

func ridge(i int) string {
	r := []string{"northern", "southern", "eastern", "western", "central"}
	return r[i%len(r)]
}

// reportLibrary is a library holding rainfallReport(stations) as
// report1.txt.
func reportLibrary(t testing.TB, stations int) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	return enginetest.TextLibrary(t, "report1.txt", rainfallReport(stations))
}

// The kinds of prompt CoF sends.
const (
	draftPrompt = iota
	chunkPrompt
	sentencePrompt
)

// kind tells CoF's prompts (engine/generate's) apart by their first
// words.
func kind(req llmtest.ChatRequest) int {
	p := req.Last()
	switch {
	case strings.HasPrefix(p, "Please answer the user's question based on the given document. Answer in plain text"):
		return draftPrompt
	case strings.HasPrefix(p, "Your task is to add citations to the existing answer."):
		return chunkPrompt
	case strings.HasPrefix(p, "You will receive a passage and a factual statement."):
		return sentencePrompt
	}
	return -1
}

var (
	stationRE = regexp.MustCompile(`Station (\d+),`)
	snippetRE = regexp.MustCompile(`(?m)^Snippet \[(\d+)\]\n`)
)

// testCase returns the part of a prompt after its examples.
func testCase(p string) string {
	for _, m := range []string{"Now get ready to add citations for the following test case.", "Now get ready to process the following test case."} {
		if _, after, ok := strings.Cut(p, m); ok {
			return after
		}
	}
	return p
}

// snippets reads a Figure 12 prompt's snippets: number → text.
func snippets(p string) map[int]string {
	ctx := testCase(p)
	ctx, _, _ = strings.Cut(ctx, "\n[Context End]")
	out := map[int]string{}
	locs := snippetRE.FindAllStringSubmatchIndex(ctx, -1)
	for i, l := range locs {
		n, _ := strconv.Atoi(ctx[l[2]:l[3]])
		end := len(ctx)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[n] = ctx[l[1]:end]
	}
	return out
}

// numbered reads a Figure 13 prompt's passage: number → sentence, and the
// statement.
func numbered(p string) (map[int]string, string) {
	tc := testCase(p)
	passage, rest, _ := strings.Cut(tc, "\n[Passage End]")
	_, stmt, _ := strings.Cut(rest, "[Statement]\n")
	stmt, _, _ = strings.Cut(stmt, "\n\n[Output]")
	_, out := enginetest.Numbered(passage)
	return out, stmt
}

// script answers CoF's three prompts the way a capable model would: the
// draft given; each draft sentence naming a station cites the snippets
// holding that station's first sentence; step 3 names that sentence.
type script struct {
	draft string
	// noSupport lists stations for which step 3 answers "No relevant
	// information".
	noSupport map[string]bool
	// fail makes step 3 fail with this status for statements containing
	// the key.
	fail map[string]int

	mu      sync.Mutex
	prompts map[int][]string
}

func (s *script) respond(req llmtest.ChatRequest) llmtest.Reply {
	k := kind(req)
	s.mu.Lock()
	if s.prompts == nil {
		s.prompts = map[int][]string{}
	}
	s.prompts[k] = append(s.prompts[k], req.Last())
	s.mu.Unlock()
	switch k {
	case draftPrompt:
		return llmtest.Text(s.draft)
	case chunkPrompt:
		snips := snippets(req.Last())
		var b strings.Builder
		for _, sent := range generate.AnswerSentences(s.draft) {
			b.WriteString("<statement>")
			b.WriteString(sent)
			b.WriteString("<cite>")
			if m := stationRE.FindStringSubmatch(sent); m != nil {
				for n := 1; n <= len(snips); n++ {
					if strings.Contains(snips[n], m[0]) {
						fmt.Fprintf(&b, "[%d]", n)
					}
				}
			}
			b.WriteString("</cite></statement>\n")
		}
		return llmtest.Text(b.String())
	case sentencePrompt:
		sents, stmt := numbered(req.Last())
		for key, status := range s.fail {
			if strings.Contains(stmt, key) {
				return llmtest.Status(status)
			}
		}
		m := stationRE.FindStringSubmatch(stmt)
		if m == nil || s.noSupport[m[0]] {
			return llmtest.Text(generate.NoRelevant)
		}
		for n := 0; n < len(sents); n++ {
			if strings.Contains(sents[n], m[0]) {
				return llmtest.Text(fmt.Sprintf("[%d-%d]", n, n))
			}
		}
		return llmtest.Text(generate.NoRelevant)
	}
	return llmtest.Status(http.StatusBadRequest)
}

func (s *script) sent(k int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts[k]...)
}

// events gathers a strategy's events, and counts the deltas that come
// after the first statement.
type events struct {
	enginetest.Events
	deltasAfterStatement int
}

func (e *events) emit(ev engine.Event) {
	if _, ok := ev.(engine.Delta); ok && len(e.Statements) > 0 {
		e.deltasAfterStatement++
	}
	e.Emit(ev)
}

// stationSentence returns the index of station n's first sentence.
func stationSentence(t *testing.T, d *docstore.Document, n int) int {
	t.Helper()
	key := fmt.Sprintf("Station %d,", n)
	for i := range d.Sentences {
		if strings.HasPrefix(d.SentenceText(i), key) {
			return i
		}
	}
	t.Fatalf("no sentence starts with %q", key)
	return -1
}

func stationDraft(stations ...int) string {
	var b strings.Builder
	b.WriteString("The survey reports rainfall for many stations.\n\n")
	for _, n := range stations {
		fmt.Fprintf(&b, "- Station %d, on the %s ridge, recorded %d millimetres of rain.\n", n, ridge(n), rain(n))
	}
	b.WriteString("\nIn short, rainfall varied widely across the region.")
	return b.String()
}

func TestCoarseToFine(t *testing.T) {
	t.Parallel()
	lib, docs := reportLibrary(t, 60)
	d := docs[0]
	sc := &script{draft: stationDraft(7, 23)}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, err := engine.New(Name, env)
	if err != nil {
		t.Fatal(err)
	}
	var ev events
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "How much rain fell at stations 7 and 23?", Docs: []docstore.DocID{d.ID}}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) != 4 || len(ev.Statements) != 4 {
		t.Fatalf("%d statements (%d emitted), want 4: %+v", len(ans.Statements), len(ev.Statements), ans.Statements)
	}
	if got := strings.Join(ev.Deltas, ""); got != sc.draft {
		t.Errorf("the draft was not streamed as deltas: %q", got)
	}
	if ev.deltasAfterStatement != 0 {
		t.Error("deltas came after statements: only the draft streams")
	}
	if !ev.HasStage("drafting an answer") || !ev.HasStage("retrieving up to 10 chunks for each of the answer's 4 sentences") ||
		!ev.HasStage("adding chunk-level citations") || !ev.HasStage("narrowing the citations of 2 statements") {
		t.Errorf("stages %q", ev.Stages)
	}
	for i, st := range ans.Statements {
		switch i {
		case 0, 3:
			if len(st.Citations) != 0 {
				t.Errorf("statement %d %q cites %+v", i, st.Text, st.Citations)
			}
		case 1, 2:
			n := []int{7, 23}[i-1]
			want := stationSentence(t, d, n)
			if len(st.Citations) != 1 || st.Citations[0].First != want || st.Citations[0].Last != want {
				t.Fatalf("statement %d %q cites %+v, want sentence %d", i, st.Text, st.Citations, want)
			}
			c := st.Citations[0]
			if c.Text != d.SentenceText(want) || c.Start != int(d.Sentences[want].Start) || c.Doc != d.ID {
				t.Errorf("citation %+v is not the bytes of sentence %d", c, want)
			}
			if len(st.Support) != 1 || st.Support[0].Level == citations.Unsupported {
				t.Errorf("statement %d verdicts %+v", i, st.Support)
			}
		}
	}
	if ans.Model != llmtest.DefaultModel {
		t.Errorf("model %q", ans.Model)
	}
	// One call for the draft, one for chunk citations, one per cited
	// statement; each reported as a Usage event and summed in the answer.
	if len(ev.Usage) != 4 || ans.Usage.LLMCalls != 4 || ans.Usage.PromptTokens == 0 {
		t.Errorf("usage events %d, answer usage %+v", len(ev.Usage), ans.Usage)
	}
	if len(ans.Warnings) != 0 {
		t.Errorf("warnings %q", ans.Warnings)
	}

	// Step 2 showed about k chunks, in document order, with the draft.
	p2 := sc.sent(chunkPrompt)
	if len(p2) != 1 {
		t.Fatalf("%d chunk prompts", len(p2))
	}
	snips := snippets(p2[0])
	if len(snips) < 10 || len(snips) > generate.PaperCoF.K {
		t.Errorf("%d snippets shown, want 10 to %d", len(snips), generate.PaperCoF.K)
	}
	last := -1
	for n := 1; n <= len(snips); n++ {
		at := strings.Index(d.Text, strings.TrimSpace(snips[n])[:40])
		if at <= last {
			t.Fatalf("snippet %d is not after snippet %d in the document", n, n-1)
		}
		last = at
	}
	if !strings.Contains(p2[0], "[Existing Answer Start]\n"+sc.draft+"\n[Existing Answer End]") {
		t.Error("the draft is not in the chunk prompt verbatim")
	}
	// Step 3 showed each cited chunk with its neighbours, numbered from 0.
	p3 := sc.sent(sentencePrompt)
	if len(p3) != 2 {
		t.Fatalf("%d sentence prompts, want 2", len(p3))
	}
	for _, p := range p3 {
		sents, stmt := numbered(p)
		if _, ok := sents[0]; !ok {
			t.Error("the passage does not start at <C0>")
		}
		m := stationRE.FindStringSubmatch(stmt)
		n, _ := strconv.Atoi(m[1])
		i := stationSentence(t, d, n)
		c, _ := chunkOfSentence(d, i)
		lo, hi := max(0, c-1), min(len(d.Chunks)-1, c+1)
		if len(sents) != int(d.Chunks[hi].Last-d.Chunks[lo].First)+1 {
			t.Errorf("passage for station %d has %d sentences, want chunks %d-%d's %d", n, len(sents), lo, hi, d.Chunks[hi].Last-d.Chunks[lo].First+1)
		}
	}
}

func chunkOfSentence(d *docstore.Document, s int) (int, bool) {
	for i, c := range d.Chunks {
		if int(c.First) <= s && s <= int(c.Last) {
			return i, true
		}
	}
	return 0, false
}

// A statement whose chunks hold no support stays uncited, and an answer
// with fewer than 20% of its statements cited is flagged.
func TestNoSupportAndGroundingWarning(t *testing.T) {
	t.Parallel()
	lib, docs := reportLibrary(t, 40)
	sc := &script{
		draft:     stationDraft(3, 11, 17, 29) + " Rain is common in autumn. Many gauges are old.",
		noSupport: map[string]bool{"Station 3,": true, "Station 11,": true, "Station 17,": true},
	}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, _ := engine.New(Name, env)
	var ev events
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "Which stations recorded rain?", Docs: []docstore.DocID{docs[0].ID}}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	cited := 0
	for _, st := range ans.Statements {
		if len(st.Citations) > 0 {
			cited++
			if !strings.Contains(st.Text, "Station 29,") {
				t.Errorf("%q is cited", st.Text)
			}
		}
	}
	if cited != 1 || len(ans.Statements) != 8 {
		t.Fatalf("%d of %d statements cited, want 1 of 8", cited, len(ans.Statements))
	}
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "only 1 of 8 statements") || !ev.HasStage("only 1 of 8 statements") {
		t.Errorf("warnings %q", ans.Warnings)
	}

	// ungrounded=discard is the paper's filter: the answer is discarded,
	// none of its statements shown.
	ans, err = engine.Run(t.Context(), env, s, engine.Request{Question: "Which stations recorded rain?", Docs: []docstore.DocID{docs[0].ID},
		Options: engine.Settings("ungrounded", UngroundedDiscard)}, nil)
	if !errors.Is(err, generate.ErrUngrounded) || !strings.Contains(err.Error(), "1 of 8 statements cited") || ans == nil || len(ans.Statements) != 0 {
		t.Errorf("ungrounded=discard: %v, %+v", err, ans)
	}
}

// A failure in a later call keeps what the earlier ones did.
func TestLaterFailureKeepsWork(t *testing.T) {
	t.Parallel()
	t.Run("chunk step", func(t *testing.T) {
		lib, docs := reportLibrary(t, 30)
		sc := &script{draft: stationDraft(4, 9)}
		srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
		srv.Enqueue(llmtest.Text(sc.draft), llmtest.Status(http.StatusInternalServerError))
		env := enginetest.Env(t, lib, enginetest.Config(srv), llm.WithMaxRetries(0))
		s, _ := engine.New(Name, env)
		var ev events
		ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "Rain at stations 4 and 9?", Docs: []docstore.DocID{docs[0].ID}}, ev.emit)
		if !errors.Is(err, llm.ErrServer) || !ans.Partial {
			t.Fatalf("err %v, partial %v", err, ans.Partial)
		}
		if len(ans.Statements) != 4 || len(ev.Statements) != 4 {
			t.Fatalf("%d statements (%d emitted): the draft should be kept, uncited", len(ans.Statements), len(ev.Statements))
		}
		for _, st := range ans.Statements {
			if len(st.Citations) != 0 {
				t.Errorf("%q cited", st.Text)
			}
		}
		if len(ans.Warnings) == 0 || !strings.Contains(ans.Warnings[0], "citations could not be added") {
			t.Errorf("warnings %q", ans.Warnings)
		}
		if ans.Usage.LLMCalls != 1 { // a refused call is not counted
			t.Errorf("usage %+v", ans.Usage)
		}
	})
	t.Run("sentence step", func(t *testing.T) {
		lib, docs := reportLibrary(t, 60)
		d := docs[0]
		sc := &script{draft: stationDraft(5, 21, 44), fail: map[string]int{"Station 21,": http.StatusBadGateway}}
		srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
		env := enginetest.Env(t, lib, enginetest.Config(srv), llm.WithMaxRetries(0))
		s, _ := engine.New(Name, env)
		var ev events
		ans, err := engine.Run(t.Context(), env, s, engine.Request{
			Question: "Rain at stations 5, 21 and 44?", Docs: []docstore.DocID{d.ID},
			Options: engine.Settings("parallel", "1"),
		}, ev.emit)
		if !errors.Is(err, llm.ErrServer) || !ans.Partial {
			t.Fatalf("err %v, partial %v", err, ans.Partial)
		}
		if len(ans.Statements) != 5 || len(ev.Statements) != 5 {
			t.Fatalf("%d statements (%d emitted), want all 5", len(ans.Statements), len(ev.Statements))
		}
		first := ans.Statements[1]
		if want := stationSentence(t, d, 5); len(first.Citations) != 1 || first.Citations[0].First != want || first.Citations[0].Last != want {
			t.Errorf("the statement before the failure lost its sentence citation: %+v", first.Citations)
		}
		failed := ans.Statements[2]
		i := stationSentence(t, d, 21)
		c, _ := chunkOfSentence(d, i)
		if len(failed.Citations) == 0 || failed.Citations[0].First > i || failed.Citations[0].Last < i ||
			failed.Citations[0].First != int(d.Chunks[c].First) {
			t.Errorf("the failed statement should keep its chunk citation (chunk %d): %+v", c, failed.Citations)
		}
		if !strings.Contains(strings.Join(failed.Warnings, " "), "chunk-level citations") {
			t.Errorf("failed statement warnings %q", failed.Warnings)
		}
		// With one extraction at a time, the one after the failure was
		// not started: it keeps its chunk citation too.
		after := ans.Statements[3]
		if len(after.Citations) == 0 || !strings.Contains(strings.Join(after.Warnings, " "), "chunk-level citations") {
			t.Errorf("statement after the failure: %+v %q", after.Citations, after.Warnings)
		}
		if !strings.Contains(strings.Join(ans.Warnings, " "), "narrowing citations to sentences failed") {
			t.Errorf("answer warnings %q", ans.Warnings)
		}
	})
}

// Cancelling during step 3 returns the statements already final.
func TestCancelDuringRefinement(t *testing.T) {
	t.Parallel()
	lib, docs := reportLibrary(t, 40)
	sc := &script{draft: stationDraft(2, 12, 22)}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := llmtest.New(t, llmtest.WithResponder(func(req llmtest.ChatRequest) llmtest.Reply {
		r := sc.respond(req)
		if kind(req) == sentencePrompt && strings.Contains(req.Last(), "Station 12, on") {
			cancel()
			r.HeaderDelay = 5 * time.Second
		}
		return r
	}))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, _ := engine.New(Name, env)
	ans, err := engine.Run(ctx, env, s, engine.Request{Question: "Rain?", Docs: []docstore.DocID{docs[0].ID}, Options: engine.Settings("parallel", "1")}, nil)
	if !errors.Is(err, context.Canceled) || ans.Error != "cancelled" {
		t.Fatalf("err %v, answer error %q", err, ans.Error)
	}
	if len(ans.Statements) != 2 || len(ans.Statements[1].Citations) != 1 {
		t.Errorf("statements kept: %+v", ans.Statements)
	}
}

// With an embedding model, step 2 fuses dense similarity: chunk vectors
// are embedded once (no sentence vectors, which CoF does not use) and the
// draft's sentences in one call.
func TestDenseRetrieval(t *testing.T) {
	t.Parallel()
	lib, docs := reportLibrary(t, 30)
	d := docs[0]
	sc := &script{draft: stationDraft(6, 18)}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	env := enginetest.Env(t, lib, cfg)
	s, _ := engine.New(Name, env)
	var ev events
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "Rain at 6 and 18?", Docs: []docstore.DocID{d.ID}}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	var embedded []int
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			embedded = append(embedded, len(r.Embed.Input))
		}
	}
	chunks := len(d.Chunks)
	if len(embedded) != 2 || embedded[0] != chunks || embedded[1] != 4 {
		t.Errorf("embedding requests of %v texts, want [%d chunks, 4 draft sentences]", embedded, chunks)
	}
	if !ev.HasStage(fmt.Sprintf("embedding %d/%d chunks", chunks, chunks)) {
		t.Errorf("stages %q", ev.Stages)
	}
	if ans.Usage.LLMCalls != 4+2 {
		t.Errorf("usage %+v: want 4 chat calls and 2 embedding calls", ans.Usage)
	}
	if c := ans.Statements[1].Citations; len(c) != 1 || c[0].First != stationSentence(t, d, 6) {
		t.Errorf("citations %+v", c)
	}
	// A second question embeds only its draft's sentences.
	n := len(srv.Requests())
	if _, err := engine.Run(t.Context(), env, s, engine.Request{Question: "Again?", Docs: []docstore.DocID{d.ID}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests()[n:] {
		if r.Embed != nil && len(r.Embed.Input) != 4 {
			t.Errorf("the second question embedded %d texts", len(r.Embed.Input))
		}
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	o, err := options.Parse(Name, engine.Settings("k", "20", "l_max", "3", "max_citations", "0", "parallel", "2"))
	if err != nil || o.Int("k") != 20 || o.Int("l_max") != 3 || o.Int("max_citations") != 0 || o.Int("parallel") != 2 {
		t.Fatalf("%+v %v", o, err)
	}
	for _, bad := range [][]engine.Setting{engine.Settings("k", "0"), engine.Settings("l_max", "x"), engine.Settings("max_citations", "-1"), engine.Settings("parallel", "99"), engine.Settings("level", "chunk")} {
		if _, err := options.Parse(Name, bad); !errors.Is(err, engine.ErrOption) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

func TestNeedsModel(t *testing.T) {
	t.Parallel()
	lib, _ := reportLibrary(t, 3)
	_, err := engine.New(Name, &engine.Env{Library: lib})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("New without a model: %v", err)
	}
	info, ok := engine.Lookup(Name)
	if !ok || !info.NeedsLLM {
		t.Errorf("registration %+v", info)
	}
}

// BenchmarkCoF answers over a 1,500-sentence report with a ten-sentence
// draft against the scripted server: the strategy's own cost (prompts,
// retrieval for every draft sentence, parsing, resolution) plus local HTTP.
func BenchmarkCoF(b *testing.B) {
	lib, docs := reportLibrary(b, 500)
	stations := []int{3, 41, 77, 120, 199, 250, 311, 402, 455, 499}
	sc := &script{draft: stationDraft(stations...)}
	srv := llmtest.New(b, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(b, lib, enginetest.Config(srv))
	s, err := engine.New(Name, env)
	if err != nil {
		b.Fatal(err)
	}
	req := engine.Request{Question: "Rain at the ten stations?", Docs: []docstore.DocID{docs[0].ID}}
	for b.Loop() {
		ans, err := engine.Run(b.Context(), env, s, req, nil)
		if err != nil || len(ans.Statements) != len(stations)+2 {
			b.Fatalf("%v: %d statements", err, len(ans.Statements))
		}
	}
}
