package pageview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
	"github.com/citelens/citelens/tui/internal/pane"
)

// The header names the version shown when the citation's document has a
// newer one, and b asks for the other; with no newer version b says why
// it does nothing.
func TestVersionHeaderAndKey(t *testing.T) {
	m := New(themes.NoColor(), nil)
	m.SetSize(80, 10)
	doc := &docstore.Document{DocInfo: docstore.DocInfo{ID: "d", Name: "contract.txt", Kind: "text"}, Text: "The fee is ten pounds."}
	m.Show(doc, Span{0, 22}, nil)
	if f := ansi.Strip(m.footer()); strings.Contains(f, "b cited") {
		t.Errorf("footer %q offers b with no other version", f)
	}
	_, _, act := m.Update(keytest.Press("b"))
	if n, ok := act.(pane.Notice); !ok || !strings.Contains(n.Text, "no newer version") {
		t.Errorf("b with no newer version: %#v, want a notice", act)
	}
	m.SetVersion("version 2 of 2 (latest)")
	if h := ansi.Strip(m.View(80, 10)[0]); !strings.Contains(h, "contract.txt · version 2 of 2 (latest)") {
		t.Errorf("header %q does not name the version", h)
	}
	m.SetSize(160, 10)
	if f := ansi.Strip(m.footer()); !strings.Contains(f, "b cited / latest version") {
		t.Errorf("footer %q does not offer b", f)
	}
	if _, _, act := m.Update(keytest.Press("b")); act != (VersionMsg{}) {
		t.Errorf("b with a newer version: %#v, want VersionMsg", act)
	}
}
