package cof

import (
	"fmt"

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

// options are the strategy's settings.
var options = engine.Options{
	{Name: "k", Kind: engine.Int, Min: 1, Max: MaxK, Default: fmt.Sprint(DefaultK), Help: "about how many chunks step 2 shows in all"},
	{Name: "l_max", Kind: engine.Int, Min: 1, Max: MaxK, Default: fmt.Sprint(DefaultLMax), Help: "chunks each answer sentence retrieves at most"},
	generate.MaxCitations(fmt.Sprint(DefaultCite), ""),
	{Name: "parallel", Kind: engine.Int, Min: 1, Max: 32, Default: fmt.Sprint(DefaultParallel), Help: "step-3 extractions run at once"},
}

// PerSentence is l, the chunks kept per answer sentence:
// min(l_max, ⌈k / n_sent⌉), the paper's min(l_max, (k + n_sent − 1) / n_sent)
// in integer division, so that about k chunks are kept in all.
func PerSentence(k, lMax, sentences int) int {
	if sentences < 1 {
		return 0
	}
	return min(lMax, (k+sentences-1)/sentences)
}
