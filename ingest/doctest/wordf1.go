package doctest

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// hyphenBreak is a word hyphenated across a line break, which pdftotext
// does not join.
var hyphenBreak = regexp.MustCompile(`([\p{L}\p{N}_])-\n([\p{L}\p{N}_])`)

// WordF1 is the bag-of-words F1 of a candidate text against a reference
// text, the fidelity figure PDF extraction is measured by: words are
// maximal runs of letters and digits after NFKC normalisation, lower-cased,
// with words hyphenated across a line break joined first. Glued words
// ("AnIntroductiontoR") and split words ("Intro duction") both cost
// precision and recall, so it measures word boundaries as well as content.
func WordF1(candidate, reference string) (precision, recall, f1 float64) {
	c, r := wordBag(candidate), wordBag(reference)
	common, nc, nr := 0, 0, 0
	for w, n := range c {
		common += min(n, r[w])
		nc += n
	}
	for _, n := range r {
		nr += n
	}
	precision = float64(common) / float64(max(1, nc))
	recall = float64(common) / float64(max(1, nr))
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return precision, recall, f1
}

func wordBag(text string) map[string]int {
	text = hyphenBreak.ReplaceAllString(norm.NFKC.String(text), "$1$2")
	bag := map[string]int{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		bag[strings.ToLower(w)]++
	}
	return bag
}
