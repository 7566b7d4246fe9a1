package cof

import (
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// Defaults of the options: the paper's retrieval settings (section 3.2,
// "l_max = 10 and k = 40"), CoF's caps on citations per statement (five
// chunks in step 2, three sentence spans after step 3, as THUDM/LongCite's
// CoF scripts cut them), and how many step-3 extractions run at once.
const (
	DefaultK        = 40
	DefaultLMax     = 10
	DefaultCite     = 3
	ChunkCite       = 5
	DefaultParallel = 4
	// MaxK bounds k: more chunks than this stop being a focused search
	// space, which is what step 2 is for.
	MaxK = 400
)

// CitedShare is the share of statements below which CoF's final step
// (section 3.1, "Data Filtering") discards an instance as not grounded in
// the context. citelens keeps the answer and warns.
const CitedShare = 0.2

// Options are the strategy's settings, read from Request.Options:
//
//	k=N              about how many chunks step 2 shows in all (default 40)
//	l_max=N          at most N chunks retrieved per answer sentence (default 10)
//	max_citations=N  sentence-level citations kept per statement (default 3;
//	                 0 keeps all)
//	parallel=N       step-3 extractions run at once (default 4)
type Options struct {
	K, LMax, MaxCitations, Parallel int
}

// ParseOptions reads the options. An unknown key or a bad value is an
// error that names it and says what it takes.
func ParseOptions(m map[string]string) (Options, error) {
	o := Options{K: DefaultK, LMax: DefaultLMax, MaxCitations: DefaultCite, Parallel: DefaultParallel}
	keys := []string{"k", "l_max", "max_citations", "parallel"}
	for key, val := range m {
		var err error
		switch key {
		case "k":
			o.K, err = engine.IntOption(key, val, 1, MaxK, "about how many chunks to show")
		case "l_max":
			o.LMax, err = engine.IntOption(key, val, 1, MaxK, "how many chunks each answer sentence retrieves at most")
		case "max_citations":
			o.MaxCitations, err = generate.ParseMaxCitations(val)
		case "parallel":
			o.Parallel, err = engine.IntOption(key, val, 1, 32, "how many extractions may run at once")
		default:
			err = engine.UnknownOption(Name, key, "", keys)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// PerSentence is l, the chunks kept per answer sentence:
// min(l_max, ⌈k / n_sent⌉), the paper's min(l_max, (k + n_sent − 1) / n_sent)
// in integer division, so that about k chunks are kept in all.
func (o Options) PerSentence(sentences int) int {
	if sentences < 1 {
		return 0
	}
	return min(o.LMax, (o.K+sentences-1)/sentences)
}
