package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/humanize"
)

// Asking: a question runs its strategy in a goroutine that feeds a
// channel of events; a command reads the channel one batch at a time and
// the handler asks for the next, as charmbracelet/mods streams
// completions. A question asked while documents are being added waits
// for them.

// askRun is an answer being written: engine.Run in a goroutine, its
// events on a channel.
type askRun struct {
	id int
	// since sorts before the ID of the answer being written (see
	// answerIDBefore).
	since    string
	events   chan engine.Event
	cancel   context.CancelFunc
	strategy string
	docs     []docstore.DocID

	// Set by the goroutine before it closes events.
	ans     *engine.Answer
	err     error
	saveErr error
}

// askEventsMsg carries the events that were waiting, in order.
type askEventsMsg struct {
	id     int
	events []engine.Event
}

// askDoneMsg reports the answer finished (or cancelled, or failed) and
// saved, with the strategy and scope it was asked with.
type askDoneMsg struct {
	id       int
	ans      *engine.Answer
	err      error
	saveErr  error
	strategy string
	docs     []docstore.DocID
}

// waitingAsk is a question asked while documents were being added: it is
// asked once they are in.
type waitingAsk struct {
	question string
	history  []engine.Turn
	added    []docstore.DocID // the documents added meanwhile
}

// startAsk runs strategy on req in the background and returns the run;
// its next command delivers the first events.
func startAsk(bg *background, id int, env *engine.Env, strategy string, req engine.Request) *askRun {
	ctx, cancel := context.WithCancel(bg.ctx)
	r := &askRun{id: id, events: make(chan engine.Event, 256), cancel: cancel, strategy: strategy, docs: req.Docs}
	bg.wg.Add(1)
	go func() {
		defer bg.wg.Done()
		defer close(r.events)
		defer cancel()
		s, err := engine.New(strategy, env)
		if err != nil {
			r.err = err
			return
		}
		r.ans, r.err = engine.Run(ctx, env, s, req, func(ev engine.Event) {
			select {
			case r.events <- ev:
			case <-ctx.Done():
				// The statements are in the answer Run returns; the
				// display only misses them until then.
			}
		})
		if r.ans != nil {
			r.saveErr = engine.Save(env.Library, r.ans)
		}
	}()
	return r
}

// maxBatch bounds the events delivered in one message, so a flood of
// deltas still lets frames through.
const maxBatch = 256

// next returns the command that waits for the run's next events: the
// first that comes and any already queued behind it.
func (r *askRun) next() tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-r.events
		if !ok {
			return askDoneMsg{id: r.id, ans: r.ans, err: r.err, saveErr: r.saveErr, strategy: r.strategy, docs: r.docs}
		}
		evs := []engine.Event{ev}
		for len(evs) < maxBatch {
			select {
			case ev, ok := <-r.events:
				if !ok {
					return askEventsMsg{id: r.id, events: evs} // done comes next
				}
				evs = append(evs, ev)
				continue
			default:
			}
			break
		}
		return askEventsMsg{id: r.id, events: evs}
	}
}

func (msg askEventsMsg) update(m *Model) tea.Cmd {
	if m.run == nil || msg.id != m.run.id {
		return nil
	}
	m.conv.Apply(msg.events...)
	return m.run.next()
}

func (msg askDoneMsg) update(m *Model) tea.Cmd {
	if m.run == nil || msg.id != m.run.id {
		return nil
	}
	m.run = nil
	if msg.ans != nil {
		m.sawAnswer(msg.ans.ID)
	}
	// Answers saved elsewhere meanwhile were held back.
	again := m.lookForNewAnswers()
	m.conv.Finish(msg.ans, msg.err)
	if msg.saveErr != nil {
		m.setNotice("The answer could not be saved: "+msg.saveErr.Error(), true)
	}
	if errors.Is(msg.err, engine.ErrNotPrepared) {
		return tea.Batch(again, prepareCost(m.opts.Env, msg.strategy, msg.docs))
	}
	return again
}

// ask starts answering question over the library's scope, as a follow-up
// to the conversation's current topic when followUp is set (the
// conversation decided, conversation.AskMsg), else as the first question
// of a new topic; while documents are being added it waits for them.
func (m *Model) ask(question string, followUp bool) tea.Cmd {
	if m.run != nil || m.waiting != nil {
		m.setNotice("An answer is still being written.", true)
		return nil
	}
	scope := m.lib.Scope()
	if scope != nil && len(scope) == 0 {
		m.setNotice("Nothing is in scope: put documents in it with space in the library pane.", true)
		return nil
	}
	adding := m.adding != nil || len(m.queued) > 0
	if _, of := m.lib.InScope(); of == 0 && !adding {
		m.setNotice("No documents yet: add some with "+m.lib.KeyMap.List.Add.Help().Key+" in the library pane ("+
			m.keys.PrevPane.Help().Key+" goes there).", true)
		return nil
	}
	var history []engine.Turn
	if followUp {
		history = m.conv.Turns()
	} else {
		m.conv.NewTopic() // the questions after this one follow up on it
	}
	n, _ := m.lib.InScope()
	spin := m.conv.Begin(question, m.strategy, n, questions(history))
	// The input keeps the keyboard: the next question can be typed while
	// this one is answered, and the arrows, enter and esc reach the
	// answers (see KEYS.md).
	focus := m.setFocus(paneConversation, true)
	if adding {
		m.waiting = &waitingAsk{question: question, history: history}
		m.waitingStage()
		return tea.Batch(spin, focus)
	}
	return tea.Batch(spin, focus, m.startRun(question, history, scope))
}

// startRun runs the strategy on question over scope (nil: every
// document), its entry already begun.
func (m *Model) startRun(question string, history []engine.Turn, scope []docstore.DocID) tea.Cmd {
	m.runs++
	req := engine.Request{Question: question, Docs: scope, History: history}
	if len(history) > 0 {
		req.Thread = m.conv.Thread() // the answer followed up on, not the one begun
	}
	m.run = startAsk(m.bg, m.runs, m.opts.Env, m.strategy, req)
	m.run.since = answerIDBefore(docstore.NewAnswerID(), time.Second)
	return m.run.next()
}

// cancelAsk cancels the answer being written, or the question waiting
// for documents being added.
func (m *Model) cancelAsk() {
	switch {
	case m.run != nil:
		m.run.cancel()
		m.conv.Cancelling()
	case m.waiting != nil:
		m.waiting = nil
		m.conv.Finish(nil, fmt.Errorf("while the documents were being added: %w", context.Canceled))
	}
}

// waitingStage says on the waiting question's line what it waits for.
func (m *Model) waitingStage() {
	if m.waiting == nil {
		return
	}
	n := m.lib.Adding()
	m.conv.Waiting(fmt.Sprintf("waiting for %s being added…", humanize.Plural(max(n, 1), "document", "documents")))
}

// askWaiting asks the question that waited for the documents being
// added, now they are in: of the scope chosen, with what was added
// meanwhile (new documents are in scope), or of just those added when
// only says the files given at start make the scope. The library's new
// list may not have come back yet.
func (m *Model) askWaiting(only bool, ids []docstore.DocID) tea.Cmd {
	w := m.waiting
	m.waiting = nil
	scope := m.lib.Scope()
	switch {
	case only:
		scope = ids
	case scope != nil:
		for _, id := range w.added {
			if !slices.Contains(scope, id) {
				scope = append(scope, id)
			}
		}
	}
	return m.startRun(w.question, w.history, scope)
}

// questions are the turns' questions.
func questions(ts []engine.Turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Question
	}
	return out
}
