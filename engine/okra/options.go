package okra

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
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
	Analyzer     string
	Steps        int
	Format       generate.Format
	MaxCitations int
}

var optionKeys = []string{"analyzer", "steps", "format", "max_citations"}

// ParseOptions reads the options of strategy name. An unknown key or a bad
// value is an error that names it and says what it takes.
func ParseOptions(name string, m map[string]string) (Options, error) {
	o := Options{Analyzer: AnalyzerModel, Steps: DefaultSteps, MaxCitations: citations.LongBenchCiteCap}
	for key, val := range m {
		val = strings.TrimSpace(val)
		if !slices.Contains(optionKeys, key) {
			return o, fmt.Errorf("%w: %q; the %s strategy takes %s", ErrOption, key, name, strings.Join(optionKeys, ", "))
		}
		switch key {
		case "analyzer":
			switch strings.ToLower(val) {
			case AnalyzerModel, AnalyzerRules:
				o.Analyzer = strings.ToLower(val)
			default:
				return o, fmt.Errorf("%w: analyzer=%q: give model (ask the analyzer model) or rules (the rule-based analyzer)", ErrOption, val)
			}
		case "steps":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > MaxStepsLimit {
				return o, fmt.Errorf("%w: steps=%q: give a whole number of reasoning rounds, 1 to %d", ErrOption, val, MaxStepsLimit)
			}
			o.Steps = n
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

// longcite is the options precise mode's whole-context rerun takes.
func (o Options) longcite() map[string]string {
	m := map[string]string{"max_citations": strconv.Itoa(o.MaxCitations)}
	if o.Format != "" {
		m["format"] = string(o.Format)
	}
	return m
}
