package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/pageview"
	"github.com/citelens/citelens/tui/source"
)

// Showing a citation: the source pane shows the cited document around the
// citation, highlighted, loading the document first the first time.

// docMsg is a document loaded for the source pane.
type docMsg struct {
	id  docstore.DocID
	doc *docstore.Document
	err error
}

func loadDocument(lib *docstore.Library, id docstore.DocID) tea.Cmd {
	return func() tea.Msg {
		d, err := lib.Document(id)
		return docMsg{id: id, doc: d, err: err}
	}
}

func (msg docMsg) update(m *Model) tea.Cmd {
	if msg.err == nil {
		m.docs[msg.id] = msg.doc
	}
	if !m.waitsFor(msg.id) {
		return nil
	}
	c := *m.pending
	m.pending = nil
	if msg.err != nil {
		m.setNotice(fmt.Sprintf("Cannot show %s: %s", c.Label, msg.err), true)
		return nil
	}
	return m.showCitation(c)
}

// showCitation shows c in the source pane, loading its document first if
// need be.
func (m *Model) showCitation(c conversation.CitationMsg) tea.Cmd {
	m.shown = &c
	if ch, ok := m.changeOf(c); ok && ch.Class != reanchor.Unchanged {
		return m.showComparison(c, ch, true)
	}
	m.cmp = nil
	m.src.SetChange(nil)
	m.page.SetVersion("")
	doc, ok := m.docs[c.Span.Doc]
	if !ok {
		m.pending = &c
		return loadDocument(m.opts.Library, c.Span.Doc)
	}
	m.pending = nil // a citation asked for earlier must not replace this one
	primary := source.Range{Start: c.Span.Start, End: c.Span.End}
	var others []source.Range
	for _, o := range c.Others {
		if o.Doc == c.Span.Doc {
			others = append(others, source.Range{Start: o.Start, End: o.End})
		}
	}
	m.src.Show(doc, primary, others)
	pageOthers := make([]pageview.Span, len(others))
	for i, o := range others {
		pageOthers[i] = pageview.Span{Start: o.Start, End: o.End}
	}
	cmd := tea.Batch(m.page.Show(doc, pageview.Span{Start: primary.Start, End: primary.End}, pageOthers), m.prefetchNext())
	if c.Focus {
		return tea.Batch(cmd, m.setFocus(paneSource, false))
	}
	return cmd
}
