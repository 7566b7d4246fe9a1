package docstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
)

// derivedFixture adds a document of one fact per sentence and cuts it into
// chunks of three sentences overlapping by one.
func derivedFixture(t *testing.T) (*Library, *Document, []Chunk) {
	t.Helper()
	l := openTestLibrary(t)
	var b strings.Builder
	animals := []string{"heron", "otter", "badger", "falcon", "beaver", "lynx", "marten", "stoat", "vole", "wren", "plover", "curlew"}
	for i, a := range animals {
		fmt.Fprintf(&b, "The %s was seen at site %d near the reservoir. ", a, i)
	}
	info, _, err := writeText(l, "survey.txt", b.String())
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Sentences) != len(animals) {
		t.Fatalf("%d sentences, want %d", len(d.Sentences), len(animals))
	}
	var chunks []Chunk
	for first := 0; first < len(d.Sentences); first += 2 {
		chunks = append(chunks, Chunk{First: int32(first), Last: int32(min(first+2, len(d.Sentences)-1))})
		if first+2 >= len(d.Sentences)-1 {
			break
		}
	}
	return l, d, chunks
}

// record derives chunk i: its summary names the chunk's animals as
// "creature-N" words the text never uses, its questions ask about sites.
func record(d *Document, chunks []Chunk, i int) DerivedChunk {
	c := chunks[i]
	r := DerivedChunk{Index: i, First: int(c.First), Last: int(c.Last), PromptTokens: 100, CompletionTokens: 40, Calls: 1}
	r.Summary = fmt.Sprintf("Sightings of creature%d at the water.", i)
	for s := c.First; s <= c.Last; s++ {
		r.Questions = append(r.Questions, fmt.Sprintf("Which animal was recorded at location%d?", s))
	}
	return r
}

var testSet = DerivedSet{Model: "test-model", Tokens: 256, Overlap: 50, Version: 1}

func TestDerivedStoreResumeIndexSearchRemove(t *testing.T) {
	l, d, chunks := derivedFixture(t)
	st, err := l.Derived().Status(d.ID, testSet)
	if err != nil || st.Chunks != 0 || st.Complete() {
		t.Fatalf("status before any derivation: %+v, %v", st, err)
	}
	if err := l.Derived().Put(d.ID, testSet, record(d, chunks, 0)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("put before begin: %v", err)
	}
	if _, err := l.Derived().Begin(d.ID, testSet, chunks); err != nil {
		t.Fatal(err)
	}
	if err := l.Derived().Put(d.ID, testSet, record(d, chunks, 0), record(d, chunks, 1)); err != nil {
		t.Fatal(err)
	}
	// Beginning again over the same chunks keeps what is stored (resume).
	st, err = l.Derived().Begin(d.ID, testSet, chunks)
	if err != nil || st.Chunks != len(chunks) || st.Done != 2 || st.Complete() || st.Indexed {
		t.Fatalf("status after resume: %+v, %v", st, err)
	}
	if err := l.Derived().Index(d.ID, testSet); err == nil || !strings.Contains(err.Error(), "2 of its") {
		t.Fatalf("indexing an incomplete set: %v", err)
	}
	bad := record(d, chunks, 0)
	bad.Index = len(chunks)
	if err := l.Derived().Put(d.ID, testSet, bad); err == nil {
		t.Fatal("a record beyond the last chunk was stored")
	}
	var rest []DerivedChunk
	for i := 2; i < len(chunks); i++ {
		r := record(d, chunks, i)
		if i == 3 {
			r.Failed, r.Questions = "no questions in the reply", nil
		}
		rest = append(rest, r)
	}
	if err := l.Derived().Put(d.ID, testSet, rest...); err != nil {
		t.Fatal(err)
	}
	st, _ = l.Derived().Status(d.ID, testSet)
	if !st.Complete() || st.Failed != 1 || st.Summaries != len(chunks) || st.Calls != len(chunks) || st.PromptTokens != 100*len(chunks) || st.Indexed {
		t.Fatalf("status when complete: %+v", st)
	}
	recs, err := l.Derived().Chunks(d.ID, testSet)
	if err != nil || len(recs) != len(chunks) {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	for i, r := range recs {
		if r.Index != i || r.First != int(chunks[i].First) || r.Last != int(chunks[i].Last) || r.Summary != record(d, chunks, i).Summary {
			t.Errorf("record %d read back as %+v", i, r)
		}
	}
	if err := l.Derived().Index(d.ID, testSet); err != nil {
		t.Fatal(err)
	}
	if st, _ = l.Derived().Status(d.ID, testSet); !st.Indexed {
		t.Fatal("not indexed after Derived.Index")
	}

	search := func(q string, kinds ...DerivedKind) []DerivedHit {
		t.Helper()
		hits, err := matchDerived(l, q, DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: kinds, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	// A word only a summary has finds its chunk; the raw text does not.
	hits := search("creature2", DerivedSummary)
	if len(hits) != 1 || hits[0].Chunk != 2 || hits[0].First != int(chunks[2].First) || hits[0].Last != int(chunks[2].Last) {
		t.Fatalf("summary search: %+v", hits)
	}
	if hits := search("creature2", DerivedRaw); len(hits) != 0 {
		t.Fatalf("raw search found a summary-only word: %+v", hits)
	}
	// A question maps to the chunk it was asked of.
	hits = search("location5", DerivedQuestion)
	if len(hits) == 0 {
		t.Fatal("no question found")
	}
	for _, h := range hits {
		if h.Kind != DerivedQuestion || h.First > 5 || h.Last < 5 {
			t.Errorf("question hit %+v is about a chunk without sentence 5", h)
		}
		at, err := l.Derived().ChunksAt(d.ID, testSet, []int{h.Chunk})
		if err != nil || h.Item >= len(at[0].Questions) || !strings.Contains(at[0].Questions[h.Item], "location5") {
			t.Errorf("question hit %+v is not question %d of %+v (%v)", h, h.Item, at, err)
		}
	}
	// The raw text is its own kind.
	hits = search("otter", DerivedRaw)
	if len(hits) == 0 || hits[0].First > 1 || hits[0].Last < 1 {
		t.Fatalf("raw search: %+v", hits)
	}
	// A union ranks every kind; a word in all three ranks each.
	hits = search("creature4 location8 badger", DerivedSummary, DerivedQuestion, DerivedRaw)
	kinds := map[DerivedKind]bool{}
	for i, h := range hits {
		kinds[h.Kind] = true
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits out of order: %+v", hits)
		}
	}
	if len(kinds) != 3 {
		t.Errorf("union search found kinds %v: %+v", kinds, hits)
	}
	units, err := l.Derived().Units(testSet, []DocID{d.ID})
	if err != nil || units[DerivedSummary] != len(chunks) || units[DerivedRaw] != len(chunks) || units[DerivedQuestion] != st.Questions {
		t.Fatalf("units %v (%v), status %+v", units, err, st)
	}

	// A write after indexing makes the index stale until rebuilt.
	if err := l.Derived().Put(d.ID, testSet, record(d, chunks, 3)); err != nil {
		t.Fatal(err)
	}
	if st, _ = l.Derived().Status(d.ID, testSet); st.Indexed || st.Failed != 0 {
		t.Fatalf("after a retried chunk: %+v", st)
	}

	// Another model's set lives beside it; a new chunking starts over.
	other := testSet
	other.Model = "other-model"
	if _, err := l.Derived().Begin(d.ID, other, chunks[:2]); err != nil {
		t.Fatal(err)
	}
	sets, err := l.Derived().Sets(d.ID)
	if err != nil || len(sets) != 2 {
		t.Fatalf("sets: %+v, %v", sets, err)
	}
	if st, _ := l.Derived().Begin(d.ID, testSet, chunks[:3]); st.Done != 0 || st.Chunks != 3 {
		t.Fatalf("a new chunking kept old records: %+v", st)
	}

	// Removing the document removes its derived documents.
	if err := l.Remove(d.ID); err != nil {
		t.Fatal(err)
	}
	if sets, err := l.Derived().Sets(d.ID); err != nil || len(sets) != 0 {
		t.Fatalf("sets after remove: %+v, %v", sets, err)
	}
	if _, err := matchDerived(l, "otter", DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: []DerivedKind{DerivedRaw}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("search after remove: %v", err)
	}
	if _, err := l.Derived().Begin(d.ID, testSet, chunks); !errors.Is(err, ErrNotFound) {
		t.Fatalf("begin on a removed document: %v", err)
	}
}

// matchDerived reads the derived postings of q's terms and ranks the units
// holding them by their summed term frequency over their length: enough
// to check what the index holds (engine/retrieve ranks them for real).
func matchDerived(l *Library, q string, opt DerivedSearchOptions) ([]DerivedHit, error) {
	terms := textproc.Terms(q)
	var hits []DerivedHit
	err := l.Derived().ReadPostings(opt, terms, func(ps []*DerivedPostings) error {
		for _, p := range ps {
			tfs, lens := map[int]int{}, map[int]int{}
			for t := range terms {
				tp := p.Postings(t)
				for tp.Next() {
					if err := tp.Each(func(u, tf, length int) { tfs[u] += tf; lens[u] = length }); err != nil {
						return err
					}
				}
				if err := tp.Err(); err != nil {
					return err
				}
			}
			for u, tf := range tfs {
				h, err := p.Hit(u, float64(tf)/float64(max(lens[u], 1)))
				if err != nil {
					return err
				}
				hits = append(hits, h)
			}
		}
		return nil
	})
	hits = SortDerivedHits(hits)
	return hits[:min(len(hits), opt.K)], err
}
