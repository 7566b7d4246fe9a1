package raidd

import (
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// Defaults of the options.
const (
	// DefaultK is how many chunks go into the answering prompt: the
	// paper's top-k for 256-token chunks (Table 2).
	DefaultK = 8
	// MaxK bounds k.
	MaxK = 256
	// PoolPerK is how many derived units are ranked per chunk wanted
	// before duplicates of a chunk are dropped: the authors retrieve
	// top_k × 32 questions (question_gen.ipynb), as a chunk has 8 of them.
	PoolPerK = 32
)

// The ways of ranking the units of the + variants and raidd-u, and of
// fusing the rankings by words and by meaning.
const (
	// FuseAuto is FuseIndex with an embedding model and FuseRank without:
	// the paper's rule where there is one similarity to rank every unit
	// by, rank fusion where there are only BM25 scores, which are not
	// comparable across kinds.
	FuseAuto = "auto"
	// FuseIndex is the paper's (section 2.2, RAIDD-U: "an index which
	// contains the union of the summary, question, and raw text document
	// stores", ranked as the authors do by one similarity): every unit
	// in one index, by the cosine of its embedding to the question's, so
	// a raw chunk is taken only when it scores higher than the derived
	// keys. Without an embedding model the one similarity is BM25 (each
	// kind's lengths normalised against its own average).
	FuseIndex = "index"
	// FuseRank fuses each kind's ranking of the chunks (by BM25, and by
	// embedding similarity when an embedding model is configured) by
	// reciprocal rank: a chunk's own text is taken when it ranks higher
	// among the raw chunks than the summaries' best chunks do among
	// theirs, and a chunk several keys find comes first.
	FuseRank = "rank"
	// FuseScore ranks every kind's units in one BM25 collection; with an
	// embedding model, each unit's BM25 score and cosine are min-max
	// normalised over the pool and added 1:1.
	FuseScore = "score"
)

// options are the strategies' settings.
var options = engine.Options{
	{Name: "k", Kind: engine.Int, Min: 1, Max: MaxK, Default: fmt.Sprint(DefaultK), Help: "chunks in the answering prompt"},
	{Name: "fuse", Kind: engine.OneOf, Default: FuseAuto, Help: "how the kinds of derived text, and the rankings by words and by meaning, make one ranking",
		Choices: []engine.Choice{
			{Value: FuseAuto, Help: "index with an embedding model, rank without"},
			{Value: FuseIndex, Help: "the paper's: every unit in one index, ranked by one similarity (embeddings, else BM25)"},
			{Value: FuseRank, Help: "reciprocal-rank fusion of each kind's rankings, for BM25 alone"},
			{Value: FuseScore, Help: "one ranking by BM25 and embedding scores, min-max normalised"},
		}},
	{Name: "derive", Kind: engine.Bool, Default: "no", Help: "derive missing summaries and questions first; without it the strategy says what deriving costs"},
	{Name: "derive_model", Kind: engine.Text, Help: "the model whose derived documents to use; by default the configured model"},
	{Name: "derive_calls", Kind: engine.OneOf, Default: CallsTwo, Help: "how a chunk's summary and questions are asked for",
		Choices: []engine.Choice{
			{Value: CallsTwo, Help: "the authors': a summary call, then a questions call"},
			{Value: CallsOne, Help: "one call asking for both: half the calls and about a third fewer prompt tokens (its own derived documents)"},
		}},
	{Name: "prompt", Kind: engine.OneOf, Default: PromptCited, Help: "how the retrieved chunks are answered from",
		Choices: []engine.Choice{
			{Value: PromptCited, Help: "LongCite's prompt: the model cites the sentences as it answers (one call)"},
			{Value: PromptPlain, Help: "the paper's: a plain QA prompt (LlamaIndex's default), the answer then cited as CoF does (one more call, plus one per statement)"},
		}},
	generate.FormatOption,
	generate.MaxCitations(fmt.Sprint(citations.LongBenchCiteCap), "LongBench-Cite's cap by default"),
	generate.RepairOption,
}

// The values of the derive_calls option.
const (
	CallsTwo = "two"
	CallsOne = "one"
)

// layoutOption is the layout derive_calls names.
func layoutOption(o engine.Values) Layout {
	if o.String("derive_calls") == CallsOne {
		return OneCall
	}
	return TwoCalls
}

// The values of the prompt option.
const (
	PromptCited = "cited"
	PromptPlain = "plain"
)
