package raidd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestDeriveStores: every chunk of the 256/50 windows gets its calls —
// the authors' two (a summary, asked in the context of the previous
// chunk's, then 32 questions per 1,024 tokens), or the one combined call
// — and a record with its sentence range, summary and questions; the
// document is indexed at the end.
func TestDeriveStores(t *testing.T) {
	t.Parallel()
	for _, layout := range []Layout{TwoCalls, OneCall} {
		t.Run(fmt.Sprint(layout.calls(), " calls"), func(t *testing.T) {
			t.Parallel()
			testDeriveStores(t, layout)
		})
	}
}

func testDeriveStores(t *testing.T, layout Layout) {
	lib, docs := enginetest.TextLibrary(t, "survey.txt", survey(40))
	d := docs[0]
	m := newModel()
	srv := llmtest.New(t, llmtest.WithResponder(m.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	chunks, err := Chunks(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 8 {
		t.Fatalf("only %d chunks; the test needs a longer document", len(chunks))
	}
	calls := layout.calls()
	var progress []Progress
	dv := &Deriver{Library: lib, Client: env.LLM, Layout: layout}
	rep, err := dv.Derive(t.Context(), []docstore.DocID{d.ID}, func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Derived != len(chunks) || rep.Resumed != 0 || len(rep.Failures) != 0 || rep.Usage.LLMCalls != calls*len(chunks) || rep.Usage.PromptTokens == 0 {
		t.Fatalf("report %+v for %d chunks", rep, len(chunks))
	}
	if len(progress) != len(chunks) || progress[len(progress)-1].Done != len(chunks) || progress[0].Total != len(chunks) {
		t.Errorf("progress %+v", progress)
	}
	set := SetWith(llmtest.DefaultModel, layout)
	recs, err := lib.Derived().Chunks(d.ID, set)
	if err != nil || len(recs) != len(chunks) {
		t.Fatalf("%d records (%v), want %d", len(recs), err, len(chunks))
	}
	reqs := srv.ChatRequests()
	if len(reqs) != calls*len(chunks) {
		t.Fatalf("%d requests for %d chunks", len(reqs), len(chunks))
	}
	for i, r := range recs {
		c := chunks[i]
		text := strings.TrimSpace(d.Text[d.Sentences[c.First].Start:d.Sentences[c.Last].End])
		n := QuestionCount(int(c.Tokens))
		var got []deriveReq
		for _, q := range reqs[calls*i : calls*(i+1)] {
			g, ok := parseDerive(q.Last())
			if !ok {
				t.Fatalf("request for chunk %d is no derivation: %q", i, q.Last())
			}
			got = append(got, g)
			if q.Model != llmtest.DefaultModel {
				t.Errorf("request for chunk %d to model %q", i, q.Model)
			}
		}
		var wantSum string
		var wantQs []string
		if layout == OneCall {
			if got[0].kind != "both" || got[0].text != text || got[0].n != n {
				t.Errorf("request %d: %+v, want both of %d questions of %q", i, got[0], n, text)
			}
			p := ParseReply(scriptedReply(got[0]), n)
			wantSum, wantQs = p.Summary, p.Questions
		} else {
			if got[0].kind != "summary" || got[0].text != text || got[1].kind != "questions" || got[1].text != text || got[1].n != n {
				t.Errorf("requests %d: %+v, want the summary of %q, then %d questions", i, got, text, n)
			}
			wantSum, wantQs = ParseSummary(scriptedReply(got[0])), ParseQuestions(scriptedReply(got[1]), n)
		}
		if r.Index != i || r.First != int(c.First) || r.Last != int(c.Last) || r.Summary != wantSum || !slices.Equal(r.Questions, wantQs) || r.Failed != "" || r.Calls != calls {
			t.Errorf("record %d: %+v\nwant summary %q and questions %q", i, r, wantSum, wantQs)
		}
		if wantSum == "" || len(wantQs) == 0 {
			t.Errorf("chunk %d: the scripted replies read as summary %q and questions %q", i, wantSum, wantQs)
		}
		switch {
		case i == 0 && got[0].prev != "":
			t.Errorf("the first chunk is asked with a context: %q", got[0].prev)
		case i > 0 && got[0].prev != recs[i-1].Summary:
			t.Errorf("chunk %d is asked in the context %q, want the previous summary %q", i, got[0].prev, recs[i-1].Summary)
		}
	}
	if n := QuestionCount(int(chunks[0].Tokens)); n < 6 || n > 8 {
		t.Errorf("a full chunk of %d tokens gets %d questions, want about 8", chunks[0].Tokens, n)
	}
	st, _ := lib.Derived().Status(d.ID, set)
	if !st.Complete() || !st.Indexed || st.Calls != calls*len(chunks) {
		t.Errorf("status %+v", st)
	}
	if est, _ := Missing(lib, SetWith(llmtest.DefaultModel, 3-layout), []docstore.DocID{d.ID}); est.Chunks != len(chunks) || est.Calls != (3-calls)*len(chunks) {
		t.Errorf("the other layout's derivation %+v: its documents are its own", est)
	}
	// Deriving again costs nothing.
	rep, err = dv.Derive(t.Context(), []docstore.DocID{d.ID}, nil)
	if err != nil || rep.Derived != 0 || rep.Resumed != len(chunks) || len(srv.ChatRequests()) != calls*len(chunks) {
		t.Errorf("second derive: %+v, %v, %d requests", rep, err, len(srv.ChatRequests()))
	}
}

// TestDeriveResumes: a derivation cut off by a failing server, or by a
// cancellation, keeps the chunks it finished, and the next run derives
// only the rest — no chunk's reply is asked for twice, except the one
// call that was in flight when the run was cancelled.
func TestDeriveResumes(t *testing.T) {
	for _, how := range []string{"server error", "cancelled"} {
		t.Run(how, func(t *testing.T) {
			lib, docs := enginetest.TextLibrary(t, "survey.txt", survey(40))
			d := docs[0]
			chunks, _ := Chunks(d)
			m := newModel()
			srv := llmtest.New(t, llmtest.WithResponder(m.respond))
			env := enginetest.Env(t, lib, enginetest.Config(srv), llm.WithMaxRetries(1))
			const stopAt = 5 // chunks derived before the failure (two calls each)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			m.fault = func(n int, r deriveReq) (llmtest.Reply, bool) {
				if n <= 2*stopAt {
					return llmtest.Reply{}, false
				}
				if how == "cancelled" {
					cancel()
					return llmtest.Reply{Text: scriptedReply(r), HeaderDelay: 5 * time.Second}, true
				}
				return llmtest.Status(http.StatusInternalServerError), true
			}
			// A batch larger than what finishes, so only the flush on
			// the way out commits it.
			dv := &Deriver{Library: lib, Client: env.LLM, Batch: 100, BatchTime: time.Hour}
			rep, err := dv.Derive(ctx, []docstore.DocID{d.ID}, nil)
			switch how {
			case "server error":
				if !errors.Is(err, llm.ErrServer) {
					t.Fatalf("derive against a failing server: %v", err)
				}
			case "cancelled":
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled derive: %v", err)
				}
			}
			if rep.Derived != stopAt {
				t.Errorf("report says %d derived, want %d", rep.Derived, stopAt)
			}
			st, _ := lib.Derived().Status(d.ID, SetFor(llmtest.DefaultModel))
			if st.Done != stopAt || st.Complete() || st.Indexed {
				t.Fatalf("status after the interruption %+v, want %d done", st, stopAt)
			}

			m.fault = nil
			rep, err = dv.Derive(t.Context(), []docstore.DocID{d.ID}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Resumed != stopAt || rep.Derived != len(chunks)-stopAt {
				t.Errorf("resume report %+v: want %d resumed and %d derived", rep, stopAt, len(chunks)-stopAt)
			}
			recs, _ := lib.Derived().Chunks(d.ID, SetFor(llmtest.DefaultModel))
			if len(recs) != len(chunks) {
				t.Fatalf("%d records after resuming, want %d", len(recs), len(chunks))
			}
			// Every chunk was asked twice (its summary, its questions),
			// but the one at the interruption: its summary call in flight
			// when cancelled, asked again on resuming, or the failing call
			// and the client's one retry of it.
			again := map[int]int{}
			for _, n := range m.perChunk {
				again[n]++
			}
			want := map[int]int{2: len(chunks) - 1, 3: 1}
			if how == "server error" {
				want = map[int]int{2: len(chunks) - 1, 4: 1}
			}
			if !maps.Equal(again, want) {
				t.Errorf("chunks by times asked %v, want %v", again, want)
			}
			// The resumed summary chain continues from the last stored
			// summary.
			got, _ := parseDerive(lastDerivePromptFor(t, srv, recs[stopAt].First, d))
			if got.prev != recs[stopAt-1].Summary {
				t.Errorf("the first resumed chunk is asked in the context %q, want %q", got.prev, recs[stopAt-1].Summary)
			}
			st, _ = lib.Derived().Status(d.ID, SetFor(llmtest.DefaultModel))
			if !st.Complete() || !st.Indexed {
				t.Errorf("status after resuming %+v", st)
			}
		})
	}
}

// lastDerivePromptFor returns the last derivation prompt of the chunk that
// starts at sentence first that carries the previous summary (the
// summary's, or the combined one).
func lastDerivePromptFor(t *testing.T, srv *llmtest.Server, first int, d *docstore.Document) string {
	t.Helper()
	var out string
	for _, r := range srv.ChatRequests() {
		if got, ok := parseDerive(r.Last()); ok && got.kind != "questions" && strings.HasPrefix(got.text, strings.TrimSpace(d.SentenceText(first))) {
			out = r.Last()
		}
	}
	if out == "" {
		t.Fatalf("no derivation prompt for the chunk at sentence %d", first)
	}
	return out
}

// TestUnusableReplies: a reply without questions is asked again once; if
// the retry is no better the chunk is stored as failed, with what was
// usable (here the refusal read as a summary: one call), and reported;
// the next derivation retries it.
func TestUnusableReplies(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "survey.txt", survey(40))
	d := docs[0]
	chunks, _ := Chunks(d)
	const bad = 2
	badText := strings.TrimSpace(d.Text[d.Sentences[chunks[bad].First].Start:d.Sentences[chunks[bad].Last].End])
	m := newModel()
	m.fault = func(n int, r deriveReq) (llmtest.Reply, bool) {
		if r.text == badText {
			return llmtest.Text("I'm sorry, but the text seems to be about rainfall."), true
		}
		return llmtest.Reply{}, false
	}
	srv := llmtest.New(t, llmtest.WithResponder(m.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	dv := &Deriver{Library: lib, Client: env.LLM}
	rep, err := dv.Derive(t.Context(), []docstore.DocID{d.ID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.perChunk[badText] != 3 {
		t.Errorf("the unusable chunk was asked %d times, want 3 (a summary, questions and their one retry)", m.perChunk[badText])
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Chunk != bad || rep.Failures[0].Reason != "the reply has no questions" {
		t.Fatalf("failures %+v", rep.Failures)
	}
	if s := DerivedStage(rep); !strings.Contains(s, "1 chunks gave unusable replies (chunks 3)") {
		t.Errorf("stage %q does not report the failure", s)
	}
	recs, _ := lib.Derived().Chunks(d.ID, SetFor(llmtest.DefaultModel))
	if r := recs[bad]; r.Failed == "" || r.Summary == "" || len(r.Questions) != 0 || r.Calls != 3 {
		t.Errorf("failed record %+v", r)
	}
	// The next chunk was still conditioned on a summary: the last usable one.
	st, _ := lib.Derived().Status(d.ID, SetFor(llmtest.DefaultModel))
	if !st.Complete() || st.Failed != 1 || !st.Indexed {
		t.Errorf("status %+v: a failed chunk should not block the index", st)
	}
	// A failed chunk does not make the strategies ask for derivation...
	if est, err := Missing(lib, SetFor(llmtest.DefaultModel), []docstore.DocID{d.ID}); err != nil || len(est.Docs) != 0 {
		t.Errorf("missing after a complete derivation: %+v, %v", est, err)
	}
	// ...but the next derivation retries it.
	m.fault = nil
	rep, err = dv.Derive(t.Context(), []docstore.DocID{d.ID}, nil)
	if err != nil || rep.Derived != 1 || len(rep.Failures) != 0 || m.perChunk[badText] != 5 {
		t.Fatalf("retry of the failed chunk: %+v, %v, asked %d times", rep, err, m.perChunk[badText])
	}
	if st, _ := lib.Derived().Status(d.ID, SetFor(llmtest.DefaultModel)); st.Failed != 0 || !st.Indexed {
		t.Errorf("status after the retry %+v", st)
	}
}

// TestRemovedWithTheDocument: removing a document removes its derived
// documents and their index, and leaves the library consistent.
func TestRemovedWithTheDocument(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "a.txt", survey(12), "b.txt", survey(14))
	m := newModel()
	srv := llmtest.New(t, llmtest.WithResponder(m.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	dv := &Deriver{Library: lib, Client: env.LLM, Jobs: 2}
	if _, err := dv.Derive(t.Context(), []docstore.DocID{docs[0].ID, docs[1].ID}, nil); err != nil {
		t.Fatal(err)
	}
	if err := lib.Remove(docs[0].ID); err != nil {
		t.Fatal(err)
	}
	if sets, err := lib.Derived().Sets(docs[0].ID); err != nil || len(sets) != 0 {
		t.Fatalf("derived sets of a removed document: %+v, %v", sets, err)
	}
	if sets, _ := lib.Derived().Sets(docs[1].ID); len(sets) != 1 || !sets[0].Complete() {
		t.Fatalf("the other document's derived documents: %+v", sets)
	}
	if err := lib.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := retrieve.SearchDerived(lib, retrieve.ParseQuery("rain"), docstore.DerivedSearchOptions{
		Set: SetFor(llmtest.DefaultModel), Docs: []docstore.DocID{docs[0].ID}, Kinds: []docstore.DerivedKind{docstore.DerivedSummary},
	}, retrieve.BM25{}); !errors.Is(err, docstore.ErrNotFound) {
		t.Errorf("search of a removed document's derived index: %v", err)
	}
}

// TestOneCallCost measures the one-call layout against the authors' two
// calls (a summary prompt and a questions prompt, each with the chunk).
func TestOneCallCost(t *testing.T) {
	_, docs := enginetest.Library(t, "../../testdata/declaration.txt")
	d := docs[0]
	chunks, err := Chunks(d)
	if err != nil {
		t.Fatal(err)
	}
	one, two := 0, 0
	prev := ""
	for _, c := range chunks {
		text := d.Text[d.Sentences[c.First].Start:d.Sentences[c.Last].End]
		n := QuestionCount(int(c.Tokens))
		one += llm.EstimatePromptTokens(derivePrompt(text, prev, n))
		two += llm.EstimatePromptTokens(summaryPrompt(text, prev)) + llm.EstimatePromptTokens(questionsPrompt(text, n))
		prev, _ = scriptedDerivation(deriveReq{text: text, n: n})
	}
	t.Logf("%d chunks: one call per chunk %d prompt tokens, two calls %d (%.2f×, and %d calls instead of %d)",
		len(chunks), one, two, float64(two)/float64(one), len(chunks), 2*len(chunks))
	if two <= one {
		t.Errorf("two calls (%d) cost no more prompt tokens than one (%d)", two, one)
	}
	// Missing's estimates, made before any call, agree.
	lib, _ := enginetest.Library(t, "../../testdata/declaration.txt")
	e1, _ := Missing(lib, SetWith("m", OneCall), []docstore.DocID{d.ID})
	e2, _ := Missing(lib, SetWith("m", TwoCalls), []docstore.DocID{d.ID})
	if e1.Calls != len(chunks) || e2.Calls != 2*len(chunks) || e2.PromptTokens <= e1.PromptTokens {
		t.Errorf("estimates: one call %+v, two calls %+v", e1, e2)
	}
}
