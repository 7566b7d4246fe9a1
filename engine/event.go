package engine

import "github.com/citelens/citelens/citations"

// Event is one thing an answer reports as it is written, for a front end
// to show: a Stage, a Warning, a Delta of model text, the model's
// Reasoning, a finished Statement, the Usage of a model call, or the
// strategy's Plan (PlanEvent). The set is closed — only this package's types are events —
// so a type switch over them is complete:
//
//	switch ev := ev.(type) {
//	case engine.Stage:     // what the answer is doing
//	case engine.Warning:   // something the reader should know, kept with the answer
//	case engine.Delta:     // raw model text as it streams
//	case engine.Reasoning: // the model's thinking, apart from its answer
//	case engine.Statement: // a finished statement: ev.Statement
//	case engine.Usage:     // one model call's cost: ev.Usage
//	case engine.PlanEvent: // the strategy's plan, made or grown: ev.Plan
//	}
type Event interface{ event() }

// Stage says what the answer is doing: "retrieving…", "sub-question 2/3:
// …".
type Stage string

// Warning is something about the answer the reader should know ("the
// answer reached the output limit…"); the answer keeps it.
type Warning string

// Delta is raw model text as it streams, without the model's reasoning.
type Delta string

// Reasoning is a reasoning model's thinking, which the Caller takes out of
// its replies (a <think> block, or reasoning_content): never part of the
// answer's statements, shown, if at all, apart from them. A streamed
// reply's reasoning arrives piece by piece, a reply read whole's in one
// piece once it ends.
type Reasoning string

// Statement is a finished statement, its citations resolved and verified.
type Statement struct{ citations.Statement }

// Usage is the cost of one model call or embedding request.
type Usage struct{ citations.Usage }

// PlanEvent carries the strategy's plan, when it is made and each time it
// grows.
type PlanEvent struct{ Plan Plan }

func (Stage) event()     {}
func (Warning) event()   {}
func (Delta) event()     {}
func (Reasoning) event() {}
func (Statement) event() {}
func (Usage) event()     {}
func (PlanEvent) event() {}
