package okra

import (
	"regexp"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// MaxSubQueries bounds the query splitter's sub-questions.
const MaxSubQueries = 5

var reListMark = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)]|\(\d+\)|(?i:sub-?questions?|q)\s*\d*\s*[:.)])\s*`)

// parseSubQueries reads the query splitter's reply (Table 8): one
// sub-question per line. List marks ("1.", "-", "Sub-question 2:") are
// dropped, and so are empty lines, repeats, the question itself and
// anything past MaxSubQueries. Fewer than two sub-questions means the
// split failed; the caller then retrieves for the question itself.
func parseSubQueries(reply, question string) []string {
	var out []string
	seen := map[string]bool{fold(question): true}
	for line := range strings.SplitSeq(reply, "\n") {
		line = strings.TrimSpace(reListMark.ReplaceAllString(line, ""))
		line = strings.Trim(line, "\"'`*")
		line = textproc.OneLine(strings.TrimSpace(line))
		if line == "" || seen[fold(line)] || strings.HasSuffix(line, ":") {
			continue
		}
		seen[fold(line)] = true
		out = append(out, line)
		if len(out) == MaxSubQueries {
			break
		}
	}
	return out
}

func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// stepReply is one reply of the step-wise reasoner (Table 9).
type stepReply struct {
	Evidence, NextQuery, Answer string
}

var reStepField = regexp.MustCompile(`(?im)(?:#{1,6}[ \t]*|^[ \t]*)(evidence|next[- ]?query|answer)[ \t]*:`)

// parseStep reads "### Evidence: … ### Next-Query: … ### Answer: …", the
// fields on one line or several, "###" optional at a line's start. An
// answer or next query of "None" (or N/A, empty) is no answer or query;
// "The answer is:" before an answer is dropped.
func parseStep(reply string) stepReply {
	var r stepReply
	locs := reStepField.FindAllStringSubmatchIndex(reply, -1)
	for i, l := range locs {
		end := len(reply)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		val := strings.TrimSpace(reply[l[1]:end])
		name := strings.ToLower(reply[l[2]:l[3]])
		switch {
		case name == "evidence":
			r.Evidence = val
		case name == "answer":
			val = strings.TrimSpace(trimPrefixFold(val, "the answer is:"))
			val = strings.TrimSpace(trimPrefixFold(val, "the answer is"))
			r.Answer = none(val)
		default:
			r.NextQuery = none(val)
		}
	}
	r.Evidence = textproc.OneLine(r.Evidence)
	r.NextQuery = textproc.OneLine(r.NextQuery)
	r.Answer = textproc.OneLine(r.Answer)
	return r
}

// unread reports a reply with none of Table 9's fields.
func (r stepReply) unread() bool { return r.Evidence == "" && r.NextQuery == "" && r.Answer == "" }

// none maps "None" and the like to "".
func none(s string) string {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(s), ".\"'`*<>"))
	switch t {
	case "", "none", "n/a", "na", "null", "nil", "answer", "no answer", "not yet", "unknown":
		return ""
	}
	return strings.TrimSpace(s)
}

func trimPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}
