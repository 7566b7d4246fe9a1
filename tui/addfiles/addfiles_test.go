package addfiles

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
	"github.com/citelens/citelens/tui/internal/pane"
)

// tree makes a folder "docs" with files of types citelens reads and
// others, a subfolder, and a hidden file.
func tree(t *testing.T) string {
	t.Helper()
	return enginetest.WriteTree(t, filepath.Join(t.TempDir(), "docs"), map[string]string{
		"a.pdf": "x", "b.txt": "hello", "c.png": "img", "sub/d.md": "# d", ".hidden.txt": "h", "e\x1b[31m.txt": "esc",
	})
}

// run feeds msg to the dialog, running its commands as the program would,
// and returns the outcome.
func run(m Model, msg tea.Msg) (Model, tea.Msg) {
	m, cmd, out := m.Update(msg)
	for cmd != nil && out == nil {
		next := cmd()
		cmd = nil
		if _, ok := next.(dirMsg); ok {
			m, cmd, out = m.Update(next)
		}
	}
	return m, out
}

func open(t *testing.T, dir string) Model {
	m, cmd := New(dir, themes.NoColor())
	m, _ = run(m, cmd())
	return m
}

func keys(m Model, ks ...string) (Model, tea.Msg) {
	var out tea.Msg
	for _, k := range ks {
		m, out = run(m, keytest.Press(k))
		if out != nil {
			return m, out
		}
	}
	return m, out
}

func TestBrowseMarkAdd(t *testing.T) {
	dir := tree(t)
	m := open(t, dir)
	var names []string
	for _, e := range m.entries {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, []string{"sub", "a.pdf", "b.txt", "c.png", "e\x1b[31m.txt"}) {
		t.Fatalf("listing %q: folders first, hidden files left out", names)
	}
	view := strings.Join(m.View(80, 20), "\n")
	if strings.Contains(view, "\x1b[31") || !strings.Contains(ansi.Strip(view), "e␛[31m.txt") {
		t.Errorf("a file name's escape reached the screen:\n%q", view)
	}
	// Mark the folder and a.pdf; c.png cannot be marked.
	m, out := keys(m, "space", "space", "j", "space")
	if out != nil || !slices.Equal(m.Marked(), []string{filepath.Join(dir, "sub"), filepath.Join(dir, "a.pdf")}) {
		t.Fatalf("marked %q, outcome %v", m.Marked(), out)
	}
	if m.notice == "" || !strings.Contains(m.notice, "not a type citelens reads") {
		t.Errorf("marking c.png said %q", m.notice)
	}
	_, out = keys(m, "enter")
	if a, ok := out.(AddMsg); !ok || len(a.Paths) != 2 {
		t.Fatalf("enter with marks = %#v", out)
	}
	// Into the folder and back; enter on a file with nothing marked adds it.
	m = open(t, dir)
	m, _ = keys(m, "enter")
	if !strings.HasSuffix(m.dir, "sub") || len(m.entries) != 1 {
		t.Fatalf("enter on sub/: in %s with %d entries", m.dir, len(m.entries))
	}
	if v := ansi.Strip(strings.Join(m.View(80, 20), "\n")); !strings.Contains(v, "in docs/sub") {
		t.Errorf("the folder is not named:\n%s", v)
	}
	_, out = keys(m, "enter")
	if a, ok := out.(AddMsg); !ok || !slices.Equal(a.Paths, []string{filepath.Join(dir, "sub", "d.md")}) {
		t.Fatalf("enter on d.md = %#v", out)
	}
	m, _ = keys(m, "backspace")
	if m.dir != dir {
		t.Errorf("backspace went to %s", m.dir)
	}
	m, _ = keys(m, ".")
	if !slices.ContainsFunc(m.entries, func(e Entry) bool { return e.Name == ".hidden.txt" }) {
		t.Error(". did not show hidden files")
	}
	if _, out := keys(m, "esc"); out != (pane.Close{}) {
		t.Errorf("esc = %#v", out)
	}
}

// TestTypedAndPasted: paths typed or pasted, quoted, escaped or as
// file:// URLs, relative to the folder shown; every key is text there,
// q and j included.
func TestTypedAndPasted(t *testing.T) {
	dir := tree(t)
	m := open(t, dir)
	m, _ = keys(m, "tab")
	if !m.Typing() {
		t.Fatal("tab did not go to the paths line")
	}
	m, out := keys(m, "q", "j", ".", "t", "x", "t")
	if out != nil || m.input.Value() != "qj.txt" {
		t.Fatalf("typed %q, outcome %v", m.input.Value(), out)
	}
	m.input.SetValue("")
	m, _ = run(m, tea.PasteMsg{Content: `'my file.pdf' b\ c.txt "/abs/x.epub"` + "\nfile:///tmp/y%20z.docx"})
	_, out = keys(m, "enter")
	want := []string{filepath.Join(dir, "my file.pdf"), filepath.Join(dir, "b c.txt"), "/abs/x.epub", "/tmp/y z.docx"}
	if a, ok := out.(AddMsg); !ok || !slices.Equal(a.Paths, want) {
		t.Errorf("pasted paths = %#v, want %q", out, want)
	}
	m.input.SetValue("")
	m, out = keys(m, "enter")
	if out != nil || !strings.Contains(m.notice, "Nothing to add") {
		t.Errorf("enter with nothing: %#v, %q", out, m.notice)
	}
}

func TestUnreadableFolder(t *testing.T) {
	m := open(t, filepath.Join(t.TempDir(), "missing"))
	if v := ansi.Strip(strings.Join(m.View(60, 12), "\n")); !strings.Contains(v, "cannot read missing") {
		t.Errorf("a missing folder:\n%s", v)
	}
}

func TestViewFits(t *testing.T) {
	m := open(t, tree(t))
	for _, sz := range [][2]int{{36, 7}, {76, 21}, {156, 45}, {10, 3}} {
		lines := m.View(sz[0], sz[1])
		w := ansi.StringWidth(lines[0])
		for i, l := range lines {
			if ansi.StringWidth(l) != w {
				t.Errorf("%v: line %d is %d cells, the box %d", sz, i, ansi.StringWidth(l), w)
			}
		}
		if w > sz[0] && sz[0] >= 12 {
			t.Errorf("%v: the box is %d wide", sz, w)
		}
	}
}
