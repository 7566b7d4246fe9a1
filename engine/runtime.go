package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
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
	scope    *scope
	opts     Values
	given    []Setting // the options as the request gave them, for the record
	caller   *Caller

	// retrieval is the answer's retrieval, made when first asked for.
	retrieval     *Retrieval
	retrievalOnce sync.Once

	// The conversation a follow-up question is asked in (Request.History,
	// bounded), what its context costs, and the previous question when
	// its words join the search.
	history       []Turn
	historyTokens int
	previous      string
	followUpInfo  *citations.FollowUp
	thread        string // Request.Thread: recorded in the answer

	// cfg is Env.AnswerConfig, with the window the server really gives the
	// model, once learnServer has asked it (with ctx, the answer's).
	cfg   config.Config
	learn sync.Once
	ctx   context.Context

	mu         sync.Mutex
	emit       func(Event)
	stages     []string
	warnings   []string
	statements []citations.Statement
	usage      citations.Usage
	plan       Plan
	context    []citations.Range // what the model was shown (Runtime.Shown)
	lessons    []Lesson          // graded earlier answers (Request.Lessons)
	model      string            // the model that wrote the answer (Caller.Stream)
	called     bool              // a model was called
	reasoning  []string          // the model's reasoning, a block per call
	reasoned   int               // bytes of reasoning kept
	capped     bool              // statements beyond MaxStatements were dropped
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
	sc, err := newScope(env.Library, req.Docs)
	if err != nil {
		return nil, err
	}
	info, _ := Lookup(s.Name())
	if !info.Lazy {
		// The strategy reads the documents whole: load them first, so
		// a damaged one fails the answer before it starts.
		if _, err := sc.load(); err != nil {
			return nil, err
		}
	}
	rt := &Runtime{env: env, strategy: s.Name(), question: req.Question, asked: req.Question, scope: sc, opts: opts, given: req.Options, emit: emit,
		cfg: env.Config, history: boundHistory(req.History), thread: req.Thread}
	if _, learns := s.(Grader); learns {
		rt.lessons = boundLessons(req.Lessons)
	}
	if env.LLM != nil {
		rt.ctx = ctx
		rt.caller = &Caller{rt: rt, client: env.LLM}
		// One deadline for the whole answer, so that a strategy making
		// several calls takes no multiple of the request timeout.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, rt.answerTimeout(), errAnswerTimeout)
		defer cancel()
	}
	if !info.NeedsLLM {
		rt.history = nil // nothing reads it; the previous question's words do the work
	}
	if err = rt.followUp(ctx, info.NeedsLLM, req.History); err == nil {
		if info.NeedsLLM {
			rt.historyTokens = llm.EstimatePromptTokens(rt.Preamble())
		}
		err = s.Answer(ctx, rt)
	}
	if err != nil && errors.Is(context.Cause(ctx), errAnswerTimeout) {
		err = fix.With(fmt.Errorf("%w: it ran past answer_timeout (%s) across its model calls", ErrAnswerTimeout, rt.answerTimeout()),
			"Raise answer_timeout in the config file (or CITELENS_ANSWER_TIMEOUT), or choose a faster strategy or model.")
	}
	return rt.answer(start, err)
}

// errAnswerTimeout is the cause of the answer's deadline.
var errAnswerTimeout = errors.New("answer_timeout")

// answerTimeout bounds the answer (a Config made without Default has no
// answer_timeout).
func (rt *Runtime) answerTimeout() time.Duration {
	return cmp.Or(rt.cfg.AnswerTimeout, config.DefaultAnswerTimeout)
}

// learnServer fits the answer's configuration to what the server says
// about itself (Env.AnswerConfig), the first time the strategy reads the
// configuration or calls the model: a strategy that does neither does not
// ask the server anything.
func (rt *Runtime) learnServer() {
	rt.learn.Do(func() {
		if rt.caller == nil {
			return
		}
		cfg, note := rt.env.AnswerConfig(rt.ctx)
		rt.mu.Lock()
		rt.cfg = cfg
		rt.caller.server = rt.env.Server(rt.ctx)
		rt.mu.Unlock()
		if note != "" {
			rt.Stage(note)
		}
	})
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
		ID: docstore.NewAnswerID(), Question: rt.asked, Strategy: rt.strategy, FollowUp: rt.followUpInfo, Thread: rt.thread,
		Statements: rt.statements, Stages: rt.stages, Warnings: rt.warnings, Usage: rt.usage,
		Created: start.UTC(), Seconds: time.Since(start).Seconds(),
	}
	if rt.plan != nil {
		ans.Plan = rt.plan
	}
	ans.Shown = rt.context
	ans.Reasoning = strings.Join(rt.reasoning, "\n\n")
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
	ans.Docs, ans.Library = rt.scope.refs()
	for _, o := range rt.given {
		ans.Options = append(ans.Options, o.Name+"="+o.Value)
	}
	if err != nil {
		ans.Partial, ans.Error = true, err.Error()
		if Canceled(err) {
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

// Lessons are the graded earlier answers the question is asked after
// (Request.Lessons, and those the strategy added), newest last.
func (rt *Runtime) Lessons() []Lesson { return rt.lessons }

// AddLessons puts more lessons before the question (RAIDD-S ICL's from a
// file), keeping the newest MaxLessons, and leaves room for them in the
// prompt budget (Config). Called before the strategy fits its prompt.
func (rt *Runtime) AddLessons(ls []Lesson) {
	rt.lessons = boundLessons(append(ls, rt.lessons...))
	rt.historyTokens = llm.EstimatePromptTokens(rt.Preamble())
}

// Preamble is what goes before a prompt that answers the question: the
// conversation a follow-up is asked in and the lessons, as messages.
func (rt *Runtime) Preamble() []llm.Message {
	return append(HistoryMessages(rt.history), LessonMessages(rt.lessons)...)
}

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

// Docs are the scope's documents, in the request's order (the library's
// for a library-wide scope), each once, loaded whole. A strategy
// registered Lazy loads them on its first call; one that fails to is a
// warning, and Docs returns those loaded.
func (rt *Runtime) Docs() []*docstore.Document {
	docs, err := rt.scope.load()
	if err != nil {
		rt.warnOnce(fmt.Sprintf("some documents of the scope could not be read: %v", err))
	}
	return docs
}

// IDs are the scope's document IDs, in the order of Docs.
func (rt *Runtime) IDs() []docstore.DocID {
	ids, _, err := rt.scope.list()
	if err != nil {
		rt.warnOnce(fmt.Sprintf("the library's documents could not be listed: %v", err))
	}
	return ids
}

// Scope is the request's scope as retrieval takes it: the documents
// named, or nil for every document of the library, which the index
// searches without listing them.
func (rt *Runtime) Scope() []docstore.DocID { return rt.scope.named }

// View returns document id of the scope, read as needed (a large one a
// piece at a time; see docstore.View).
func (rt *Runtime) View(id docstore.DocID) (*docstore.View, error) {
	// A library-wide scope holds every document: nothing to check, and
	// Place would list the library.
	if rt.scope.named != nil {
		if _, ok := rt.Place(id); !ok {
			return nil, fmt.Errorf("document %s is not in the answer's scope", id)
		}
	}
	return rt.Library().View(id)
}

// Place is the position in Docs of the document id, and whether it is in
// the scope.
func (rt *Runtime) Place(id docstore.DocID) (int, bool) {
	_, index, _ := rt.scope.list()
	i, ok := index[id]
	return i, ok
}

// Options are the request's options, read against the strategy's table.
func (rt *Runtime) Options() Values { return rt.opts }

// Env is the environment the answer runs in.
func (rt *Runtime) Env() *Env { return rt.env }

// Library is the library the scope is in.
func (rt *Runtime) Library() *docstore.Library { return rt.env.Library }

// Config is the model configuration: the model's name, context window,
// output limit and prompt budget. The context window is the one the server
// really gives the model, when it says (Env.AnswerConfig); for a follow-up
// question, less what the conversation context takes, so every prompt
// fitted to PromptBudget leaves room for History (ModelWindow is the
// model's own, for messages that name it).
func (rt *Runtime) Config() config.Config {
	c := rt.ModelConfig()
	if rt.historyTokens > 0 {
		c.ContextWindow = max(c.ContextWindow-rt.historyTokens, 0)
	}
	return c
}

// ModelConfig is Config without the room left for the conversation: the
// model's own context window, for messages that name it.
func (rt *Runtime) ModelConfig() config.Config {
	rt.learnServer()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.cfg
}

// Model is the caller every model call goes through; nil when no model
// endpoint is configured (a strategy registered as NeedsLLM always has
// one).
func (rt *Runtime) Model() *Caller {
	rt.learnServer()
	return rt.caller
}

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
	rt.warn(s)
}

// warnOnce is Warn for a warning the answer does not have yet: the
// Caller's, which every call of a step may give alike.
func (rt *Runtime) warnOnce(s string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !slices.Contains(rt.warnings, s) {
		rt.warn(s)
	}
}

// warn is Warn with rt.mu held.
func (rt *Runtime) warn(s string) {
	rt.warnings = append(rt.warnings, s)
	rt.stages = append(rt.stages, s)
	rt.send(Warning(s))
}

// Statement reports a finished statement of the answer, in order. An
// answer keeps at most MaxStatements (config max_statements); the first
// statement beyond is dropped with a warning, the rest silently, and the
// Caller stops reading the model's reply.
func (rt *Runtime) Statement(st citations.Statement) {
	if st.Citations == nil {
		st.Citations = []citations.Span{}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if most := cmp.Or(rt.cfg.MaxStatements, config.DefaultMaxStatements); len(rt.statements) >= most {
		if !rt.capped {
			rt.capped = true
			rt.warn(fmt.Sprintf("the answer reached max_statements (%d); the statements after it were dropped", most))
		}
		return
	}
	rt.statements = append(rt.statements, st)
	rt.send(Statement{st})
}

// full reports whether the answer has all the statements it may keep.
func (rt *Runtime) full() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.capped
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

// Shown records text a prompt showed the model to answer from, the
// answer's Shown.
func (rt *Runtime) Shown(rs []citations.Range) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.context = append(rt.context, rs...)
}

// Usage reports the cost of model work that did not go through the
// Caller (embeddings); the answer's usage is the sum of all reported.
func (rt *Runtime) Usage(u llm.Usage) {
	if u == (llm.Usage{}) {
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

// maxReasoning bounds the reasoning an answer keeps: a reasoning model
// may think for tens of thousands of tokens on every call.
const maxReasoning = 256 << 10

// reason passes a piece of the model's reasoning on to the front end.
func (rt *Runtime) reason(s string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.send(Reasoning(s))
}

// keepReasoning keeps one call's reasoning with the answer, as far as
// maxReasoning allows.
func (rt *Runtime) keepReasoning(block string) {
	block = strings.TrimSpace(block)
	if block == "" {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if room := maxReasoning - rt.reasoned; len(block) > room {
		if room <= 0 {
			return
		}
		block = textproc.Clip(block, room)
	}
	rt.reasoned += len(block)
	rt.reasoning = append(rt.reasoning, block)
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
