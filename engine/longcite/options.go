package longcite

import (
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// Defaults of the options.
const (
	// DefaultK is how many sentences or chunks rag retrieves: k = 40, the
	// setting of the paper's comparison of strategies (section 3.2, Table
	// 4), where RAC-S and RAC-C were measured.
	DefaultK = 40
	// MaxK bounds k: beyond it retrieval is no longer what makes rag
	// different from reading the whole scope (use longcite).
	MaxK = 2000
)

// Levels of rag.
const (
	LevelSentence = "sentence" // RAC-S
	LevelChunk    = "chunk"    // RAC-C
)

// The option tables. max_citations defaults to LongBench-Cite's cap of 3
// for sentences, CoF's 5 for chunks.
var (
	maxCitations = generate.MaxCitations("", "by default 3 for sentences (LongBench-Cite's cap), 5 for chunks (CoF's)")
	levelOption  = engine.Option{Name: "level", Kind: engine.OneOf, Default: LevelSentence, Help: "what is numbered and cited",
		Choices: []engine.Choice{
			{Value: LevelSentence, Help: "LAC-S, RAC-S", Also: []string{"sentences", "s"}},
			{Value: LevelChunk, Help: "LAC-C, RAC-C", Also: []string{"chunks", "c"}},
		}}
	notHere    = "longcite reads the whole scope; retrieval settings are for the rag strategy"
	lacOptions = engine.Options{generate.FormatOption, maxCitations, levelOption, generate.RepairOption, {Name: "k", Refused: notHere}}
	ragOptions = engine.Options{
		generate.FormatOption, maxCitations,
		{Name: "k", Kind: engine.Int, Min: 1, Max: MaxK, Default: fmt.Sprint(DefaultK), Help: "sentences or chunks retrieved"},
		levelOption, generate.RepairOption,
	}
)

// passOf reads how an answer at level is asked from its options: the
// format (chunks are numbered only in the one-shot prompt) and the
// citations kept.
func passOf(rt *engine.Runtime, level string) (generate.Pass, error) {
	o := rt.Options()
	f := generate.FormatOf(o, rt.Config().Model)
	if level == LevelChunk {
		if f == generate.LongCiteModel && o.Given("format") {
			return generate.Pass{}, fmt.Errorf("%w: format=%s numbers sentences; LongCite's models were not trained on chunks, so use level=sentence or format=%s",
				engine.ErrOption, generate.LongCiteModel, generate.OneShot)
		}
		f = generate.OneShot
	}
	keep := citations.LongBenchCiteCap
	switch {
	case o.Given("max_citations"):
		keep = o.Int("max_citations")
	case level == LevelChunk:
		keep = citations.ChunkCap
	}
	return generate.Pass{Format: f, Resolve: citations.ResolveOptions{MaxCitations: keep}, Repair: generate.Repair(rt)}, nil
}
