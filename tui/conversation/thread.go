package conversation

import (
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/internal/pane"
)

// Threads: the conversation kept in the library (docstore's threads). A
// follow-up records the thread it continues (engine.Request.Thread), and
// a thread picked from the history (tui/threads) is shown alone, its next
// question following up on its last answer.

// CopyAnswerMsg copies a whole answer to the clipboard: its statements
// and every citation's quote with where it is from, as its Markdown
// export writes them.
type CopyAnswerMsg struct{ Answer *engine.Answer }

// SearchMsg asks for the saved answers to be searched by words: the
// threads dialog, its filter open.
type SearchMsg struct{}

// Thread is the thread a question asked now as a follow-up continues:
// that of the current topic's last answer (the ID of an answer of it,
// which the library resolves), "" when there is nothing to follow up on.
func (m Model) Thread() string {
	for i := len(m.entries) - 1; i >= min(m.topic, len(m.entries)); i-- {
		e := m.entries[i]
		if e.foreign || e.streaming || e.ans == nil || len(e.stmts) == 0 {
			continue
		}
		if e.ans.Thread != "" {
			return e.ans.Thread
		}
		return e.ans.ID
	}
	return ""
}

// ShowThread shows the thread id, named name, alone: its answers (oldest
// first) are the conversation, the history before them is put away as
// clear puts it, and the next question follows up on the last answer
// whatever its words (ctrl+f still makes it a new topic).
func (m *Model) ShowThread(id, name string, answers []*engine.Answer) pane.Action {
	if m.Streaming() {
		return pane.Notice{Text: "An answer is being written: wait, or cancel it first.", Error: true}
	}
	m.entries, m.sel, m.top, m.topic = nil, noSel, pos{}, 0
	m.older.more, m.cleared = false, true
	for _, a := range answers {
		if a.Thread == "" && a.ID != id {
			// Joined to the thread by its question (saved before
			// threads): a follow-up names the thread itself.
			a.Thread = id
		}
		m.entries = append(m.entries, entryOf(a))
	}
	m.choice = chooseFollowUp
	if len(m.Turns()) == 0 {
		m.choice = chooseAuto
	}
	m.cache.clear()
	m.selectNewest()
	m.follow = true
	m.settle()
	return pane.Notice{Text: "Resumed “" + textproc.OneLine(name) + "”: the next question follows up on it (" +
		m.KeyMap.Input.FollowUp.Help().Key + ": new topic)."}
}

// copyAnswer asks for the selected answer to be copied whole.
func (m *Model) copyAnswer() pane.Action {
	e, act := m.selectedAnswer("copy")
	if e == nil {
		return act
	}
	return CopyAnswerMsg{Answer: e.ans}
}
