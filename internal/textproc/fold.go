package textproc

import (
	"unicode"
	"unicode/utf8"
)

// Case-insensitive search must report where the match is in the string
// searched, not in a lower-cased copy of it: strings.ToLower changes
// lengths ("Ⱥ", two bytes, lower-cases to "ⱥ", three; the Kelvin sign,
// three bytes, to "k", one), so an index found in strings.ToLower(s) and
// used to slice s cuts it in the wrong place or past its end. IndexFold
// and PrefixFold compare rune by rune under Unicode simple case folding,
// as strings.EqualFold does, and return offsets into s itself.

// IndexFold returns the byte offsets in s of the first match of sub,
// compared as strings.EqualFold does, or -1, -1 when there is none. An
// empty sub matches at 0.
func IndexFold(s, sub string) (start, end int) {
	for i := 0; i <= len(s); {
		if n, ok := PrefixFold(s[i:], sub); ok {
			return i, i + n
		}
		if i == len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return -1, -1
}

// PrefixFold reports whether s begins with prefix, compared as
// strings.EqualFold does, and how many bytes of s the match takes (which
// need not be len(prefix)).
func PrefixFold(s, prefix string) (n int, ok bool) {
	i := 0
	for _, want := range prefix {
		if i >= len(s) {
			return 0, false
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !equalFoldRune(r, want) {
			return 0, false
		}
		i += size
	}
	return i, true
}

// equalFoldRune reports whether a and b are equal under Unicode simple
// case folding, as strings.EqualFold compares runes.
func equalFoldRune(a, b rune) bool {
	if a == b {
		return true
	}
	if a < b {
		a, b = b, a
	}
	if a < utf8.RuneSelf {
		return 'A' <= b && b <= 'Z' && a == b+'a'-'A'
	}
	// The orbit of b under SimpleFold holds every rune equal to it under
	// folding; it is short and ends where it started.
	r := unicode.SimpleFold(b)
	for r != b && r < a {
		r = unicode.SimpleFold(r)
	}
	return r == a
}
