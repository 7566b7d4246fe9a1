package extractive

import (
	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/textproc"
)

// A quote supports itself, so a support verdict on an extractive
// statement says nothing. What a reader wants to know is how well the
// quote matches the question: which of its words the quote (or the
// heading it lies under) holds, and the share of the question's weight
// that is (retrieve's coverage, rarer words weighing more), read as a
// band.

// questionWords maps each index term of question to the first word that
// gave it, as written.
func questionWords(question string) (terms []string, word map[string]string) {
	word = map[string]string{}
	textproc.Words(question, func(s, e int) {
		w := question[s:e]
		if t := textproc.Term(w); t != "" {
			if _, dup := word[t]; !dup {
				word[t] = w
				terms = append(terms, t)
			}
		}
	})
	return terms, word
}

// relevance is how well a quote, under its heading, matches question:
// the question's words the quote holds, and those only its heading holds
// (a sentence under "7 Reading data from files" answers a question about
// reading files without saying so, and the reader should see which words
// came from where); coverage is retrieve's for the quote's best passage
// (0 when the ranking had none, and the share of words found is used).
func relevance(question, quote, heading string, coverage float64) *citations.Relevance {
	terms, word := questionWords(question)
	inQuote, inHeading := map[string]bool{}, map[string]bool{}
	for _, t := range textproc.Terms(quote) {
		inQuote[t] = true
	}
	for _, t := range textproc.Terms(heading) {
		inHeading[t] = true
	}
	r := &citations.Relevance{Matched: []string{}, Of: len(terms)}
	for _, t := range terms {
		switch {
		case inQuote[t]:
			r.Matched = append(r.Matched, word[t])
		case inHeading[t]:
			r.InHeading = append(r.InHeading, word[t])
		}
	}
	if coverage <= 0 && r.Of > 0 {
		coverage = float64(len(r.Matched)+len(r.InHeading)) / float64(r.Of)
	}
	r.Coverage = min(coverage, 1)
	r.Band = citations.RelevanceBand(r.Coverage)
	return r
}
