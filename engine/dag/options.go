package dag

import (
	"fmt"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// Defaults and bounds of the options.
const (
	// DefaultMaxSteps is M of the algorithms, the most steps (Algorithm
	// 2) or sub-questions (Algorithm 1) before the answer is written
	// whatever the model says.
	DefaultMaxSteps = 5
	// MaxMaxSteps bounds max_steps: each step costs two model calls.
	MaxMaxSteps = 20
	// DefaultChunks and DefaultChunkWords are the seed's retrieval
	// (Appendix C: "The word number of chunk size is 80 and we recall top
	// 3 chunks").
	DefaultChunks     = 3
	DefaultChunkWords = 80
	// MaxChunks and the chunk_words bounds keep a step's reference within
	// what "a context-limited LLM" of the seed reads at once.
	MaxChunks     = 20
	MinChunkWords = 10
	MaxChunkWords = 1000
)

// The seed's algorithms.
const (
	// IterativeQA is Algorithm 1, iterative QA with fact extraction: a
	// sub-question at a time, a cited fact extracted for each.
	IterativeQA = "1"
	// ConstrainedDecoding is Algorithm 2, knowledge-constrained decoding
	// (section 3.3): a reasoning step at a time, each written again to
	// hold to the knowledge retrieved for it, citing it. The seed's better
	// method (Table 1: 44.5 against 42.3 on average), and the one its
	// ablations and variable tracking use: the default.
	ConstrainedDecoding = "2"
)

// options are the strategy's settings.
var options = engine.Options{
	{Name: "algorithm", Kind: engine.OneOf, Default: ConstrainedDecoding, Help: "the seed's algorithm", Choices: []engine.Choice{
		{Value: IterativeQA, Help: "iterative QA with fact extraction: sub-questions, a cited fact for each"},
		{Value: ConstrainedDecoding, Help: "knowledge-constrained decoding: reasoning steps, each rewritten to hold to the knowledge retrieved for it and citing it"},
	}},
	{Name: "max_steps", Kind: engine.Int, Min: 1, Max: MaxMaxSteps, Default: fmt.Sprint(DefaultMaxSteps), Help: "steps (sub-questions) at most before answering (M of the algorithms)"},
	{Name: "chunks", Aliases: []string{"k"}, Kind: engine.Int, Min: 1, Max: MaxChunks, Default: fmt.Sprint(DefaultChunks), Help: "chunks retrieved per step (eval --k sets it)"},
	{Name: "chunk_words", Kind: engine.Int, Min: MinChunkWords, Max: MaxChunkWords, Default: fmt.Sprint(DefaultChunkWords), Help: "words per chunk, cut at sentence ends"},
	generate.FormatOption,
	generate.MaxCitations("0", "the final prompt shows only the facts' sentences, so there is nothing to over-cite"),
	generate.RepairOption,
}
