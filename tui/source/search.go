package source

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Search is case-insensitive and runs over a folded copy of the text built
// once per document: letters lower-cased and whitespace (newline, tab, form
// feed, carriage return) turned into spaces, so a phrase matches across a
// line break. Folding never changes a byte's offset — a rune whose lower
// case has a different UTF-8 length is left as it is — so an offset in the
// folded copy is the same offset in the text. Searching is then
// strings.Index over that copy, which is SIMD-fast. The search runs in a
// tea.Cmd all the same, so building the copy on the first search of a big
// document never holds up a frame.

// maxMatches bounds the matches kept for one search; a one-letter query in
// a million-token document stays well under it.
const maxMatches = 1 << 20

// fold returns s case-folded and whitespace-flattened, byte for byte the
// same length as s.
func fold(s string) string {
	b := make([]byte, len(s))
	copy(b, s)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case 'A' <= c && c <= 'Z':
				b[i] = c + ('a' - 'A')
			case c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
				b[i] = ' '
			}
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if lr := unicode.ToLower(r); lr != r && utf8.RuneLen(lr) == n {
			utf8.EncodeRune(b[i:], lr)
		}
		i += n - 1
	}
	return string(b)
}

// findAll returns the start of every non-overlapping occurrence of the
// folded query in the folded text, at most maxMatches of them.
func findAll(folded, query string) []int32 {
	if query == "" {
		return nil
	}
	var starts []int32
	for pos := 0; len(starts) < maxMatches; {
		i := strings.Index(folded[pos:], query)
		if i < 0 {
			break
		}
		starts = append(starts, int32(pos+i))
		pos += i + len(query)
	}
	return starts
}
