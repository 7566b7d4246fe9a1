package dag

import (
	"maps"
	"slices"
	"strings"

	"github.com/citelens/citelens/citations"
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

// Options are the strategy's settings, read from Request.Options:
//
//	max_steps=N        sub-questions at most before answering (default 5)
//	chunks=N           chunks retrieved per sub-question (default 3); k is
//	                   the same setting, as `citelens eval --k` passes it
//	chunk_words=N      words per chunk, cut at sentence ends (default 80)
//	format=one-shot|longcite-model
//	                   the final answer's prompt (default: longcite-model
//	                   when the model's name contains "longcite")
//	max_citations=N    citations kept per final statement; 0 keeps all
//	                   (default 0: the final prompt shows only the facts'
//	                   sentences, so there is nothing to over-cite)
type Options struct {
	MaxSteps   int
	Chunks     int
	ChunkWords int
	generate.Options
}

var optionKeys = append([]string{"max_steps", "chunks", "k", "chunk_words"}, generate.OptionKeys...)

// ParseOptions reads the options. An unknown key or a bad value is an
// error that names it and says what it takes.
func ParseOptions(m map[string]string) (Options, error) {
	o := Options{MaxSteps: DefaultMaxSteps, Chunks: DefaultChunks, ChunkWords: DefaultChunkWords}
	// Sorted, so that with several bad options the same one is reported.
	for _, key := range slices.Sorted(maps.Keys(m)) {
		val := strings.TrimSpace(m[key])
		var err error
		switch key {
		case "max_steps":
			o.MaxSteps, err = engine.IntOption(key, val, 1, MaxMaxSteps, "a whole number of sub-questions")
		case "chunks", "k":
			o.Chunks, err = engine.IntOption(key, val, 1, MaxChunks, "a whole number of chunks to retrieve per sub-question")
		case "chunk_words":
			o.ChunkWords, err = engine.IntOption(key, val, MinChunkWords, MaxChunkWords, "a chunk size in words")
		default:
			var handled bool
			if handled, err = o.ParseOption(key, val); !handled {
				err = engine.UnknownOption(Name, key, "", optionKeys)
			}
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

func (o Options) resolve() citations.ResolveOptions {
	return citations.ResolveOptions{MaxCitations: o.MaxCitations}
}
