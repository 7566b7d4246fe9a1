package extractive

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/retrieve"
)

const text = `Tea
Tea is an aromatic beverage prepared by pouring hot water over cured leaves of the tea plant. After water, it is the most widely consumed drink in the world.

History
Tea originated in Southwest China, where it was used as a medicinal drink. It was popularised as a recreational drink during the Tang dynasty.

Coffee
Coffee is a beverage brewed from roasted coffee beans. Coffee plants are cultivated in over 70 countries.
`

// drinksLibrary is a library holding text as drinks.txt.
func drinksLibrary(t *testing.T) (*docstore.Library, docstore.DocID) {
	t.Helper()
	lib, docs := enginetest.TextLibrary(t, "drinks.txt", text)
	return lib, docs[0].ID
}

// answer runs the strategy through engine.Run over lib.
func answer(ctx context.Context, lib *docstore.Library, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	return engine.Run(ctx, &engine.Env{Library: lib}, Strategy{}, req, emit)
}

func TestAnswerQuotesAndCites(t *testing.T) {
	t.Parallel()
	lib, id := drinksLibrary(t)
	d, err := lib.Document(id)
	if err != nil {
		t.Fatal(err)
	}
	var events []engine.Event
	ans, err := answer(t.Context(), lib, engine.Request{Question: "Where did tea originate?", Docs: []docstore.DocID{id}, Options: engine.Settings("k", "3")},
		func(ev engine.Event) { events = append(events, ev) })
	if err != nil {
		t.Fatal(err)
	}
	if ans.Strategy != Name || ans.Model != "" || ans.Usage != (citations.Usage{}) || len(ans.Stages) != 1 {
		t.Errorf("answer header: %+v", ans)
	}
	if len(ans.Statements) == 0 || len(ans.Statements) > 3 {
		t.Fatalf("%d statements for k=3", len(ans.Statements))
	}
	if _, ok := events[0].(engine.Stage); !ok || len(events) != 1+len(ans.Statements) {
		t.Errorf("events: a stage then one per statement, got %d events for %d statements", len(events), len(ans.Statements))
	}
	for i, st := range ans.Statements {
		if ev, ok := events[i+1].(engine.Statement); !ok || ev.Text != st.Text {
			t.Errorf("event %d is not statement %d", i+1, i)
		}
		if len(st.Citations) != 1 || len(st.Support) != 1 {
			t.Fatalf("statement %d: %d citations, %d verdicts", i, len(st.Citations), len(st.Support))
		}
		c := st.Citations[0]
		if c.Doc != id || c.DocName != "drinks.txt" || c.Text != d.Text[c.Start:c.End] ||
			c.Start != int(d.Sentences[c.First].Start) || c.End != int(d.Sentences[c.Last].End) || c.Page != 1 {
			t.Errorf("citation %+v does not point at the document's bytes", c)
		}
		if st.Text != c.Text {
			t.Errorf("statement %q is not the quote %q", st.Text, c.Text)
		}
		if st.Support[0].Level != citations.Supported {
			t.Errorf("a quote's verdict is %v", st.Support[0])
		}
	}
	if !strings.HasPrefix(ans.Statements[0].Text, "Tea originated in Southwest China") {
		t.Errorf("best statement %q", ans.Statements[0].Text)
	}
}

func TestAnswerMergesAdjacentSentences(t *testing.T) {
	t.Parallel()
	lib, id := drinksLibrary(t)
	q := "tea drink"
	req := engine.Request{Question: q, Docs: []docstore.DocID{id}, Options: engine.Settings("k", "4")}
	merged, err := answer(t.Context(), lib, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Options = engine.Settings("k", "4", "merge", "false")
	single, err := answer(t.Context(), lib, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	sentences := 0
	ranged := false
	for _, st := range merged.Statements {
		c := st.Citations[0]
		sentences += c.Last - c.First + 1
		ranged = ranged || c.Last > c.First
	}
	if !ranged || sentences != len(single.Statements) || len(merged.Statements) >= len(single.Statements) {
		t.Errorf("merged: %d statements over %d sentences (a range: %v); unmerged: %d", len(merged.Statements), sentences, ranged, len(single.Statements))
	}
	for _, st := range single.Statements {
		if c := st.Citations[0]; c.First != c.Last {
			t.Errorf("merge=false gave a range %d-%d", c.First, c.Last)
		}
	}
}

func TestAnswerOptionsAndCancel(t *testing.T) {
	t.Parallel()
	lib, id := drinksLibrary(t)
	for _, opts := range [][]engine.Setting{
		engine.Settings("k", "0"), engine.Settings("k", "many"), engine.Settings("stop", "2"), engine.Settings("pages", "5-3"),
		engine.Settings("pages", "x"), engine.Settings("merge", "perhaps"), engine.Settings("colour", "blue"),
	} {
		_, err := answer(t.Context(), lib, engine.Request{Question: "tea", Options: opts}, nil)
		if !errors.Is(err, engine.ErrOption) {
			t.Errorf("%v: err = %v, want ErrOption", opts, err)
		}
	}
	ans, err := answer(t.Context(), lib, engine.Request{Question: "tea", Docs: []docstore.DocID{id}, Options: engine.Settings("pages", "2-9")}, nil)
	if err != nil || len(ans.Statements) != 0 {
		t.Errorf("pages beyond a one-page text: %v, %d statements", err, len(ans.Statements))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ans, err = answer(ctx, lib, engine.Request{Question: "tea", Docs: []docstore.DocID{id}}, nil)
	if !errors.Is(err, context.Canceled) || ans == nil {
		t.Errorf("cancelled: answer %v, err %v", ans, err)
	}
}

func TestAutoStop(t *testing.T) {
	t.Parallel()
	ps := []retrieve.Passage{{Scores: retrieve.Scores{Lexical: 10}}, {Scores: retrieve.Scores{Lexical: 6}}, {Scores: retrieve.Scores{Lexical: 3.9}}, {Scores: retrieve.Scores{Lexical: 5}}}
	if got := autoStop(ps, 0.4, false); len(got) != 2 {
		t.Errorf("kept %d, want the 2 above 40%% of the best", len(got))
	}
	if got := autoStop(nil, 0.4, false); len(got) != 0 {
		t.Errorf("empty: %v", got)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	gs := merge([]group{{"a", 5, 5, 0.2}, {"a", 9, 9, 0.1}, {"a", 7, 7, 0.8}, {"b", 6, 6, 0.5}, {"a", 6, 6, 0.3}})
	// Merged groups keep their best coverage.
	want := []group{{"a", 5, 7, 0.8}, {"a", 9, 9, 0.1}, {"b", 6, 6, 0.5}}
	if !slices.Equal(gs, want) {
		t.Errorf("merge = %v, want %v", gs, want)
	}
}

// TestRelevance: every quote says how well it matches the question,
// in the question's own words; an off-topic one is weak.
func TestRelevance(t *testing.T) {
	t.Parallel()
	r := relevance("What taxes did the King impose?", "For imposing Taxes on us without our Consent", "", 0)
	if r.Of != 3 || !slices.Equal(r.Matched, []string{"taxes", "impose"}) || r.Band != citations.RelevanceFair {
		t.Errorf("relevance %+v", r)
	}
	if r := relevance("What taxes did the King impose?", "He has refused his Assent to Laws", "", 0); len(r.Matched) != 0 || r.Band != citations.RelevanceWeak {
		t.Errorf("off-topic quote: %+v", r)
	}
	if r := relevance("taxes", "taxes", "", 0.95); r.Band != citations.RelevanceStrong || !slices.Equal(r.Matched, []string{"taxes"}) || r.Of != 1 {
		t.Errorf("strong: %+v", r)
	}
	// Words only the heading holds are told apart from the quote's own.
	r = relevance("How do I read a file into a data frame?", "When invoked on a data frame, edit brings up a spreadsheet.", "7 Reading data from files", 0)
	if !slices.Equal(r.Matched, []string{"data", "frame"}) || !slices.Equal(r.InHeading, []string{"read", "file"}) {
		t.Errorf("heading words: %+v", r)
	}
	mark := citations.StatementMark(&citations.Statement{Relevance: r}).String()
	if mark != "2 of 4 question words: data, frame; its heading: read, file" {
		t.Errorf("mark %q", mark)
	}
}

func TestRegistered(t *testing.T) {
	t.Parallel()
	info, ok := engine.Lookup(Name)
	if !ok || info.NeedsLLM || info.Description == "" || Name != engine.DefaultStrategy {
		t.Fatalf("registry: %+v, %v", info, ok)
	}
	if _, err := engine.New(Name, &engine.Env{}); !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("without a library: err = %v", err)
	}
	lib, _ := drinksLibrary(t)
	s, err := engine.New(Name, &engine.Env{Library: lib})
	if err != nil || s.Name() != Name {
		t.Errorf("New: %v, %v", s, err)
	}
}
