package llmtest

import (
	"fmt"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// Judge answers the judge prompts of LongBench-Cite (LongCite paper,
// Figures 4-9, as engine/judge sends them) the way a plausible judge
// would, and reports whether req was one. Its ratings come from the
// index terms (textproc.Terms) the texts share:
//
//   - Figure 7, is the statement supported by its snippets: fully when
//     they hold 60% of the statement's terms, partially from 30%;
//   - Figure 8, does an uncited statement need a citation: not when it
//     has fewer than four terms or opens as a summary or an introduction
//     does ("In short", "According to", "Overall"…);
//   - Figure 9, is a snippet relevant: when it holds a term of the
//     statement;
//   - Figures 4-6, correctness: by the share of the reference answer's
//     terms the answer holds (all, some or none for question answering's
//     3, 2 or 1; on the scale of 5 for summaries and 10 for chat).
//
// A server answering judges only: WithResponder(func(r ChatRequest)
// Reply { reply, _ := Judge(r); return reply }).
func Judge(req ChatRequest) (Reply, bool) {
	p := req.Last()
	between := func(open, close string) string {
		_, after, _ := strings.Cut(p, open)
		inner, _, _ := strings.Cut(after, close)
		return inner
	}
	statement := between("<statement>\n", "\n</statement>")
	switch {
	case strings.Contains(p, "Your task is to carefully assess whether this statement is supported by the snippet."):
		share := termShare(statement, between("<snippet>\n", "\n</snippet>"))
		rating := "No support"
		switch {
		case share >= 0.6:
			rating = "Fully supported"
		case share >= 0.3:
			rating = "Partially supported"
		}
		return Text("Rating: [[" + rating + "]] "), true
	case strings.Contains(p, "Your task is to determine whether this sentence is a factual statement"):
		if len(textproc.Terms(statement)) < 4 || opensAsSummary(statement) {
			return Text("Need Citation: [[No]] "), true
		}
		return Text("Need Citation: [[Yes]] "), true
	case strings.Contains(p, "Your task is to carefully assess whether the snippet contains some key information of the statement."):
		if termShare(statement, between("<snippet>\n", "\n</snippet>")) > 0 {
			return Text("Rating: [[Relevant]] "), true
		}
		return Text("Rating: [[Unrelevant]] "), true
	case strings.Contains(p, "give an overall integer rating in 1, 2, 3"):
		share := termShare(between("[Reference answer]\n", "\n[Assistant's answer]"), between("[Assistant's answer]\n", "\nRating:"))
		return Text(fmt.Sprintf("[[%d]]", 1+ceil(2*share))), true
	case strings.Contains(p, "evaluate the quality of the AI assistant's generated summary"):
		share := termShare(between("[Reference summary]\n", "\n[Assistant's summary]"), between("[Assistant's summary]\n", "\nRating:"))
		return Text(fmt.Sprintf("[[%d]]", 1+ceil(4*share))), true
	case strings.Contains(p, "Please give an overall integer rating from 1 to 10"):
		rest := p[strings.LastIndex(p, "[Assistant's answer begins]\n"):]
		share := termShare(between("[Reference answer begins]\n", "\n[Reference answer ends]"), rest)
		return Text(fmt.Sprintf("[[%d]]", max(1, ceil(10*share)))), true
	}
	return Reply{}, false
}

// termShare is the share of want's distinct index terms that text holds.
func termShare(want, text string) float64 {
	w := TermSet(want)
	if len(w) == 0 {
		return 0
	}
	return float64(Overlap(text, w)) / float64(len(w))
}

// TermSet is the set of text's index terms (textproc.Terms).
func TermSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range textproc.Terms(text) {
		m[t] = true
	}
	return m
}

// Overlap counts the distinct index terms of text that are in want: how
// the scripted models tell what a text is about.
func Overlap(text string, want map[string]bool) int {
	n := 0
	seen := map[string]bool{}
	for _, t := range textproc.Terms(text) {
		if want[t] && !seen[t] {
			seen[t] = true
			n++
		}
	}
	return n
}

func ceil(x float64) int {
	n := int(x)
	if float64(n) < x {
		n++
	}
	return n
}

// opensAsSummary reports a sentence that introduces, sums up or
// transitions rather than states a fact of the document.
func opensAsSummary(s string) bool {
	low := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"in short", "in summary", "overall", "according to", "based on the document", "to summarise", "to summarize", "so yes", "so no", "the document"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}
