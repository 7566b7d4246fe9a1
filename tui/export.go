package tui

import (
	"context"
	"fmt"
	"github.com/citelens/citelens/citations/reanchor"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pageimage"
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
// one edited since, is kept, and the new one is numbered. HTML shows the
// cited regions of PDF pages, drawn by pages.
func exportAnswer(lib *docstore.Library, pages *pageimage.Source, aligned *reanchor.Aligner, dir, format string, ans *engine.Answer) tea.Cmd {
	return func() tea.Msg {
		f, err := citations.LookupFormat(format)
		if err != nil {
			return exportedMsg{err: err}
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		var opts citations.FileOptions
		if pages != nil && f.Name == "html" {
			// Drawn ahead, each PNG encoded while the next is drawn.
			opts.HTML.Pictures = pages.AnswerPictures(context.Background(), ans, lib.Document)
		}
		// The versions it cites, as the command line's exports say them.
		if opts.Provenance, err = reanchor.ProvenanceIn(lib, aligned, ans); err != nil {
			return exportedMsg{err: err}
		}
		path, err := citations.WriteFileWith(dir, ans, f, lib.Document, opts)
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
		return m.exportAnswer(e.Format, e.Answer)
	}
	items := make([]picker.Item, 0, len(citations.Formats))
	for _, f := range citations.Formats {
		items = append(items, picker.Item{Name: f.Name, Description: f.Description})
	}
	m.openPicker(picker.New("format", "Export as", items, "md", m.styles), func(m *Model, it picker.Item) tea.Cmd {
		return m.exportAnswer(it.Name, e.Answer)
	})
	return nil
}

// exportAnswer exports ans, saying on the status line when an HTML
// export's pictures wait for the page renderer's first-ever start.
func (m *Model) exportAnswer(format string, ans *engine.Answer) tea.Cmd {
	if f, err := citations.LookupFormat(format); err == nil && f.Name == "html" && !m.pages.Renderer().Warm() {
		m.setNotice("Exporting: preparing the page renderer for the page pictures (first use only, about 15 s)…", false)
	}
	return exportAnswer(m.opts.Library, m.pages, m.evidence.aligned, m.opts.ExportDir, format, ans)
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
