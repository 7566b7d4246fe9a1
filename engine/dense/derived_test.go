package dense

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

var derivedSet = librarytest.DerivedSet

// TestEnsureDerived: a derivation's units are embedded once, in batches,
// with progress; a run cut short by a failing endpoint resumes where it
// stopped; the stored vectors rank the units by cosine.
func TestEnsureDerived(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	d := docs[0]
	librarytest.Derive(t, lib, d)
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 4, llm.WithMaxRetries(0))
	units, _ := lib.Derived().Units(derivedSet, ids(docs))
	if units[docstore.DerivedSummary] <= 12 {
		t.Fatalf("the test wants more than 12 chunks: %v", units)
	}
	// The endpoint fails on the third request: two batches are kept.
	srv.EnqueueEmbeddings(llmtest.Reply{}, llmtest.Reply{}, llmtest.Status(http.StatusServiceUnavailable))
	rep, err := s.EnsureDerived(t.Context(), ids(docs), derivedSet, nil, nil)
	if !errors.Is(err, ErrEmbed) || !strings.Contains(err.Error(), "summaries of declaration.txt") {
		t.Fatalf("EnsureDerived against a failing endpoint: %v", err)
	}
	if rep.Embedded[docstore.DerivedSummary] != 8 || rep.Usage.LLMCalls != 2 {
		t.Fatalf("report of the cut run: %+v", rep)
	}
	_, before := embedInputs(srv)
	var stages []Progress
	rep, err = s.EnsureDerived(t.Context(), ids(docs), derivedSet, nil, func(p Progress) { stages = append(stages, p) })
	if err != nil {
		t.Fatal(err)
	}
	_, after := embedInputs(srv)
	want := units[docstore.DerivedSummary] - 8 + units[docstore.DerivedQuestion] + units[docstore.DerivedRaw]
	if after-before != want || rep.EmbeddedTotal() != want {
		t.Errorf("the resumed run embedded %d texts (report %d), want the %d left", after-before, rep.EmbeddedTotal(), want)
	}
	for _, k := range DerivedKinds {
		if rep.Units[k] != units[k] {
			t.Errorf("report counts %d %s, the index %d", rep.Units[k], kindName(k), units[k])
		}
	}
	if first := stages[0]; first.Kind != docstore.DerivedSummary || first.Done != 8 || first.Unit() != "summaries" {
		t.Errorf("first progress %+v", first)
	}
	if last := stages[len(stages)-1]; last.Kind != docstore.DerivedRaw || last.Done != last.Total || last.Unit() != "chunks" {
		t.Errorf("last progress %+v", last)
	}
	if s := StageText(stages[0], s.Model()); !strings.Contains(s, "embedding 8/") || !strings.Contains(s, " summaries of declaration.txt with test-embed") {
		t.Errorf("stage %q", s)
	}
	if s := rep.String(); !strings.HasPrefix(s, "embedded ") || !strings.Contains(s, " questions and ") || !strings.Contains(s, "with test-embed") {
		t.Errorf("report %q", s)
	}

	// Stored once: a second run embeds nothing.
	reqs, _ := embedInputs(srv)
	if rep, err := s.EnsureDerived(t.Context(), ids(docs), derivedSet, nil, nil); err != nil || rep.EmbeddedTotal() != 0 {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
	if again, _ := embedInputs(srv); again != reqs {
		t.Errorf("a second run made %d embedding requests", again-reqs)
	}

	// The query is embedded once and ranks the units as llmtest's vectors do.
	texts, _ := lib.Derived().Texts(d.ID, derivedSet, docstore.DerivedSummary)
	query := strings.TrimSuffix(strings.TrimPrefix(texts[3], "Part 3 concerns "), ".")
	if _, err := s.QueryVector(t.Context(), query); err != nil {
		t.Fatal(err)
	}
	if _, err := s.QueryVector(t.Context(), query); err != nil {
		t.Fatal(err)
	}
	if again, _ := embedInputs(srv); again != reqs+1 {
		t.Errorf("two QueryVector calls made %d requests", again-reqs)
	}
	hits, err := retrieve.New(lib).Derived(t.Context(), query, retrieve.DerivedOptions{Set: derivedSet, Docs: ids(docs),
		Kinds: []docstore.DerivedKind{docstore.DerivedSummary}, K: 3, Fusion: retrieve.Fusion{Rule: retrieve.OneIndex, Dense: s}})
	if err != nil || len(hits) == 0 || hits[0].Chunk != 3 || !hits[0].ByMeaning {
		t.Fatalf("summary %q ranks %+v (%v)", texts[3], hits, err)
	}
	if want := Cosine(llmtest.Embed(query, llmtest.DefaultDim), llmtest.Embed(texts[3], llmtest.DefaultDim)); hits[0].Score < want-0.01 || hits[0].Score > want+0.01 {
		t.Errorf("cosine %.3f, want %.3f", hits[0].Score, want)
	}
}

// In a library opened for reading only, units with no vectors are not
// sent to the model at all: nothing embedded could be kept, and the
// error says what stores them.
func TestReadOnlyEmbedsNothing(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	librarytest.Derive(t, lib, docs[0])
	ro, err := docstore.Open(lib.Path(), &docstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srv := llmtest.New(t)
	s := scorer(t, ro, srv, 4)
	_, err = s.EnsureDerived(t.Context(), ids(docs), derivedSet, nil, nil)
	if !errors.Is(err, ErrEmbed) || !strings.Contains(err.Error(), "reading only") || !strings.Contains(fix.Of(err), "citelens derive") {
		t.Errorf("EnsureDerived in a read-only library: %v", err)
	}
	if n := len(srv.EmbeddedTexts()); n != 0 {
		t.Errorf("%d texts sent to the model for nothing", n)
	}
}
