package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/picker"
)

// Taking an answer out: exported to a file (Markdown, or a format chosen
// in a picker) in Options.ExportDir, or a citation copied to the
// clipboard.

// exportedMsg reports an export written, or why not.
type exportedMsg struct {
	path string
	err  error
}

// exportAnswer writes ans in format into dir under a readable name
// (citations.FileName: the day and the question's first words) that never
// replaces a file already there: a second export of the same answer, or
// one edited since, is kept, and the new one is numbered.
func exportAnswer(lib *docstore.Library, dir, format string, ans *engine.Answer) tea.Cmd {
	return func() tea.Msg {
		f, err := citations.LookupFormat(format)
		if err != nil {
			return exportedMsg{err: err}
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		path, err := citations.WriteFile(dir, ans, f, lib.Document)
		return exportedMsg{path: path, err: err}
	}
}

func (msg exportedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice("Export failed: "+msg.err.Error(), true)
	} else {
		m.setNotice("Exported to "+msg.path, false)
	}
	return nil
}

// export exports an answer in its format, or, with none, lets the user
// choose one first.
func (m *Model) export(e conversation.ExportMsg) tea.Cmd {
	if e.Format != "" {
		return exportAnswer(m.opts.Library, m.opts.ExportDir, e.Format, e.Answer)
	}
	items := make([]picker.Item, 0, len(citations.Formats))
	for _, f := range citations.Formats {
		items = append(items, picker.Item{Name: f.Name, Description: f.Description})
	}
	m.openPicker(picker.New("format", "Export as", items, "md", m.styles), func(m *Model, it picker.Item) tea.Cmd {
		return exportAnswer(m.opts.Library, m.opts.ExportDir, it.Name, e.Answer)
	})
	return nil
}

// copyCitation copies a citation to the clipboard (OSC 52): the quote,
// then where it is from, so that it can be pasted into a note and still
// be checked.
func (m *Model) copyCitation(c conversation.CopyMsg) tea.Cmd {
	text := clipboardText(copied(c.Span))
	m.setNotice(fmt.Sprintf("Copied %s with its document and page (%d characters) to the clipboard.", c.Label, len([]rune(text))), false)
	return tea.SetClipboard(text)
}

// copied is a citation as copied: its text as it is, and on a line of
// its own the document and page, "— manual.pdf, p. 316 (PDF p. 347)".
func copied(sp citations.Span) string {
	name := sp.DocName
	if name == "" {
		name = string(sp.Doc)
	}
	return strings.TrimRight(sp.Text, "\n") + "\n— " + textproc.OneLine(name) + ", " + sp.PageLabel()
}

// clipboardText is a quote as copied: exact, except for control
// characters (escape sequences among them), which a paste into a
// terminal would act on, and bidi overrides, which would make the pasted
// text read differently from what it holds (textproc.Pasteable).
func clipboardText(s string) string { return textproc.Pasteable(s) }
