package pdftext

import (
	"reflect"
	"testing"
)

// TestPackRoundTrip: a page's fragments come back from their packing as
// they went in, on the pages of a real PDF.
func TestPackRoundTrip(t *testing.T) {
	t.Parallel()
	data := readTestPDF(t, "r-intro-p8-9.pdf")
	pages := testPages(t, data)
	work := newDocWork(int64(len(data)))
	fonts := newFontCache(work)
	for i, p := range pages {
		pl := layoutPage(t.Context(), fonts, work, p)
		if len(pl.groups) == 0 {
			t.Fatalf("page %d has no text", i+1)
		}
		want := pl.groups[0].frags
		want[0].drop, want[len(want)-1].cell = true, true
		got := unpackFrags(packFrags(want))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("page %d: fragments changed in packing", i+1)
		}
		want[0].drop = false
		pl.pack(i)
		if pl.groups != nil || pl.nfrags != len(want) || len(pl.edges) == 0 {
			t.Fatalf("page %d packed: %d fragments, %d edge lines", i+1, pl.nfrags, len(pl.edges))
		}
		for _, e := range pl.edges {
			for k, f := range e.frags {
				f.drop = true
				if got := pl.frags()[e.idx[k]]; !got.drop || got.text() != f.text() {
					t.Errorf("page %d: edge fragment %q is not where its index says", i+1, f.text())
				}
			}
		}
	}
}
