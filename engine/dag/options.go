package dag

import (
	"fmt"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// Defaults and bounds of the options.
const (
	// DefaultMaxSteps is M of Algorithm 1, the most sub-questions asked
	// before the answer is written whatever the model says.
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

// options are the strategy's settings.
var options = engine.Options{
	{Name: "max_steps", Kind: engine.Int, Min: 1, Max: MaxMaxSteps, Default: fmt.Sprint(DefaultMaxSteps), Help: "sub-questions at most before answering (M of Algorithm 1)"},
	{Name: "chunks", Aliases: []string{"k"}, Kind: engine.Int, Min: 1, Max: MaxChunks, Default: fmt.Sprint(DefaultChunks), Help: "chunks retrieved per sub-question (eval --k sets it)"},
	{Name: "chunk_words", Kind: engine.Int, Min: MinChunkWords, Max: MaxChunkWords, Default: fmt.Sprint(DefaultChunkWords), Help: "words per chunk, cut at sentence ends"},
	generate.FormatOption,
	generate.MaxCitations("0", "the final prompt shows only the facts' sentences, so there is nothing to over-cite"),
	generate.RepairOption,
}
