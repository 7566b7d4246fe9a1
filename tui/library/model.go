// Package library is the TUI's library pane: the documents of the library
// with their pages and when they were added, a filter, and which of them
// are in the scope of the next question (space toggles; all by default).
// It also shows files being added, with their progress.
//
// It keeps the panes' contract (tui/internal/pane) and does no I/O: the
// root model loads the document list and feeds it in with SetDocs, and
// reads the scope with Scope when a question is asked.
package library

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
)

// OpenMsg asks to read a document in the source pane, from its start.
type OpenMsg struct{ Doc docstore.DocInfo }

// AddMsg asks for the file picker, to add documents.
type AddMsg struct{}

// RemoveMsg removes a document from the library (the user has
// confirmed it).
type RemoveMsg struct{ Doc docstore.DocInfo }

// Progress is a file being added, as the pane shows it.
type Progress struct {
	Path        string
	Stage       string // docstore's ingest stage: "reading", "extracting"…
	Done, Total int    // pages, while extracting a PDF
}

// Model is the library pane.
type Model struct {
	// KeyMap is the pane's keys; replace bindings to rebind.
	KeyMap KeyMap
	// Now is the clock the "added" column counts from.
	Now func() time.Time

	styles        *themes.Styles
	width, height int
	focused       bool

	loaded   bool
	docs     []docstore.DocInfo
	excluded map[docstore.DocID]bool // documents left out of the scope

	input     textinput.Model
	filtering bool   // the filter prompt is open
	filter    string // the filter in force, folded
	visible   []int  // indices into docs that pass the filter
	cursor    int    // index into visible
	top       int    // first visible row shown

	adding []Progress
	err    string

	removing *docstore.DocInfo // asking whether to remove it
}

// The library pane keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns an empty library pane drawn in styles.
func New(styles *themes.Styles) Model {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "filter by name"
	in.CharLimit = 128
	m := Model{KeyMap: DefaultKeyMap(), Now: time.Now, input: in, excluded: map[docstore.DocID]bool{}}
	m.SetStyles(styles)
	return m
}

// SetStyles switches the pane to another theme.
func (m *Model) SetStyles(s *themes.Styles) {
	m.styles = s
	m.input.SetStyles(s.TextInput)
}

// SetSize sets the pane's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.input.SetWidth(max(w-2, 1))
	m.clampTop()
}

// SetFocused tells the pane whether it has the keyboard, which shows as
// the cursor row being selected; losing it drops a question asked.
func (m *Model) SetFocused(f bool) {
	m.focused = f
	if !f {
		m.removing = nil
	}
}

// SetDocs replaces the document list, keeping the cursor on the same
// document and the scope choices made so far; new documents are in scope.
func (m *Model) SetDocs(docs []docstore.DocInfo) {
	var at docstore.DocID
	if d, ok := m.Current(); ok {
		at = d.ID
	}
	m.loaded = true
	m.docs = slices.Clone(docs)
	present := map[docstore.DocID]bool{}
	for _, d := range m.docs {
		present[d.ID] = true
	}
	for id := range m.excluded {
		if !present[id] {
			delete(m.excluded, id)
		}
	}
	m.refilter()
	for i, di := range m.visible {
		if m.docs[di].ID == at {
			m.cursor = i
		}
	}
	m.clampTop()
}

// SetError shows why the list could not be loaded.
func (m *Model) SetError(err error) {
	m.err = ""
	if err != nil {
		m.err = err.Error()
	}
}

// Docs returns the documents listed.
func (m Model) Docs() []docstore.DocInfo { return m.docs }

// SetScopeOnly puts exactly the given documents in scope.
func (m *Model) SetScopeOnly(ids []docstore.DocID) {
	keep := map[docstore.DocID]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	m.excluded = map[docstore.DocID]bool{}
	for _, d := range m.docs {
		if !keep[d.ID] {
			m.excluded[d.ID] = true
		}
	}
}

// Scope returns the documents in the question's scope, nil when that is
// every document of the library (an empty, non-nil slice when it is none).
func (m Model) Scope() []docstore.DocID {
	if len(m.excluded) == 0 {
		return nil
	}
	ids := make([]docstore.DocID, 0, len(m.docs))
	for _, d := range m.docs {
		if !m.excluded[d.ID] {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// InScope returns how many documents are in scope, of how many.
func (m Model) InScope() (n, of int) { return len(m.docs) - len(m.excluded), len(m.docs) }

// Current returns the document under the cursor.
func (m Model) Current() (docstore.DocInfo, bool) {
	if m.cursor < 0 || m.cursor >= len(m.visible) {
		return docstore.DocInfo{}, false
	}
	return m.docs[m.visible[m.cursor]], true
}

// SetProgress shows (or updates) a file being added.
func (m *Model) SetProgress(p Progress) {
	for i := range m.adding {
		if m.adding[i].Path == p.Path {
			m.adding[i] = p
			return
		}
	}
	m.adding = append(m.adding, p)
}

// DoneAdding stops showing a file being added.
func (m *Model) DoneAdding(path string) {
	m.adding = slices.DeleteFunc(m.adding, func(p Progress) bool { return p.Path == path })
}

// Filtering reports whether the filter prompt is open: the pane then owns
// every key.
func (m Model) Filtering() bool { return m.filtering }

// Confirming reports whether the pane is asking a yes-or-no question: its
// next key is the answer.
func (m Model) Confirming() bool { return m.removing != nil }

// ShortHelp returns the keys that apply now, for bubbles/help.
func (m Model) ShortHelp() []key.Binding { return m.helpKeys().ShortHelp() }

// FullHelp returns all the keys that apply now, for bubbles/help.
func (m Model) FullHelp() [][]key.Binding { return m.helpKeys().FullHelp() }

func (m Model) helpKeys() help.KeyMap {
	if m.filtering {
		return filterHelp{m.KeyMap}
	}
	return m.KeyMap
}

// Update handles the pane's keys. What the user asks of the rest of the
// program (OpenMsg, AddMsg, RemoveMsg, pane.Close with nothing to clear,
// pane.Notice) is returned as an action for the parent to carry out at
// once; nil for none.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if d := m.removing; d != nil {
			m.removing = nil
			if key.Matches(msg, m.KeyMap.Confirm) {
				return m, nil, RemoveMsg{Doc: *d}
			}
			return m, nil, pane.Notice{Text: "Nothing was removed."}
		}
		if m.filtering {
			m, cmd := m.updateFilter(msg)
			return m, cmd, nil
		}
		if key.Matches(msg, m.KeyMap.List.Add) {
			return m, nil, AddMsg{}
		}
		if key.Matches(msg, m.KeyMap.List.Remove) {
			if d, ok := m.Current(); ok {
				m.removing = &d
			}
			return m, nil, nil
		}
		if key.Matches(msg, m.KeyMap.List.ClearFilter) && m.filter == "" {
			return m, nil, pane.Close{}
		}
		if key.Matches(msg, m.KeyMap.List.Open) {
			if d, ok := m.Current(); ok {
				return m, nil, OpenMsg{Doc: d}
			}
			return m, nil, nil
		}
		m, cmd := m.updateList(msg)
		return m, cmd, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			m.move(1)
		case tea.MouseWheelUp:
			m.move(-1)
		}
		return m, nil, nil
	}
	if m.filtering {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd, nil
	}
	return m, nil, nil
}

func (m Model) updateList(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := m.KeyMap.List
	switch {
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Top):
		m.move(-len(m.visible))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.visible))
	case key.Matches(msg, k.Toggle):
		if d, ok := m.Current(); ok {
			if m.excluded[d.ID] {
				delete(m.excluded, d.ID)
			} else {
				m.excluded[d.ID] = true
			}
		}
	case key.Matches(msg, k.All):
		d, ok := m.Current()
		if len(m.excluded) == 0 && ok {
			m.SetScopeOnly([]docstore.DocID{d.ID})
		} else {
			m.excluded = map[docstore.DocID]bool{}
		}
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.input.SetValue(m.input.Value())
		m.input.CursorEnd()
		return m, m.input.Focus()
	case key.Matches(msg, k.ClearFilter):
		if m.filter != "" {
			m.input.Reset()
			m.setFilter("")
		}
	}
	return m, nil
}

func (m Model) updateFilter(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.KeyMap.Filter.Apply):
		m.filtering = false
		m.input.Blur()
		return m, nil
	case key.Matches(msg, m.KeyMap.Filter.Cancel):
		m.filtering = false
		m.input.Blur()
		m.input.Reset()
		m.setFilter("")
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.setFilter(m.input.Value())
	return m, cmd
}

func (m *Model) setFilter(f string) {
	f = strings.ToLower(strings.TrimSpace(f))
	if f == m.filter {
		return
	}
	m.filter = f
	m.refilter()
}

func (m *Model) refilter() {
	m.visible = m.visible[:0]
	for i, d := range m.docs {
		if m.filter == "" || strings.Contains(strings.ToLower(d.Name), m.filter) || strings.Contains(strings.ToLower(d.Title), m.filter) {
			m.visible = append(m.visible, i)
		}
	}
	m.cursor = min(max(m.cursor, 0), max(len(m.visible)-1, 0))
	m.clampTop()
}

func (m *Model) move(d int) {
	if len(m.visible) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), len(m.visible)-1)
	m.clampTop()
}

// listHeight is the rows left for documents: the pane less the status
// line and the files being added.
func (m Model) listHeight() int { return max(m.height-1-len(m.adding), 0) }

func (m *Model) clampTop() {
	h := m.listHeight()
	if h <= 0 {
		m.top = m.cursor
		return
	}
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+h {
		m.top = m.cursor - h + 1
	}
	m.top = min(m.top, max(len(m.visible)-h, 0))
	m.top = max(m.top, 0)
}

// View draws the pane in exactly w × h cells, the size given to SetSize
// (another is laid out afresh for this frame).
func (m Model) View(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if w != m.width || h != m.height {
		m.SetSize(w, h)
	}
	st := m.styles
	lines := make([]string, 0, h)
	lh := m.listHeight()
	switch {
	case m.err != "":
		for _, l := range draw.Wrap(textproc.OneLine(m.err), w) {
			lines = append(lines, st.Error.Render(l))
		}
	case !m.loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	case len(m.docs) == 0 && len(m.adding) == 0:
		for _, l := range draw.Wrap("No documents yet. Press "+m.KeyMap.List.Add.Help().Key+" to add files ("+docstore.SupportedExtensions()+"), or start citelens with them: citelens FILE…", w) {
			lines = append(lines, st.Muted.Render(l))
		}
	case len(m.visible) == 0 && len(m.docs) > 0:
		lines = append(lines, st.Muted.Render("no document matches"))
	default:
		now := m.Now()
		for i := m.top; i < len(m.visible) && len(lines) < lh; i++ {
			lines = append(lines, m.row(m.docs[m.visible[i]], i == m.cursor, now))
		}
		// Room to spare: the current document's details.
		if d, ok := m.Current(); ok {
			if det := m.details(d); lh-len(lines) >= len(det)+1 {
				lines = append(lines, "")
				lines = append(lines, det...)
			}
		}
	}
	if len(lines) > lh {
		lines = lines[:lh]
	}
	for len(lines) < lh {
		lines = append(lines, "")
	}
	for _, p := range m.adding {
		lines = append(lines, m.progressLine(p))
	}
	lines = append(lines, m.footer())
	return draw.Block(lines, w, h)
}

// row is one document: its scope mark, name, pages and when it was added,
// dropping the last columns when the pane is narrow.
func (m Model) row(d docstore.DocInfo, selected bool, now time.Time) string {
	w := m.width
	mark := "[x] "
	if m.excluded[d.ID] {
		mark = "[ ] "
	}
	name := textproc.OneLine(d.Name)
	if name == "" {
		name = string(d.ID)
	}
	var cols string
	if w >= 28 {
		cols = fmt.Sprintf(" %5s", pagesLabel(d.Pages))
	}
	if w >= 44 {
		cols += fmt.Sprintf(" %-10s", added(d.Added, now))
	}
	nw := max(w-len(mark)-len(cols), 1)
	name = draw.Fit(draw.Truncate(name, nw), nw)
	if selected && m.focused {
		return m.styles.Selection.Render(mark + name + cols)
	}
	if selected {
		return m.styles.Accent.Render(mark) + name + m.styles.Muted.Render(cols)
	}
	return mark + name + m.styles.Muted.Render(cols)
}

// details describes a document in a few lines: its title, what it is,
// its ID (for the command line).
func (m Model) details(d docstore.DocInfo) []string {
	st := m.styles
	w := m.width
	var out []string
	if t := textproc.OneLine(d.Title); t != "" && t != d.Name {
		for _, l := range draw.Wrap(t, w) {
			if len(out) == 2 {
				break
			}
			out = append(out, st.Title.Render(l))
		}
	}
	stats := fmt.Sprintf("%s · %s · %s sentences · %s", d.Kind, pagesLabel(d.Pages), count(d.NumSents), humanize.Bytes(int64(d.Bytes)))
	for _, l := range draw.Wrap(stats, w) {
		out = append(out, st.Muted.Render(l))
	}
	out = append(out, st.Muted.Render(draw.Truncate("id "+string(d.ID), w)))
	return out
}

func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func pagesLabel(n int) string {
	if n >= 100000 {
		return fmt.Sprintf("%dk p", n/1000)
	}
	return fmt.Sprintf("%d p", n)
}

// added says when a document was added: "today", "3 days ago", a date.
func added(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t, now = t.Local(), now.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	days := int(time.Date(y2, m2, d2, 0, 0, 0, 0, time.UTC).Sub(time.Date(y1, m1, d1, 0, 0, 0, 0, time.UTC)).Hours() / 24)
	switch {
	case days <= 0:
		return "today"
	case days == 1:
		return "yesterday"
	case days < 7:
		return fmt.Sprintf("%d days ago", days)
	}
	return t.Format("2006-01-02")
}

// progressLine is a file being added in one line of the pane's width:
// its name, the stage, and for page-wise work a bar and the pages done,
// "+ refman.pdf  extracting ▕███░░░░▏ 312/2415". What does not fit goes
// in this order: the bar, the stage, the end of the name; the count
// stays.
func (m Model) progressLine(p Progress) string {
	st := m.styles
	w := m.width
	name := textproc.OneLine(shortPath(p.Path))
	stage := p.Stage
	if stage == "" {
		stage = "waiting"
	}
	if p.Total <= 0 {
		return st.Stage.Render(draw.Truncate("+ "+name+"  "+stage+"…", w))
	}
	count := fmt.Sprintf("%d/%d", p.Done, p.Total)
	nameW := min(ansi.StringWidth(name), max(w/3, 10))
	room := w - 2 - nameW - 1 - len(count) // "+ " name " " count
	var mid string
	if sw := ansi.StringWidth(stage); room >= sw+2 {
		mid = " " + stage
		room -= sw + 1
		if barW := min(room-2, 24); barW >= 6 {
			mid += " " + bar(p.Done, p.Total, barW)
		}
	}
	nameW = max(min(ansi.StringWidth(name), w-2-ansi.StringWidth(mid)-1-len(count)), 1)
	return st.Stage.Render(draw.Truncate("+ "+draw.Truncate(name, nameW)+mid+" "+count, w))
}

// bar draws done of total as a bar of w cells, eighths included.
func bar(done, total, w int) string {
	inner := w - 2
	eighths := min(max(done, 0)*inner*8/max(total, 1), inner*8)
	full, part := eighths/8, eighths%8
	b := strings.Repeat("█", full)
	if full < inner {
		if part > 0 {
			b += string([]rune("▏▎▍▌▋▊▉")[part-1])
			full++
		}
		b += strings.Repeat("░", inner-full)
	}
	return "▕" + b + "▏"
}

func shortPath(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 && i+1 < len(p) {
		return p[i+1:]
	}
	return p
}

// footer is the filter prompt while it is open, else the scope count and
// the filter in force.
func (m Model) footer() string {
	if m.filtering {
		return draw.Fit(m.input.View(), m.width)
	}
	if d := m.removing; d != nil {
		q := "Remove " + textproc.OneLine(d.Name) + "? " + m.KeyMap.Confirm.Help().Key + " removes it (saved answers keep their quotes)"
		return draw.Fit(m.styles.Warning.Render(draw.Truncate(q, m.width)), m.width)
	}
	n, of := m.InScope()
	left := m.styles.Status.Render(fmt.Sprintf("%d/%d in scope", n, of))
	if n == 0 && of > 0 {
		left = m.styles.Warning.Render("nothing in scope")
	}
	right := ""
	if m.filter != "" {
		right = m.styles.Accent.Render("/" + textproc.OneLine(m.input.Value()))
	}
	return draw.Spread(left, right, m.width)
}

// Adding returns how many files are being added (each shows a line).
func (m Model) Adding() int { return len(m.adding) }
