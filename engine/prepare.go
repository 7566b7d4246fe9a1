package engine

import (
	"context"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/llm"
)

// Preparer does the work a strategy needs done on documents before it can
// answer about them: RAIDD's derived documents (a model-written summary
// and questions for every chunk) and their embeddings. The work costs
// model tokens, so it is never done unasked: the strategy's Answer fails
// with an error wrapping ErrNotPrepared that says what preparing costs
// and how to ask for it. A strategy that needs one registers it in its
// Info, and front ends run it through this interface alone: `citelens
// derive` prepares for every strategy, eval for the strategy it
// evaluates, before the questions, so the answers' cost is the answering
// alone.
type Preparer interface {
	// Status says, calling no model, how much of p's documents is
	// prepared and what preparing the rest would take (Prepared.Missing).
	Status(env *Env, p Preparation) (*Prepared, error)
	// Prepare does what p's documents still need, reporting progress to
	// p.Progress. Work done before is kept, so a stopped run resumes where
	// it stopped. It returns what it did, with the error when it stops.
	Prepare(ctx context.Context, env *Env, p Preparation) (*Prepared, error)
}

// Preparation asks for documents to be prepared.
type Preparation struct {
	// Strategy is the strategy to prepare for, which may need less than
	// others the Preparer serves (RAIDD's variants embed their own kinds
	// of derived text); "" prepares for all of them.
	Strategy string
	Docs     []docstore.DocID
	// Options are the request options the strategy will answer with:
	// they may say whose work it reads (RAIDD's derive_model).
	Options []Setting
	// Model, when set, is the model that does the work, whatever the
	// options and the configuration say.
	Model string
	// Jobs is how many documents are prepared at once (0 means one).
	Jobs int
	// NoEmbed leaves embedding the work to the strategy, which embeds
	// what it needs when first asked.
	NoEmbed bool
	// Progress, if set, is told how the work is going.
	Progress func(Progress)
}

// Progress is how a preparation is going.
type Progress struct {
	// Step is what is being done: "deriving", "embedding".
	Step string
	Doc  string // the name of the document worked on
	// Done and Total count Unit over the whole run: done so far, and to
	// do (units found done before are in neither).
	Done, Total int
	Unit        string // "chunks", "summaries"
	Failed      int
	Usage       llm.Usage // spent so far
	Elapsed     time.Duration
}

// Prepared is what a preparation did (Prepare) or finds (Status).
type Prepared struct {
	// Model is the model whose work it is; Unit what the work is counted
	// in ("chunks"), each of about UnitTokens tokens, overlapping by
	// UnitOverlap.
	Model                   string
	Unit                    string
	UnitTokens, UnitOverlap int
	// Docs are the documents, with their state at the end.
	Docs []PreparedDoc
	// Done counts units done in this run, Resumed those found done.
	Done, Resumed int
	// Failures are units whose work failed; the next run retries them.
	Failures []PrepFailure
	Usage    llm.Usage
	Seconds  float64
	// Missing is what the work left undone would take.
	Missing Cost
	// Embedding is what embedding the work did (Prepare) or finds
	// (Status); nil without an embedding model, or with NoEmbed.
	Embedding *Embedding
}

// PreparedDoc is one document's state.
type PreparedDoc struct {
	ID    docstore.DocID
	Name  string
	Units int // units in all
	Done  int // units done (failed ones aside)
	// Failed counts units whose work failed and will be retried.
	Failed int
	// Complete reports the work finished for the document (failed units
	// aside): the strategy can answer about it.
	Complete bool
	// Spent is what the work stored for the document cost.
	Spent llm.Usage
	// Embeddable and Embedded count the units to embed and those
	// embedded, with an embedding model.
	Embeddable, Embedded int
}

// PrepFailure is a unit whose work failed.
type PrepFailure struct {
	Doc    docstore.DocID
	Name   string
	Unit   int // the unit's index in its document
	Page   int
	Reason string
}

// Cost is model work to be done, estimated before any call.
type Cost struct {
	Units, Calls                   int
	PromptTokens, CompletionTokens int
}

// Tokens is the cost's prompt and completion tokens.
func (c Cost) Tokens() int { return c.PromptTokens + c.CompletionTokens }

// Embedding is what embedding prepared work did or finds.
type Embedding struct {
	Model string
	// Units counts what there is to embed; Embedded what this run
	// embedded (Prepare), or what is embedded (Status).
	Units, Embedded int
	// Kinds count what was embedded by kind, in order: "summaries",
	// "questions", "chunks".
	Kinds   []Count
	Usage   llm.Usage
	Seconds float64
}

// Count is a number of things of a kind.
type Count struct {
	What string
	N    int
}
