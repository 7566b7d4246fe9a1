package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/conversation"
)

// The library's list: loaded at start and whenever the library changes
// (another citelens, on this machine or, for a library on a server,
// another, added, removed or answered), as the library tells
// (docstore.Library.Watch: a server's notifications, a file's changes on
// the disk); the scope the next question is asked of; a document removed
// or opened from the library pane.

// shelf is what the library pane's commands use of the library: its
// changes, watched, the compact listing the pane shows, and removal of a
// document. A *docstore.Library is one.
type shelf interface {
	Watch(ctx context.Context, changed func()) error
	Listing(offset, n int) (entries []docstore.ListEntry, total int, err error)
	Remove(ids ...docstore.DocID) error
}

// libraryMsg is the library's document list.
type libraryMsg struct {
	docs []docstore.DocInfo
	err  error
}

// loadLibrary reads the library's compact listing (a 100,000-document
// library in tens of milliseconds); a document's full metadata is read
// when it is opened.
func loadLibrary(lib shelf) tea.Cmd {
	return func() tea.Msg {
		entries, _, err := lib.Listing(0, 0)
		docs := make([]docstore.DocInfo, len(entries))
		for i, e := range entries {
			docs[i] = e.Info()
		}
		return libraryMsg{docs: docs, err: err}
	}
}

func (msg libraryMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.lib.SetError(msg.err)
	} else {
		m.lib.SetError(nil)
		if out := m.lib.SetDocs(msg.docs); len(out) > 0 {
			names := make([]string, len(out))
			for i, d := range out {
				names[i] = textproc.OneLine(d.Name)
			}
			m.setNotice(fmt.Sprintf("Added elsewhere, left out of the scope you chose: %s (space in the library puts it in).",
				strings.Join(names, ", ")), false)
		}
	}
	m.syncScope()
	m.layout()
	return m.checkEvidence()
}

// libraryWatchMsg says the watch of the library has started, its changes
// coming on changes, or why it could not (err).
type libraryWatchMsg struct {
	changes <-chan struct{}
	err     error
}

// libraryChangedMsg says the library changed since the list and the
// answers were last read.
type libraryChangedMsg struct{ changes <-chan struct{} }

// watchLibrary starts watching the library until ctx ends (the program's
// Shutdown). The library's calls become one pending change at most: the
// list is read again once per burst, however many commits it holds.
func watchLibrary(ctx context.Context, lib shelf) tea.Cmd {
	return func() tea.Msg {
		changes := make(chan struct{}, 1)
		err := lib.Watch(ctx, func() {
			select {
			case changes <- struct{}{}:
			default: // a change is pending already
			}
		})
		return libraryWatchMsg{changes: changes, err: err}
	}
}

// reloadGap is the least time between two reads of the list for changes:
// a server tells of every commit, and a bulk add elsewhere commits many
// a second; what changed meanwhile is read at the end of the gap, well
// within a second.
const reloadGap = 100 * time.Millisecond

// nextChange waits for the library's next change, not before after.
func nextChange(ctx context.Context, changes <-chan struct{}, after time.Duration) tea.Cmd {
	return func() tea.Msg {
		if after > 0 {
			select {
			case <-time.After(after):
			case <-ctx.Done():
				return nil
			}
		}
		select {
		case <-changes:
			return libraryChangedMsg{changes: changes}
		case <-ctx.Done():
			return nil
		}
	}
}

func (msg libraryWatchMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice("What other processes add will not show until a restart: "+textproc.OneLine(msg.err.Error()), true)
		return nil
	}
	// The first list may have been read before the watch began: read
	// again, so nothing committed between the two is missed.
	return tea.Batch(loadLibrary(m.opts.Library), m.lookForNewAnswers(), nextChange(m.bg.ctx, msg.changes, 0))
}

func (msg libraryChangedMsg) update(m *Model) tea.Cmd {
	return tea.Batch(loadLibrary(m.opts.Library), nextChange(m.bg.ctx, msg.changes, reloadGap), m.lookForNewAnswers())
}

// libraryWaitMsg says a transaction waits for another process's write.
type libraryWaitMsg struct{}

func (libraryWaitMsg) update(m *Model) tea.Cmd {
	m.setNotice("Another process is writing to the library; waiting for it…", false)
	return nil
}

// removedMsg reports a document removed, or why not.
type removedMsg struct {
	doc docstore.DocInfo
	err error
}

func removeDocument(lib shelf, d docstore.DocInfo) tea.Cmd {
	return func() tea.Msg { return removedMsg{doc: d, err: lib.Remove(d.ID)} }
}

func (msg removedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice(fmt.Sprintf("Could not remove %s: %s", msg.doc.Name, msg.err), true)
		return nil
	}
	delete(m.docs, msg.doc.ID)
	m.setNotice(fmt.Sprintf("Removed %s from the library; saved answers that cite it keep their quotes.", textproc.OneLine(msg.doc.Name)), false)
	return loadLibrary(m.opts.Library)
}

// openDocument shows a document in the source pane from its start: a
// citation of nothing at 0.
func (m *Model) openDocument(d docstore.DocInfo) tea.Cmd {
	return m.showCitation(conversation.CitationMsg{
		Span: citations.Span{Doc: d.ID}, Focus: true, Label: textproc.OneLine(d.Name)})
}

// syncScope tells the conversation what the next question is asked of.
func (m *Model) syncScope() {
	n, of := m.lib.InScope()
	var s string
	switch {
	case of == 0:
		s = "no documents yet"
	case n == of && n == 1:
		s = "the one document"
	case n == of:
		s = fmt.Sprintf("all %d documents", n)
	case n == of-m.lib.Older() && n == 1:
		// Every document, but the older versions: the whole library as
		// it now reads.
		s = "the one document (latest)"
	case n == of-m.lib.Older():
		s = fmt.Sprintf("all %d documents (latest)", n)
	default:
		s = fmt.Sprintf("%d of %d documents", n, of)
	}
	m.conv.SetScope(s)
}

func sameScope(a, b []docstore.DocID) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
