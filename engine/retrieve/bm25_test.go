package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
)

func TestSearchBM25(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, "../../testdata/declaration.txt")
	d := docs[0]
	hits, err := Search(lib, ParseQuery("Which truths are self-evident?"), SearchOptions{K: 3})
	if err != nil || len(hits) == 0 {
		t.Fatalf("%v %v", hits, err)
	}
	if top := d.SentenceText(hits[0].Index); !strings.Contains(top, "We hold these truths to be self-evident") {
		t.Errorf("top hit %q", top)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not sorted")
		}
	}
	ch, err := Search(lib, ParseQuery("taxes without consent"), SearchOptions{Field: docstore.FieldChunks, K: 1})
	if err != nil || len(ch) != 1 {
		t.Fatalf("chunk search %v %v", ch, err)
	}
	s, e := d.ChunkSpan(ch[0].Index)
	if !strings.Contains(d.Text[s:e], "Taxes on us without our Consent") {
		t.Errorf("chunk hit %q", d.Text[s:e])
	}
	filtered, _ := Search(lib, ParseQuery("truths self-evident"), SearchOptions{Filter: func(docstore.DocID, int) bool { return false }})
	if len(filtered) != 0 {
		t.Errorf("filter ignored")
	}
	if none, _ := Search(lib, ParseQuery("the of and"), SearchOptions{}); len(none) != 0 {
		t.Errorf("stop-word query matched %v", none)
	}
}

// TestSearchDerivedLengthNormalisedPerKind: a summary and a question that
// match the query alike, each of its kind's average length, score alike
// though summaries are longer than questions.
func TestSearchDerivedLengthNormalisedPerKind(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "Animal %d was seen at site %d near the reservoir. ", i, i)
	}
	lib, docs := librarytest.TextLibrary(t, "survey.txt", b.String())
	d := docs[0]
	set := docstore.DerivedSet{Model: "test-model", Tokens: 256, Overlap: 50, Version: 1}
	var chunks []docstore.Chunk
	for first := 0; first+1 < len(d.Sentences); first += 2 {
		chunks = append(chunks, docstore.Chunk{First: int32(first), Last: int32(first + 1)})
	}
	if _, err := lib.Derived().Begin(d.ID, set, chunks); err != nil {
		t.Fatal(err)
	}
	var recs []docstore.DerivedChunk
	for i, c := range chunks {
		r := docstore.DerivedChunk{Index: i, First: int(c.First), Last: int(c.Last),
			Summary:   fmt.Sprintf("alpha%d beta%d gamma%d delta%d epsilon%d zeta%d", i, i, i, i, i, i),
			Questions: []string{fmt.Sprintf("eta%d theta%d?", i, i)}}
		if i == 1 {
			r.Summary = "kappa beta1 gamma1 delta1 epsilon1 zeta1"
		}
		if i == 2 {
			r.Questions = []string{"kappa theta2?"}
		}
		recs = append(recs, r)
	}
	if err := lib.Derived().Put(d.ID, set, recs...); err != nil {
		t.Fatal(err)
	}
	if err := lib.Derived().Index(d.ID, set); err != nil {
		t.Fatal(err)
	}
	hits, err := SearchDerived(lib, ParseQuery("kappa"), docstore.DerivedSearchOptions{Set: set, Docs: []docstore.DocID{d.ID},
		Kinds: []docstore.DerivedKind{docstore.DerivedSummary, docstore.DerivedQuestion}}, BM25{})
	if err != nil || len(hits) != 2 {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	if d := hits[0].Score - hits[1].Score; d > 1e-5 || d < -1e-5 {
		t.Errorf("summary and question score %v and %v", hits[0].Score, hits[1].Score)
	}
	if hits[0].Chunk != 1 && hits[0].Chunk != 2 {
		t.Errorf("hit chunk %d", hits[0].Chunk)
	}
}
