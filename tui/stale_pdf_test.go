package tui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/tui/termimage"
)

// contractMS is a one-page contract in plain troff (groff's -ms macros
// are not everywhere groff is); a new version inserts a clause before
// the fee's and rewords the fee's.
const contractMS = `.nh
.ll 6i
This agreement is made between the landlord and the tenant named below.
%s
.sp
The tenant pays a fee of ten pounds a month for the room.
The rent is due on the first day of each month.
.sp
Either party may end this agreement with one month of notice in writing.
`

// writePDF writes the contract (clause inserted before the fee's, fee
// reworded as new) as a PDF at path, with groff and ps2pdf.
func writePDF(t *testing.T, path, inserted, fee string) {
	t.Helper()
	ms := strings.Replace(contractMS, "%s", inserted, 1)
	if fee != "" {
		ms = strings.Replace(ms, "The tenant pays a fee of ten pounds a month for the room.", fee, 1)
	}
	groff := exec.Command("groff", "-Tps")
	groff.Stdin = strings.NewReader(ms)
	ps, err := groff.Output()
	if err != nil {
		t.Fatalf("groff: %v", err)
	}
	conv := exec.Command("ps2pdf", "-", path)
	conv.Stdin = strings.NewReader(string(ps))
	if out, err := conv.CombinedOutput(); err != nil {
		t.Fatalf("ps2pdf: %v\n%s", err, out)
	}
}

// The page view of a PDF citation a new version changed draws the latest
// version's page with the reworded sentence highlighted, its header
// naming the version; b draws the cited version's page instead.
func TestStalePageViewPDF(t *testing.T) {
	for _, prog := range []string{"groff", "ps2pdf"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed (it makes the two PDF versions)", prog)
		}
	}
	path := filepath.Join(t.TempDir(), "contract.pdf")
	writePDF(t, path, "", "")
	setScript(t, -1, scriptedStatement{"The fee is ten pounds a month.", []string{"fee of ten pounds a month"}})
	// A library that keeps the files it adds (as a team's on a server
	// does): the cited version's page is drawn from its own bytes, the
	// file on disk being the new version's now.
	lib, err := docstore.Open(filepath.Join(t.TempDir(), "library.db"), &docstore.Options{Files: docstore.FilesKeep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if _, _, err := ingest.New(lib, nil).Add(t.Context(), path, nil); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, lib, "dark")
	opts.Graphics = termimage.Blocks
	opts.Pages = pageimage.New(lib.Geometry(), pagerendertest.Renderer(t))
	s := start(t, opts, 140, 40)
	s.waitText("contract.pdf")
	s.ask("What is the fee?")
	s.waitText("scripted · 1 statement")
	writePDF(t, path, "The landlord keeps the building in good repair at all times.",
		"The tenant pays a fee of twelve pounds a month for the room.")
	if info, _, err := ingest.New(lib, nil).Add(t.Context(), path, nil); err != nil || info.Previous == "" {
		t.Fatalf("adding the new version: %v (previous %q)", err, info.Previous)
	}
	s.waitText("⟳\u00a0evidence\u00a0changed")
	s.press("esc", "enter")
	s.waitText("changed in version 2 of 2")
	s.press("v")
	// The highlight's background (#EBCB8B in the dark theme) on the map.
	marked := func(v string) bool { return strings.Contains(v, "▀") && strings.Contains(v, "235;203;139") }
	s.waitFor(func(v string) bool {
		return strings.Contains(ansi.Strip(v), "contract.pdf · version 2 of 2 (latest)") && strings.Contains(ansi.Strip(v), "· preview") && marked(v)
	}, "the latest version's page, the sentence marked")
	s.waitModel(func(m Model) bool {
		doc, sp := m.page.Shown()
		return doc != nil && m.cmp != nil && doc.ID == m.cmp.change.To && strings.Contains(doc.Text[sp.Start:sp.End], "twelve pounds")
	}, "the page view mark the reworded sentence of the latest version")
	s.press("b")
	s.waitFor(func(v string) bool {
		return strings.Contains(ansi.Strip(v), "contract.pdf · version 1 (cited)") && strings.Contains(ansi.Strip(v), "· preview") && marked(v)
	}, "the cited version's page, the sentence marked")
	s.waitModel(func(m Model) bool {
		doc, sp := m.page.Shown()
		return doc != nil && m.cmp != nil && doc.ID == m.cmp.c.Span.Doc && strings.Contains(doc.Text[sp.Start:sp.End], "ten pounds")
	}, "b show the cited version's page")
	s.finish()
}
