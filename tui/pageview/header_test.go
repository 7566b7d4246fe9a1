package pageview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/termimage"
)

// TestHeader: the header says where cited lines that run over a page
// break go on (or come from), says zoom only of a zoomed picture, and
// names the half-block map in words a reader knows.
func TestHeader(t *testing.T) {
	sel, err := themes.NewSelector("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	m := New(sel.Initial(), nil)
	m.SetSize(80, 20)
	m.doc = &docstore.Document{DocInfo: docstore.DocInfo{Path: "/d/manual.pdf", Kind: "pdf"}}
	header := func(page int, zoomed bool) string {
		m.cur = &picture{req: request{proto: termimage.Blocks, zoom: true}, page: page, pages: 5, span: []int{2, 3}, zoomed: zoomed, rows: 1, focus: -1}
		return ansi.Strip(m.header())
	}
	for _, c := range []struct {
		page   int
		zoomed bool
		want   string
	}{
		{2, true, "p. 2/5 · continues on p. 3 · preview · zoom"},
		{3, true, "p. 3/5 · continued from p. 2 · preview · zoom"},
		{4, false, "p. 4/5 · preview"},
	} {
		if got := header(c.page, c.zoomed); !strings.HasSuffix(strings.TrimSpace(got), c.want) {
			t.Errorf("page %d: header %q, want it to end %q", c.page, got, c.want)
		}
	}
	// Narrow: the zoom and the drawing go first, the continuation stays.
	m.SetSize(50, 20)
	if got := header(2, true); !strings.Contains(got, "continues on p. 3") || strings.Contains(got, "zoom") {
		t.Errorf("narrow header %q", got)
	}
}
