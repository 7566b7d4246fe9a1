package pageview

import (
	"testing"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/termimage"
)

// TestPagesKept: a page drawn once is not drawn again when its citation,
// or another on it, is shown again; a page drawn ahead (Prefetch) is not
// drawn when its citation is then shown; and the highlight is burned
// into a copy, so the kept page stays clean.
func TestPagesKept(t *testing.T) {
	lib, docs := enginetest.Library(t, "../../testdata/pdf/r-intro-p8-9.pdf")
	sel, err := themes.NewSelector("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	m := New(sel.Initial(), pageimage.New(lib.Geometry(), pagerendertest.Renderer(t)))
	m.SetGraphics(termimage.Sixel, 9, 18, false)
	m.SetSize(40, 20)
	m.SetActive(true)
	doc := docs[0]
	span := func(i int) Span { s := doc.Sentences[i]; return Span{int(s.Start), int(s.End)} }
	// Sentences on the first page and the last.
	first, other, last := span(2), span(3), span(len(doc.Sentences)-2)
	if doc.PageOf(last.Start) == doc.PageOf(first.Start) {
		t.Fatal("the sample's last sentence is on its first page")
	}
	show := func(s Span) *picture {
		t.Helper()
		for _, msg := range run(m.Show(doc, s, nil)) {
			if r, ok := msg.(renderedMsg); ok {
				if r.err != nil {
					t.Fatal(r.err)
				}
				m, _, _ = m.Update(r)
				return r.pic
			}
		}
		t.Fatal("nothing drawn")
		return nil
	}
	draws := func() int { m.cache.mu.Lock(); defer m.cache.mu.Unlock(); return m.cache.draws }

	show(first)
	if n := draws(); n != 1 {
		t.Fatalf("%d pages drawn for one citation", n)
	}
	show(other) // the same page
	show(first) // back
	if n := draws(); n != 1 {
		t.Errorf("%d pages drawn for three citations on one page, want 1", n)
	}
	// The last page, drawn ahead, then shown: drawn once.
	run(m.Prefetch(doc, last))
	if n := draws(); n != 2 {
		t.Fatalf("%d pages drawn after drawing one ahead, want 2", n)
	}
	pic := show(last)
	if n := draws(); n != 2 {
		t.Errorf("the page drawn ahead was drawn again when shown (%d drawings)", n)
	}
	if pic.page != doc.PageOf(last.Start) || pic.focus < 0 {
		t.Errorf("the citation drawn from the kept page is on page %d (focus %d), want %d with its lines", pic.page, pic.focus, doc.PageOf(last.Start))
	}
	// The kept page has no highlight burned in.
	for _, e := range m.cache.entries {
		if n := pagerendertest.CountMarked(e.pic.Image, e.pic.Image.Bounds()); n > 0 {
			t.Errorf("page %d is kept with %d highlighted pixels", e.key.page, n)
		}
	}
	if pagerendertest.CountMarked(pic.img, pic.img.Bounds()) == 0 {
		t.Error("the picture shown has no highlight")
	}
}
