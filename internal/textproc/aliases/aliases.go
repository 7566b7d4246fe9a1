// Package aliases finds the other names a sentence gives a thing:
// manuals write "X, also known as Y", "X (or Y)", "Advanced Encryption
// Standard (AES)"; filings and contracts define their terms,
// `capital expenditures ("capex")`, `the agreement (the "Agreement")`.
// A back-of-book index's lines ("Triple-DES . . . 32", "Triple-DES, see
// DES3") are parsed here too (index.go), as pure text.
// It is the one implementation of these patterns: the library mines them
// from every sentence when a document is added (docstore), and retrieval
// reads a sentence with them when a document was stored before they were
// mined (engine/retrieve).
package aliases

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// pattern is a regular expression and a cheap test that text may hold a
// match: the expressions are unanchored and backtrack, and most
// sentences with a parenthesis (a manual's calls, f(x)) hold none, so
// mining a manual of 57,000 sentences took 0.75 s of regular expressions
// without the tests.
type pattern struct {
	re  *regexp.Regexp
	may func(text string) bool
	// other, if set, cuts the other name down to the name it opens
	// with: a definition goes on past its head ("the copyright owner or
	// entity authorized by…").
	other func(name string) string
	// oneWay: only the second name's words lead to the first (see Leads).
	oneWay bool
	// valid, if set, must hold for the two names as matched.
	valid func(a, b string) bool
}

// pair is two names a pattern found, as index terms.
type pair struct {
	a, b   []string
	oneWay bool
}

var patterns = []pattern{
	// "X (also known as Y)", "X (or Y)", "X (i.e. Y)", "X (aka Y)": the
	// parenthesis holds the other name and at most two more words, and
	// the name ends at a space or the parenthesis, so "freed (or
	// alloc'd)" and "(or, at your option, any later version)" name nothing
	{regexp.MustCompile(`([\p{L}\p{N}][\p{L}\p{N}\-_.]*)\s*\((?:also known as|also called|sometimes called|or|i\.e\.,?|aka|a\.k\.a\.)\s+(?:the\s+)?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)(?:\s+[^()\s]+){0,2}\)`), mayOther, nil, false, nil},
	// "X, also known as Y", "X, sometimes also called Y", "X, known as Y":
	// the comma sets the other name apart, so "a function called free"
	// names nothing
	// ("The base16 encoding, also known as “hexadecimal”": the name may
	// be two or three words)
	{regexp.MustCompile(`((?:[\p{L}\p{N}][\p{L}\p{N}\-_.]*\s+){0,2}[\p{L}\p{N}][\p{L}\p{N}\-_.]*),\s+(?:sometimes\s+|often\s+)?(?:also\s+)?(?:known as|called)\s+["“]?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)`), mayNamed, nil, false, nil},
	// "Advanced Encryption Standard (AES)", `the agreement (the "Agreement")`
	{regexp.MustCompile(`((?:\p{Lu}[\p{L}\-]+\s+){1,5})\(\s*(?:the\s+)?["“]?(\p{Lu}[\p{Lu}\p{N}\-]{1,11})["”]?\s*\)`), mayAcronym, nil, false, abbreviates},
	// A term defined in quotes, in any case: `capital expenditures
	// ("capex")`, `free cash flow (the "FCF")`. The quotes are what make
	// it a definition, so "(see below)" names nothing; the defining
	// phrase is at most three words before the parenthesis, apart from
	// it: a call's argument, `par("font")`, names nothing.
	{regexp.MustCompile(`((?:[\p{L}\p{N}][\p{L}\p{N}\-]*\s+){0,2}[\p{L}\p{N}][\p{L}\p{N}\-]*\.?)\s+\(\s*(?:the\s+|a\s+|an\s+)?["“]([\p{L}\p{N}][\p{L}\p{N}\-]{0,30})["”]\s*\)`), mayDefined, nil, false, nil},
	// A term a contract or licence defines by what it means: `"Licensor"
	// shall mean the copyright owner or entity…`, `“The Program” refers
	// to any copyrightable work…`: the term is another name for the head
	// of its definition ("copyright owner", "copyrightable work"), so a
	// reader's words reach the clauses written with the defined term.
	{regexp.MustCompile(`["“]((?:[\p{L}\p{N}][\p{L}\p{N}\-]*\s+){0,3}[\p{L}\p{N}][\p{L}\p{N}\-]*)["”](?:\s*\([^()]{0,40}\))?,?\s+(?:shall\s+mean|means|shall\s+refer\s+to|refers\s+to|is\s+defined\s+as)\s+(?:the\s+|a\s+|an\s+|any\s+|each\s+|all\s+)?((?:[\p{L}\p{N}][\p{L}\p{N}\-]*\s+){0,3}[\p{L}\p{N}][\p{L}\p{N}\-]*)`), mayMeans, definitionHead, true, nil},
}

// definitionHead is the name a definition opens with: its words up to
// the first that starts a qualifier or another alternative ("copyright
// owner or entity" is "copyright owner", "copyrightable work licensed
// under…" "copyrightable work", "terms and conditions" "terms").
func definitionHead(name string) string {
	words := strings.Fields(name)
	for i, w := range words {
		switch l := strings.ToLower(w); {
		case i > 0 && strings.HasSuffix(l, "ed"): // "work licensed under…"
			return strings.Join(words[:i], " ")
		}
		switch strings.ToLower(w) {
		case "of", "for", "to", "in", "on", "by", "with", "that", "which", "who", "whom", "or", "and", "as", "under", "from", "at", "is", "are", "was", "be", "whether":
			return strings.Join(words[:i], " ")
		}
	}
	return name
}

// abbreviates reports whether short can abbreviate long, as Schwartz and
// Hearst's test has it: each letter or digit of short is found in long,
// in order, and the first at the start of one of long's words, so
// "Advanced Encryption Standard (AES)" names its acronym and an index's
// "R_INSTALL_TAR (INSTALL)" names none.
func abbreviates(long, short string) bool {
	l, sh := []rune(strings.ToLower(long)), []rune(strings.ToLower(short))
	i := len(l) - 1
	for j := len(sh) - 1; j >= 0; j-- {
		c := sh[j]
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			continue
		}
		for i >= 0 && (l[i] != c || j == 0 && i > 0 && (unicode.IsLetter(l[i-1]) || unicode.IsDigit(l[i-1]))) {
			i--
		}
		if i < 0 {
			return false
		}
		i--
	}
	return true
}

// mayMeans: the words that define.
func mayMeans(text string) bool {
	return strings.Contains(text, "mean") || strings.Contains(text, "refer") || strings.Contains(text, "defined as")
}

// pairs is the name pairs p finds in text, each side as its index terms.
func (p pattern) pairs(text string) []pair {
	var out []pair
	for _, m := range p.re.FindAllStringSubmatch(text, 4) {
		other := m[2]
		if p.other != nil {
			other = p.other(other)
		}
		if p.valid != nil && !p.valid(m[1], other) {
			continue
		}
		a, b := Terms(m[1]), Terms(other)
		if len(a) == 0 || len(b) == 0 || same(a, b) {
			continue
		}
		out = append(out, pair{a, b, p.oneWay})
	}
	return out
}

// Leads calls fn with each word (an index term) that text says leads to
// another name, and that name's terms. A question is one word at a time:
// of two names of one thing, a one-word name leads to the other ("bzcat"
// to "bzip2 -dc", "AES" to "Advanced Encryption Standard"), and each word
// of a definition's head leads to the term it defines ("copyright" and
// "owner" to "Licensor"), never the other way: the document uses a
// defined term everywhere, and its definition's words would only blur it.
func Leads(text string, fn func(word string, other []string)) {
	for _, p := range pairsIn(text) {
		if p.oneWay {
			for _, w := range p.b {
				if len(w) > 2 {
					fn(w, p.a)
				}
			}
			continue
		}
		if len(p.a) == 1 {
			fn(p.a[0], p.b)
		}
		if len(p.b) == 1 {
			fn(p.b[0], p.a)
		}
	}
}

// In returns the name pairs text gives, each side as its index terms
// (textproc.Term), in the order the patterns find them.
func In(text string) [][2][]string {
	var out [][2][]string
	for _, p := range pairsIn(text) {
		out = append(out, [2][]string{p.a, p.b})
	}
	return out
}

// pairsIn is the name pairs the patterns find in text.
func pairsIn(text string) []pair {
	// The cheap test first: a sentence without a parenthesis or the
	// naming words (most) pays no regular expression.
	if !strings.ContainsAny(text, "(") && !strings.Contains(text, "known as") && !strings.Contains(text, "called") && !mayMeans(text) {
		return nil
	}
	var out []pair
	for _, p := range patterns {
		if p.may(text) {
			out = append(out, p.pairs(text)...)
		}
	}
	return out
}

// afterParen reports whether ok holds for the text after any "(" of
// text; before says whether a space must precede it.
func afterParen(text string, space bool, ok func(rest string) bool) bool {
	for i := strings.IndexByte(text, '('); i >= 0; {
		if !space || i > 0 && isSpace(text[i-1]) {
			if ok(strings.TrimLeft(text[i+1:], " \t\n\r\f")) {
				return true
			}
		}
		j := strings.IndexByte(text[i+1:], '(')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// withoutArticle is rest after a leading article and its spaces.
func withoutArticle(rest string, articles ...string) string {
	for _, a := range articles {
		if len(rest) > len(a) && strings.HasPrefix(rest, a) && isSpace(rest[len(a)]) {
			return strings.TrimLeft(rest[len(a):], " \t\n\r\f")
		}
	}
	return rest
}

// withoutQuote is rest after an opening quote.
func withoutQuote(rest string) (string, bool) {
	if r, ok := strings.CutPrefix(rest, "\""); ok {
		return r, true
	}
	return strings.CutPrefix(rest, "“")
}

// mayOther: "(or", "(also known as"…, the parenthesis first.
func mayOther(text string) bool {
	return afterParen(text, false, func(rest string) bool {
		for _, w := range []string{"also known as", "also called", "sometimes called", "or", "i.e.", "aka", "a.k.a."} {
			if strings.HasPrefix(rest, w) {
				return true
			}
		}
		return false
	})
}

// mayNamed: the naming words.
func mayNamed(text string) bool {
	return strings.Contains(text, "known as") || strings.Contains(text, "called")
}

// mayAcronym: a parenthesis that opens with a capital, after "the" or a
// quote perhaps.
func mayAcronym(text string) bool {
	return afterParen(text, false, func(rest string) bool {
		rest, _ = withoutQuote(withoutArticle(rest, "the"))
		r, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsUpper(r)
	})
}

// mayDefined: a parenthesis apart from the word before it that opens
// with a quote, after an article perhaps.
func mayDefined(text string) bool {
	return afterParen(text, true, func(rest string) bool {
		_, ok := withoutQuote(withoutArticle(rest, "the", "a", "an"))
		return ok
	})
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
