package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/internal/config"
)

// Runtime is one answer in the making: what a strategy is given, and the
// only way it reports. Run builds one per answer with the question, the
// scope (loaded once), the options (read against the strategy's table)
// and a model Caller; the strategy says what it is doing (Stage, Warn),
// what it found (Statement), how it decided (Plan), and what it spent
// (Usage, which the Caller reports for model calls itself). The Runtime
// passes each report on to the front end as an Event and keeps it for the
// Answer, which only Run assembles.
//
// A Runtime is safe for concurrent use: a strategy may report from the
// goroutines it starts (CoF's parallel extractions do), and the front
// end's emit function is never called concurrently.
type Runtime struct {
	env      *Env
	strategy string
	question string // as the strategy reads it: a follow-up rewritten
	asked    string // as asked
	docs     []*docstore.Document
	ids      []docstore.DocID
	index    map[docstore.DocID]int
	opts     Values
	caller   *Caller

	// The conversation a follow-up question is asked in (Request.History,
	// bounded), what its context costs, and the previous question when
	// its words join the search.
	history       []Turn
	historyTokens int
	previous      string
	followUpInfo  *citations.FollowUp

	mu         sync.Mutex
	emit       func(Event)
	stages     []string
	warnings   []string
	statements []citations.Statement
	usage      citations.Usage
	plan       Plan
	model      string // the model that wrote the answer (Caller.Stream)
	called     bool   // a model was called
	// shown is the text of the reply the answer shows (Caller.Stream
	// with a name), while it streams: what the model was writing when an
	// answer stops mid-statement.
	shown   strings.Builder
	showing bool
}

// Run answers req with s and returns the answer, the one place an Answer
// is assembled. It reads req.Options against s's table (an error before
// anything is done), loads the scope (every document when req.Docs is
// empty) and runs s.Answer on a Runtime that passes s's reports to emit
// (which may be nil) and keeps them. The answer gets its ID, question,
// strategy, scope, creation and wall time, stages, warnings, statements,
// plan, usage and model from what s reported. When s fails or is
// cancelled after reporting something, the answer is returned partial
// with the error; when it fails before, there is no answer.
func Run(ctx context.Context, env *Env, s Strategy, req Request, emit func(Event)) (*Answer, error) {
	start := time.Now()
	opts, err := s.Options().Parse(s.Name(), req.Options)
	if err != nil {
		return nil, err
	}
	docs, err := loadScope(env.Library, req.Docs)
	if err != nil {
		return nil, err
	}
	rt := &Runtime{env: env, strategy: s.Name(), question: req.Question, asked: req.Question, docs: docs, opts: opts, emit: emit,
		index: make(map[docstore.DocID]int, len(docs)), history: boundHistory(req.History)}
	for i, d := range docs {
		rt.ids = append(rt.ids, d.ID)
		rt.index[d.ID] = i
	}
	if env.LLM != nil {
		rt.caller = &Caller{rt: rt, client: env.LLM}
	}
	info, _ := Lookup(s.Name())
	if !info.NeedsLLM {
		rt.history = nil // nothing reads it; the previous question's words do the work
	}
	if err = rt.followUp(ctx, info.NeedsLLM, req.History); err == nil {
		if info.NeedsLLM {
			rt.historyTokens = llm.EstimatePromptTokens(HistoryMessages(rt.history))
		}
		err = s.Answer(ctx, rt)
	}
	return rt.answer(start, err)
}

// answer assembles the Answer from what was reported.
func (rt *Runtime) answer(start time.Time, err error) (*Answer, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if err != nil && len(rt.statements) == 0 && len(rt.stages) == 0 {
		// Failed before doing anything: nothing worth keeping.
		return nil, err
	}
	if err != nil && rt.showing {
		// The model was writing a statement the answer shows when it
		// stopped: kept, marked unfinished and uncited.
		if st, ok := citations.UnfinishedStatement(rt.shown.String()); ok {
			rt.statements = append(rt.statements, st)
			rt.send(Statement{st})
		}
	}
	ans := &Answer{
		ID: docstore.NewAnswerID(), Question: rt.asked, Strategy: rt.strategy, FollowUp: rt.followUpInfo,
		Statements: rt.statements, Stages: rt.stages, Warnings: rt.warnings, Usage: rt.usage,
		Created: start.UTC(), Seconds: time.Since(start).Seconds(),
	}
	if rt.plan != nil {
		ans.Plan = rt.plan
	}
	if ans.Statements == nil {
		ans.Statements = []citations.Statement{}
	}
	if ans.Stages == nil {
		ans.Stages = []string{}
	}
	if rt.called {
		ans.Model = rt.env.Config.Model
	}
	if rt.model != "" {
		ans.Model = rt.model
	}
	for _, d := range rt.docs {
		ans.Docs = append(ans.Docs, citations.DocRef{ID: d.ID, Name: d.Name})
	}
	if err != nil {
		ans.Partial, ans.Error = true, err.Error()
		if errors.Is(err, context.Canceled) {
			ans.Error = "cancelled"
		}
	}
	return ans, err
}

// Question is the question to answer: as asked, or, when it follows up
// on earlier ones and a model rewrote it, as it reads on its own — the
// question to retrieve for and to put in prompts (with History before
// them).
func (rt *Runtime) Question() string { return rt.question }

// Asked is the question as the user asked it.
func (rt *Runtime) Asked() string { return rt.asked }

// History is the conversation a follow-up question was asked in, oldest
// first, bounded (MaxTurns, MaxTurnTokens), for strategies that use a
// model: engine/generate puts it before its prompt (HistoryMessages).
// Empty for a question on a fresh topic. Config's ContextWindow already
// leaves room for it.
func (rt *Runtime) History() []Turn { return rt.history }

// Previous is the previous question of the conversation when the
// question follows up on it and was not rewritten to stand on its own:
// its words join the search at a lower weight (retrieve.Options.Context).
// "" otherwise.
func (rt *Runtime) Previous() string { return rt.previous }

// Docs are the scope's documents, in the request's order, each once.
func (rt *Runtime) Docs() []*docstore.Document { return rt.docs }

// IDs are the scope's document IDs, in the order of Docs.
func (rt *Runtime) IDs() []docstore.DocID { return rt.ids }

// Place is the position in Docs of the document id, and whether it is in
// the scope.
func (rt *Runtime) Place(id docstore.DocID) (int, bool) {
	i, ok := rt.index[id]
	return i, ok
}

// Options are the request's options, read against the strategy's table.
func (rt *Runtime) Options() Values { return rt.opts }

// Env is the environment the answer runs in.
func (rt *Runtime) Env() *Env { return rt.env }

// Library is the library the scope is in.
func (rt *Runtime) Library() *docstore.Library { return rt.env.Library }

// Config is the model configuration: the model's name, context window,
// output limit and prompt budget. For a follow-up question the context
// window is what the conversation context leaves of the model's, so
// every prompt fitted to PromptBudget leaves room for History; messages
// that name the model's window read Env().Config.
func (rt *Runtime) Config() config.Config {
	c := rt.env.Config
	if rt.historyTokens > 0 {
		c.ContextWindow = max(c.ContextWindow-rt.historyTokens, 0)
	}
	return c
}

// Model is the caller every model call goes through; nil when no model
// endpoint is configured (a strategy registered as NeedsLLM always has
// one).
func (rt *Runtime) Model() *Caller { return rt.caller }

// Stage reports what the answer is doing now.
func (rt *Runtime) Stage(s string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.stages = append(rt.stages, s)
	rt.send(Stage(s))
}

// Stagef is Stage with fmt.Sprintf's formatting.
func (rt *Runtime) Stagef(format string, args ...any) { rt.Stage(fmt.Sprintf(format, args...)) }

// Warn reports something about the answer the reader should know; the
// answer keeps it among its warnings, and among its stages where it
// happened.
func (rt *Runtime) Warn(s string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.warnings = append(rt.warnings, s)
	rt.stages = append(rt.stages, s)
	rt.send(Warning(s))
}

// Statement reports a finished statement of the answer, in order.
func (rt *Runtime) Statement(st citations.Statement) {
	if st.Citations == nil {
		st.Citations = []citations.Span{}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.statements = append(rt.statements, st)
	rt.send(Statement{st})
}

// Plan reports the strategy's plan, when made and each time it changes;
// the answer keeps the last. The front end may read p after Plan returns,
// so a strategy that goes on changing its plan reports a copy.
func (rt *Runtime) Plan(p Plan) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.plan = p
	rt.send(PlanEvent{p})
}

// Usage reports the cost of model work that did not go through the
// Caller (embeddings); the answer's usage is the sum of all reported.
func (rt *Runtime) Usage(u citations.Usage) {
	if u == (citations.Usage{}) {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.usage.Add(u)
	rt.send(Usage{u})
}

// delta passes streamed model text on to the front end.
func (rt *Runtime) delta(s string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.showing && rt.shown.Len() < maxShown {
		rt.shown.WriteString(s)
	}
	rt.send(Delta(s))
}

// maxShown bounds the text of a shown reply kept for its unfinished
// statement.
const maxShown = 1 << 20

// streaming notes a reply streaming, which the answer shows when shown
// is not Working; the returned function ends it with the stream's error.
// A reply that ended well leaves nothing unfinished.
func (rt *Runtime) streaming(shown string) func(error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.shown.Reset()
	rt.showing = shown != Working
	return func(err error) {
		if err == nil {
			rt.mu.Lock()
			defer rt.mu.Unlock()
			rt.shown.Reset()
			rt.showing = false
		}
	}
}

// answeredBy notes the model that wrote the answer's text.
func (rt *Runtime) answeredBy(model string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.model = model
}

// calledModel notes that a model was called.
func (rt *Runtime) calledModel() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.called = true
}

// send passes ev to the front end; rt.mu is held.
func (rt *Runtime) send(ev Event) {
	if rt.emit != nil {
		rt.emit(ev)
	}
}

// ErrEmptyScope means there are no documents to answer from.
var ErrEmptyScope = errors.New("there are no documents to answer from: add some with 'citelens add FILE'")

// ErrNothingRetrieved means retrieval found nothing in the scope sharing a
// word with the question, so a strategy that answers from what it
// retrieves has nothing to answer from; the message says what to do.
var ErrNothingRetrieved = errors.New("nothing in the documents matches the question")
