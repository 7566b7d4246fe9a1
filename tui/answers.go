package tui

import (
	"fmt"
	"strconv"
	"time"

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
	if msg.err == nil {
		m.loaded = true
	}
	for _, a := range msg.page.Answers {
		m.sawAnswer(a.ID)
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

// lookBack is how long before the newest answer known answers saved
// since are looked for. An answer's ID is the time it was asked
// (docstore.NewAnswerID), and one asked elsewhere before the newest here
// is saved when it is done, after it: looking only past the newest would
// miss it.
const lookBack = time.Hour

// loadNewAnswers loads the answers saved since about lookBack before the
// answer after, except those seen (a copy: the command runs beside
// Update).
func loadNewAnswers(lib *docstore.Library, after string, seen map[string]bool) tea.Cmd {
	return func() tea.Msg {
		ids, err := lib.Answers().Newer(answerIDBefore(after, lookBack), 4*answerPage)
		if err != nil {
			return nil
		}
		var out []*engine.Answer
		for _, id := range ids {
			if seen[id] {
				continue
			}
			if a, err := engine.Load(lib, id); err == nil {
				out = append(out, a)
			}
		}
		return newAnswersMsg{answers: out}
	}
}

// answerIDBefore is an ID that sorts before every answer asked d before
// the answer id; IDs begin with when they were asked, in milliseconds,
// in hex (docstore.NewAnswerID). An ID of another shape is kept.
func answerIDBefore(id string, d time.Duration) string {
	const digits = 11
	if len(id) < digits {
		return id
	}
	ms, err := strconv.ParseInt(id[:digits], 16, 64)
	if err != nil {
		return id
	}
	return fmt.Sprintf("%0*x", digits, max(ms-d.Milliseconds(), 0))
}

func (msg newAnswersMsg) update(m *Model) tea.Cmd {
	var add []*engine.Answer
	for _, a := range msg.answers {
		if m.run != nil && a.ID >= m.run.since {
			// Perhaps the one being written here, saved before it is
			// said to be done: looked at again once it is.
			continue
		}
		m.sawAnswer(a.ID)
		add = append(add, a)
	}
	m.conv.Add(add)
	return nil
}

// sawAnswer notes an answer shown, or written here, so that it is not
// loaded again as new.
func (m *Model) sawAnswer(id string) {
	m.newest = max(m.newest, id)
	m.seen[id] = true
}

// answerDeletedMsg reports a saved answer deleted, or why not.
type answerDeletedMsg struct {
	id  string
	err error
}

func deleteAnswer(lib *docstore.Library, id string) tea.Cmd {
	return func() tea.Msg { return answerDeletedMsg{id: id, err: lib.Answers().Delete(id)} }
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
