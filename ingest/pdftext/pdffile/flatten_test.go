package pdffile

import (
	"bytes"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
)

// The document is read through the flattened copy, with the same
// objects; a file whose copy could read differently (an object defined
// both plain and packed) is read as it is.
func TestFlatReader(t *testing.T) {
	t.Parallel()
	for _, stale := range []string{"", "A stale page."} {
		data := doctest.ObjStmPDF("Packed objects are read.", stale)
		f, err := Open(t.Context(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.flat; got == (stale != "") {
			t.Errorf("stale %q: flattened %v", stale, got)
		}
		pages, err := f.Pages()
		if err != nil || len(pages) != 1 {
			t.Fatalf("stale %q: pages %d, %v", stale, len(pages), err)
		}
		if typ := pages[0].V.Key("Type").Name(); typ != "Page" {
			t.Errorf("the packed page reads as %q", typ)
		}
		content, err := ReadStream(pages[0].V.Key("Contents"), 1<<20)
		if err != nil || !bytes.Contains(content, []byte("(Packed objects are read.)")) {
			t.Errorf("stale %q: content %q, %v", stale, content, err)
		}
	}
}
