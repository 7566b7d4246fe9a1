package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
)

// The saved answers: the latest page at start, older pages as the reader
// scrolls back, answers saved meanwhile by another process when the
// library file changes, and an answer deleted.

// answersMsg is a page of saved answers, newest first: the latest at
// start, older ones as the reader scrolls back.
type answersMsg struct {
	page engine.Page
	err  error
}

// answerPage is how many saved answers are read at a time: a start
// reads only the latest (one record can be megabytes).
const answerPage = 20

func loadAnswers(lib *docstore.Library, before string) tea.Cmd {
	return func() tea.Msg {
		p, err := engine.Recent(lib, before, answerPage)
		return answersMsg{page: p, err: err}
	}
}

func (msg answersMsg) update(m *Model) tea.Cmd {
	if !m.loaded && msg.err == nil {
		m.loaded = true
		if len(msg.page.Answers) > 0 {
			m.newest = max(m.newest, msg.page.Answers[0].ID)
		}
	}
	m.conv.Load(msg.page)
	switch {
	case msg.err != nil:
		m.setNotice("Could not read the saved answers: "+msg.err.Error(), true)
	case msg.page.Skipped > 0:
		m.setNotice(fmt.Sprintf("%d saved answers could not be read and are not shown.", msg.page.Skipped), true)
	}
	return nil
}

// newAnswersMsg carries answers saved since the newest shown (by
// another citelens, say).
type newAnswersMsg struct{ answers []*engine.Answer }

func loadNewAnswers(lib *docstore.Library, after string) tea.Cmd {
	return func() tea.Msg {
		ids, err := lib.NewerAnswers(after, answerPage)
		if err != nil {
			return nil
		}
		var out []*engine.Answer
		for _, id := range ids {
			if a, err := engine.Load(lib, id); err == nil {
				out = append(out, a)
			}
		}
		return newAnswersMsg{answers: out}
	}
}

func (msg newAnswersMsg) update(m *Model) tea.Cmd {
	for _, a := range msg.answers {
		m.newest = max(m.newest, a.ID)
	}
	m.conv.Add(msg.answers)
	return nil
}

// answerDeletedMsg reports a saved answer deleted, or why not.
type answerDeletedMsg struct {
	id  string
	err error
}

func deleteAnswer(lib *docstore.Library, id string) tea.Cmd {
	return func() tea.Msg { return answerDeletedMsg{id: id, err: lib.DeleteAnswer(id)} }
}

func (msg answerDeletedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice("Could not delete the answer: "+msg.err.Error(), true)
		return nil
	}
	m.conv.Remove(msg.id)
	m.setNotice("Deleted the saved answer.", false)
	return nil
}
