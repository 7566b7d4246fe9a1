package generate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/citelens/citelens/engine"
)

// OptionKeys are the names of the options Options reads, for a strategy's
// listing of the keys it takes.
var OptionKeys = []string{"format", "max_citations"}

// Options are the generation settings every LLM strategy takes from
// Request.Options:
//
//	format=one-shot|longcite-model   the answering prompt (default: the
//	                                 model's, see DefaultFormat)
//	max_citations=N                  citations kept per statement; 0 keeps
//	                                 all
//
// A strategy embeds Options in its own and sets MaxCitations's default
// before parsing; what a negative MaxCitations means is the strategy's.
type Options struct {
	Format       Format // "" means the model's default
	MaxCitations int
}

// ParseOption reads key=val when key is one of OptionKeys and reports
// whether it was; a bad value is an error wrapping engine.ErrOption.
func (o *Options) ParseOption(key, val string) (handled bool, err error) {
	switch key {
	case "format":
		f, err := ParseFormat(val)
		if err != nil {
			return true, fmt.Errorf("%w: %v", engine.ErrOption, err)
		}
		o.Format = f
	case "max_citations":
		n, err := ParseMaxCitations(val)
		if err != nil {
			return true, err
		}
		o.MaxCitations = n
	default:
		return false, nil
	}
	return true, nil
}

// FormatFor is the prompt format for model: the one asked for, else the
// model's default.
func (o Options) FormatFor(model string) Format {
	if o.Format != "" {
		return o.Format
	}
	return DefaultFormat(model)
}

// ParseMaxCitations reads the value of max_citations, for strategies that
// take it without a format; a bad value is an error wrapping
// engine.ErrOption.
func ParseMaxCitations(val string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(val))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: max_citations=%q: give a whole number, 0 for no limit", engine.ErrOption, val)
	}
	return n, nil
}
