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
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestDeriveStores: every chunk of the 256/50 windows gets one call
// and a record with its sentence range, a summary, and 32 questions per
// 1,024 tokens; each summary is asked in the context of the previous
// one; the document is indexed at the end.
func TestDeriveStores(t *testing.T) {
	t.Parallel()
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
	var progress []Progress
	dv := &Deriver{Library: lib, Client: env.LLM}
	rep, err := dv.Derive(t.Context(), []docstore.DocID{d.ID}, func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Derived != len(chunks) || rep.Resumed != 0 || len(rep.Failures) != 0 || rep.Usage.LLMCalls != len(chunks) || rep.Usage.PromptTokens == 0 {
		t.Fatalf("report %+v for %d chunks", rep, len(chunks))
	}
	if len(progress) != len(chunks) || progress[len(progress)-1].Done != len(chunks) || progress[0].Total != len(chunks) {
		t.Errorf("progress %+v", progress)
	}
	recs, err := lib.Derived().Chunks(d.ID, SetFor(llmtest.DefaultModel))
	if err != nil || len(recs) != len(chunks) {
		t.Fatalf("%d records (%v), want %d", len(recs), err, len(chunks))
	}
	reqs := srv.ChatRequests()
	if len(reqs) != len(chunks) {
		t.Fatalf("%d requests for %d chunks", len(reqs), len(chunks))
	}
	for i, r := range recs {
		c := chunks[i]
		text := d.Text[d.Sentences[c.First].Start:d.Sentences[c.Last].End]
		want := deriveReq{text: text, n: QuestionCount(int(c.Tokens))}
		p := ParseReply(scriptedReply(want), want.n)
		if r.Index != i || r.First != int(c.First) || r.Last != int(c.Last) || r.Summary != p.Summary || !slices.Equal(r.Questions, p.Questions) || r.Failed != "" || r.Calls != 1 {
			t.Errorf("record %d: %+v\nwant summary %q and questions %q", i, r, p.Summary, p.Questions)
		}
		got, ok := parseDerive(reqs[i].Last())
		if !ok || got.text != strings.TrimSpace(text) || got.n != want.n {
			t.Errorf("request %d asks for %d questions of %q", i, got.n, got.text)
		}
		switch {
		case i == 0 && got.prev != "":
			t.Errorf("the first chunk is asked with a context: %q", got.prev)
		case i > 0 && got.prev != recs[i-1].Summary:
			t.Errorf("chunk %d is asked in the context %q, want the previous summary %q", i, got.prev, recs[i-1].Summary)
		}
		if reqs[i].Model != llmtest.DefaultModel {
			t.Errorf("request %d to model %q", i, reqs[i].Model)
		}
	}
	if n := QuestionCount(int(chunks[0].Tokens)); n < 6 || n > 8 {
		t.Errorf("a full chunk of %d tokens gets %d questions, want about 8", chunks[0].Tokens, n)
	}
	st, _ := lib.Derived().Status(d.ID, SetFor(llmtest.DefaultModel))
	if !st.Complete() || !st.Indexed || st.Calls != len(chunks) {
		t.Errorf("status %+v", st)
	}
	// Deriving again costs nothing.
	rep, err = dv.Derive(t.Context(), []docstore.DocID{d.ID}, nil)
	if err != nil || rep.Derived != 0 || rep.Resumed != len(chunks) || len(srv.ChatRequests()) != len(chunks) {
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
			const stopAt = 5 // derivation calls that succeed before the failure
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			m.fault = func(n int, r deriveReq) (llmtest.Reply, bool) {
				if n <= stopAt {
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
			// Every chunk was asked once, but the one at the interruption:
			// the call in flight when cancelled, asked again on resuming,
			// or the failing call and the client's one retry of it.
			again := map[int]int{}
			for _, n := range m.perChunk {
				again[n]++
			}
			want := map[int]int{1: len(chunks) - 1, 2: 1}
			if how == "server error" {
				want = map[int]int{1: len(chunks) - 1, 3: 1}
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
// starts at sentence first.
func lastDerivePromptFor(t *testing.T, srv *llmtest.Server, first int, d *docstore.Document) string {
	t.Helper()
	var out string
	for _, r := range srv.ChatRequests() {
		if got, ok := parseDerive(r.Last()); ok && strings.HasPrefix(got.text, strings.TrimSpace(d.SentenceText(first))) {
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
// usable, and reported; the next derivation retries it.
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
	if m.perChunk[badText] != 2 {
		t.Errorf("the unusable chunk was asked %d times, want 2 (one retry)", m.perChunk[badText])
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Chunk != bad || rep.Failures[0].Reason != "the reply has no questions" {
		t.Fatalf("failures %+v", rep.Failures)
	}
	if s := DerivedStage(rep); !strings.Contains(s, "1 chunks gave unusable replies (chunks 3)") {
		t.Errorf("stage %q does not report the failure", s)
	}
	recs, _ := lib.Derived().Chunks(d.ID, SetFor(llmtest.DefaultModel))
	if r := recs[bad]; r.Failed == "" || r.Summary == "" || len(r.Questions) != 0 || r.Calls != 2 {
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
	if err != nil || rep.Derived != 1 || len(rep.Failures) != 0 || m.perChunk[badText] != 3 {
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

// TestOneCallCost measures the design choice of one call per chunk
// against the authors' two (a summary prompt and a question prompt).
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
		two += twoCallTokens(text, prev, n)
		prev, _ = scriptedDerivation(deriveReq{text: text, n: n})
	}
	t.Logf("%d chunks: one call per chunk %d prompt tokens, two calls %d (%.2f×, and %d calls instead of %d)",
		len(chunks), one, two, float64(two)/float64(one), len(chunks), 2*len(chunks))
	if two <= one {
		t.Errorf("two calls (%d) cost no more prompt tokens than one (%d)", two, one)
	}
}

// twoCallTokens estimates the prompt tokens of the authors' two calls per
// chunk (a summary prompt and a question prompt, each with the chunk), for
// the package doc's comparison.
func twoCallTokens(text, prev string, n int) int {
	sum := instructFirst + "\n\n" + text
	if prev != "" {
		sum = instructNext + " Here is the the context:\n\n" + prev + "\n\nSummarize the following text:\n\n" + text
	}
	qs := text + "\n\n" + fmt.Sprintf("Generate %d reading comprehension questions based on the text above. Each question should be unique and should require a thoughtful answer. Each question should begin with a number followed by a period and a space, denoting its position in the list. Separate each question with a line break.\n\nQuestions:", n)
	return textproc.EstimateTokens(sum) + 4 + textproc.EstimateTokens(qs) + 4
}
