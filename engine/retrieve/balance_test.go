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
	p, err := r.documentPriors(ss)
	if err != nil {
		t.Fatal(err)
	}
	if p[about] != 1 || !(p[other] < 1 && p[other] >= 1-DocumentWeight) {
		t.Errorf("priors: about %v, other %v", p[about], p[other])
	}
	ss.docs = []docstore.DocID{about}
	if p, _ := r.documentPriors(ss); p != nil {
		t.Errorf("one document: %v, want none", p)
	}
}
