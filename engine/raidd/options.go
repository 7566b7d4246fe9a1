package raidd

import (
	"fmt"
	"strings"

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

// Options are the strategies' settings, read from Request.Options:
//
//	k=N                   chunks in the answering prompt (default 8)
//	derive=yes|no         derive missing derived documents first (default
//	                      no: the strategy fails with *NeedsDerivation)
//	derive_model=NAME     use the documents NAME derived (default: the
//	                      configured model)
//	fuse=rank|score       how the + variants and raidd-u put their kinds,
//	                      and every variant its BM25 and embedding
//	                      rankings, on one ranking: rank (default),
//	                      reciprocal-rank fusion of each ranking of the
//	                      chunks; score, one collection of every kind's
//	                      units by BM25 score (plus the min-max normalised
//	                      cosine, with an embedding model)
//	format=one-shot|longcite-model, max_citations=N
//	                      the answering prompt, as for rag
type Options struct {
	K                int
	Fuse             string // FuseRank or FuseScore
	Derive           bool
	DeriveModel      string
	generate.Options // MaxCitations -1: LongBench-Cite's 3
}

var optionKeys = append([]string{"k", "derive", "derive_model", "fuse"}, generate.OptionKeys...)

// The ways of fusing the kinds of the + variants and raidd-u.
const (
	// FuseRank fuses each kind's ranking of the chunks (by BM25, and by
	// embedding similarity when an embedding model is configured) by
	// reciprocal rank: a chunk's own text is taken when it ranks higher
	// among the raw chunks than the summaries' best chunks do among
	// theirs, and a chunk several keys find comes first.
	FuseRank = "rank"
	// FuseScore ranks every kind's units in one BM25 collection, each
	// kind's lengths normalised against its own average; with an
	// embedding model, each unit's BM25 score and cosine are min-max
	// normalised over the pool and added.
	FuseScore = "score"
)

// ParseOptions reads the options of strategy name. An unknown key or a bad
// value is an error that names it and says what it takes.
func ParseOptions(name string, m map[string]string) (Options, error) {
	o := Options{K: DefaultK, Fuse: FuseRank, Options: generate.Options{MaxCitations: -1}}
	for key, val := range m {
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "k":
			o.K, err = engine.IntOption(key, val, 1, MaxK, "a whole number of chunks to retrieve")
		case "derive":
			switch strings.ToLower(val) {
			case "yes", "y", "true", "1", "on":
				o.Derive = true
			case "no", "n", "false", "0", "off", "":
				o.Derive = false
			default:
				err = fmt.Errorf("%w: derive=%q: give yes to derive missing summaries and questions first, or no", engine.ErrOption, val)
			}
		case "fuse":
			switch strings.ToLower(val) {
			case FuseRank, FuseScore:
				o.Fuse = strings.ToLower(val)
			default:
				err = fmt.Errorf("%w: fuse=%q: give rank (reciprocal-rank fusion of the rankings) or score (one ranking by score)", engine.ErrOption, val)
			}
		case "derive_model":
			if val == "" {
				err = fmt.Errorf("%w: derive_model is empty: name the model whose derived documents to use", engine.ErrOption)
			}
			o.DeriveModel = val
		default:
			var handled bool
			if handled, err = o.ParseOption(key, val); !handled {
				err = engine.UnknownOption(name, key, "", optionKeys)
			}
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

func (o Options) resolve() citations.ResolveOptions {
	if o.MaxCitations >= 0 {
		return citations.ResolveOptions{MaxCitations: o.MaxCitations}
	}
	return citations.ResolveOptions{MaxCitations: citations.LongBenchCiteCap}
}
