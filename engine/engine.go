package engine

import (
	"context"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/llm"
)

// Request is one question over a scope of documents.
type Request struct {
	Question string
	Docs     []docstore.DocID // the scope; empty means every document
	// Options are the strategy's settings, in the order given ("k=5" on
	// the command line is {Name: "k", Value: "5"}); each strategy
	// declares those it takes (Strategy.Options).
	Options []Setting
	// History, when the question follows up on earlier ones, is the
	// conversation so far, oldest first (TurnOf makes a turn of an
	// answer). Run keeps the most recent MaxTurns, cut to MaxTurnTokens
	// each; a strategy that uses a model gets them as conversation
	// context and reads the question rewritten to stand on its own; one
	// that does not finds the previous question's words joined to its
	// search (Runtime.Previous). Empty for a question on a fresh topic.
	History []Turn
	// Thread, for a question that continues a saved thread of answers,
	// is that thread's ID (docstore.ThreadMeta), recorded in the answer
	// (Answer.Thread) so the thread can be listed, resumed and exported;
	// empty: the answer starts a thread of its own.
	Thread string
	// Lessons are earlier answers graded against their ground truth, for
	// a strategy that learns in context (a Grader: RAIDD-S ICL); the
	// newest MaxLessons go before the question. Others ignore them.
	Lessons []Lesson
}

// Setting is one strategy option as given: a name and its value, not yet
// read.
type Setting struct{ Name, Value string }

// Answer is the finished answer; see citations.Answer.
type Answer = citations.Answer

// Strategy answers questions. Run parses the request's options against
// Options, loads the scope, and calls Answer with the Runtime of that one
// answer; everything the strategy has to say — stages, warnings,
// statements, its plan, the usage of its model calls — it says through
// the Runtime, which assembles the Answer. Answer must honour ctx: on
// cancellation it returns ctx.Err() (or an error wrapping it), and what it
// reported so far is kept as a partial answer.
//
// A strategy holds no state of its own between answers: it is a value
// registered once (Register) and used for every answer, possibly at once.
type Strategy interface {
	Name() string
	// Options declares the settings the strategy takes.
	Options() Options
	Answer(ctx context.Context, rt *Runtime) error
}

// Plan is a strategy's account of what it chose to do and why (OkraLong's
// workflow, dag's sub-questions, RAIDD's retrieved chunks). The answer
// keeps it as Answer.Plan and front ends show its Line; its JSON (the
// value's encoding/json form) is what `ask --json`, the saved answer and
// the exports carry.
type Plan interface {
	// Line is the plan in one line, for a status line: "multi-bridge →
	// step-wise reasoner, 5 × 150-token segments, BM25:dense 3:2".
	Line() string
}

// Reporter is where work done for an answer says what it is doing and
// what it spends: the Runtime is one.
type Reporter interface {
	Stage(s string)
	Warn(s string)
	Usage(u llm.Usage)
}

var _ Reporter = (*Runtime)(nil)

// Settings makes settings of name, value pairs, in order:
// Settings("k", "5", "level", "chunk").
func Settings(nameValue ...string) []Setting {
	if len(nameValue)%2 != 0 {
		panic("engine.Settings takes name, value pairs")
	}
	out := make([]Setting, 0, len(nameValue)/2)
	for i := 0; i < len(nameValue); i += 2 {
		out = append(out, Setting{Name: nameValue[i], Value: nameValue[i+1]})
	}
	return out
}

// Define makes a strategy of its name, its option table and its answer:
// what a strategy package registers.
//
//	engine.Register(engine.Info{
//		Strategy:    engine.Define("cof", options, answer),
//		Description: "LongCite CoF, post-hoc: …",
//		NeedsLLM:    true,
//	})
func Define(name string, options Options, answer func(context.Context, *Runtime) error) Strategy {
	return defined{name, options, answer}
}

type defined struct {
	name    string
	options Options
	answer  func(context.Context, *Runtime) error
}

func (d defined) Name() string                                  { return d.name }
func (d defined) Options() Options                              { return d.options }
func (d defined) Answer(ctx context.Context, rt *Runtime) error { return d.answer(ctx, rt) }
