package citations

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// PlanLines renders a strategy's plan (Answer.Plan, whatever its type) for
// people: its "summary" field, if it has one, and then one line per other
// field in the order the strategy wrote them, nested values flattened to
// "key: value · key: value" and long strings clipped. The lines are
// terminal-safe. Exports and the TUI show plans this way, so a new
// strategy's plan reads well without code of its own here.
func PlanLines(plan any) (summary string, details []string) {
	if plan == nil {
		return "", nil
	}
	b, err := json.Marshal(plan)
	if err != nil {
		return "", nil
	}
	v, err := decodeOrdered(json.NewDecoder(bytes.NewReader(b)))
	if err != nil {
		return "", nil
	}
	obj, ok := v.(orderedObject)
	if !ok {
		return "", []string{flatten(v, 0)}
	}
	for _, f := range obj {
		if f.key == "summary" {
			if s, ok := f.value.(string); ok {
				summary = textproc.OneLine(s)
				continue
			}
		}
		if isEmpty(f.value) {
			continue
		}
		label := strings.ReplaceAll(f.key, "_", " ")
		if list, ok := f.value.([]any); ok && len(list) > 0 && !allScalar(list) {
			details = append(details, label+":")
			for i, item := range list {
				details = append(details, fmt.Sprintf("  %d. %s", i+1, flatten(item, 1)))
			}
			continue
		}
		details = append(details, label+": "+flatten(f.value, 0))
	}
	return summary, details
}

// planTextMax is how much of a string value a plan line shows.
const planTextMax = 120

type orderedField struct {
	key   string
	value any
}

// orderedObject is a JSON object with its keys in the order written.
type orderedObject []orderedField

// decodeOrdered reads one JSON value keeping object key order, which
// encoding/json's maps lose.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj orderedObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, orderedField{key: fmt.Sprint(kt), value: val})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, val)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, io.ErrUnexpectedEOF
	}
	return tok, nil
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case orderedObject:
		return len(x) == 0
	}
	return false
}

func allScalar(list []any) bool {
	for _, v := range list {
		switch v.(type) {
		case []any, orderedObject:
			return false
		}
	}
	return true
}

// flatten writes a value on one line.
func flatten(v any, depth int) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		s := textproc.OneLine(x)
		if r := []rune(s); len(r) > planTextMax {
			s = string(r[:planTextMax-1]) + "…"
		}
		return s
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		parts := make([]string, 0, len(x))
		for _, item := range x {
			parts = append(parts, flatten(item, depth+1))
		}
		if depth > 0 {
			return "[" + strings.Join(parts, "; ") + "]"
		}
		return strings.Join(parts, ", ")
	case orderedObject:
		parts := make([]string, 0, len(x))
		for _, f := range x {
			if isEmpty(f.value) {
				continue
			}
			parts = append(parts, strings.ReplaceAll(f.key, "_", " ")+": "+flatten(f.value, depth+1))
		}
		s := strings.Join(parts, " · ")
		if depth > 1 {
			return "(" + s + ")"
		}
		return s
	}
	return textproc.OneLine(fmt.Sprint(v))
}
