// Package aliases finds the other names a sentence gives a thing:
// manuals write "X, also known as Y", "X (or Y)", "Advanced Encryption
// Standard (AES)"; filings and contracts define their terms,
// `capital expenditures ("capex")`, `the agreement (the "Agreement")`.
// It is the one implementation of these patterns: the library mines them
// from every sentence when a document is added (docstore), and retrieval
// reads a sentence with them when a document was stored before they were
// mined (engine/retrieve).
package aliases

import (
	"regexp"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

var patterns = []*regexp.Regexp{
	// "X (also known as Y)", "X (or Y)", "X (i.e. Y)", "X (aka Y)": the
	// parenthesis holds the other name and at most two more words, and
	// the name ends at a space or the parenthesis, so "freed (or
	// alloc'd)" and "(or, at your option, any later version)" name nothing
	regexp.MustCompile(`([\p{L}\p{N}][\p{L}\p{N}\-_.]*)\s*\((?:also known as|also called|sometimes called|or|i\.e\.,?|aka|a\.k\.a\.)\s+(?:the\s+)?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)(?:\s+[^()\s]+){0,2}\)`),
	// "X, also known as Y", "X, sometimes also called Y", "X, known as Y":
	// the comma sets the other name apart, so "a function called free"
	// names nothing
	// ("The base16 encoding, also known as “hexadecimal”": the name may
	// be two or three words)
	regexp.MustCompile(`((?:[\p{L}\p{N}][\p{L}\p{N}\-_.]*\s+){0,2}[\p{L}\p{N}][\p{L}\p{N}\-_.]*),\s+(?:sometimes\s+|often\s+)?(?:also\s+)?(?:known as|called)\s+["“]?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)`),
	// "Advanced Encryption Standard (AES)", `the agreement (the "Agreement")`
	regexp.MustCompile(`((?:\p{Lu}[\p{L}\-]+\s+){1,5})\(\s*(?:the\s+)?["“]?(\p{Lu}[\p{Lu}\p{N}\-]{1,11})["”]?\s*\)`),
	// A term defined in quotes, in any case: `capital expenditures
	// ("capex")`, `free cash flow (the "FCF")`. The quotes are what make
	// it a definition, so "(see below)" names nothing; the defining
	// phrase is at most three words before the parenthesis, apart from
	// it: a call's argument, `par("font")`, names nothing.
	regexp.MustCompile(`((?:[\p{L}\p{N}][\p{L}\p{N}\-]*\s+){0,2}[\p{L}\p{N}][\p{L}\p{N}\-]*\.?)\s+\(\s*(?:the\s+|a\s+|an\s+)?["“]([\p{L}\p{N}][\p{L}\p{N}\-]{0,30})["”]\s*\)`),
}

// In returns the name pairs text gives, each side as its index terms
// (textproc.Term), in the order the patterns find them.
func In(text string) [][2][]string {
	// The cheap test first: a sentence without a parenthesis or the
	// naming words (most) pays no regular expression.
	if !strings.ContainsAny(text, "(") && !strings.Contains(text, "known as") && !strings.Contains(text, "called") {
		return nil
	}
	var out [][2][]string
	for _, re := range patterns {
		for _, m := range re.FindAllStringSubmatch(text, 4) {
			a, b := Terms(m[1]), Terms(m[2])
			if len(a) == 0 || len(b) == 0 || same(a, b) {
				continue
			}
			out = append(out, [2][]string{a, b})
		}
	}
	return out
}

// same reports whether two names are one: `the Agreement (the
// "Agreement")` names nothing new.
func same(a, b []string) bool {
	return strings.Join(a, " ") == strings.Join(b, " ")
}

// Terms are text's index terms.
func Terms(text string) []string {
	var out []string
	textproc.Words(text, func(s, e int) {
		if t := textproc.Term(text[s:e]); t != "" {
			out = append(out, t)
		}
	})
	return out
}
