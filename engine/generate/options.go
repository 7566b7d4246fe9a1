package generate

import (
	"context"

	"github.com/citelens/citelens/engine"
)

// The options of every strategy that answers through Run: the prompt
// format and the citations kept per statement. A strategy lists
// FormatOption and a MaxCitations declaration in its table and reads them
// with FormatOf and Values.Int("max_citations").

// FormatOption declares format: the answering prompt.
var FormatOption = engine.Option{
	Name: "format", Kind: engine.OneOf,
	Choices: []engine.Choice{
		{Value: string(OneShot), Help: "any instruction model"},
		{Value: string(Lean), Help: "one-shot without its worked example (about 800 tokens fewer)"},
		{Value: string(LongCiteModel), Help: "THUDM's LongCite-8B/9B"},
	},
	Help: "the answering prompt; by default longcite-model for a model named LongCite, else one-shot",
}

// MaxCitations declares max_citations with the strategy's default (def,
// "" when it depends on other options) and help saying what the default
// is when def cannot.
func MaxCitations(def, help string) engine.Option {
	h := "citations kept per statement, 0 for no limit"
	if help != "" {
		h += "; " + help
	}
	return engine.Option{Name: "max_citations", Kind: engine.Int, Min: 0, Default: def, Help: h}
}

// FormatOf is the prompt format of an answer by model: the format option
// when given, else the model's default (DefaultFormat).
func FormatOf(v engine.Values, model string) Format {
	if f := v.String("format"); f != "" {
		return Format(f)
	}
	return DefaultFormat(model)
}

// RepairOption declares repair: when the model ignores the citation
// format altogether, its answer is cited afterwards CoF-style (Request
// .Repair).
var RepairOption = engine.Option{Name: "repair", Kind: engine.Bool, Default: "no",
	Help: "when the model ignores the citation format, cite its answer afterwards as CoF does (one more model call, plus one per statement that cites chunks); the statements then show once the answer is complete"}

// Repair is a Request's Repair when the answer's repair option is set:
// the model's plain answer cited by CoF's steps 2 and 3 with the paper's
// settings (CiteAnswer, PaperCoF); nil when it is not set. The strategy
// declares RepairOption.
func Repair(rt *engine.Runtime) func(context.Context, string) error {
	if !rt.Options().Bool("repair") {
		return nil
	}
	return func(ctx context.Context, text string) error {
		rt.Stage("the model ignored the citation format: citing its answer as CoF does (a model call for chunk-level citations, then one per statement that cites chunks)")
		return CiteAnswer(ctx, rt, text, PaperCoF)
	}
}
