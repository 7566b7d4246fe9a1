package source

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
)

// A citation whose document has a newer version: above the text, what
// became of the cited sentence in the latest version (issue 35) — its
// class, the old and the new sentence side by side (stacked when the
// pane is narrow) with the words struck and added marked, or for a
// sentence gone the nearest ones — and a key (b) that asks the root for
// the other version's text below.

// VersionMsg asks for the other version of the shown citation's document
// in the text below the comparison: the cited one or the latest (b).
type VersionMsg struct{}

// Change is what became of the shown citation in the latest version of
// its document, as the comparison above the text shows it.
type Change struct {
	// Class is what reanchor found: moved, changed or gone (unchanged
	// shows only its line).
	Class reanchor.Class
	// Cited and Latest name the two versions: "version 1", "version 2
	// of 2".
	Cited, Latest string
	// OldText is the cited text; Diff the word difference from it to its
	// counterpart (changed).
	OldText string
	Diff    []reanchor.Op
	// Similarity is the word similarity of old to new (changed); Page
	// where the text is now (unchanged, moved, changed).
	Similarity float64
	Page       int
	// Candidates are, for a sentence gone, the latest version's nearest
	// sentences, best first.
	Candidates []Candidate
	// ShowingLatest says the text below is the latest version's, the
	// counterpart highlighted; otherwise it is the cited version's.
	ShowingLatest bool
}

// Candidate is one of the latest version's sentences nearest to a cited
// sentence that is gone.
type Candidate struct {
	Text       string
	Page       int
	Similarity float64
}

// SetChange shows c above the text (nil: none). Call it after Show: the
// citation is scrolled into view below the comparison.
func (m *Model) SetChange(c *Change) {
	m.change = c
	m.layoutChange()
	if m.ds != nil && m.drawable() {
		m.scrollTo(m.primary)
		m.top = m.clampTop(m.top)
	}
}

// Change returns the comparison shown, nil for none.
func (m Model) Change() *Change { return m.change }

// layoutChange lays the comparison out for the pane's size.
func (m *Model) layoutChange() {
	m.changeRows = nil
	if m.change == nil || !m.drawable() {
		return
	}
	m.changeRows = m.changeLines(m.width, (m.height-2)/2)
}

// switchVersion is b: the other version's text, when there is one.
func (m Model) switchVersion() pane.Action {
	if m.change == nil {
		return pane.Notice{Text: "This citation's document has no newer version: there is no other version to show."}
	}
	return VersionMsg{}
}

// minColumn is the narrowest column of the side-by-side comparison;
// a narrower pane stacks the old sentence over the new.
const minColumn = 24

// changeLines draws the comparison in at most maxRows rows of width w:
// a line saying what became of the citation, the sentences, and a rule
// under them.
func (m Model) changeLines(w, maxRows int) []string {
	c, st := m.change, m.styles
	if maxRows < 1 || w < 1 {
		return nil
	}
	shown, other := c.Cited, c.Latest
	if c.ShowingLatest {
		shown, other = c.Latest, c.Cited
	}
	var what string
	switch c.Class {
	case reanchor.Changed:
		what = fmt.Sprintf("changed in %s · %.0f%% alike", c.Latest, 100*c.Similarity)
	case reanchor.Moved:
		what = fmt.Sprintf("moved in %s: the same words, elsewhere (p. %d)", c.Latest, c.Page)
	case reanchor.Gone:
		what = "gone from " + c.Latest
	default:
		what = fmt.Sprintf("unchanged in %s (p. %d)", c.Latest, c.Page)
	}
	// What became of it on the left, the key to the other version's text
	// on the right while both fit; the rule under the comparison names
	// the version whose text is below.
	head := st.Muted.Render(draw.Truncate("⟳ "+what, w))
	if key := m.KeyMap.Version.Help().Key + ": " + other; ansi.StringWidth("⟳ "+what)+ansi.StringWidth(key)+2 <= w {
		head = draw.Spread(st.Muted.Render("⟳ "+what), st.Accent.Render(key), w)
	}
	var body []string
	switch c.Class {
	case reanchor.Changed:
		old, cur := diffSides(c.Diff)
		// Painted by concatenation, not a lipgloss Render per word, which
		// for struck styles paints every character apart.
		plain := draw.PaintOf(st.Text)
		removed, added := draw.PaintOf(st.Warning.Strikethrough(true)), draw.PaintOf(st.Highlight)
		if w >= 2*minColumn+3 {
			lw := (w - 3) / 2
			rw := w - 3 - lw
			left := append([]string{st.Muted.Render(draw.Truncate(c.Cited+" (cited)", lw))}, wrapWords(old, lw, plain, removed)...)
			right := append([]string{st.Muted.Render(draw.Truncate(c.Latest+" (latest)", rw))}, wrapWords(cur, rw, plain, added)...)
			bar := st.Muted.Render(" │ ")
			for i := range max(len(left), len(right)) {
				l, r := "", ""
				if i < len(left) {
					l = left[i]
				}
				if i < len(right) {
					r = right[i]
				}
				body = append(body, draw.Fit(l, lw)+bar+draw.Fit(r, rw))
			}
		} else {
			body = append(body, st.Muted.Render(draw.Truncate(c.Cited+" (cited):", w)))
			body = append(body, indent(wrapWords(old, max(w-2, 1), plain, removed))...)
			body = append(body, st.Muted.Render(draw.Truncate(c.Latest+" (latest):", w)))
			body = append(body, indent(wrapWords(cur, max(w-2, 1), plain, added))...)
		}
	case reanchor.Gone:
		body = append(body, st.Muted.Render(draw.Truncate(c.Cited+" (cited):", w)))
		body = append(body, indent(wrapWords(words(c.OldText, reanchor.Same), max(w-2, 1), draw.PaintOf(st.Text), draw.PaintOf(st.Text)))...)
		if len(c.Candidates) == 0 {
			body = append(body, st.Muted.Render(draw.Truncate("no sentence of "+c.Latest+" is like it", w)))
		} else {
			body = append(body, st.Muted.Render(draw.Truncate("nearest in "+c.Latest+":", w)))
		}
		for _, cand := range c.Candidates {
			lead := fmt.Sprintf("  %.0f%% · p. %d · ", 100*cand.Similarity, cand.Page)
			body = append(body, st.Muted.Render(lead)+st.Text.Render(ansi.Truncate(textproc.OneLine(cand.Text), max(w-ansi.StringWidth(lead), 1), "…")))
		}
	}
	label := "╌╌ below: " + shown + " "
	if c.ShowingLatest {
		label += "(latest) "
	} else {
		label += "(cited) "
	}
	rule := st.Muted.Render(ansi.Truncate(label, w, "") + strings.Repeat("╌", max(w-ansi.StringWidth(label), 0)))
	switch {
	case maxRows == 1:
		return []string{draw.Fit(head, w)}
	case 2+len(body) > maxRows:
		// Cut, saying so: the text below keeps at least half the pane.
		keep := max(maxRows-3, 0)
		body = append(body[:keep:keep], st.Muted.Render("  …"))
		if 2+len(body) > maxRows {
			body = nil
		}
	}
	out := make([]string, 0, 2+len(body))
	out = append(out, draw.Fit(head, w))
	for _, l := range body {
		out = append(out, draw.Fit(l, w))
	}
	return append(out, rule)
}

func indent(lines []string) []string {
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return lines
}

// word is a word of one side of a difference, marked when it is struck
// (the old side) or added (the new).
type word struct {
	text   string
	marked bool
}

// diffSides splits a difference into its old side (kept and struck
// words) and its new side (kept and added words).
func diffSides(ops []reanchor.Op) (old, cur []word) {
	for _, op := range ops {
		switch op.Kind {
		case reanchor.Delete:
			old = append(old, words(op.Text, op.Kind)...)
		case reanchor.Insert:
			cur = append(cur, words(op.Text, op.Kind)...)
		default:
			ws := words(op.Text, op.Kind)
			old, cur = append(old, ws...), append(cur, ws...)
		}
	}
	return old, cur
}

// words splits text at white space, after making it safe for a terminal
// (a document's text may hold control characters and escapes).
func words(text string, kind reanchor.OpKind) []word {
	var out []word
	for _, f := range strings.Fields(textproc.OneLine(text)) {
		out = append(out, word{text: f, marked: kind != reanchor.Same})
	}
	return out
}

// wrapWords lays words out in rows of at most w cells, kept words in
// plain, marked ones in mark; the space between two marked words is
// marked too, so a run reads as one. A word wider than a row is cut
// over several.
func wrapWords(ws []word, w int, plain, mark draw.Paint) []string {
	var rows []string
	var b strings.Builder
	used := 0
	prevMarked := false
	flush := func() {
		rows = append(rows, b.String())
		b.Reset()
		used = 0
	}
	style := func(marked bool) draw.Paint {
		if marked {
			return mark
		}
		return plain
	}
	for _, wd := range ws {
		text := wd.text
		tw := ansi.StringWidth(text)
		if used > 0 && used+1+tw > w {
			flush()
		}
		for tw > w {
			// A word wider than the row: cut, a row at a time.
			if used > 0 {
				flush()
			}
			b.WriteString(style(wd.marked).Render(ansi.Cut(text, 0, w)))
			flush()
			text = ansi.Cut(text, w, tw)
			tw = ansi.StringWidth(text)
		}
		if tw == 0 {
			continue
		}
		if used > 0 {
			if wd.marked && prevMarked {
				b.WriteString(mark.Render(" "))
			} else {
				b.WriteByte(' ')
			}
			used++
		}
		b.WriteString(style(wd.marked).Render(text))
		used += tw
		prevMarked = wd.marked
	}
	if used > 0 || len(rows) == 0 {
		flush()
	}
	return rows
}

// versionHelp is the help while a comparison is shown: its key first.
type versionHelp struct {
	h help.KeyMap
	k key.Binding
}

func (v versionHelp) ShortHelp() []key.Binding { return append([]key.Binding{v.k}, v.h.ShortHelp()...) }

func (v versionHelp) FullHelp() [][]key.Binding { return v.h.FullHelp() }
