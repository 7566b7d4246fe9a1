package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/pageview"
	"github.com/citelens/citelens/tui/source"
)

// Answers whose evidence changed (issue 35): when a document gets a newer
// version, each citation of the saved answers shown is carried over to it
// (citations/reanchor) off the Update loop, whenever the library or the
// answers shown change; an answer whose cited text changed or is gone
// carries a quiet mark, and its citations open on the latest version with
// the old and the new sentence compared above the text (b switches the
// text, and the page view, between the two versions).

// evidence is what the TUI knows of newer versions: every document's
// metadata as last read (its Previous links make the versions; the
// library pane's compact listing has none) and, per saved answer shown,
// what became of its citations.
type evidence struct {
	infos   []docstore.DocInfo
	changes map[string][]reanchor.Change // by answer ID; only answers citing an older version
	aligned *reanchor.Aligner
	// running says a re-anchoring is under way, again that the library
	// or the answers changed since it began: one more follows it, so a
	// burst of changes costs two reads, not one each.
	running, again bool
}

// staleMsg is every document's metadata and what became of the
// citations of the answers shown.
type staleMsg struct {
	infos   []docstore.DocInfo
	changes map[string][]reanchor.Change
	err     error
}

// checkEvidence reads the library's versions and re-anchors the
// citations of the saved answers shown against the latest, in a
// command; while one runs, the next waits for it.
func (m *Model) checkEvidence() tea.Cmd {
	if m.evidence.running {
		m.evidence.again = true
		return nil
	}
	m.evidence.running = true
	return reanchorAnswers(m.opts.Library, m.conv.Answers(), m.evidence.aligned)
}

// reanchorAnswers carries each answer's citations of older versions to
// the latest version of their documents. The answers are finished ones,
// not changed once saved, so the command may read them beside Update.
func reanchorAnswers(lib *docstore.Library, answers []*engine.Answer, aligned *reanchor.Aligner) tea.Cmd {
	return func() tea.Msg {
		// The compact listing, which keeps each document's previous
		// version: one scan, not every metadata record.
		infos, err := lib.Versions().Links()
		if err != nil {
			return staleMsg{err: err}
		}
		newer := reanchor.InLibrary(lib, infos, aligned)
		msg := staleMsg{infos: infos, changes: map[string][]reanchor.Change{}}
		if len(docstore.Superseded(infos)) == 0 {
			return msg // no versions: nothing is stale
		}
		for _, a := range answers {
			ch, err := reanchor.Answer(a, newer)
			if err != nil {
				msg.err = err
				continue
			}
			if len(ch) > 0 {
				msg.changes[a.ID] = ch
			}
		}
		return msg
	}
}

func (msg staleMsg) update(m *Model) tea.Cmd {
	m.evidence.running = false
	var next tea.Cmd
	if m.evidence.again {
		m.evidence.again = false
		next = m.checkEvidence()
	}
	if msg.infos == nil && msg.err != nil {
		m.setNotice("Could not read the documents' versions: "+textproc.OneLine(msg.err.Error()), true)
		return next
	}
	m.evidence.infos = msg.infos
	m.evidence.changes = msg.changes
	ids := map[string]bool{}
	for id, ch := range msg.changes {
		if reanchor.Stale(ch) {
			ids[id] = true
		}
	}
	m.conv.SetStale(ids)
	if msg.err != nil {
		m.setNotice("Could not compare saved answers with the documents' newer versions: "+textproc.OneLine(msg.err.Error()), true)
	}
	return tea.Batch(next, m.reshow())
}

// reshow shows the citation in the source pane again when what a newer
// version made of it is no longer what is shown: a version arrived (or
// was removed) while it was open.
func (m *Model) reshow() tea.Cmd {
	if m.shown == nil || m.pending != nil {
		return nil
	}
	ch, ok := m.changeOf(*m.shown)
	changed := ok && ch.Class != reanchor.Unchanged
	switch {
	case !changed && m.cmp == nil:
		return nil
	case changed && m.cmp != nil && m.cmp.change.To == ch.To && m.cmp.change.Class == ch.Class &&
		m.cmp.change.Start == ch.Start && m.cmp.change.End == ch.End:
		return nil
	}
	c := *m.shown
	c.Focus = false // the keyboard stays where it is
	return m.showCitation(c)
}

// comparison is the citation shown when a newer version of its document
// changed it: the citation, what became of it, and which version the
// text and the page view show.
type comparison struct {
	c      conversation.CitationMsg
	change reanchor.Change
	latest bool
}

// changeOf is what a newer version made of citation c of a saved answer,
// if its document has one.
func (m *Model) changeOf(c conversation.CitationMsg) (reanchor.Change, bool) {
	if c.Answer == "" {
		return reanchor.Change{}, false
	}
	for _, ch := range m.evidence.changes[c.Answer] {
		if ch.Statement == c.Statement && ch.Citation == c.Citation && ch.From == c.Span.Doc {
			return ch, true
		}
	}
	return reanchor.Change{}, false
}

// waitsFor reports whether the citation waiting for its documents needs
// id: the cited version, or the latest when a newer version changed it.
func (m *Model) waitsFor(id docstore.DocID) bool {
	if m.pending == nil {
		return false
	}
	if m.pending.Span.Doc == id {
		return true
	}
	ch, ok := m.changeOf(*m.pending)
	return ok && ch.To == id
}

// showComparison shows citation c, which a newer version of its document
// changed (ch), in the source pane and the page view: the latest
// version's text (or, with latest false, the cited version's) under the
// comparison of the old and the new sentence. Both versions' documents
// are loaded first.
func (m *Model) showComparison(c conversation.CitationMsg, ch reanchor.Change, latest bool) tea.Cmd {
	for _, id := range []docstore.DocID{c.Span.Doc, ch.To} {
		if _, ok := m.docs[id]; !ok {
			m.pending = &c
			return loadDocument(m.opts.Library, id)
		}
	}
	m.pending = nil
	m.cmp = &comparison{c: c, change: ch, latest: latest}
	oldDoc, newDoc := m.docs[c.Span.Doc], m.docs[ch.To]
	cited, newest := m.versionNames(c.Span.Doc, ch.To)

	doc, primary := oldDoc, source.Range{Start: c.Span.Start, End: c.Span.End}
	var others []source.Range
	shown := cited + " (cited)"
	if latest {
		doc, shown = newDoc, newest+" (latest)"
		switch {
		case ch.Class != reanchor.Gone:
			primary = source.Range{Start: ch.Start, End: ch.End}
		case len(ch.Candidates) > 0:
			// Gone: the nearest sentence, which the comparison above
			// calls a candidate, not a match.
			best := ch.Candidates[0]
			primary = source.Range{Start: best.Start, End: best.End}
		default:
			primary = source.Range{}
		}
	} else {
		for _, o := range c.Others {
			if o.Doc == c.Span.Doc {
				others = append(others, source.Range{Start: o.Start, End: o.End})
			}
		}
	}
	m.src.Show(doc, primary, others)
	sc := &source.Change{Class: ch.Class, Cited: cited, Latest: newest, OldText: ch.OldText, Diff: ch.Diff,
		Similarity: ch.Similarity, Page: ch.Page, ShowingLatest: latest}
	for _, cand := range ch.Candidates {
		text := ""
		if cand.Start >= 0 && cand.Start <= cand.End && cand.End <= len(newDoc.Text) {
			text = newDoc.Text[cand.Start:cand.End]
		}
		sc.Candidates = append(sc.Candidates, source.Candidate{Text: text, Page: cand.Page, Similarity: cand.Similarity})
	}
	m.src.SetChange(sc)
	pageOthers := make([]pageview.Span, len(others))
	for i, o := range others {
		pageOthers[i] = pageview.Span{Start: o.Start, End: o.End}
	}
	cmd := m.page.Show(doc, pageview.Span{Start: primary.Start, End: primary.End}, pageOthers)
	// The header names the version drawn and the key to the other.
	other := cited
	if !latest {
		other = newest
	}
	m.page.SetVersion(shown + " · " + m.page.KeyMap.Version.Help().Key + ": " + other)
	if c.Focus {
		return tea.Batch(cmd, m.setFocus(paneSource, false))
	}
	return cmd
}

// versionNames names the cited version and the latest: "version 1",
// "version 2 of 2".
func (m *Model) versionNames(from, to docstore.DocID) (cited, latest string) {
	line := docstore.Lineage(m.evidence.infos, to)
	n, of := 0, len(line)
	for i, d := range line {
		if d.ID == from {
			n = i + 1
		}
	}
	if n == 0 || of == 0 {
		return "the cited version", "the latest version"
	}
	return fmt.Sprintf("version %d", n), fmt.Sprintf("version %d of %d", of, of)
}

// switchVersion is b in the source pane or the page view: the other
// version of the compared citation's document.
func (m *Model) switchVersion() tea.Cmd {
	if m.cmp == nil {
		return nil
	}
	c := m.cmp.c
	c.Focus = false
	cmd := m.showComparison(c, m.cmp.change, !m.cmp.latest)
	if m.cmp.latest {
		m.setNotice("Showing the latest version, the cited sentence's counterpart highlighted.", false)
	} else {
		m.setNotice("Showing the version the answer cited.", false)
	}
	return cmd
}
