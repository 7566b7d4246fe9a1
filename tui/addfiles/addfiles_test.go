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
		switch next.(type) {
		case dirMsg, pathsMsg:
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
	if !slices.Equal(names, []string{"sub", "a.pdf", "b.txt", "e\x1b[31m.txt"}) {
		t.Fatalf("listing %q: folders first, hidden files and files citelens cannot add left out", names)
	}
	view := strings.Join(m.View(100, 20), "\n")
	if strings.Contains(view, "\x1b[31") || !strings.Contains(ansi.Strip(view), "e␛[31m.txt") {
		t.Errorf("a file name's escape reached the screen:\n%q", view)
	}
	if !strings.Contains(ansi.Strip(view), "1 file of other types not shown") {
		t.Errorf("the files left out (c.png) are not counted:\n%s", ansi.Strip(view))
	}
	// Mark the folder and a.pdf.
	m, out := keys(m, "space", "space")
	if out != nil || !slices.Equal(m.Marked(), []string{filepath.Join(dir, "sub"), filepath.Join(dir, "a.pdf")}) {
		t.Fatalf("marked %q, outcome %v", m.Marked(), out)
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
	enginetest.WriteTree(t, dir, map[string]string{"my file.pdf": "x", "b c.txt": "x", "abs/x.epub": "x", "y z.docx": "x"})
	abs, url := filepath.Join(dir, "abs", "x.epub"), "file://"+strings.ReplaceAll(filepath.Join(dir, "y z.docx"), " ", "%20")
	m, _ = run(m, tea.PasteMsg{Content: `'my file.pdf' b\ c.txt "` + abs + `"` + "\n" + url})
	_, out = keys(m, "enter")
	want := []string{filepath.Join(dir, "my file.pdf"), filepath.Join(dir, "b c.txt"), abs, filepath.Join(dir, "y z.docx")}
	if a, ok := out.(AddMsg); !ok || !slices.Equal(a.Paths, want) {
		t.Errorf("pasted paths = %#v, want %q", out, want)
	}
	// A path with spaces typed without quotes is one path; what names
	// nothing keeps the dialog open, every such path named.
	m.input.SetValue("my file.pdf")
	if _, out = keys(m, "enter"); !isAdd(out, filepath.Join(dir, "my file.pdf")) {
		t.Errorf("my file.pdf unquoted = %#v", out)
	}
	m.input.SetValue("b.txt nope.pdf my file.pdf gone.txt")
	m, out = keys(m, "enter")
	if out != nil || !strings.Contains(m.notice, "Not found: “nope.pdf”, “gone.txt”") {
		t.Errorf("typed paths that do not exist: %#v, %q", out, m.notice)
	}
	if m.input.Value() != "b.txt nope.pdf my file.pdf gone.txt" {
		t.Errorf("what was typed is lost: %q", m.input.Value())
	}
	m.input.SetValue("")
	m, out = keys(m, "enter")
	if out != nil || !strings.Contains(m.notice, "Nothing to add") {
		t.Errorf("enter with nothing: %#v, %q", out, m.notice)
	}
}

func isAdd(out tea.Msg, paths ...string) bool {
	a, ok := out.(AddMsg)
	return ok && slices.Equal(a.Paths, paths)
}

// TestTypingInTheList: a key that is no command of the list starts a
// path on the paths line, so a sentence typed into the dialog by
// mistake never runs through the files marking and opening them.
func TestTypingInTheList(t *testing.T) {
	t.Parallel()
	dir := tree(t)
	m := open(t, dir)
	m, out := keys(m, "r", "e", "space", "t", "h", "e", "space", "l", "o", "t")
	if out != nil || !m.Typing() || m.input.Value() != "re the lot" || len(m.Marked()) != 0 || m.dir != dir {
		t.Errorf("typing in the list: paths line %q (typing %v), marked %q, in %s, outcome %v", m.input.Value(), m.Typing(), m.Marked(), m.dir, out)
	}
}

func TestUnreadableFolder(t *testing.T) {
	t.Parallel()
	m := open(t, filepath.Join(t.TempDir(), "missing"))
	if v := ansi.Strip(strings.Join(m.View(60, 12), "\n")); !strings.Contains(v, "cannot read missing") {
		t.Errorf("a missing folder:\n%s", v)
	}
}

func TestViewFits(t *testing.T) {
	t.Parallel()
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
