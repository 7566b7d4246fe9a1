package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// exportFileName is where an answer is exported in dir: the answer's ID
// names it, so exporting again rewrites the same file.
func exportFileName(dir string, f citations.Format, ans *engine.Answer) string {
	ext := f.Ext
	if f.Name != f.Ext {
		ext = f.Name + "." + f.Ext // citelens-answer-ID.longbench.json
	}
	return filepath.Join(dir, "citelens-answer-"+ans.ID+"."+ext)
}

func exportAnswer(lib *docstore.Library, pages *pageimage.Source, dir, format string, ans *engine.Answer) tea.Cmd {
	return func() tea.Msg {
		f, err := citations.LookupFormat(format)
		if err != nil {
			return exportedMsg{err: err}
		}
		path := exportFileName(dir, f, ans)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		// Written beside and renamed, so a failed export leaves no
		// half-written file where the last good one was.
		tmp, err := os.CreateTemp(filepath.Dir(path), ".citelens-export-*")
		if err != nil {
			return exportedMsg{err: fmt.Errorf("cannot write the export in %s: %w", filepath.Dir(path), unwrapPath(err))}
		}
		if f.Name == "html" && pages != nil {
			// With the cited regions of PDF pages, highlighted.
			err = citations.WriteHTMLWith(tmp, ans, citations.HTMLOptions{Pictures: pages.HTMLPictures(context.Background(), lib.Document)})
		} else {
			err = citations.Export(tmp, f.Name, ans, lib.Document)
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			_ = os.Chmod(tmp.Name(), 0o644)
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return exportedMsg{err: err}
		}
		return exportedMsg{path: path}
	}
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
	return exportAnswer(m.opts.Library, m.pages, m.opts.ExportDir, format, ans)
}

// copyCitation copies a citation's text to the clipboard (OSC 52).
func (m *Model) copyCitation(c conversation.CopyMsg) tea.Cmd {
	text := clipboardText(c.Text)
	m.setNotice(fmt.Sprintf("Copied %s (%d characters) to the clipboard.", c.Label, len([]rune(text))), false)
	return tea.SetClipboard(text)
}

// clipboardText is a quote as copied: exact, except for control
// characters (escape sequences among them), which a paste into a
// terminal would act on, and bidi overrides, which would make the pasted
// text read differently from what it holds (textproc.Pasteable).
func clipboardText(s string) string { return textproc.Pasteable(s) }
