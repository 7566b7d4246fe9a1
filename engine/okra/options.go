package okra

import (
	"fmt"
	"slices"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// The analyzer option's values.
const (
	AnalyzerModel = "model" // ask the configured analyzer model (Table 7)
	AnalyzerRules = "rules" // use the rule-based analyzer only
)

// MaxStepsLimit bounds the steps option.
const MaxStepsLimit = 10

// options are the strategies' settings.
var options = engine.Options{
	{Name: "analyzer", Kind: engine.OneOf, Default: AnalyzerModel, Help: "who characterises the question",
		Choices: []engine.Choice{
			{Value: AnalyzerModel, Help: "ask the analyzer model: analyzer_model in the config, else model; the rules when its reply is unusable"},
			{Value: AnalyzerRules, Help: "the rule-based analyzer"},
		}},
	{Name: "steps", Kind: engine.Int, Min: 1, Max: MaxStepsLimit, Default: fmt.Sprint(DefaultSteps), Help: "rounds of the step-wise reasoner"},
	generate.FormatOption,
	generate.MaxCitations(fmt.Sprint(citations.LongBenchCiteCap), "LongBench-Cite's cap by default"),
	generate.RepairOption,
}

// preciseOptions are okra-precise's: okra's, but repair, since precise
// mode rereads the whole scope when the first answer falls short.
var preciseOptions = append(slices.Clone(options[:len(options)-1]),
	engine.Option{Name: "repair", Refused: "okra-precise rereads the whole scope instead of repairing an answer; use okra for repair"})
