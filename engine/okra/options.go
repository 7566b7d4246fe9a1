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
	formatOption,
	generate.MaxCitations(fmt.Sprint(citations.LongBenchCiteCap), "LongBench-Cite's cap by default"),
	generate.RepairOption,
}

// formatOption is generate.FormatOption with okra's default: the final
// answer's prompt is lean (Figure 10's instructions without its worked
// example, about 1,000 tokens that outweighed the ~760 of retrieved text
// the paper's answer reads); okra-precise's reread of the whole scope
// keeps the one-shot prompt.
var formatOption = func() engine.Option {
	o := generate.FormatOption
	o.Help = "the final answer's prompt; by default longcite-model for a model named LongCite, else lean"
	return o
}()

// finalFormat is the final answer's prompt format: the format option
// when given, LongCiteModel for THUDM's models, else generate.Lean.
func finalFormat(o engine.Values, model string) generate.Format {
	if o.String("format") == "" && generate.DefaultFormat(model) == generate.OneShot {
		return generate.Lean
	}
	return generate.FormatOf(o, model)
}

// preciseOptions are okra-precise's: okra's, but repair, since precise
// mode rereads the whole scope when the first answer falls short.
var preciseOptions = append(slices.Clone(options[:len(options)-1]),
	engine.Option{Name: "repair", Refused: "okra-precise rereads the whole scope instead of repairing an answer; use okra for repair"})
