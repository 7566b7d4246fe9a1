package textproc

import (
	"unicode"
	"unicode/utf8"
)

// Compounds: technical text runs words together ("pointsize", "zeroaxis",
// "pushback", "readBin") where questions keep them apart ("point size",
// "push lines back"). The index adds the parts of such a word as terms of
// their own, beside the word's own term, so both spellings match.

// minCompound is the shortest word tried as a compound, and minPart the
// shortest part: shorter splits are mostly accidents ("to|day").
const (
	minCompound = 8
	minPart     = 4
)

// CompoundParts returns the index terms of the parts of word when it is a
// compound: a camelCase word split at its humps ("readBin" → read, bin),
// or a run-together word of two words the text also uses on their own
// ("pointsize" → point, size), preferring the split whose rarer part is
// most used. words counts a lower-cased word's uses in the text, and name
// reports whether the text capitalises it inside sentences. To keep
// inflections and names whole ("consid|ered", "Mary|land"), parts have
// four letters or more and are whole words of the text used at least
// twice, and names are left alone. nil when word is no compound.
func CompoundParts(word string, words func(folded string) int, name func(folded string) bool) []string {
	if parts := camelParts(word); parts != nil {
		return parts
	}
	if len(word) < minCompound {
		return nil
	}
	w := fold(word)
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return nil // letters only: no digits, no accents, no apostrophes
		}
	}
	if w != word && words(w) == 0 && name(w) {
		return nil // a name: capitalised mid-sentence, never in lower case
	}
	var best []string
	bestScore := 0
	for i := minPart; i <= len(w)-minPart; i++ {
		s := min(words(w[:i]), words(w[i:]))
		if s <= bestScore {
			continue
		}
		l, r := Term(w[:i]), Term(w[i:])
		if l != "" && r != "" {
			best, bestScore = []string{l, r}, s
		}
	}
	if bestScore < 2 {
		return nil
	}
	return best
}

// camelParts splits "readBin" or "pushBackLength" at each lower-to-upper
// change; all-caps, capitalised and lower-case words are not camelCase.
func camelParts(word string) []string {
	var parts []string
	start, prevLower := 0, false
	for i := 0; i < len(word); {
		r, n := utf8.DecodeRuneInString(word[i:])
		if !unicode.IsLetter(r) {
			return nil
		}
		if unicode.IsUpper(r) && prevLower {
			parts = append(parts, word[start:i])
			start = i
		}
		prevLower = unicode.IsLower(r)
		i += n
	}
	if len(parts) == 0 {
		return nil
	}
	parts = append(parts, word[start:])
	terms := make([]string, 0, len(parts))
	for _, p := range parts {
		if len(p) < 2 {
			return nil
		}
		if t := Term(p); t != "" {
			terms = append(terms, t)
		}
	}
	if len(terms) < 2 {
		return nil
	}
	return terms
}

// EachWordTerm calls fn with every word of text that has an index term,
// and that term, in order: AppendTerms with the words kept, for callers
// that look at words (CJK bigrams are not included).
func EachWordTerm(text string, fn func(word, term string)) {
	Words(text, func(s, e int) {
		r, n := utf8.DecodeRuneInString(text[s:e])
		if n == e-s && IsCJK(r) {
			return
		}
		if t := Term(text[s:e]); t != "" {
			fn(text[s:e], t)
		}
	})
}

// IsLowerASCII reports whether w is all lower-case ASCII letters.
func IsLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// IsCamel reports whether w changes from a lower-case to an upper-case
// letter inside it, as camelCase identifiers do ("readBin").
func IsCamel(w string) bool {
	prevLower := false
	for _, r := range w {
		if unicode.IsUpper(r) && prevLower {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}

// IsDigits reports whether s is one or more ASCII digits.
func IsDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
