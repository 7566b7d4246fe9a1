package tui

import (
	"bytes"
	"context"
	"fmt"
	"github.com/citelens/citelens/citations/reanchor"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/internal/pane"
	"github.com/citelens/citelens/tui/picker"
	"github.com/citelens/citelens/tui/threads"
)

// The history of conversations: the threads dialog (tui/threads) opened
// with threadsKey from anywhere, the threads read, resumed, renamed,
// exported and copied whole off the Update loop; and a whole answer
// copied (conversation.CopyAnswerMsg).

// threadsKey opens the threads dialog: no text needs ctrl+t, so it works
// while typing too (KEYS.md rule 1).
var threadsKey = key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "threads: resume, rename, filter, export, copy"))

// threadsHelp is the help screen's section of the threads' keys, with
// the conversation's keys for a whole answer and for finding answers by
// words (conversation.KeyMap.List.CopyAnswer, Search).
func (m Model) threadsHelp() helpSection {
	copyAnswer := m.conv.KeyMap.List.CopyAnswer
	tk := threads.DefaultKeyMap()
	return helpSection{"Threads (the conversations kept) and whole answers", [][]key.Binding{
		{threadsKey, copyAnswer, m.conv.KeyMap.List.Search}, {tk.Down, tk.Up, tk.Resume, tk.Close}, {tk.Rename, tk.Export, tk.Copy},
	}}
}

// threadsLoadedMsg carries the threads of saved answers, newest first.
type threadsLoadedMsg struct {
	threads []threads.Thread
	err     error
}

// loadThreads reads the threads and the words of their answers, for the
// dialog's filter. Every answer is read: the filter looks in what they
// say.
func loadThreads(lib *docstore.Library) tea.Cmd {
	return func() tea.Msg {
		metas, err := lib.Answers().Threads()
		if err != nil {
			return threadsLoadedMsg{err: err}
		}
		out := make([]threads.Thread, 0, len(metas))
		for _, t := range metas {
			words := &citations.Answer{}
			for _, id := range t.Answers {
				a, err := engine.Load(lib, id)
				if err != nil {
					continue // listed still, found by the words of the others
				}
				words.Question += a.Question + "\n"
				words.Statements = append(words.Statements, a.Statements...)
			}
			out = append(out, threads.Thread{ThreadMeta: t, Words: words})
		}
		return threadsLoadedMsg{threads: out}
	}
}

func (msg threadsLoadedMsg) update(m *Model) tea.Cmd {
	if m.threads != nil {
		m.threads.SetThreads(msg.threads, msg.err)
	}
	return nil
}

// openThreads opens the threads dialog and reads the threads.
func (m *Model) openThreads() tea.Cmd {
	t := threads.New(m.styles)
	if m.opts.Now != nil {
		t.Now = m.opts.Now
	}
	m.threads = &t
	return loadThreads(m.opts.Library)
}

// updateThreads gives msg to the open threads dialog and carries out
// what it asks.
func (m *Model) updateThreads(msg tea.Msg) tea.Cmd {
	t, cmd, act := m.threads.Update(msg)
	m.threads = &t
	if _, ok := act.(pane.Close); ok {
		// The dialog's, not a pane's giving the keyboard back.
		m.threads = nil
		return cmd
	}
	return tea.Batch(cmd, m.act(act))
}

// actThreads carries out the threads dialog's actions and a whole
// answer's copy; ok is false for any other action.
func (m *Model) actThreads(a pane.Action) (tea.Cmd, bool) {
	lib := m.opts.Library
	switch a := a.(type) {
	case threads.ResumeMsg:
		if m.run != nil || m.waiting != nil {
			m.setNotice("An answer is being written: wait, or cancel it, before resuming a thread.", true)
			return nil, true
		}
		return resumeThread(lib, a.ID, a.Name), true
	case threads.RenameMsg:
		return renameThread(lib, a.ID, a.Name), true
	case threads.ExportMsg:
		m.threads = nil
		var items []picker.Item
		for _, f := range citations.Formats {
			if f.Name != "longbench" { // one answer's record
				items = append(items, picker.Item{Name: f.Name, Description: f.Description})
			}
		}
		m.openPicker(picker.New("format", "Export the thread as", items, "md", m.styles), func(m *Model, it picker.Item) tea.Cmd {
			if it.Name == "html" && !m.pages.Renderer().Warm() {
				m.setNotice("Exporting: preparing the page renderer for the page pictures (first use only, about 15 s)…", false)
			}
			return exportThread(lib, m.pages, m.evidence.aligned, m.opts.ExportDir, it.Name, a.ID)
		})
		return nil, true
	case threads.CopyMsg:
		return copyThread(lib, a.ID), true
	case conversation.SearchMsg:
		cmd := m.openThreads()
		return tea.Batch(cmd, m.threads.StartFilter()), true
	case conversation.CopyAnswerMsg:
		var buf bytes.Buffer
		if err := citations.WriteMarkdown(&buf, a.Answer); err != nil {
			m.setNotice("Could not copy the answer: "+err.Error(), true)
			return nil, true
		}
		text := clipboardText(buf.String())
		m.setNotice(fmt.Sprintf("Copied the whole answer with its evidence, as Markdown (%d characters), to the clipboard.", len([]rune(text))), false)
		return tea.SetClipboard(text), true
	}
	return nil, false
}

// readThread reads the thread id names with its answers, oldest first.
func readThread(lib *docstore.Library, id string) (*citations.Thread, error) {
	meta, err := lib.Answers().Thread(id)
	if err != nil {
		return nil, err
	}
	t := &citations.Thread{ID: meta.ID, Name: meta.Name}
	for _, aid := range meta.Answers {
		a, err := engine.Load(lib, aid)
		if err != nil {
			return nil, err
		}
		t.Answers = append(t.Answers, a)
	}
	return t, nil
}

// threadResumedMsg carries a thread to show in the conversation.
type threadResumedMsg struct {
	thread *citations.Thread
	err    error
}

func resumeThread(lib *docstore.Library, id, name string) tea.Cmd {
	return func() tea.Msg {
		t, err := readThread(lib, id)
		if err != nil {
			err = fmt.Errorf("could not resume “%s”: %w", textproc.OneLine(name), err)
		}
		return threadResumedMsg{thread: t, err: err}
	}
}

func (msg threadResumedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice(msg.err.Error(), true)
		return nil
	}
	if m.run != nil || m.waiting != nil {
		m.setNotice("An answer is being written: wait, or cancel it, before resuming a thread.", true)
		return nil
	}
	m.threads = nil
	for _, a := range msg.thread.Answers {
		m.sawAnswer(a.ID)
	}
	notice := m.act(m.conv.ShowThread(msg.thread.ID, msg.thread.Name, msg.thread.Answers))
	return tea.Batch(notice, m.setFocus(paneConversation, true))
}

// threadRenamedMsg reports a thread renamed, or why not.
type threadRenamedMsg struct {
	thread docstore.ThreadMeta
	err    error
}

func renameThread(lib *docstore.Library, id, name string) tea.Cmd {
	return func() tea.Msg {
		t, err := lib.Answers().RenameThread(id, name)
		return threadRenamedMsg{thread: t, err: err}
	}
}

func (msg threadRenamedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice("Could not rename the thread: "+msg.err.Error(), true)
		return nil
	}
	m.setNotice("Renamed the thread “"+textproc.OneLine(msg.thread.Name)+"”.", false)
	if m.threads != nil {
		return loadThreads(m.opts.Library)
	}
	return nil
}

// exportThread writes the whole thread id in format into dir
// (citations.WriteThreadFile), HTML with the cited regions of PDF pages.
func exportThread(lib *docstore.Library, pages *pageimage.Source, aligned *reanchor.Aligner, dir, format, id string) tea.Cmd {
	return func() tea.Msg {
		f, err := citations.LookupFormat(format)
		if err != nil {
			return exportedMsg{err: err}
		}
		t, err := readThread(lib, id)
		if err != nil {
			return exportedMsg{err: err}
		}
		var opts citations.ThreadOptions
		if pages != nil && f.Name == "html" {
			// Drawn ahead, each PNG encoded while the next is drawn.
			opts.HTMLPictures = pages.AnswerPictures(context.Background(), t.Statements(), lib.Document)
		}
		// The versions it cites, as an answer's export says them.
		if opts.Provenance, err = reanchor.ThreadProvenanceIn(lib, aligned, t.Answers); err != nil {
			return exportedMsg{err: err}
		}
		path, err := citations.WriteThreadFile(dir, t, f, opts)
		return exportedMsg{path: path, err: err}
	}
}

// threadCopiedMsg carries a whole thread as Markdown, for the clipboard.
type threadCopiedMsg struct {
	text    string
	name    string
	answers int
	err     error
}

func copyThread(lib *docstore.Library, id string) tea.Cmd {
	return func() tea.Msg {
		t, err := readThread(lib, id)
		if err != nil {
			return threadCopiedMsg{err: err}
		}
		var buf bytes.Buffer
		if err := citations.WriteThread(&buf, "md", t, citations.ThreadOptions{}); err != nil {
			return threadCopiedMsg{err: err}
		}
		return threadCopiedMsg{text: clipboardText(buf.String()), name: t.Name, answers: len(t.Answers)}
	}
}

func (msg threadCopiedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice("Could not copy the thread: "+msg.err.Error(), true)
		return nil
	}
	m.setNotice(fmt.Sprintf("Copied “%s”, %s with their evidence, as Markdown (%d characters), to the clipboard.",
		textproc.OneLine(msg.name), humanize.Plural(msg.answers, "answer", "answers"), len([]rune(msg.text))), false)
	return tea.SetClipboard(msg.text)
}
