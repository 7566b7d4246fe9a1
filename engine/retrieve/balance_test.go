package retrieve

import (
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
)

// A question asked of two documents: the one about the question keeps
// its scores, the one that only mentions its words in passing is scaled
// down.
func TestDocumentPriors(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t,
		"bzip2.txt", "bzip2 compresses files. bzip2 exits with status 2 on a corrupt file. bzip2 is fast.",
		"big.txt", "Files are read. A file may be corrupt. Tables hold rows. Rows hold cells. Cells hold values. Values are numbers.")
	about, other := docs[0].ID, docs[1].ID
	r := New(lib)
	ss, err := r.searchSentences(t.Context(), "What exit status does bzip2 return on a corrupt file?", &Options{}, 0)
	if err != nil || ss == nil {
		t.Fatal(err)
	}
	p, _, err := r.documentPriors(ss)
	if err != nil {
		t.Fatal(err)
	}
	if p[about] != 1 || !(p[other] < 1 && p[other] >= 1-DocumentWeight) {
		t.Errorf("priors: about %v, other %v", p[about], p[other])
	}
	ss.docs = []docstore.DocID{about}
	if p, _, _ := r.documentPriors(ss); p != nil {
		t.Errorf("one document: %v, want none", p)
	}
}

// A term everywhere in one document but rare in the library weighs less
// among that document's sentences than a term rare in both, and the
// document's total weight stays what it was.
func TestLocalWeights(t *testing.T) {
	t.Parallel()
	scope := docstore.FieldStats{Units: 10000, DF: []int{100, 100, 0}}
	doc := docstore.FieldStats{Units: 200, DF: []int{90, 3, 0}}
	w := localWeights(scope, doc, 3)
	if !(w[0] < 1 && w[1] > 1) {
		t.Errorf("weights %v: want the document's everywhere-term below 1 and its rare term above", w)
	}
	if w[2] != 1 {
		t.Errorf("a term the document lacks: %v, want 1", w[2])
	}
	a, b := fieldIDF(scope, 0), fieldIDF(scope, 1)
	if got, want := a*w[0]+b*w[1], a+b; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("total %v, want %v kept", got, want)
	}
}
