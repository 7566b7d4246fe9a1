package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/tui/conversation"
)

// A strategy that needs work done on the documents first (RAIDD's
// derived documents: engine.Preparer) fails with engine.ErrNotPrepared.
// The conversation then offers to do it: the cost is looked up here
// (Status, no model call), and the work runs in the background with its
// progress on the conversation's status line, the question asked again
// when it is done. Nothing here knows what the work is.

// prepareCostMsg says what preparing would cost, for the offer.
type prepareCostMsg struct{ text string }

// prepareCost asks the strategy's Preparer what preparing docs would
// take.
func prepareCost(env *engine.Env, strategy string, docs []docstore.DocID) tea.Cmd {
	return func() tea.Msg {
		info, ok := engine.Lookup(strategy)
		if !ok || info.Preparer == nil {
			return nil
		}
		st, err := info.Preparer.Status(env, engine.Preparation{Strategy: strategy, Docs: docs})
		if err != nil || st == nil {
			return nil
		}
		c := st.Missing
		if c.Calls == 0 {
			return prepareCostMsg{text: "nothing is left to do"}
		}
		return prepareCostMsg{text: fmt.Sprintf("about %s and %s tokens with %s",
			humanize.Plural(c.Calls, "model call", "model calls"), humanize.Tokens(c.Tokens()), st.Model)}
	}
}

func (msg prepareCostMsg) update(m *Model) tea.Cmd {
	m.conv.SetPrepareCost(msg.text)
	return nil
}

// prepareRun is a preparation in the background.
type prepareRun struct {
	strategy, question string
	followUp           bool // the question followed up on the conversation
	events             chan tea.Msg
	cancel             context.CancelFunc
}

// prepareProgressMsg is how a preparation is going.
type prepareProgressMsg engine.Progress

// preparedMsg reports a preparation finished, or why it stopped.
type preparedMsg struct {
	run *prepareRun
	res *engine.Prepared
	err error
}

func startPrepare(bg *background, env *engine.Env, strategy, question string, docs []docstore.DocID) *prepareRun {
	ctx, cancel := context.WithCancel(bg.ctx)
	r := &prepareRun{strategy: strategy, question: question, events: make(chan tea.Msg, 16), cancel: cancel}
	bg.wg.Add(1)
	go func() {
		defer bg.wg.Done()
		defer close(r.events)
		defer cancel()
		var res *engine.Prepared
		var err error
		info, ok := engine.Lookup(strategy)
		if !ok || info.Preparer == nil {
			err = fmt.Errorf("%s has nothing to prepare", strategy)
		} else {
			res, err = info.Preparer.Prepare(ctx, env, engine.Preparation{
				Strategy: strategy, Docs: docs,
				Progress: func(p engine.Progress) {
					select {
					case r.events <- prepareProgressMsg(p):
					default: // the display is behind: the next report will do
					}
				},
			})
		}
		select {
		case r.events <- preparedMsg{run: r, res: res, err: err}:
		case <-ctx.Done():
		}
	}()
	return r
}

// next waits for the preparation's next message.
func (r *prepareRun) next() tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-r.events
		if !ok {
			return preparedMsg{run: r, err: context.Canceled}
		}
		return msg
	}
}

// prepare starts preparing the documents in scope for a strategy, the
// question to be asked again when they are ready.
func (m *Model) prepare(p conversation.PrepareMsg) tea.Cmd {
	if m.prep != nil {
		m.setNotice("The documents are already being prepared.", true)
		return nil
	}
	m.prep = startPrepare(m.bg, m.opts.Env, p.Strategy, p.Question, m.lib.Scope())
	m.prep.followUp = p.FollowUp
	m.conv.SetActivity("preparing the documents for " + p.Strategy + "…")
	return m.prep.next()
}

func (msg prepareProgressMsg) update(m *Model) tea.Cmd {
	if m.prep == nil {
		return nil
	}
	m.conv.SetActivity(prepareLine(m.prep.strategy, engine.Progress(msg)))
	return m.prep.next()
}

func (msg preparedMsg) update(m *Model) tea.Cmd {
	if m.prep != msg.run {
		return nil
	}
	m.prep = nil
	m.conv.SetActivity("")
	if msg.err != nil {
		m.setNotice("Preparing the documents stopped: "+msg.err.Error(), true)
		return nil
	}
	m.setNotice("The documents are prepared; asking again.", false)
	return m.ask(msg.run.question, msg.run.followUp)
}

// prepareLine is a preparation's progress for the status line:
// "preparing for raidd-s: deriving 120/395 chunks of manual.pdf · 12k tokens".
func prepareLine(strategy string, p engine.Progress) string {
	s := "preparing the documents for " + strategy
	if p.Step != "" {
		s += ": " + p.Step
	}
	if p.Total > 0 {
		s += fmt.Sprintf(" %d/%d %s", p.Done, p.Total, p.Unit)
	}
	if p.Doc != "" {
		s += " of " + p.Doc
	}
	if t := p.Usage.PromptTokens + p.Usage.CompletionTokens; t > 0 {
		s += " · " + humanize.Tokens(t) + " tokens"
	}
	return s
}
