package citations

import "strings"

// InProgress returns the statement a model was writing when its text
// ends: the plain text of the last statement it opened (or, with tagged
// false, of text written outside any tag) and did not close, its <cite>
// blocks and tags removed, and ok when there is one. Text that ends
// after a </statement> has none.
//
// A front end shows it while the answer streams, as prose rather than
// markup, and keeps it, marked unfinished, when the stream ends before
// the statement does (see UnfinishedStatement).
func InProgress(text string) (stmt string, tagged, ok bool) {
	// Only what follows the last closed statement matters; parsing just
	// that keeps the work proportional to one statement.
	if i := lastIndexFold(text, "</statement"); i >= 0 {
		if j := strings.IndexByte(text[i:], '>'); j >= 0 {
			text = text[i+j+1:]
		}
	}
	var p Parser
	raws := append(p.Write(text), p.Close()...)
	if len(raws) == 0 {
		return "", false, false
	}
	last := raws[len(raws)-1]
	if last.Tagged && !last.Unclosed || last.Text == "" {
		return "", false, false
	}
	return last.Text, last.Tagged, true
}

// Unfinished is the warning an unfinished statement carries.
const Unfinished = "unfinished: the answer stopped while this statement was being written; it is cut short and cites nothing"

// UnfinishedStatement is the statement a model was writing when its
// answer stopped (cancelled, or the stream dropped), from the answer's
// text, as an answer keeps it: its text, no citations, marked
// Unfinished. ok is false when the text ends between statements or
// outside the statement format.
func UnfinishedStatement(text string) (Statement, bool) {
	s, tagged, ok := InProgress(text)
	if !ok || !tagged {
		return Statement{}, false
	}
	return Statement{Text: s, Citations: []Span{}, Unfinished: true, Warnings: []string{Unfinished}}, true
}

// lastIndexFold is strings.LastIndex ignoring ASCII case.
func lastIndexFold(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if s[i] == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
