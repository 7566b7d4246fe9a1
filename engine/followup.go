package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Turn is an earlier question of a conversation and its answer, which a
// follow-up question may refer to ("and what about the second one?").
type Turn struct {
	Question string
	// Answer is the answer's text: its statements, without citations.
	Answer string
}

// TurnOf is ans as a turn of conversation: its question and the text of
// its statements (unfinished ones aside).
func TurnOf(ans *Answer) Turn {
	var b strings.Builder
	for _, s := range ans.Statements {
		if s.Unfinished {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimSpace(s.Text))
	}
	return Turn{Question: ans.Question, Answer: b.String()}
}

// Bounds on the conversation context: the most recent MaxTurns turns,
// each question and answer cut to MaxTurnTokens (estimated).
const (
	MaxTurns      = 3
	MaxTurnTokens = 400
)

// boundHistory keeps the most recent MaxTurns turns, each cut to
// MaxTurnTokens, oldest first.
func boundHistory(h []Turn) []Turn {
	if len(h) > MaxTurns {
		h = h[len(h)-MaxTurns:]
	}
	out := make([]Turn, 0, len(h))
	for _, t := range h {
		q, a := strings.TrimSpace(t.Question), strings.TrimSpace(t.Answer)
		if q == "" {
			continue
		}
		out = append(out, Turn{Question: cutTokens(q, MaxTurnTokens), Answer: cutTokens(a, MaxTurnTokens)})
	}
	return out
}

// cutTokens cuts s to about n tokens (textproc's estimate of four bytes
// a token), at a word boundary, marking the cut with "…".
func cutTokens(s string, n int) string {
	if textproc.EstimateTokens(s) <= n {
		return s
	}
	cut := min(len(s), n*4)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// HistoryMessages are the conversation context as chat messages, to go
// before a prompt that answers: each earlier question as the user's and
// its answer as the assistant's, so the model reads the new question as
// the next in the conversation. engine/generate puts them before its
// prompt; any strategy writing its own answering prompt should too.
func HistoryMessages(h []Turn) []llm.Message {
	msgs := make([]llm.Message, 0, 2*len(h))
	for _, t := range h {
		msgs = append(msgs, llm.User(t.Question))
		a := t.Answer
		if a == "" {
			a = "(no answer)"
		}
		msgs = append(msgs, llm.Assistant(a))
	}
	return msgs
}

// rewriteInstructions ask a model for a follow-up question on its own.
const rewriteInstructions = "You rewrite follow-up questions. Given a conversation and a follow-up question, write the follow-up as a standalone question that can be understood without the conversation: replace pronouns and references such as \"it\", \"that one\" or \"the second one\" with what they refer to. Keep the question's language and meaning; add nothing else. If it already stands alone, repeat it unchanged. Reply with the question only, on one line."

// rewriteMessages ask for question rewritten to stand without history.
func rewriteMessages(h []Turn, question string) []llm.Message {
	var b strings.Builder
	b.WriteString("Conversation:\n")
	for _, t := range h {
		fmt.Fprintf(&b, "Q: %s\nA: %s\n", oneLine(t.Question), oneLine(t.Answer))
	}
	fmt.Fprintf(&b, "\nFollow-up question: %s\n\nStandalone question:", oneLine(question))
	return []llm.Message{llm.System(rewriteInstructions), llm.User(b.String())}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// errBadRewrite is a rewrite that cannot be the question.
var errBadRewrite = errors.New("the model's rewrite is not a question")

// rewrite asks the model for the follow-up question as a standalone one.
func (rt *Runtime) rewrite(ctx context.Context) (string, error) {
	rt.Stage("reading the question in the light of the conversation…")
	reply, err := rt.caller.Chat(ctx, Working, llm.ChatRequest{Messages: rewriteMessages(rt.history, rt.asked), MaxTokens: 200})
	if err != nil {
		return "", err
	}
	return checkRewrite(reply.Text, rt.asked)
}

// checkRewrite takes a model's rewrite when it can be the question: one
// line (quotes and a "Standalone question:" label dropped), not empty,
// not far longer than the question and the conversation could explain.
func checkRewrite(reply, question string) (string, error) {
	s := strings.TrimSpace(reply)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if _, end := textproc.IndexFold(s, "standalone question:"); end >= 0 {
		s = strings.TrimSpace(s[end:])
	}
	s = strings.Trim(s, "\"“”'")
	s = textproc.OneLine(s)
	if s == "" || len(s) > 4*len(question)+400 {
		return "", errBadRewrite
	}
	return s, nil
}

// followUp reads a follow-up question before the strategy answers it:
// with a model, the question is rewritten to stand on its own, and the
// strategy reads that (Question) while the model gets the conversation
// as context (History); without one (or when the rewrite fails), the
// previous question's words join the search at a lower weight (Previous).
func (rt *Runtime) followUp(ctx context.Context, useModel bool, asked []Turn) error {
	h := boundHistory(asked)
	if len(h) == 0 {
		return nil
	}
	f := &citations.FollowUp{}
	for _, t := range h {
		f.After = append(f.After, t.Question)
	}
	rt.followUpInfo = f
	if !useModel || rt.caller == nil {
		rt.previous = h[len(h)-1].Question
		return nil
	}
	f.ContextTokens = llm.EstimatePromptTokens(HistoryMessages(rt.history))
	s, err := rt.rewrite(ctx)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		rt.Warn(fmt.Sprintf("the follow-up question could not be rewritten to stand on its own (%v); it is answered as asked, the previous question's words added to the search", err))
		rt.previous = rt.history[len(rt.history)-1].Question
	case s != rt.asked:
		rt.question, f.Standalone = s, s
	}
	return nil
}
