package okra

import (
	"fmt"
	"strconv"
	"strings"

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

// Options are the strategies' settings, read from Request.Options:
//
//	analyzer=model|rules     who characterises the question (default model:
//	                         analyzer_model in the config, else model; the
//	                         rules when its reply is unusable)
//	steps=N                  rounds of the step-wise reasoner, 1 to 10
//	                         (default 3)
//	format=one-shot|longcite-model
//	                         the final prompt (default: the model's, as for
//	                         longcite; see engine/generate)
//	max_citations=N          citations kept per statement (default 3,
//	                         LongBench-Cite's cap; 0 keeps all)
type Options struct {
	Analyzer string
	Steps    int
	generate.Options
}

var optionKeys = append([]string{"analyzer", "steps"}, generate.OptionKeys...)

// ParseOptions reads the options of strategy name. An unknown key or a bad
// value is an error that names it and says what it takes.
func ParseOptions(name string, m map[string]string) (Options, error) {
	o := Options{Analyzer: AnalyzerModel, Steps: DefaultSteps, Options: generate.Options{MaxCitations: citations.LongBenchCiteCap}}
	for key, val := range m {
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "analyzer":
			switch strings.ToLower(val) {
			case AnalyzerModel, AnalyzerRules:
				o.Analyzer = strings.ToLower(val)
			default:
				err = fmt.Errorf("%w: analyzer=%q: give model (ask the analyzer model) or rules (the rule-based analyzer)", engine.ErrOption, val)
			}
		case "steps":
			o.Steps, err = engine.IntOption(key, val, 1, MaxStepsLimit, "a whole number of reasoning rounds")
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

// longcite is the options precise mode's whole-context rerun takes.
func (o Options) longcite() map[string]string {
	m := map[string]string{"max_citations": strconv.Itoa(o.MaxCitations)}
	if o.Format != "" {
		m["format"] = string(o.Format)
	}
	return m
}
