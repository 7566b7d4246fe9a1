package tui

import (
	"fmt"
	"maps"
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
		// Below the oldest answer read lies the history not loaded yet:
		// answers that were there when the TUI looked, which come with
		// the older pages as the reader scrolls back, never as new.
		m.history = ""
		if msg.page.More {
			m.history = msg.page.Oldest
		}
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
	if len(msg.page.Answers) == 0 {
		return nil
	}
	return m.checkEvidence() // an older page's answers may cite older versions
}

// newAnswersMsg carries answers saved since the TUI last looked (by
// another citelens, say), oldest first, and the IDs listed to find them;
// more says others remain to be loaded.
type newAnswersMsg struct {
	answers []*engine.Answer
	listed  []string
	more    bool
}

// lookBack is how long before the newest answer known answers saved
// since are looked for. An answer's ID is the time it was asked
// (docstore.NewAnswerID), and one asked elsewhere before the newest here
// is saved when it is done, after it: looking only past the newest would
// miss it.
const lookBack = time.Hour

// newBatch bounds the answers loaded by one look: a script saving
// hundreds at once shows them over a few looks, not in one long read.
const newBatch = 4 * answerPage

// lookForNewAnswers looks for answers saved since the TUI last looked,
// once the first page has come: those after lookBack before the newest
// known and after the history not loaded yet (m.history), except those
// seen. Looking from the newest alone took the history not loaded yet,
// saved within lookBack, for new (issue 32).
func (m *Model) lookForNewAnswers() tea.Cmd {
	if !m.loaded {
		return nil
	}
	return loadNewAnswers(m.opts.Library, max(answerIDBefore(m.newest, lookBack), m.history), maps.Clone(m.seen))
}

// loadNewAnswers loads the answers whose IDs sort after after, except
// those seen (a copy: the command runs beside Update), oldest first, at
// most newBatch.
func loadNewAnswers(lib *docstore.Library, after string, seen map[string]bool) tea.Cmd {
	return func() tea.Msg {
		var msg newAnswersMsg
		for {
			// IDs only, a chunk at a time: every one since after is
			// listed, however many of them were seen before.
			const chunk = 512
			ids, err := lib.Answers().Newer(after, chunk)
			if err != nil {
				return nil
			}
			for _, id := range ids {
				if seen[id] {
					continue
				}
				if len(msg.listed) == newBatch {
					msg.more = true
					return msg
				}
				msg.listed = append(msg.listed, id)
				if a, err := engine.Load(lib, id); err == nil {
					msg.answers = append(msg.answers, a)
				}
			}
			if len(ids) < chunk {
				return msg
			}
			after = ids[len(ids)-1]
		}
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
		add = append(add, a)
	}
	for _, id := range msg.listed {
		if m.run == nil || id < m.run.since {
			m.sawAnswer(id) // one that could not be read is not read again
		}
	}
	m.conv.Add(add)
	var check tea.Cmd
	if len(add) > 0 {
		check = m.checkEvidence() // the answers added may cite older versions
	}
	if msg.more && m.run == nil {
		return tea.Batch(m.lookForNewAnswers(), check)
	}
	return check
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
