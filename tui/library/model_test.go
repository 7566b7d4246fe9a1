package library

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
)

var now = time.Date(2025, 6, 10, 12, 0, 0, 0, time.Local)

func docs() []docstore.DocInfo {
	return []docstore.DocInfo{
		{ID: "a1", Name: "manual.pdf", Kind: "pdf", Pages: 2415, NumSents: 58191, Bytes: 4 << 20, Added: now.Add(-3 * 24 * time.Hour)},
		{ID: "b2", Name: "notes\x1b[31m.md", Title: "Notes", Kind: "markdown", Pages: 1, Added: now},
		{ID: "c3", Name: "日本語の資料.txt", Kind: "text", Pages: 1, Added: now.AddDate(-1, 0, 0)},
	}
}

func press(m Model, keys ...string) Model {
	for _, k := range keys {
		m, _, _ = m.Update(keytest.Press(k))
	}
	return m
}

func view(t *testing.T, m Model, w, h int) string {
	t.Helper()
	lines := m.View(w, h)
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Fatalf("line %d is %d cells, want %d: %q", i, lw, w, ansi.Strip(l))
		}
		if strings.Contains(ansi.Strip(l), "\x1b") {
			t.Fatalf("line %d holds a raw escape: %q", i, l)
		}
	}
	return ansi.Strip(strings.Join(lines, "\n"))
}

func TestScopeAndFilter(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.Now = func() time.Time { return now }
	m.SetSize(50, 12)
	m.SetFocused(true)
	m.SetDocs(docs())
	v := view(t, m, 50, 12)
	for _, want := range []string{"[x] manual.pdf", "2415 p", "3 days ago", "today", "2024-06-10", "3/3 in scope", "日本語の資料.txt", "notes␛[31m.md"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if m.Scope() != nil {
		t.Error("all in scope should be a nil scope")
	}
	m = press(m, "j", "space")
	if got := m.Scope(); len(got) != 2 || got[0] != "a1" || got[1] != "c3" {
		t.Errorf("scope after toggling notes = %v", got)
	}
	// *: all in scope, then only this one.
	m = press(m, "*")
	if m.Scope() != nil {
		t.Errorf("* did not put all in scope: %v", m.Scope())
	}
	m = press(m, "*")
	if got := m.Scope(); len(got) != 1 || got[0] != "b2" {
		t.Errorf("a with all in scope = %v, want only the current document", got)
	}
	m = press(m, "space")
	if got := m.Scope(); got == nil || len(got) != 0 {
		t.Errorf("scope = %v, want none", got)
	}
	if v := view(t, m, 50, 12); !strings.Contains(v, "nothing in scope") {
		t.Errorf("an empty scope is not pointed out:\n%s", v)
	}
	m.SetScopeOnly([]docstore.DocID{"a1"})

	// The filter narrows the list as it is typed; esc clears it.
	m = press(m, "/", "m", "a", "n")
	if !m.Filtering() {
		t.Fatal("/ did not open the filter")
	}
	v = view(t, m, 50, 12)
	if !strings.Contains(v, "manual.pdf") || strings.Contains(v, "notes") {
		t.Errorf("filter 'man':\n%s", v)
	}
	m = press(m, "enter")
	if m.Filtering() {
		t.Fatal("enter did not close the filter")
	}
	if d, _ := m.Current(); d.ID != "a1" {
		t.Errorf("cursor on %s under the filter", d.ID)
	}
	m = press(m, "esc")
	if v := view(t, m, 50, 12); !strings.Contains(v, "notes") {
		t.Errorf("esc did not clear the filter:\n%s", v)
	}
	// A new list keeps the choices made and puts the documents added
	// here in scope (those added elsewhere: TestNewDocumentsAndANarrowedScope).
	m.Include("d4")
	m.SetDocs(append(docs(), docstore.DocInfo{ID: "d4", Name: "new.txt", Pages: 1}))
	if got := m.Scope(); len(got) != 2 || got[1] != "d4" {
		t.Errorf("scope after a document was added = %v", got)
	}
}

func TestSmallAndEmpty(t *testing.T) {
	t.Parallel()
	m := New(themes.Dark())
	m.SetSize(20, 3)
	view(t, m, 20, 3) // loading
	m.SetDocs(nil)
	view(t, m, 20, 3)
	m.SetProgress(Progress{Path: "/x/big.pdf", Stage: "extracting", Done: 5, Total: 10})
	if v := view(t, m, 20, 3); !strings.Contains(v, "+ big.pdf") || !strings.Contains(v, "5/10") {
		t.Errorf("progress not shown:\n%s", v)
	}
	m.SetSize(60, 3)
	if v := view(t, m, 60, 3); !strings.Contains(v, "+ big.pdf extracting ▕") || !strings.Contains(v, "▏ 5/10") {
		t.Errorf("progress at 60 columns:\n%s", v)
	}
	m.SetSize(20, 3)
	m.DoneAdding("/x/big.pdf")
	m.SetDocs(docs())
	for _, sz := range [][2]int{{1, 1}, {30, 2}, {100, 40}} {
		m.SetSize(sz[0], sz[1])
		view(t, m, sz[0], sz[1])
	}
}

// TestAddingProgress: a file's count is never cut however narrow the
// pane, a bar shows beside it from some 30 cells; a batch of files has a
// bar of its own counting the files, a folder counted as the files it
// holds; more files than fit are counted, not listed.
func TestAddingProgress(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetDocs(nil)
	m.SetProgress(Progress{Path: "/x/fullrefman-with-a-long-name.pdf", Stage: "extracting", Done: 1243, Total: 2415})
	for w := 14; w <= 80; w++ {
		m.SetSize(w, 8)
		v := view(t, m, w, 8)
		if !strings.Contains(v, "1243/2415") {
			t.Errorf("%d cells: the count is cut:\n%s", w, v)
		}
		if w >= 30 && !strings.Contains(v, "▕") {
			t.Errorf("%d cells: no bar:\n%s", w, v)
		}
	}
	m.DoneAdding("/x/fullrefman-with-a-long-name.pdf")
	m.SetProgress(Progress{Path: "/docs", Stage: "waiting"})
	var files []string
	for i := range 7 {
		files = append(files, fmt.Sprintf("/docs/f%d.txt", i))
	}
	m.Expanded("/docs", files)
	m.DoneAdding(files[0])
	m.SetProgress(Progress{Path: files[1], Stage: "indexing"})
	m.SetSize(50, 12)
	v := view(t, m, 50, 12)
	for _, want := range []string{"+ adding files ▕", "1/7", "+ f1.txt  indexing…", "… 3 more files waiting"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q is not shown:\n%s", want, v)
		}
	}
	for _, f := range files[1:] {
		m.DoneAdding(f)
	}
	if m.ProgressRows() != 0 || m.batch.total != 0 {
		t.Errorf("a finished batch leaves %d rows, counts %+v", m.ProgressRows(), m.batch)
	}
}

// TestNewDocumentsAndANarrowedScope: new documents join a scope that is
// the whole library; once it is narrowed, only those added here do,
// whether the list that holds them comes before or after they are said
// to be added.
func TestNewDocumentsAndANarrowedScope(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetDocs(docs())
	if out := m.SetDocs(append(docs(), docstore.DocInfo{ID: "d4", Name: "new.txt"})); len(out) != 0 || m.Scope() != nil {
		t.Fatalf("a new document with all in scope: left out %v, scope %v", out, m.Scope())
	}
	m.SetScopeOnly([]docstore.DocID{"a1"})
	m.Include("e5") // said to be added before the list holds it
	list := append(docs(), docstore.DocInfo{ID: "d4", Name: "new.txt"}, docstore.DocInfo{ID: "e5", Name: "mine.txt"}, docstore.DocInfo{ID: "f6", Name: "theirs.txt"})
	out := m.SetDocs(list)
	if len(out) != 1 || out[0].ID != "f6" {
		t.Errorf("left out %v, want theirs.txt only", out)
	}
	m.Include("f6") // said to be added after the list held it
	if got := m.Scope(); !slices.Equal(got, []docstore.DocID{"a1", "e5", "f6"}) {
		t.Errorf("scope %v", got)
	}
}

// A document a newer version replaced says so, in its row and its
// details; the latest does not.
func TestOlderVersionMarked(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.Now = func() time.Time { return now }
	m.SetSize(60, 14)
	m.SetFocused(true)
	ds := docs()
	ds = append(ds, docstore.DocInfo{ID: "d4", Name: "manual.pdf", Kind: "pdf", Pages: 2420, Added: now, Previous: "a1"})
	m.SetDocs(ds)
	v := view(t, m, 60, 14)
	if strings.Count(v, "(older version)") != 1 || !strings.Contains(v, "a newer version was added (2 versions)") {
		t.Errorf("the first manual is not marked older, or more are:\n%s", v)
	}
	// The whole library in scope reads the latest versions only.
	if got := m.Scope(); len(got) != 3 || slices.Contains(got, "a1") {
		t.Errorf("scope with every document in it: %v, want all but the older a1", got)
	}
	if n, of := m.InScope(); n != 3 || of != 4 {
		t.Errorf("InScope = %d of %d, want 3 of 4: the older version is not in a whole-library scope", n, of)
	}
	m = press(m, "G")
	if v := view(t, m, 60, 14); strings.Contains(v, "a newer version was added") {
		t.Errorf("the latest version's details call it older:\n%s", v)
	}
}
