// Package addfiles is the TUI's dialog for adding documents: a line for
// paths typed or pasted (several at once, quoted or with escaped spaces
// as terminals paste dropped files), and a browser of the file system
// where files and folders are marked to add together. The browser lists
// folders and the files citelens can add, and says how many others it
// leaves out. Typed paths are checked before the dialog closes: a path
// that does not exist is named there, to be corrected.
//
// Like bubbles' filepicker, it reads directories in commands, never in
// Update; unlike it, it lists each entry's details once (not on every
// frame), marks several entries, and shows names with their control
// characters made visible.
package addfiles

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
)

// AddMsg asks for Paths (files and folders, absolute) to be added.
type AddMsg struct{ Paths []string }

// Entry is one entry of a directory as listed: a folder, or a file of a
// type citelens reads.
type Entry struct {
	Name string
	Dir  bool // a directory, or a link to one
	Size int64
}

// dirMsg is a directory read; others counts the files left out, of
// types citelens does not read.
type dirMsg struct {
	seq     int
	dir     string
	entries []Entry
	others  int
	err     error
}

// maxEntries bounds a directory's listing.
const maxEntries = 10000

// readDir lists dir: directories first, then files, each by name.
func readDir(seq int, dir string, hidden bool) tea.Cmd {
	return func() tea.Msg {
		des, err := os.ReadDir(dir)
		if err != nil && len(des) == 0 {
			return dirMsg{seq: seq, dir: dir, err: err}
		}
		var out []Entry
		others := 0
		for _, de := range des {
			name := de.Name()
			if !hidden && strings.HasPrefix(name, ".") {
				continue
			}
			e := Entry{Name: name, Dir: de.IsDir()}
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil { // through links
				e.Dir, e.Size = fi.IsDir(), fi.Size()
			}
			if _, ok := ingest.FormatOf(name); !ok && !e.Dir {
				others++ // nothing citelens can add
				continue
			}
			out = append(out, e)
			if len(out) == maxEntries {
				break
			}
		}
		slices.SortStableFunc(out, func(a, b Entry) int {
			if a.Dir != b.Dir {
				if a.Dir {
					return -1
				}
				return 1
			}
			return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		})
		return dirMsg{seq: seq, dir: dir, entries: out, others: others}
	}
}

// KeyMap is the dialog's keys.
type KeyMap struct {
	Down, Up, PageDown, PageUp, Top, Bottom key.Binding
	Open                                    key.Binding // open a folder; on a file, add
	Mark                                    key.Binding // mark a file or folder to add
	Parent                                  key.Binding
	Hidden                                  key.Binding // show or hide dot files
	Switch                                  key.Binding // between the paths line and the list
	Add                                     key.Binding // from the paths line: add what is typed and marked
	Close                                   key.Binding
}

// DefaultKeyMap returns the dialog's default keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "next")),
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "previous")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		Open:     key.NewBinding(key.WithKeys("enter", "l", "right"), key.WithHelp("enter", "open folder / add")),
		Mark:     key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark")),
		Parent:   key.NewBinding(key.WithKeys("backspace", "h", "left"), key.WithHelp("⌫", "up a folder")),
		Hidden:   key.NewBinding(key.WithKeys("."), key.WithHelp(".", "hidden files")),
		Switch:   key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "paths / files")),
		Add:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "add")),
		Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp returns the keys worth a line of help, for bubbles/help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Mark, k.Open, k.Parent, k.Switch, k.Close}
}

// FullHelp returns all the keys, for bubbles/help.
func (k KeyMap) FullHelp() [][]key.Binding {
	// Add is enter too, on the paths line: Open's help says both.
	return [][]key.Binding{{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom}, {k.Mark, k.Open, k.Parent, k.Hidden, k.Switch, k.Close}}
}

// Model is the open dialog.
type Model struct {
	KeyMap KeyMap

	styles *themes.Styles
	home   string // the folder it opened in, named by its base name
	dir    string
	seq    int

	entries []Entry
	others  int // files left out of the listing
	loading bool
	err     string
	hidden  bool
	cursor  int

	marked []string // absolute paths, in the order marked
	checks int      // typed paths checked so far, to tell a stale check

	input  textinput.Model
	typing bool // the paths line has the keyboard
	notice string
}

// The dialog keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New opens the dialog in dir; the command lists it.
func New(dir string, styles *themes.Styles) (Model, tea.Cmd) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	in := textinput.New()
	in.Prompt = "paths: "
	in.Placeholder = "type or paste files and folders, or mark them below"
	in.CharLimit = 64 << 10
	m := Model{KeyMap: DefaultKeyMap(), styles: styles, home: dir, dir: dir, input: in, loading: true}
	m.input.SetStyles(styles.TextInput)
	return m, readDir(m.seq, dir, false)
}

// SetStyles switches the dialog to another theme.
func (m *Model) SetStyles(s *themes.Styles) {
	m.styles = s
	m.input.SetStyles(s.TextInput)
}

// Typing reports whether the paths line has the keyboard: keys are text.
func (m Model) Typing() bool { return m.typing }

// Dir returns the folder shown.
func (m Model) Dir() string { return m.dir }

// Marked returns the paths marked, in order.
func (m Model) Marked() []string { return slices.Clone(m.marked) }

// Update handles keys, pastes and directory listings. The outcome,
// AddMsg or pane.Close, is returned as an action for the parent to carry
// out (nil while the dialog stays open).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	switch msg := msg.(type) {
	case dirMsg:
		if msg.seq != m.seq {
			return m, nil, nil
		}
		m.loading = false
		if msg.err != nil {
			m.err = "cannot read " + m.shown(msg.dir) + ": " + unwrap(msg.err).Error()
			m.entries, m.others = nil, 0
		} else {
			m.err, m.entries, m.others = "", msg.entries, msg.others
		}
		m.cursor = 0
		return m, nil, nil
	case pathsMsg:
		if msg.seq != m.checks {
			return m, nil, nil
		}
		if len(msg.missing) > 0 {
			// The dialog stays, what was typed with it, to be corrected.
			m.notice = "Not found: " + quoteAll(msg.missing) + ". Quote a path with spaces, or mark it below."
			return m, nil, nil
		}
		paths := m.marked
		for _, p := range msg.paths {
			paths = appendNew(paths, p)
		}
		return m, nil, AddMsg{Paths: paths}
	case tea.PasteMsg:
		// Dropped or pasted paths go to the paths line, whatever has the
		// keyboard.
		m.typing = true
		focus := m.input.Focus()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, tea.Batch(focus, cmd), nil
	case tea.KeyPressMsg:
		m.notice = ""
		if key.Matches(msg, m.KeyMap.Close) {
			return m, nil, pane.Close{}
		}
		if key.Matches(msg, m.KeyMap.Switch) {
			m.typing = !m.typing
			if m.typing {
				return m, m.input.Focus(), nil
			}
			m.input.Blur()
			return m, nil, nil
		}
		if m.typing {
			return m.updateInput(msg)
		}
		return m.updateList(msg)
	}
	if m.typing {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd, nil
	}
	return m, nil, nil
}

func (m Model) updateInput(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	switch {
	case key.Matches(msg, m.KeyMap.Add):
		typed := strings.TrimSpace(m.input.Value())
		switch {
		case typed != "":
			// Checked in a command, which reports back with pathsMsg.
			m.checks++
			return m, checkPaths(m.checks, m.dir, typed), nil
		case len(m.marked) == 0:
			m.notice = "Nothing to add: type paths, or mark files with space below (tab goes there)."
			return m, nil, nil
		}
		return m, nil, AddMsg{Paths: m.marked}
	case msg.String() == "down":
		m.typing = false
		m.input.Blur()
		return m, nil, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd, nil
}

// pathsMsg is what was typed on the paths line, checked: the paths that
// exist, absolute, and what names nothing.
type pathsMsg struct {
	seq     int
	paths   []string
	missing []string
}

// maxJoin bounds the words checked as one path with spaces.
const maxJoin = 8

// checkPaths reads what was typed as paths and looks for each, resolved
// in dir: the whole line if it names a file or folder (spaces and all),
// else its paths as SplitPaths reads them, words split at a space joined
// again where together they name a file ("my report.pdf" typed without
// quotes).
func checkPaths(seq int, dir, typed string) tea.Cmd {
	return func() tea.Msg {
		exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
		if p := resolveIn(dir, fromURL(typed)); exists(p) {
			return pathsMsg{seq: seq, paths: []string{p}}
		}
		out := pathsMsg{seq: seq}
		words := SplitPaths(typed)
		for i := 0; i < len(words); {
			j := min(len(words), i+maxJoin)
			for ; j > i+1 && !exists(resolveIn(dir, strings.Join(words[i:j], " "))); j-- {
			}
			name := strings.Join(words[i:j], " ")
			if p := resolveIn(dir, name); exists(p) {
				out.paths = appendNew(out.paths, p)
			} else {
				out.missing = append(out.missing, name)
			}
			i = j
		}
		return out
	}
}

func (m Model) updateList(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	k := m.KeyMap
	const page = 10
	switch {
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.Up):
		if m.cursor == 0 {
			m.typing = true
			return m, m.input.Focus(), nil
		}
		m.move(-1)
	case key.Matches(msg, k.PageDown):
		m.move(page)
	case key.Matches(msg, k.PageUp):
		m.move(-page)
	case key.Matches(msg, k.Top):
		m.move(-len(m.entries))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.entries))
	case key.Matches(msg, k.Mark):
		e, ok := m.current()
		switch {
		case !ok:
		default:
			p := filepath.Join(m.dir, e.Name)
			if i := slices.Index(m.marked, p); i >= 0 {
				m.marked = slices.Delete(m.marked, i, i+1)
			} else {
				m.marked = append(m.marked, p)
			}
			m.move(1)
		}
	case key.Matches(msg, k.Open):
		e, ok := m.current()
		switch {
		case !ok:
		case e.Dir:
			return m.open(filepath.Join(m.dir, e.Name))
		case len(m.marked) > 0:
			return m, nil, AddMsg{Paths: m.marked}
		default:
			return m, nil, AddMsg{Paths: []string{filepath.Join(m.dir, e.Name)}}
		}
	case key.Matches(msg, k.Parent):
		if parent := filepath.Dir(m.dir); parent != m.dir {
			return m.open(parent)
		}
	case key.Matches(msg, k.Hidden):
		m.hidden = !m.hidden
		return m.open(m.dir)
	case pane.Printable(msg):
		// No command of the list: the start of a path, typed on the
		// paths line (as a file chooser's location bar takes what is
		// typed), never a run of commands on the files below.
		m.typing = true
		focus := m.input.Focus()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, tea.Batch(focus, cmd), nil
	}
	return m, nil, nil
}

// open lists dir in place of the folder shown.
func (m Model) open(dir string) (Model, tea.Cmd, pane.Action) {
	m.seq++
	m.dir, m.loading = dir, true
	return m, readDir(m.seq, dir, m.hidden), nil
}

func (m *Model) move(d int) {
	if len(m.entries) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), len(m.entries)-1)
}

func (m Model) current() (Entry, bool) {
	if m.cursor < 0 || m.cursor >= len(m.entries) {
		return Entry{}, false
	}
	return m.entries[m.cursor], true
}

// resolveIn makes a typed path absolute: "~" is the home folder, a
// relative path is in dir (the folder shown).
func resolveIn(dir, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// shown names a folder for the dialog: from the folder it opened in
// (named by its base name), else absolute.
func (m Model) shown(dir string) string {
	base := filepath.Base(m.home)
	if dir == m.home {
		return base
	}
	if rel, err := filepath.Rel(m.home, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(base, rel)
	}
	return dir
}

// quoteAll names paths for a message, each quoted, made printable.
func quoteAll(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "“" + textproc.OneLine(p) + "”"
	}
	return strings.Join(q, ", ")
}

func appendNew(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

func unwrap(err error) error {
	var pe *os.PathError
	if e, ok := err.(*os.PathError); ok {
		pe = e
		return pe.Err
	}
	return err
}

// SplitPaths splits what was typed or pasted into paths: separated by
// spaces or line breaks, a path may be quoted ('…' or "…") or have its
// spaces escaped with a backslash, as terminals paste dropped files, or
// be a file:// URL.
func SplitPaths(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			out = append(out, fromURL(cur.String()))
		}
		cur.Reset()
		inWord = false
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			flush()
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return out
}

// fromURL turns a file:// URL into its path.
func fromURL(p string) string {
	if !strings.HasPrefix(p, "file://") {
		return p
	}
	u, err := url.Parse(p)
	if err != nil || u.Path == "" {
		return p
	}
	return u.Path
}

// View draws the dialog as a framed box at most maxW × maxH cells; its
// lines are returned for the root model to lay over the panes.
func (m Model) View(maxW, maxH int) []string {
	st := m.styles
	w := min(maxW, 96)
	inner := max(w-4, 1)
	h := max(maxH, 8)

	var head []string
	m.input.SetWidth(max(inner-len(m.input.Prompt)-1, 1))
	if m.typing {
		head = append(head, m.input.View())
	} else if v := m.input.Value(); v != "" {
		head = append(head, st.Muted.Render(m.input.Prompt)+textproc.OneLine(v))
	} else {
		head = append(head, st.Muted.Render(m.input.Prompt+"(tab to type or paste paths)"))
	}
	where := "in " + textproc.OneLine(m.shown(m.dir))
	if n := len(m.marked); n > 0 {
		where += fmt.Sprintf(" · %d marked", n)
	}
	if m.others > 0 && !m.loading {
		where += " · " + humanize.Plural(m.others, "file", "files") + " of other types not shown"
	}
	head = append(head, "", st.Title.Render(draw.Truncate(where, inner)))

	var foot []string
	note := m.notice
	if note == "" {
		note = "space mark · enter open folder or add · ⌫ up · . hidden · tab paths · esc close"
		if m.typing {
			note = "enter add · ↓/tab the files · esc close"
		}
		foot = append(foot, st.Muted.Render(draw.Truncate(note, inner)))
	} else {
		for _, l := range draw.Wrap(note, inner) {
			foot = append(foot, st.Warning.Render(l))
		}
	}
	foot = append([]string{""}, foot...)

	listH := max(h-2-len(head)-len(foot), 1)
	var list []string
	switch {
	case m.loading:
		list = append(list, st.Muted.Render("reading…"))
	case m.err != "":
		for _, l := range draw.Wrap(m.err, inner) {
			list = append(list, st.Error.Render(l))
		}
	case len(m.entries) == 0:
		list = append(list, st.Muted.Render("no files here"))
	default:
		top := max(m.cursor-listH+1, 0) // the cursor on the last row shown, at most
		for i := top; i < len(m.entries) && len(list) < listH; i++ {
			list = append(list, m.row(m.entries[i], i == m.cursor, inner))
		}
	}
	lines := append(append(head, list...), make([]string, max(listH-len(list), 0))...)
	lines = append(lines, foot...)
	for i := range lines {
		lines[i] = " " + draw.Fit(lines[i], inner) + " "
	}
	return draw.NewBorder(st.PaneFocused).Frame(st.Title.Render(" Add documents "), lines, w, len(lines)+2)
}

// row is one entry: its mark, name (a folder's with a slash) and size.
func (m Model) row(e Entry, cursor bool, w int) string {
	st := m.styles
	mark := "[ ] "
	if slices.Contains(m.marked, filepath.Join(m.dir, e.Name)) {
		mark = "[x] "
	}
	name := textproc.OneLine(e.Name)
	size := ""
	if e.Dir {
		name += "/"
	} else {
		size = humanize.Bytes(e.Size)
	}
	// lead, mark, name, a space, the size right-aligned in 8 cells
	nameW := max(w-2-len(mark)-1-8, 1)
	text := mark + draw.Fit(draw.Truncate(name, nameW), nameW) + " " + fmt.Sprintf("%8s", size)
	lead := "  "
	if cursor && !m.typing {
		lead = st.Accent.Render("▌") + " "
	}
	switch {
	case cursor && !m.typing:
		return lead + st.Selection.Render(text)
	case e.Dir:
		return lead + st.Accent.Render(text)
	}
	return lead + text
}
