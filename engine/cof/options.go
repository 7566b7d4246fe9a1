package cof

import (
	"fmt"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// MaxK bounds k: more chunks than this stop being a focused search space,
// which is what step 2 is for.
const MaxK = 400

// options are the strategy's settings, by default the paper's
// (generate.PaperCoF).
var options = engine.Options{
	{Name: "k", Kind: engine.Int, Min: 1, Max: MaxK, Default: fmt.Sprint(generate.PaperCoF.K), Help: "about how many chunks step 2 shows in all"},
	{Name: "l_max", Kind: engine.Int, Min: 1, Max: MaxK, Default: fmt.Sprint(generate.PaperCoF.LMax), Help: "chunks each answer sentence retrieves at most"},
	generate.MaxCitations(fmt.Sprint(generate.PaperCoF.Keep), ""),
	{Name: "parallel", Kind: engine.Int, Min: 1, Max: 32, Default: fmt.Sprint(generate.PaperCoF.Parallel), Help: "step-3 extractions run at once"},
	{Name: "ungrounded", Kind: engine.OneOf, Default: UngroundedWarn, Choices: []engine.Choice{
		{Value: UngroundedWarn, Help: "keep an answer with under 20% of its statements cited, with a warning"},
		{Value: UngroundedDiscard, Help: "discard it, as the paper's filter does (the statements show once the answer is complete)"},
	}, Help: "what to do with an answer under CoF's 20% cited-statements rule"},
}

// The values of the ungrounded option.
const (
	UngroundedWarn    = "warn"
	UngroundedDiscard = "discard"
)
