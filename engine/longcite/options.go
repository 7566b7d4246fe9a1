package longcite

import (
	"fmt"
	"slices"
	"strings"

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

// Options are the strategies' settings, read from Request.Options:
//
//	format=one-shot|longcite-model   the prompt (default: longcite-model when
//	                                 the model's name contains "longcite",
//	                                 else one-shot); see engine/generate
//	max_citations=N                  citations kept per statement after
//	                                 merging; 0 keeps all (default 3 for
//	                                 sentences, LongBench-Cite's cap; 5 for
//	                                 chunks, CoF's)
//	k=N                              rag: units retrieved (default 40)
//	level=sentence|chunk             rag: RAC-S (default) or RAC-C
type Options struct {
	generate.Options // MaxCitations -1 means the default for the level
	K                int
	Level            string
}

// ParseOptions reads the options of strategy name; rag says whether the
// retrieval options apply. An unknown key or a bad value is an error that
// names it and says what it takes.
func ParseOptions(name string, m map[string]string, rag bool) (Options, error) {
	o := Options{Options: generate.Options{MaxCitations: -1}, K: DefaultK, Level: LevelSentence}
	keys := slices.Clone(generate.OptionKeys)
	if rag {
		keys = append(keys, "k", "level")
	}
	for key, val := range m {
		val = strings.TrimSpace(val)
		if !slices.Contains(keys, key) {
			note := ""
			if !rag && (key == "k" || key == "level") {
				note = " (longcite reads the whole scope; retrieval settings are for the rag strategy)"
			}
			return o, engine.UnknownOption(name, key, note, keys)
		}
		var err error
		switch key {
		case "k":
			o.K, err = engine.IntOption(key, val, 1, MaxK, "a whole number of units to retrieve")
		case "level":
			switch strings.ToLower(val) {
			case LevelSentence, "sentences", "s":
				o.Level = LevelSentence
			case LevelChunk, "chunks", "c":
				o.Level = LevelChunk
			default:
				err = fmt.Errorf("%w: level=%q: give sentence (RAC-S) or chunk (RAC-C)", engine.ErrOption, val)
			}
		default:
			_, err = o.ParseOption(key, val)
		}
		if err != nil {
			return o, err
		}
	}
	if o.Format == generate.LongCiteModel && o.Level == LevelChunk {
		return o, fmt.Errorf("%w: format=%s numbers sentences; LongCite's models were not trained on chunks, so use level=sentence or format=%s",
			engine.ErrOption, generate.LongCiteModel, generate.OneShot)
	}
	return o, nil
}

// resolve returns the resolution options for the level.
func (o Options) resolve() citations.ResolveOptions {
	switch {
	case o.MaxCitations >= 0:
		return citations.ResolveOptions{MaxCitations: o.MaxCitations}
	case o.Level == LevelChunk:
		return citations.ResolveOptions{MaxCitations: citations.ChunkCap}
	}
	return citations.ResolveOptions{MaxCitations: citations.LongBenchCiteCap}
}

// format returns the prompt format for model: chunks are numbered only in
// the one-shot prompt.
func (o Options) format(model string) generate.Format {
	if o.Format == "" && o.Level == LevelChunk {
		return generate.OneShot
	}
	return o.FormatFor(model)
}
