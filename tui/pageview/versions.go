package pageview

import (
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/tui/internal/pane"
)

// A citation whose document has a newer version (issue 35): the root
// shows the latest version's page with the citation's counterpart
// highlighted, and the header says which version is drawn; b asks for
// the other one, as in the text view.

// VersionMsg asks for the other version of the shown citation's
// document: the cited one or the latest (b).
type VersionMsg struct{}

// SetVersion names the version of the document shown, for the header:
// "version 2 of 2 (latest)"; "" when the citation's document has no
// newer version, and b has nothing to switch to.
func (m *Model) SetVersion(name string) { m.version = name }

// Version returns the version named by SetVersion.
func (m Model) Version() string { return m.version }

// switchVersion is b: the other version, when there is one.
func (m Model) switchVersion() pane.Action {
	if m.version == "" {
		return pane.Notice{Text: "This citation's document has no newer version: there is no other version to show."}
	}
	return VersionMsg{}
}

// Shown returns the document shown and its highlighted span: which
// version the view draws, for the root and its tests.
func (m Model) Shown() (*docstore.Document, Span) { return m.doc, m.span }
