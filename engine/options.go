package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is how an option's value is read.
type Kind int

// The kinds of option.
const (
	// Int is a whole number from Option.Min to Option.Max (no upper bound
	// when Max is 0).
	Int Kind = iota + 1
	// Ratio is a number strictly between 0 and 1.
	Ratio
	// Bool is yes or no (also true/false, on/off, 1/0, y/n).
	Bool
	// OneOf is one of Option.Choices.
	OneOf
	// Text is any text but the empty one.
	Text
	// Custom is read by Option.Parse.
	Custom
)

// Option declares one setting a strategy takes from Request.Options. A
// strategy's options are a table of them (Options): the one place that
// says what the strategy takes, from which come the parsing, the errors,
// `citelens strategies NAME` and the README's table.
type Option struct {
	Name string
	Kind Kind
	// Default is the value when the option is not given, as a user would
	// write it; "" when there is none or it depends on something else
	// (Help then says what).
	Default string
	// Min and Max bound an Int (Max 0: no upper bound).
	Min, Max int
	// Choices are a OneOf's values.
	Choices []Choice
	// Parse reads a Custom value; Syntax says what it takes ("12, 3-5,9").
	Parse  func(string) (any, error)
	Syntax string
	// Aliases are other names of the option ("k" for dag's chunks).
	Aliases []string
	// Help says what the option does, in words that follow "give …" in
	// an error: "chunks retrieved per sub-question".
	Help string
	// Refused, when set, marks a name the strategy does not take, with the
	// reason given in the error ("longcite reads the whole scope;
	// retrieval settings are for the rag strategy"). It is not listed.
	Refused string
}

// Choice is one value of a OneOf option.
type Choice struct {
	Value string
	Help  string   // what it means: "RAC-S", "any instruction model"
	Also  []string // other spellings accepted ("s", "sentences")
}

// Options are a strategy's option table, in the order they are listed.
type Options []Option

// Values are a request's options read against a strategy's table: every
// declared option's value, given or default. Reading an option the table
// does not declare, or as another kind, is a programming error and panics.
type Values struct {
	table Options
	value map[string]any
	given map[string]bool
}

// Parse reads given, in order, against the table of strategy. The first
// setting the table does not take, or whose value it cannot read, is the
// error (wrapping ErrOption), so the same request always gives the same
// message. A setting given twice takes its last value.
func (t Options) Parse(strategy string, given []Setting) (Values, error) {
	v := Values{table: t, value: map[string]any{}, given: map[string]bool{}}
	for _, o := range t {
		if o.Refused != "" || o.Default == "" {
			continue
		}
		x, err := o.read(o.Default)
		if err != nil {
			panic(fmt.Sprintf("engine: the default of %s's option %s: %v", strategy, o.Name, err))
		}
		v.value[o.Name] = x
	}
	for _, s := range given {
		o, ok := t.lookup(s.Name)
		if !ok || o.Refused != "" {
			note := ""
			if ok {
				note = " (" + o.Refused + ")"
			}
			return v, &OptionError{Strategy: strategy, Name: s.Name, msg: fmt.Sprintf("%q%s; the %s strategy takes %s", s.Name, note, strategy, t.names())}
		}
		x, err := o.read(s.Value)
		if err != nil {
			return v, &OptionError{Strategy: strategy, Name: s.Name, msg: fmt.Sprintf("%s=%q: %v", s.Name, s.Value, err)}
		}
		v.value[o.Name], v.given[o.Name] = x, true
	}
	return v, nil
}

// OptionError is a request option a strategy cannot use. It wraps
// ErrOption.
type OptionError struct {
	Strategy, Name string
	msg            string
}

func (e *OptionError) Error() string { return ErrOption.Error() + ": " + e.msg }

// Unwrap makes errors.Is(err, ErrOption) hold.
func (e *OptionError) Unwrap() error { return ErrOption }

// Fix says where the strategy's options are listed.
func (e *OptionError) Fix() string {
	return fmt.Sprintf("'citelens strategies %s' lists its options.", e.Strategy)
}

// lookup returns the option called name (or one of its aliases).
func (t Options) lookup(name string) (Option, bool) {
	for _, o := range t {
		if o.Name == name {
			return o, true
		}
		for _, a := range o.Aliases {
			if a == name {
				return o, true
			}
		}
	}
	return Option{}, false
}

// names lists the options taken: "k, level".
func (t Options) names() string {
	var out []string
	for _, o := range t {
		if o.Refused == "" {
			out = append(out, o.Name)
		}
	}
	if len(out) == 0 {
		return "no options"
	}
	return strings.Join(out, ", ")
}

// read reads one value; the error says what to give.
func (o Option) read(s string) (any, error) {
	val := strings.TrimSpace(s)
	help := ""
	if o.Help != "" {
		help = " (" + o.Help + ")"
	}
	switch o.Kind {
	case Int:
		n, err := strconv.Atoi(val)
		if err != nil || n < o.Min || (o.Max > 0 && n > o.Max) {
			return nil, fmt.Errorf("give a whole number %s%s", o.Range(), help)
		}
		return n, nil
	case Ratio:
		r, err := strconv.ParseFloat(val, 64)
		// Written so that NaN, which no comparison holds for, fails.
		if err != nil || !(r > 0 && r < 1) {
			return nil, fmt.Errorf("give a number between 0 and 1, such as 0.4%s", help)
		}
		return r, nil
	case Bool:
		switch strings.ToLower(val) {
		case "yes", "y", "true", "t", "on", "1":
			return true, nil
		case "no", "n", "false", "f", "off", "0":
			return false, nil
		}
		return nil, fmt.Errorf("give yes or no%s", help)
	case OneOf:
		low := strings.ToLower(val)
		for _, c := range o.Choices {
			if low == c.Value {
				return c.Value, nil
			}
			for _, a := range c.Also {
				if low == a {
					return c.Value, nil
				}
			}
		}
		parts := make([]string, len(o.Choices))
		for i, c := range o.Choices {
			parts[i] = c.Value
			if c.Help != "" {
				parts[i] += " (" + c.Help + ")"
			}
		}
		return nil, fmt.Errorf("give %s", orList(parts))
	case Text:
		if val == "" {
			return nil, fmt.Errorf("give %s", o.Help)
		}
		return val, nil
	case Custom:
		x, err := o.Parse(val)
		if err != nil {
			return nil, fmt.Errorf("give %s%s", o.Syntax, help)
		}
		return x, nil
	}
	panic(fmt.Sprintf("engine: option %s has no kind", o.Name))
}

// Range says what values the option takes, for help: "1 to 256", "0 or
// more", "one-shot|longcite-model", "yes|no".
func (o Option) Range() string {
	switch o.Kind {
	case Int:
		if o.Max > 0 {
			return fmt.Sprintf("from %d to %d", o.Min, o.Max)
		}
		return fmt.Sprintf("from %d up", o.Min)
	case Ratio:
		return "between 0 and 1"
	case Bool:
		return "yes|no"
	case OneOf:
		vals := make([]string, len(o.Choices))
		for i, c := range o.Choices {
			vals[i] = c.Value
		}
		return strings.Join(vals, "|")
	case Text:
		return "text"
	case Custom:
		return o.Syntax
	}
	return ""
}

// Type names the option's kind, for help.
func (o Option) Type() string {
	switch o.Kind {
	case Int:
		return "integer"
	case Ratio:
		return "number"
	case Bool:
		return "yes/no"
	case OneOf:
		return "choice"
	case Text:
		return "text"
	}
	return "list"
}

// Listed are the options a strategy takes, without the refused names.
func (t Options) Listed() Options {
	var out Options
	for _, o := range t {
		if o.Refused == "" {
			out = append(out, o)
		}
	}
	return out
}

func orList(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Given reports whether the request gave the option.
func (v Values) Given(name string) bool { v.declared(name); return v.given[name] }

// Int is an Int option's value (0 when it has no default and was not
// given).
func (v Values) Int(name string) int { n, _ := v.get(name, Int).(int); return n }

// Ratio is a Ratio option's value.
func (v Values) Ratio(name string) float64 { r, _ := v.get(name, Ratio).(float64); return r }

// Bool is a Bool option's value.
func (v Values) Bool(name string) bool { b, _ := v.get(name, Bool).(bool); return b }

// String is a OneOf's value (as the table spells it) or a Text's.
func (v Values) String(name string) string {
	o := v.declared(name)
	if o.Kind != OneOf && o.Kind != Text {
		panic(fmt.Sprintf("engine: option %s is not text", name))
	}
	s, _ := v.value[name].(string)
	return s
}

// Value is a Custom option's value, as its Parse returned it (nil when not
// given and without a default).
func (v Values) Value(name string) any { return v.get(name, Custom) }

func (v Values) get(name string, k Kind) any {
	if o := v.declared(name); o.Kind != k {
		panic(fmt.Sprintf("engine: option %s is not of the kind read", name))
	}
	return v.value[name]
}

func (v Values) declared(name string) Option {
	for _, o := range v.table {
		if o.Name == name && o.Refused == "" {
			return o
		}
	}
	panic(fmt.Sprintf("engine: no option %s is declared", name))
}
