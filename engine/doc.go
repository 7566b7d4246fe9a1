// Package engine answers questions over documents of the library with the
// strategies registered in it, and is the runtime they all run in.
//
// # A strategy
//
// A strategy is a name, a table of the options it takes, and a function
// that writes one answer: what its paper's algorithm does, and nothing
// else. A strategy package registers it once:
//
//	func init() {
//		engine.Register(engine.Info{
//			Strategy:    engine.Define("cof", options, answer),
//			Description: "LongCite CoF, post-hoc: …",
//			NeedsLLM:    true,
//		})
//	}
//
//	var options = engine.Options{
//		{Name: "k", Kind: engine.Int, Min: 1, Max: 400, Default: "40", Help: "about how many chunks step 2 shows in all"},
//		generate.MaxCitations("3", ""),
//	}
//
//	func answer(ctx context.Context, rt *engine.Runtime) error { … }
//
// # One answer
//
// Run answers a Request with a strategy. It reads the request's options
// against the strategy's table — the first setting it cannot use, in the
// order given, is the error, before anything else is done — loads the
// scope's documents once, and calls the strategy's function with a
// Runtime for that answer. The strategy reads what it needs from the
// Runtime (Question, Docs, Options, Config, Library) and says everything
// through it:
//
//	rt.Stage("retrieving…")        // what the answer is doing
//	rt.Warn("…")                   // what the reader should know
//	rt.Statement(st)               // a finished, cited statement
//	rt.Plan(p)                     // how it decided (any type with Line())
//	rt.Usage(u)                    // model work not done through the Caller
//
// Each report goes on to the front end as an Event — a closed set of
// types: Stage, Warning, Delta, Statement, Usage, PlanEvent — and is kept
// for the Answer, which only Run assembles: its ID, scope, stages,
// warnings, statements, plan, usage, model and time. A strategy that fails
// or is cancelled after reporting something leaves a partial answer with
// the error.
//
// # The model
//
// Every model call goes through the Runtime's Caller (rt.Model()): Chat
// for a reply read whole, Stream for one passed on as it arrives (the
// front end sees it as Delta events; engine/generate feeds it to the
// citation parser). The Caller shows a retry as a stage saying why,
// reports the call's usage, and notes which model wrote the answer. Every
// reply, streamed or not, passes through the reply checks (ReplyCheck)
// before the strategy reads any of it: the one place to handle what
// models and servers do that the protocol does not say — a reasoning
// model's thinking (taken out, and passed on as Reasoning events), a
// reply that runs past the output limit (no longer read), a prompt the
// server cut to its window without saying so, a reply the limit cut. The
// Caller stops reading once the answer holds max_statements, and fails an
// answer's later calls at once after one found the server silent. Run
// bounds the whole answer by answer_timeout.
//
// The configuration a strategy reads (rt.Config()) has the context window
// the server really gives the model, when the server says
// (Env.AnswerConfig).
//
// # Failures
//
// An error says what went wrong; when there is something to do about it,
// it also carries a fix (a Fix() string method, see internal/fix): option
// errors name where the options are listed, an unknown or unavailable
// strategy what to choose or set, the model client's errors what to check,
// generate.NoRoom what to set when the context is too small. The command
// line and the terminal UI show both the same way.
//
// # Follow-up questions
//
// A question asked after others in a conversation may refer to them
// ("and what about the second one?"). The front end passes the earlier
// questions and answers as Request.History (TurnOf makes a turn of an
// answer); Run keeps the last MaxTurns of them, each cut to
// MaxTurnTokens. For a strategy that uses a model, Run first asks the
// model to rewrite the question to stand on its own: the strategy reads
// that as Question (for retrieval and its prompts), Asked keeps the
// question as asked (the answer's), History gives the conversation,
// which engine/generate puts before its prompt, and Config's context
// window is what the conversation leaves. For one that does not (and
// when the rewrite fails), Previous is the previous question, whose
// words join the search at a lower weight (retrieve.Options.Context).
// The answer's FollowUp says how it was read and what the context cost.
//
// # Unfinished statements
//
// When an answer stops while the model is writing a statement the answer
// shows (cancelled, or the stream dropped), Run keeps that statement as
// the model left it: cut short, uncited, marked Unfinished.
//
// # Work before answering
//
// A strategy that needs work done on documents before it can answer about
// them (RAIDD's derived documents) registers a Preparer. The work costs
// model tokens, so the strategy never does it unasked: it fails with an
// error saying what preparing would cost and how to ask for it. Front ends
// run the Preparer through Info: `citelens derive`, and eval before its
// questions.
package engine
