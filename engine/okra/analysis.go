package okra

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The question types of the analyzer (OkraLong section 3.2, Table 7).
const (
	Extractive  = "extractive"   // directly factoid
	Abstractive = "abstractive"  // needs large context and refinement
	Arithmetic  = "arithmetic"   // needs numerical calculation
	MultiBridge = "multi-bridge" // needs several bridging steps
	MultiSource = "multi-source" // needs facts from several sources (comparisons)
)

// The information types: whether the key information is matched exactly
// (names, numbers, quoted terms), by meaning, or both alike.
const (
	Exact    = "exact"
	Semantic = "semantic"
	Same     = "same"
)

// Where an analysis came from.
const (
	SourceModel = "model"
	SourceRules = "rules"
)

// Analysis is the analyzer's characterisation of a question and its
// primary context: the three terms of Table 7.
type Analysis struct {
	QuestionType      string `json:"question_type"`
	InformationType   string `json:"information_type"`
	EvidenceContained bool   `json:"evidence_contained"`
	// Source is "model", "rules" (no model asked), or "rules (model reply
	// unusable: …)" when the model's reply could not be used.
	Source string `json:"source"`
	// Model is the model that was asked, when one was.
	Model string `json:"model,omitempty"`
	// Reasons say which rules decided each term, for a rules analysis.
	Reasons []string `json:"reasons,omitempty"`
}

// parseAnalysis reads the analyzer model's reply: a dictionary with the
// keys "question-type", "info-type" and "containing" as Table 7 asks. It
// takes the first {...} in the reply, in JSON or as a Python dict (single
// quotes, True/False), with keys and values matched loosely ("question
// type", "Multi-Source", "both" for "same", true for "yes"). Any term
// missing or outside its values makes the reply unusable, and the error
// says why in a few words.
func parseAnalysis(reply string) (Analysis, error) {
	obj := firstObject(reply)
	if obj == "" {
		return Analysis{}, fmt.Errorf("no dictionary in %q", clip(reply, 60))
	}
	raw := map[string]any{}
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		if err2 := json.Unmarshal([]byte(pythonToJSON(obj)), &raw); err2 != nil {
			return Analysis{}, fmt.Errorf("not a dictionary: %q", clip(obj, 60))
		}
	}
	fields := map[string]string{}
	for k, v := range raw {
		key := normKey(k)
		switch x := v.(type) {
		case string:
			fields[key] = x
		case bool:
			fields[key] = map[bool]string{true: "yes", false: "no"}[x]
		default:
			fields[key] = fmt.Sprint(x)
		}
	}
	var a Analysis
	qt, ok := fields["questiontype"]
	if !ok {
		return a, fmt.Errorf(`no "question-type"`)
	}
	if a.QuestionType = normQuestionType(qt); a.QuestionType == "" {
		return a, fmt.Errorf(`"question-type" is %q`, clip(qt, 30))
	}
	it, ok := fields["infotype"]
	if !ok {
		return a, fmt.Errorf(`no "info-type"`)
	}
	if a.InformationType = normInfoType(it); a.InformationType == "" {
		return a, fmt.Errorf(`"info-type" is %q`, clip(it, 30))
	}
	c, ok := fields["containing"]
	if !ok {
		return a, fmt.Errorf(`no "containing"`)
	}
	switch strings.ToLower(strings.TrimSpace(c)) {
	case "yes", "true", "y":
		a.EvidenceContained = true
	case "no", "false", "n":
	default:
		return a, fmt.Errorf(`"containing" is %q`, clip(c, 30))
	}
	a.Source = SourceModel
	return a, nil
}

// firstObject returns the first balanced {...} of s (braces inside quoted
// strings do not count), or "".
func firstObject(s string) string {
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return ""
	}
	depth := 0
	var quote byte
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return s[start : i+1]
			}
		}
	}
	return ""
}

// pythonToJSON rewrites a Python dict literal of plain strings and
// booleans as JSON: single-quoted strings double-quoted, True/False/None
// lower-cased.
func pythonToJSON(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			b.WriteByte('"')
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '"' {
					b.WriteString(`\"`)
				} else {
					b.WriteByte(s[i])
				}
			}
			b.WriteByte('"')
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(s[i:min(j+1, len(s))])
			i = j
		case strings.HasPrefix(s[i:], "True"):
			b.WriteString("true")
			i += 3
		case strings.HasPrefix(s[i:], "False"):
			b.WriteString("false")
			i += 4
		case strings.HasPrefix(s[i:], "None"):
			b.WriteString("null")
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normKey folds a key to letters only: "question-type", "Question Type"
// and "question_type" are all "questiontype"; "information-type" is
// "infotype".
func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	switch s := b.String(); s {
	case "informationtype", "infotype", "information":
		return "infotype"
	case "questiontype", "type", "querytype", "question":
		return "questiontype"
	case "containing", "contains", "evidence", "evidencecontained", "containsevidence":
		return "containing"
	default:
		return s
	}
}

// normQuestionType maps a reply's question type to one of the five, or "".
func normQuestionType(v string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(v) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	switch b.String() {
	case "extractive", "factoid":
		return Extractive
	case "abstractive":
		return Abstractive
	case "arithmetic", "arithemtic", "numerical":
		return Arithmetic
	case "multibridge", "bridge":
		return MultiBridge
	case "multisource", "comparison":
		return MultiSource
	}
	return ""
}

// normInfoType maps a reply's information type to exact, semantic or same,
// or "".
func normInfoType(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case Exact:
		return Exact
	case Semantic:
		return Semantic
	case Same, "both", "mixed":
		return Same
	}
	return ""
}

// clip shortens s to n runes on one line, for error messages.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
