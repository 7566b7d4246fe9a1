package tui

import (
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/conversation"
)

// The library's list: loaded at start and whenever the library file
// changes (another citelens added, removed or answered), which is looked
// at twice a second; the scope the next question is asked of; a
// document removed or opened from the library pane.

// shelf is what the library pane's commands use of the library: its
// file, whose changes are watched, the compact listing the pane shows,
// and removal of a document. A *docstore.Library is one.
type shelf interface {
	Path() string
	Listing(offset, n int) (entries []docstore.ListEntry, total int, err error)
	Remove(ids ...docstore.DocID) error
}

// libraryMsg is the library's document list, and how the file looked
// just before it was read (changes after that are noticed).
type libraryMsg struct {
	docs  []docstore.DocInfo
	err   error
	stamp libraryStamp
}

// loadLibrary reads the library's compact listing (a 100,000-document
// library in tens of milliseconds); a document's full metadata is read
// when it is opened.
func loadLibrary(lib shelf) tea.Cmd {
	return func() tea.Msg {
		stamp := stampOf(lib.Path())
		entries, _, err := lib.Listing(0, 0)
		docs := make([]docstore.DocInfo, len(entries))
		for i, e := range entries {
			docs[i] = e.Info()
		}
		return libraryMsg{docs: docs, err: err, stamp: stamp}
	}
}

func (msg libraryMsg) update(m *Model) tea.Cmd {
	if m.stamp == (libraryStamp{}) {
		m.stamp = msg.stamp // the first list: what it read is known
	}
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
	return nil
}

// libraryStamp is what a look at the library file tells of changes.
type libraryStamp struct {
	size int64
	mod  time.Time
}

// stampOf looks at the library file; the zero stamp when it cannot.
func stampOf(path string) libraryStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return libraryStamp{}
	}
	return libraryStamp{size: fi.Size(), mod: fi.ModTime()}
}

// libraryChangedMsg says the library file changed since last looked at
// (another citelens added or answered); libraryTickMsg that it did not.
type (
	libraryChangedMsg struct{ stamp libraryStamp }
	libraryTickMsg    struct{ stamp libraryStamp }
)

// watchEvery is how often the library file is looked at: what another
// process adds shows within a second.
const watchEvery = 500 * time.Millisecond

// watchLibrary looks at the library file after watchEvery and reports
// whether it changed from last.
func watchLibrary(path string, last libraryStamp) tea.Cmd {
	return tea.Tick(watchEvery, func(time.Time) tea.Msg {
		now := stampOf(path)
		if now == (libraryStamp{}) || last == (libraryStamp{}) {
			return libraryTickMsg{} // no list read yet to compare with
		}
		if now != last {
			return libraryChangedMsg{stamp: now}
		}
		return libraryTickMsg{stamp: last}
	})
}

func (msg libraryChangedMsg) update(m *Model) tea.Cmd {
	m.stamp = msg.stamp
	return tea.Batch(loadLibrary(m.opts.Library), watchLibrary(m.opts.Library.Path(), m.stamp), m.lookForNewAnswers())
}

func (msg libraryTickMsg) update(m *Model) tea.Cmd {
	return watchLibrary(m.opts.Library.Path(), m.stamp)
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
