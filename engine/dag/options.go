package dag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
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
	MaxSteps     int
	Chunks       int
	ChunkWords   int
	Format       generate.Format // "" means the model's default
	MaxCitations int
}

var optionKeys = []string{"max_steps", "chunks", "k", "chunk_words", "format", "max_citations"}

// ParseOptions reads the options. An unknown key or a bad value is an
// error that names it and says what it takes.
func ParseOptions(m map[string]string) (Options, error) {
	o := Options{MaxSteps: DefaultMaxSteps, Chunks: DefaultChunks, ChunkWords: DefaultChunkWords}
	// Sorted, so that with several bad options the same one is reported.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		val := strings.TrimSpace(m[key])
		switch key {
		case "max_steps":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > MaxMaxSteps {
				return o, fmt.Errorf("%w: max_steps=%q: give a whole number of sub-questions, 1 to %d", ErrOption, val, MaxMaxSteps)
			}
			o.MaxSteps = n
		case "chunks", "k":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > MaxChunks {
				return o, fmt.Errorf("%w: %s=%q: give a whole number of chunks to retrieve per sub-question, 1 to %d", ErrOption, key, val, MaxChunks)
			}
			o.Chunks = n
		case "chunk_words":
			n, err := strconv.Atoi(val)
			if err != nil || n < MinChunkWords || n > MaxChunkWords {
				return o, fmt.Errorf("%w: chunk_words=%q: give a chunk size in words, %d to %d", ErrOption, val, MinChunkWords, MaxChunkWords)
			}
			o.ChunkWords = n
		case "format":
			f, err := generate.ParseFormat(val)
			if err != nil {
				return o, fmt.Errorf("%w: %v", ErrOption, err)
			}
			o.Format = f
		case "max_citations":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return o, fmt.Errorf("%w: max_citations=%q: give a whole number, 0 for no limit", ErrOption, val)
			}
			o.MaxCitations = n
		default:
			return o, fmt.Errorf("%w: %q; the %s strategy takes %s", ErrOption, key, Name, strings.Join(optionKeys, ", "))
		}
	}
	return o, nil
}

func (o Options) format(model string) generate.Format {
	if o.Format != "" {
		return o.Format
	}
	return generate.DefaultFormat(model)
}

func (o Options) resolve() citations.ResolveOptions {
	return citations.ResolveOptions{MaxCitations: o.MaxCitations}
}
