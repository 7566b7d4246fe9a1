package retrieve

import (
	"strings"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/internal/textproc"
)

// Prose over machinery: code lines, back-of-book index lines and argument
// lists hold a question's words more densely than the sentence that
// explains them, and outrank it unless demoted. These readers decide, at
// query time, what counts as machinery and when the question wants it.

// asksCode reports whether a question asks for code, syntax or a command:
// it names one of those, or holds code itself ("bzfile()", "--keep",
// "x = 1"). Such a question wants the code lines the ranking otherwise
// demotes.
func asksCode(question string) bool {
	for _, w := range foldedWords(question) {
		switch w {
		case "code", "syntax", "command", "commands", "usage", "snippet", "invocation", "signature":
			return true
		}
	}
	for _, f := range strings.Fields(question) {
		if strings.Contains(f, "()") || strings.HasPrefix(f, "--") || strings.ContainsAny(f, "=_<>{}[]$") {
			return true
		}
	}
	return false
}

// indexLine reports whether text reads as a back-of-book index or a list
// of references: names each followed by a page number ("Sys.sleep, 633
// sys.source, 634"), at least two of them, with few other words. A list
// of numbers ("c(60, 49, 40)") is no index: an entry is a name, then its
// page.
func indexLine(text string) bool {
	if !strings.Contains(text, ", ") {
		return false // most sentences: no entry at all
	}
	entries, words := 0, 0
	prevName := false
	textproc.Words(text, func(s, e int) {
		words++
		w := text[s:e]
		if prevName && allDigits(w) {
			entries++
		}
		prevName = e < len(text) && text[e] == ',' && !allDigits(w) && !hasDigit(w)
	})
	return entries >= 2 && words <= 4*entries
}

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// machinery is the demotion of sentence text with flags f for query q: 1
// for prose, Weights.Noise for contents, furniture, fragments, index
// lines and (unless the question asks for code) code.
func machinery(q *query, f structure.Flags, text string, noise float64) float64 {
	if noise <= 0 {
		return 1
	}
	switch {
	case f&(structure.FlagHeading|structure.FlagContents|structure.FlagFurniture|structure.FlagFragment) != 0:
		return noise
	case f&structure.FlagCode != 0:
		if q.code {
			return 1
		}
		return noise
	case indexLine(text):
		return noise
	case pointer(text):
		return noise
	}
	return 1
}

// pointer reports whether a sentence only points elsewhere — "See the
// section called “Dangling objects” for the details.", "For more
// information, see also Getting started." — and says nothing itself: it
// holds the question's words because it names where they are answered.
func pointer(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) > 120 || strings.Contains(t, "\n") {
		return false
	}
	l := strings.ToLower(t)
	for _, p := range []string{"see ", "for more information, see", "for details, see", "for more details, see", "for further information, see"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// negatedPrefixes are the prefixes that make a hyphenated compound mean
// something else than its last word: "non-linear" is not "linear".
var negatedPrefixes = []string{"non-", "un-", "anti-"}

// negated returns the prefix text[:start] ends with, "" for none.
func negated(text string, start int) string {
	for _, p := range negatedPrefixes {
		if start >= len(p) && strings.EqualFold(text[start-len(p):start], p) &&
			(start == len(p) || !isLetterByte(text[start-len(p)-1])) {
			return strings.ToLower(p)
		}
	}
	return ""
}

func isLetterByte(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// negatedTerms are the question's terms it uses in a negated compound
// ("non-linear" gives "linear"): for those, the compound is what is asked.
func negatedTerms(text string) map[string]bool {
	var out map[string]bool
	textproc.Words(text, func(s, e int) {
		if negated(text, s) == "" {
			return
		}
		if t := textproc.Term(text[s:e]); t != "" {
			if out == nil {
				out = map[string]bool{}
			}
			out[t] = true
		}
	})
	return out
}

// assignsQuestionTerm reports whether text gives one of the question's
// words a value, as a usage line gives an argument its default
// ("bzfile(description, compression = 9)") or a configuration line a
// setting ("MaxSessions=10"): what a question asking for a default wants.
func assignsQuestionTerm(q *query, text string) bool {
	return anyAt(text, "=", func(i int) bool {
		if i == 0 || i+1 >= len(text) || text[i+1] == '=' || strings.ContainsRune("=!<>", rune(text[i-1])) {
			return false // a comparison, not an assignment
		}
		name := strings.TrimRight(text[:i], " \t")
		j := len(name)
		for j > 0 && (isLetterByte(name[j-1]) || name[j-1] == '_' || name[j-1] == '.' || name[j-1] == '-' || '0' <= name[j-1] && name[j-1] <= '9') {
			j--
		}
		k, ok := q.index[textproc.Term(name[j:])]
		return ok && k < q.orig && name[j:] != ""
	})
}

// anyAt reports whether ok holds at any index of sep in s.
func anyAt(s, sep string, ok func(i int) bool) bool {
	for from := 0; from <= len(s); {
		i := strings.Index(s[from:], sep)
		if i < 0 {
			return false
		}
		if ok(from + i) {
			return true
		}
		from += i + len(sep)
	}
	return false
}
