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
	"github.com/citelens/citelens/ingest"
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
	// older marks the documents a newer version has replaced (issue 35),
	// each with how many versions its document has.
	older    map[docstore.DocID]int
	included map[docstore.DocID]bool // documents added here: in the scope

	input     textinput.Model
	filtering bool   // the filter prompt is open
	filter    string // the filter in force, folded
	visible   []int  // indices into docs that pass the filter
	cursor    int    // index into visible
	top       int    // first visible row shown

	adding []Progress
	// batch counts the files of the adds in progress: how many are done
	// of how many, until none is left.
	batch struct{ done, total int }
	err   string

	asking *pane.Question // whether to remove a document
}

// The library pane keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns an empty library pane drawn in styles.
func New(styles *themes.Styles) Model {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "filter by name"
	in.CharLimit = 128
	m := Model{KeyMap: DefaultKeyMap(), Now: time.Now, input: in, excluded: map[docstore.DocID]bool{}, included: map[docstore.DocID]bool{}}
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
		m.asking = nil
	}
}

// SetDocs replaces the document list, keeping the cursor on the same
// document and the scope choices made so far. New documents join the
// scope when it is the whole library; when the user has narrowed it,
// only those added here do (Include), and the others are returned, left
// out of it.
func (m *Model) SetDocs(docs []docstore.DocInfo) (leftOut []docstore.DocInfo) {
	var at docstore.DocID
	if d, ok := m.Current(); ok {
		at = d.ID
	}
	narrowed := m.loaded && len(m.excluded) > 0
	known := map[docstore.DocID]bool{}
	for _, d := range m.docs {
		known[d.ID] = true
	}
	m.loaded = true
	m.docs = slices.Clone(docs)
	m.linkVersions()
	present := map[docstore.DocID]bool{}
	for _, d := range m.docs {
		present[d.ID] = true
		if narrowed && !known[d.ID] && !m.included[d.ID] {
			m.excluded[d.ID] = true
			leftOut = append(leftOut, d)
		}
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
	return leftOut
}

// Include puts a document added here in the scope, whenever it shows in
// the list (it can show before or after it is said to be added).
func (m *Model) Include(id docstore.DocID) {
	m.included[id] = true
	delete(m.excluded, id)
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
// With every document in scope, a document's older versions are left
// out: answers read the latest version unless an older one is chosen
// alone (issue 35).
func (m Model) Scope() []docstore.DocID {
	if len(m.excluded) == 0 && len(m.older) == 0 {
		return nil
	}
	ids := make([]docstore.DocID, 0, len(m.docs))
	for _, d := range m.docs {
		if !m.excluded[d.ID] && (len(m.excluded) > 0 || m.older[d.ID] == 0) {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// InScope returns how many documents are in scope, of how many the pane
// lists: with every document in scope, the older versions are not.
func (m Model) InScope() (n, of int) {
	if len(m.excluded) == 0 {
		return len(m.docs) - len(m.older), len(m.docs)
	}
	return len(m.docs) - len(m.excluded), len(m.docs)
}

// Older returns how many of the documents listed a newer version replaced.
func (m Model) Older() int { return len(m.older) }

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
	m.batch.total++
	m.clampTop()
}

// DoneAdding stops showing a file being added: it is in, or failed.
func (m *Model) DoneAdding(path string) {
	if m.drop(path) {
		m.batch.done++
	}
	m.endBatch()
}

// Expanded shows the files a folder being added holds in its place.
func (m *Model) Expanded(dir string, files []string) {
	if m.drop(dir) {
		m.batch.total--
	}
	for _, f := range files {
		m.SetProgress(Progress{Path: f, Stage: "waiting"})
	}
	m.endBatch()
}

// drop stops showing path, and reports whether it was shown.
func (m *Model) drop(path string) bool {
	n := len(m.adding)
	m.adding = slices.DeleteFunc(m.adding, func(p Progress) bool { return p.Path == path })
	m.clampTop()
	return len(m.adding) < n
}

// endBatch starts the counts afresh once nothing is being added.
func (m *Model) endBatch() {
	if len(m.adding) == 0 {
		m.batch.done, m.batch.total = 0, 0
	}
}

// Filtering reports whether the filter prompt is open: the pane then owns
// every key.
func (m Model) Filtering() bool { return m.filtering }

// Confirming reports whether the pane is asking a yes-or-no question: its
// next key is the answer.
func (m Model) Confirming() bool { return m.asking != nil }

// ShortHelp returns the keys that apply now, for bubbles/help.
func (m Model) ShortHelp() []key.Binding { return m.helpKeys().ShortHelp() }

// FullHelp returns all the keys that apply now, for bubbles/help.
func (m Model) FullHelp() [][]key.Binding { return m.helpKeys().FullHelp() }

func (m Model) helpKeys() help.KeyMap {
	switch {
	case m.asking != nil:
		return m.asking
	case m.filtering:
		return filterHelp{m.KeyMap}
	}
	return m.KeyMap
}

// Update handles the pane's keys. What the user asks of the rest of the
// program (OpenMsg, AddMsg, RemoveMsg, pane.Close with nothing to clear,
// pane.Notice, and pane.Type for a printable key that is no command
// here) is returned as an action for the parent to carry out at once;
// nil for none.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if q := m.asking; q != nil {
			m.asking = nil
			return m, nil, q.Answer(msg)
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
				yes := m.KeyMap.Confirm
				yes.SetHelp(yes.Help().Key, "removes it")
				m.asking = &pane.Question{Ask: "Remove %s?", Subject: d.Name,
					Yes: yes, Keep: "keeps it", Action: RemoveMsg{Doc: d}, Kept: "Nothing was removed."}
				m.clampTop() // the question takes a row
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
		return m.updateList(msg)
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

func (m Model) updateList(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
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
		return m, m.input.Focus(), nil
	case key.Matches(msg, k.ClearFilter):
		if m.filter != "" {
			m.input.Reset()
			m.setFilter("")
		}
	case pane.Printable(msg):
		// No command here: the start of a question, typed where
		// questions are typed.
		return m, nil, pane.Type{Key: msg}
	}
	return m, nil, nil
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
// line, the adds in progress and a question asked.
func (m Model) listHeight() int {
	h := m.height - 1 - m.ProgressRows()
	if m.asking != nil {
		h--
	}
	return max(h, 0)
}

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
		for _, l := range draw.Wrap("No documents yet. Press "+m.KeyMap.List.Add.Help().Key+" to add files ("+ingest.SupportedExtensions()+"), or start citelens with them: citelens FILE…", w) {
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
	lines = append(lines, m.progressLines()...)
	if q := m.asking; q != nil {
		// The question, and on the footer's line the keys that answer
		// it, which are never cut.
		lines = append(lines, m.styles.Warning.Render(q.Prompt(w)))
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
	if m.older[d.ID] > 0 {
		name += " (older version)"
	}
	// The name keeps some sixteen cells; the pages, then when it was
	// added, show as the width allows (the details under the list say
	// both, whatever the width).
	var cols string
	if w >= 26 {
		cols = fmt.Sprintf(" %5s", pagesLabel(d.Pages))
	}
	if w >= 37 {
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
	stats := []string{d.Kind, pagesLabel(d.Pages), humanize.Plural(d.NumSents, "sentence", "sentences"), humanize.Bytes(int64(d.Bytes))}
	if !d.Added.IsZero() {
		stats = append(stats, "added "+added(d.Added, m.Now()))
	}
	for _, l := range draw.Items(stats, " · ", w) {
		out = append(out, st.Muted.Render(l))
	}
	if n := m.older[d.ID]; n > 0 {
		for _, l := range draw.Wrap(fmt.Sprintf("a newer version was added (%d versions): answers use the latest unless this one is asked of", n), w) {
			out = append(out, st.Warning.Render(l))
		}
	}
	out = append(out, st.Muted.Render(draw.Truncate("id "+string(d.ID), w)))
	return out
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

// maxFileRows is the most files being added shown one a row; more
// waiting are counted on a row of their own.
const maxFileRows = 3

// ProgressRows is how many rows the adds in progress take.
func (m Model) ProgressRows() int {
	n := min(len(m.adding), maxFileRows)
	if len(m.adding) > maxFileRows {
		n++ // "… 12 more waiting"
	}
	if m.batch.total > 1 {
		n++ // the whole batch
	}
	return n
}

// progressLines are the adds in progress: with several files, a bar for
// all of them; then the files being worked on before those waiting, a
// bar each for page-wise work, at most maxFileRows of them, and how many
// more wait.
func (m Model) progressLines() []string {
	if len(m.adding) == 0 {
		return nil
	}
	st := m.styles
	var out []string
	if b := m.batch; b.total > 1 {
		out = append(out, st.Stage.Render(barLine("adding files", "", b.done, b.total, m.width)))
	}
	shown := slices.Clone(m.adding)
	slices.SortStableFunc(shown, func(a, b Progress) int { return boolRank(waiting(a)) - boolRank(waiting(b)) })
	for _, p := range shown[:min(len(shown), maxFileRows)] {
		stage := p.Stage
		if stage == "" {
			stage = "waiting"
		}
		out = append(out, st.Stage.Render(barLine(textproc.OneLine(shortPath(p.Path)), stage, p.Done, p.Total, m.width)))
	}
	if more := len(shown) - maxFileRows; more > 0 {
		out = append(out, st.Muted.Render(draw.Truncate(fmt.Sprintf("  … %d more %s waiting", more, humanize.Noun(more, "file", "files")), m.width)))
	}
	return out
}

func waiting(p Progress) bool { return p.Stage == "" || p.Stage == "waiting" }

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// barLine is work in progress in one line of w cells: what it is on,
// the stage, and with a total a bar and the count, "+ refman.pdf
// extracting ▕███░░░░▏ 312/2415". The count is never cut, and the bar
// shows wherever a few cells of the name can beside it; what room is
// left goes to the stage, the rest of the name, then a longer bar.
func barLine(name, stage string, done, total, w int) string {
	if total <= 0 {
		return draw.Truncate("+ "+name+"  "+stage+"…", w)
	}
	count := fmt.Sprintf("%d/%d", done, total)
	avail := w - 2 - 1 - len(count) // "+ " name … " " count
	if avail < 1 {
		return draw.Truncate(count, w)
	}
	nw := ansi.StringWidth(name)
	nameW := min(nw, 8, avail)
	barW := 0
	if avail >= nameW+1+6 {
		barW = 6
	}
	used := nameW
	if barW > 0 {
		used += barW + 1
	}
	mid := ""
	if sw := ansi.StringWidth(stage); stage != "" && avail-used >= 1+sw {
		mid = " " + stage
		used += 1 + sw
	}
	grow := min(nw-nameW, avail-used)
	nameW += grow
	used += grow
	if barW > 0 {
		barW += min(24-barW, avail-used)
		mid += " " + bar(done, total, barW)
	}
	return "+ " + draw.Truncate(name, max(nameW, 1)) + mid + " " + count
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
	if q := m.asking; q != nil {
		return draw.Fit(m.styles.Warning.Render(draw.Truncate(q.Keys(), m.width)), m.width)
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

// Adding returns how many files are being added.
func (m Model) Adding() int { return len(m.adding) }
