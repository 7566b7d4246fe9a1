package conversation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/internal/draw"
)

// The answers are drawn as parts: for each entry a header (the question
// and how it was answered), one part per statement, and a footer (drafts,
// errors, warnings; often empty). Parts are wrapped once per width and
// cached, so a frame only copies the lines it shows; the parts of an
// answer still being written, and the selected statement, are drawn
// afresh.

// pos is a scroll position: entry e, part p (0 the header, 1…n the
// statements, n+1 the footer) and a line within the part.
type pos struct{ e, p, line int }

func (a pos) less(b pos) bool {
	if a.e != b.e {
		return a.e < b.e
	}
	if a.p != b.p {
		return a.p < b.p
	}
	return a.line < b.line
}

type partKey struct{ e, p int }

// lineCache holds wrapped parts for one width. It is shared by copies of
// the Model (View has a value receiver) and reset when the width or the
// theme changes.
type lineCache struct {
	width int
	lines map[partKey][]string
	parts map[int]int // per entry, one past the highest part cached
	// md holds statements rendered from Markdown, before decoration, so
	// the selected one is not rendered again every frame.
	md       map[partKey][]string
	markdown *glamour.TermRenderer // for width, made on first use
}

func newLineCache() *lineCache {
	return &lineCache{lines: map[partKey][]string{}, parts: map[int]int{}, md: map[partKey][]string{}}
}

func (c *lineCache) reset(width int) {
	c.width = width
	c.markdown = nil
	c.clear()
}

func (c *lineCache) clear() {
	c.lines = map[partKey][]string{}
	c.parts = map[int]int{}
	c.md = map[partKey][]string{}
}

// dropEntry forgets entry e's parts, which have changed.
func (c *lineCache) dropEntry(e int) {
	for p := range c.parts[e] {
		delete(c.lines, partKey{e, p})
		delete(c.md, partKey{e, p})
	}
	delete(c.parts, e)
}

func (c *lineCache) put(e, p int, lines []string) {
	c.lines[partKey{e, p}] = lines
	c.parts[e] = max(c.parts[e], p+1)
}

// answerWidth is the width the answers are drawn in; answerHeight the rows
// they get above the status line and the input.
func (m Model) answerWidth() int  { return m.width }
func (m Model) answerHeight() int { return max(m.height-1-m.inputRows(), 0) }

// inputRows is the rows under the status line: the input's, or while the
// answers have the keyboard (or a question is asked) one.
func (m Model) inputRows() int {
	if !m.typing || m.asking != nil {
		return 1
	}
	return min(m.input.Rows(), max(m.height-2, 1))
}

func (m Model) parts(e int) int { return len(m.entries[e].stmts) + 2 }

// partLines returns part p of entry e as drawn unselected.
func (m *Model) partLines(e, p int) []string {
	en := m.entries[e]
	if en.streaming && (p == 0 || p == len(en.stmts)+1) {
		// The spinner and the draft change with every frame.
		return m.renderPart(e, p, false)
	}
	if l, ok := m.cache.lines[partKey{e, p}]; ok {
		return l
	}
	l := m.renderPart(e, p, false)
	m.cache.put(e, p, l)
	return l
}

func (m *Model) partHeight(q pos) int { return len(m.partLines(q.e, q.p)) }

// nextPart is the part after q's with at least one line.
func (m *Model) nextPart(q pos) (pos, bool) {
	for {
		q.p++
		q.line = 0
		if q.p >= m.parts(q.e) {
			q.e, q.p = q.e+1, 0
			if q.e >= len(m.entries) {
				return q, false
			}
		}
		if m.partHeight(q) > 0 {
			return q, true
		}
	}
}

// prevPart is the part before q's with at least one line, at its last line.
func (m *Model) prevPart(q pos) (pos, bool) {
	for {
		q.p--
		if q.p < 0 {
			q.e--
			if q.e < 0 {
				return q, false
			}
			q.p = m.parts(q.e) - 1
		}
		if h := m.partHeight(q); h > 0 {
			q.line = h - 1
			return q, true
		}
	}
}

func (m *Model) down(q pos, n int) pos {
	for n > 0 {
		h := m.partHeight(q)
		if q.line+n < h {
			q.line += n
			return q
		}
		nx, ok := m.nextPart(q)
		if !ok {
			q.line = max(h-1, 0)
			return q
		}
		n -= h - q.line
		q = nx
	}
	return q
}

func (m *Model) up(q pos, n int) pos {
	for n > 0 {
		if q.line >= n {
			q.line -= n
			return q
		}
		pv, ok := m.prevPart(q)
		if !ok {
			q.line = 0
			return q
		}
		n -= q.line + 1
		q = pv
	}
	return q
}

// lastPos is the last line of the conversation.
func (m *Model) lastPos() pos {
	e := len(m.entries) - 1
	q := pos{e, m.parts(e), 0}
	q, _ = m.prevPart(q)
	return q
}

// maxTop is the top position that shows the last line at the bottom.
func (m *Model) maxTop() pos {
	if len(m.entries) == 0 {
		return pos{}
	}
	return m.up(m.lastPos(), m.answerHeight()-1)
}

// clampPos makes q a valid position no lower than maxTop.
func (m *Model) clampPos(q pos) pos {
	if len(m.entries) == 0 || q.e < 0 {
		return pos{}
	}
	if q.e >= len(m.entries) {
		return m.maxTop()
	}
	q.p = min(q.p, m.parts(q.e)-1)
	if h := m.partHeight(q); q.line >= h {
		if h == 0 {
			if nx, ok := m.nextPart(q); ok {
				q = nx
			} else {
				return m.maxTop()
			}
		} else {
			q.line = h - 1
		}
	}
	if mt := m.maxTop(); mt.less(q) {
		return mt
	}
	return q
}

// scroll moves the view n lines, down if n > 0.
func (m *Model) scroll(n int) {
	if len(m.entries) == 0 {
		return
	}
	m.follow = false
	if n > 0 {
		m.top = m.down(m.top, n)
	} else {
		m.top = m.up(m.top, -n)
	}
	m.top = m.clampPos(m.top)
}

// rowsBetween counts the lines from a down to b, giving up at limit.
func (m *Model) rowsBetween(a, b pos, limit int) int {
	n := 0
	for a.less(b) && n < limit {
		if a.e == b.e && a.p == b.p {
			return n + b.line - a.line
		}
		n += m.partHeight(a) - a.line
		nx, ok := m.nextPart(a)
		if !ok {
			return n
		}
		a = nx
	}
	return n
}

// reveal scrolls so the selected statement is in view: from the question
// when it is the answer's first and all fits, else whole if it fits, else
// its beginning.
func (m *Model) reveal() {
	if m.sel.e < 0 || len(m.entries) == 0 {
		m.top = m.clampPos(m.top)
		return
	}
	ah := m.answerHeight()
	start := pos{m.sel.e, m.sel.s + 1, 0}
	h := m.partHeight(start)
	end := pos{start.e, start.p, max(h-1, 0)}
	switch {
	case start.less(m.top):
		m.top = start
		if m.sel.s == 0 && m.partHeight(pos{m.sel.e, 0, 0})+h <= ah {
			m.top = pos{m.sel.e, 0, 0}
		}
	case m.rowsBetween(m.top, end, ah) >= ah:
		m.top = m.up(end, ah-1)
		if start.less(m.top) {
			m.top = start
		}
	}
	m.top = m.clampPos(m.top)
}

// settle places the view after the conversation changed: following the
// newest answer, or keeping the selection in view.
func (m *Model) settle() {
	if len(m.entries) == 0 {
		m.top = pos{}
		return
	}
	if m.follow {
		m.top = m.maxTop()
	}
	m.reveal()
}

// renderPart draws part p of entry e.
func (m Model) renderPart(e, p int, selected bool) []string {
	en := m.entries[e]
	switch {
	case p == 0:
		return m.renderHeader(e)
	case p <= len(en.stmts):
		c := -1
		if selected {
			c = m.sel.c
		}
		return m.renderStatement(en, p-1, selected, c)
	}
	return m.renderFooter(en)
}

func (m Model) renderHeader(e int) []string {
	en := m.entries[e]
	st := m.styles
	w := m.answerWidth()
	var out []string
	if e == 0 && m.older.more {
		note := "⋯ older answers above: scroll up to read them"
		if m.older.loading {
			note = "⋯ loading older answers…"
		}
		out = append(out, st.Muted.Render(draw.Truncate(note, max(w, 1))), "")
	} else if e > 0 {
		out = append(out, "")
	}
	q := draw.Wrap(textproc.OneLine(strings.TrimSpace(en.question)), max(w-2, 1))
	for i, l := range q {
		lead := "  "
		if i == 0 {
			lead = "› "
		}
		out = append(out, st.Title.Render(lead+l))
	}
	if len(en.after) > 0 {
		f := "↪ follows up on “" + textproc.OneLine(en.after[len(en.after)-1]) + "”"
		if en.ans != nil && en.ans.FollowUp != nil && en.ans.FollowUp.Standalone != "" {
			f += ", read as “" + textproc.OneLine(en.ans.FollowUp.Standalone) + "”"
		}
		for _, l := range draw.Wrap(f, max(w-2, 1)) {
			out = append(out, "  "+st.Muted.Render(l))
		}
	}
	if en.streaming {
		// The spinner, then the stage on up to two lines.
		lines := draw.Wrap(m.stageText(en), max(w-2, 1))
		if len(lines) > 2 {
			lines = []string{lines[0], draw.Truncate(strings.Join(lines[1:], " "), max(w-2, 1))}
		}
		for i, l := range lines {
			lead := m.spin.View() + " "
			if i > 0 {
				lead = "  "
			}
			out = append(out, lead+m.styles.Stage.Render(l))
		}
		return out
	}
	for _, l := range draw.Wrap(m.meta(en), max(w-2, 1)) {
		out = append(out, "  "+m.styles.Muted.Render(l))
	}
	return out
}

// stageText is what the strategy is doing, while the answer is written,
// and for how long it has been at the answer.
func (m Model) stageText(en *entry) string {
	stage := textproc.OneLine(en.stage)
	switch {
	case en.cancelling:
		stage = "cancelling…"
	case stage == "":
		stage = "starting…"
	}
	if len(en.stmts) > 0 {
		stage += " · " + humanize.Plural(len(en.stmts), "statement", "statements")
	}
	if d := m.Now().Sub(en.started); d >= time.Second {
		stage += " · " + humanize.Wait(d)
	}
	return stage
}

// meta is the line under a finished question: the strategy and the
// statements (plain text, for the header to wrap and style).
func (m Model) meta(en *entry) string {
	parts := []string{textproc.OneLine(en.strategy)}
	if en.ans != nil {
		parts = append(parts, humanize.Plural(len(en.stmts), "statement", "statements"))
	}
	if en.foreign {
		parts = append(parts, "asked elsewhere")
	}
	if m.stale[en.id()] {
		// Kept on one line where the line wraps: no-break spaces.
		parts = append(parts, strings.ReplaceAll(StaleMark, " ", "\u00a0"))
	}
	return strings.Join(parts, " · ")
}

// cost is what the answer cost, for the line under it: "cost: 110,807
// tokens (110,500 prompt, 307 completion) in 1 model call, ~310 a
// prompt for the conversation".
func (m Model) cost(en *entry) string {
	u := en.usage
	s := "cost: no model calls"
	if u.LLMCalls > 0 {
		approx := ""
		if u.Estimated {
			approx = "~"
		}
		s = fmt.Sprintf("cost: %s%s tokens (%s prompt, %s completion) in %s", approx,
			humanize.Count(u.PromptTokens+u.CompletionTokens), humanize.Count(u.PromptTokens), humanize.Count(u.CompletionTokens),
			humanize.Plural(u.LLMCalls, "model call", "model calls"))
		if en.ans != nil && en.ans.FollowUp != nil && en.ans.FollowUp.ContextTokens > 0 {
			s += fmt.Sprintf(", ~%s a prompt for the conversation", humanize.Count(en.ans.FollowUp.ContextTokens))
		}
	}
	return s
}

// badge is a statement's mark (citations.StatementMark): for a quote
// the question words it holds, for a model's statement what the check of
// its citations found. It is quiet — muted, as the rest of the line
// under the text — unless it needs attention (not supported, uncited,
// unfinished); compact is the mark in fewer cells.
func (m Model) badge(s *citations.Statement) (full, compact string, style lipgloss.Style, ok bool) {
	mk := citations.StatementMark(s)
	if mk.Kind == citations.NoMark {
		return "", "", lipgloss.Style{}, false
	}
	style = m.styles.Muted
	if mk.Warns() {
		style = m.styles.Warning
	}
	return "· " + mk.String(), "· " + mk.Short(), style, true
}

// docsOf names the documents s cites, for an answer over several.
func docsOf(s *citations.Statement) string {
	var names []string
	for _, c := range s.Citations {
		n := textproc.OneLine(c.DocName)
		if n == "" {
			n = string(c.Doc)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// renderStatement draws statement i: its text wrapped beside a gutter, its
// citation markers and its badge after it. Selected, the gutter shows a
// bar, the text the selection style (when the pane has the keyboard), and
// citation selCite is highlighted. Selection never changes the wrapping,
// so the cached, unselected lines give the height.
func (m Model) renderStatement(en *entry, i int, selected bool, selCite int) []string {
	st := m.styles
	s := &en.stmts[i]
	w := max(m.answerWidth()-2, 1)
	var lines []string
	if md, ok := m.markdownLines(en, i, w); ok {
		lines = md // styled by glamour; the gutter alone marks the selection
	} else {
		text := strings.TrimSpace(textproc.Printable(s.Text))
		lines = draw.Wrap(text, w)
		textStyle := draw.PaintOf(st.Text)
		if selected && m.focused && !m.typing {
			textStyle = draw.PaintOf(st.Selection)
		}
		for j, l := range lines {
			lines[j] = textStyle.Render(l)
		}
	}

	type token struct {
		s     string
		style draw.Paint
	}
	var toks []token
	for k := range s.Citations {
		style := draw.PaintOf(st.Accent)
		if selected && k == selCite {
			style = draw.PaintOf(st.Highlight)
		}
		toks = append(toks, token{markerLabel(en.first[i] + k), style})
	}
	if full, compact, style, ok := m.badge(s); ok {
		if w < compactBadgeWidth {
			full = compact
		}
		toks = append(toks, token{full, draw.PaintOf(style)})
	}
	if en.docs > 1 {
		if d := docsOf(s); d != "" {
			toks = append(toks, token{"— " + draw.Truncate(d, max(w/2, 8)), draw.PaintOf(st.Muted)})
		}
	}
	last := len(lines) - 1
	lw := ansi.StringWidth(lines[last])
	for _, t := range toks {
		tw := ansi.StringWidth(t.s)
		sep := " "
		if lw == 0 {
			sep = ""
		}
		if lw > 0 && lw+1+tw > w {
			lines = append(lines, "")
			last++
			lw, sep = 0, ""
		}
		if lw == 0 {
			// A mark that starts a line needs no dot to part it from
			// the markers.
			t.s = strings.TrimPrefix(t.s, "· ")
			tw = ansi.StringWidth(t.s)
		}
		lines[last] += sep + t.style.Render(t.s)
		lw += len(sep) + tw
	}

	gutter := "  "
	if selected {
		gutter = st.Accent.Render("▌") + " "
	}
	for j := range lines {
		lines[j] = gutter + lines[j]
	}
	for _, wn := range s.Warnings {
		lines = append(lines, "  "+st.Warning.Render(draw.Truncate("⚠ "+textproc.OneLine(wn), w)))
	}
	return lines
}

// markdownLines renders statement i as Markdown when the entry's
// strategy writes with a model, unless the statement is a quote of the
// document (citations.Statement.IsQuote, the rule the exports follow too),
// which is shown as it is, whatever characters it holds: glamour in the
// theme's Markdown style, wrapped to w, blank lines and padding trimmed.
// ok is false for text to show verbatim.
func (m Model) markdownLines(en *entry, i, w int) ([]string, bool) {
	if !en.markdown || en.stmts[i].IsQuote() {
		return nil, false
	}
	e := m.entryIndex(en)
	key := partKey{e, i + 1}
	if l, ok := m.cache.md[key]; ok && e >= 0 {
		return slices.Clone(l), true
	}
	if m.cache.markdown == nil {
		r, err := m.styles.MarkdownRenderer(w)
		if err != nil {
			return nil, false
		}
		m.cache.markdown = r
	}
	out, err := m.cache.markdown.Render(textproc.Printable(strings.TrimSpace(en.stmts[i].Text)))
	if err != nil {
		return nil, false
	}
	out = stripHyperlinks(out)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		// Drop glamour's padding, keeping the styles of what is left.
		vis := ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " "))
		lines = append(lines, ansi.Truncate(l, vis, ""))
	}
	for len(lines) > 0 && ansi.Strip(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && ansi.Strip(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, false
	}
	if e >= 0 {
		m.cache.md[key] = lines
		m.cache.parts[e] = max(m.cache.parts[e], key.p+1)
	}
	return slices.Clone(lines), true
}

// osc8 matches an OSC 8 hyperlink sequence, as glamour writes one around
// every link and image of the Markdown it renders.
var osc8 = regexp.MustCompile("\x1b\\]8;[^\x07\x1b]*(?:\x07|\x1b\\\\)")

// stripHyperlinks drops glamour's OSC 8 hyperlinks: a link in a model's
// Markdown must not become a clickable target on the terminal (its text
// and URL stay visible as text).
func stripHyperlinks(s string) string {
	if !strings.Contains(s, "\x1b]8;") {
		return s
	}
	return osc8.ReplaceAllString(s, "")
}

func (m Model) entryIndex(en *entry) int {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.entries[i] == en {
			return i
		}
	}
	return -1
}

// compactBadgeWidth: in a narrower pane a mark is said in fewer cells.
const compactBadgeWidth = 40

// draftLines is how much of a streaming draft is shown: its tail.
const draftLines = 3

func (m Model) renderFooter(en *entry) []string {
	st := m.styles
	w := m.answerWidth()
	var out []string
	wrapped := func(style lipgloss.Style, text string) {
		for _, l := range draw.Wrap(text, max(w-2, 1)) {
			out = append(out, "  "+style.Render(l))
		}
	}
	if en.planText != "" {
		wrapped(st.Muted, "plan: "+en.planText)
	}
	if en.streaming {
		if en.thoughtWords > 0 {
			// The reasoning, collapsed: its size and its last words.
			line := fmt.Sprintf("thinking… %s (not part of the answer)", humanize.Plural(en.thoughtWords, "word", "words"))
			if tail := textproc.OneLine(string(en.thought)); tail != "" {
				line += ": …" + lastRunes(tail, w)
			}
			out = append(out, "  "+st.Muted.Render(draw.Truncate(line, max(w-2, 1))))
		}
		m.renderDraft(en, &out)
		return out
	}
	switch {
	case en.cancelled && len(en.stmts) == 0:
		// The user's own doing: said quietly, no failure.
		wrapped(st.Muted, "Cancelled before any statement was written.")
	case en.cancelled:
		wrapped(st.Muted, "Partial answer: cancelled; what was written before is kept.")
	case len(en.stmts) == 0 && en.err != "":
		wrapped(st.Error, "Could not answer: "+textproc.OneLine(en.err))
	case en.ans != nil && en.ans.Partial:
		msg := "Partial answer"
		if en.err != "" {
			msg += ": " + textproc.OneLine(en.err)
		}
		wrapped(st.Warning, msg)
	case en.ans != nil && len(en.stmts) == 0:
		wrapped(st.Muted, "No statement: nothing in scope answers this.")
	}
	for _, l := range strings.Split(en.fix, "\n") {
		if l != "" {
			wrapped(st.Muted, textproc.OneLine(l))
		}
	}
	if en.prepare {
		offer := "Press " + m.KeyMap.Input.Prepare.Help().Key + " to prepare them now and ask again"
		if en.prepareCost != "" {
			offer += ": " + en.prepareCost
		}
		wrapped(st.Accent, offer+".")
	}
	if en.ans != nil && en.ans.Reasoning != "" {
		wrapped(st.Muted, fmt.Sprintf("The model reasoned for %s before answering; its reasoning is kept with the answer, apart from it.",
			humanize.Plural(len(strings.Fields(en.ans.Reasoning)), "word", "words")))
	}
	if en.ans != nil {
		for _, wn := range en.ans.Warnings {
			wrapped(st.Warning, "⚠ "+textproc.OneLine(wn))
		}
		wrapped(st.Muted, m.cost(en))
	}
	return out
}

// renderDraft shows what the model is writing: the statement in
// progress as plain text, or the tail of other text it streams (a plan,
// a draft) dimmed; never the markup.
func (m Model) renderDraft(en *entry, out *[]string) {
	st := m.styles
	w := m.answerWidth()
	if en.inProgress != "" && en.tagged {
		text := strings.TrimSpace(textproc.Printable(en.inProgress))
		lines := draw.Wrap(text+" ▍", max(w-2, 1))
		if len(lines) > draftLines+1 {
			lines = lines[len(lines)-draftLines-1:]
		}
		for _, l := range lines {
			*out = append(*out, "  "+st.Text.Render(l))
		}
		return
	}
	d := en.inProgress
	if d == "" {
		return
	}
	lines := draw.Wrap(strings.TrimSpace(textproc.Printable(d)), max(w-4, 1))
	if len(lines) > draftLines {
		lines = lines[len(lines)-draftLines:]
	}
	for _, l := range lines {
		*out = append(*out, "  "+st.Muted.Render("┊ "+l))
	}
}

// lastRunes is the end of s, at most n runes.
func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// View draws the pane in exactly w × h cells, the size given to SetSize
// (another is laid out afresh for this frame): the answers, a status
// line, and the input.
func (m Model) View(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if w != m.width || h != m.height {
		m.SetSize(w, h)
	}
	ah := m.answerHeight()
	lines := make([]string, 0, h)
	if len(m.entries) == 0 {
		intro := "Ask a question about the documents in scope: type it below and press enter. Every statement of the answer cites the sentences it rests on."
		if m.cleared {
			intro = "Cleared. The answers are still saved in the library (citelens answers lists them); the next question starts a new topic."
		}
		for _, l := range draw.Wrap(intro, max(w-2, 1)) {
			lines = append(lines, "  "+m.styles.Muted.Render(l))
		}
	} else {
		mp := &m
		q := mp.clampPos(m.top)
		for len(lines) < ah {
			var part []string
			if m.sel.e == q.e && m.sel.s+1 == q.p {
				part = m.renderPart(q.e, q.p, true)
			} else {
				part = mp.partLines(q.e, q.p)
			}
			for l := q.line; l < len(part) && len(lines) < ah; l++ {
				lines = append(lines, part[l])
			}
			nx, ok := mp.nextPart(q)
			if !ok {
				break
			}
			q = nx
		}
	}
	if len(lines) > ah {
		lines = lines[:ah]
	}
	for len(lines) < ah {
		lines = append(lines, "")
	}
	lines = append(lines, m.statusLine())
	lines = append(lines, strings.Split(m.inputLine(), "\n")...)
	return draw.Block(lines, w, h)
}

// inputLine is the question input; while the answers have the
// keyboard, the mode and how to leave it; while a question is asked,
// the keys that answer it.
func (m Model) inputLine() string {
	st := m.styles
	if m.asking != nil {
		// The next key answers the question: what each does, in the
		// place of the input.
		return st.Warning.Render(draw.Truncate(m.asking.Keys(), m.width))
	}
	if !m.typing {
		k := m.KeyMap.List
		return draw.Truncate(st.Accent.Render("answers:")+st.Muted.Render(" letters are commands · "+
			k.Back.Help().Key+" to type"), m.width)
	}
	return m.input.View()
}

// statusLine is a question the pane asks, else work it waits on, else the
// strategy and the scope the next question goes to, and whether the
// question being typed follows up on the conversation.
func (m Model) statusLine() string {
	st := m.styles
	switch {
	case m.asking != nil:
		return draw.Fit(st.Warning.Render(m.asking.Prompt(m.width)), m.width)
	case m.activity != "":
		return draw.Fit(st.Stage.Render(draw.Truncate(textproc.OneLine(m.activity), m.width)), m.width)
	}
	left := st.Muted.Render("strategy ") + st.Accent.Render(textproc.OneLine(m.strategy))
	if q, ok := m.deciding(); ok {
		if m.followsUp(q) {
			left += st.Muted.Render(" · follow-up")
		} else {
			left += st.Muted.Render(" · new topic")
		}
	}
	return draw.Spread(left, st.Muted.Render(textproc.OneLine(m.scope)), m.width)
}
