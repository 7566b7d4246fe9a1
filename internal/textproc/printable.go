package textproc

import (
	"strings"
	"unicode/utf8"
)

// Printable returns s made safe to write to a terminal: C0 and C1 control
// characters other than newline and tab become visible Control Pictures
// (ESC shows as ␛, so an escape sequence prints as harmless text instead of
// acting), DEL becomes ␡, bidirectional overrides that could reorder what a
// reader sees are dropped, and invalid UTF-8 becomes U+FFFD. The format
// characters that prepend themselves to the next one (the Arabic number
// signs U+0600–U+0605 and their kin, see prependFormat) are dropped too:
// width measurement counts the pair as one cluster and a terminal draws
// two cells, so a row holding one would be drawn a cell wider than laid
// out.
//
// Document text and model output must pass through Printable (or OneLine)
// before reaching a terminal.
func Printable(s string) string { return sanitize(s, false) }

// OneLine is Printable for single-line contexts: every run of whitespace,
// newlines included, becomes one space.
func OneLine(s string) string { return sanitize(s, true) }

func sanitize(s string, oneLine bool) string {
	if isClean(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	lastSpace := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if oneLine && (r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' || r == '\v') {
			if !lastSpace {
				b.WriteByte(' ')
			}
			lastSpace = true
			continue
		}
		lastSpace = false
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case prependFormat(r):
			// dropped
		case !Unsafe(r):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r) // Control Pictures: ␀ … ␟
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
		default:
			// a bidi control: dropped
		}
	}
	return b.String()
}

func isClean(s string, oneLine bool) bool {
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			if oneLine || (c != '\n' && c != '\t') {
				return false
			}
		}
		if oneLine {
			if c == ' ' && prevSpace {
				return false
			}
			prevSpace = c == ' '
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || Unsafe(r) || prependFormat(r) {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// Unsafe reports whether r must not reach a terminal, a clipboard or a
// JSON consumer as itself: a C0 control other than newline and tab, DEL, a
// C1 control (U+009B is CSI, which starts an escape sequence on its own), or
// a bidirectional control that could make text read differently from what
// it holds (U+202E reverses what follows). It is the one definition every
// sanitiser here uses: Printable, OneLine, Pasteable and EscapeJSON.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r < 0xa0:
		return true
	}
	return isBidiControl(r)
}

// Pasteable returns s for a clipboard: exactly s, except that every Unsafe
// character (escape sequences, bidi overrides) is removed, since a paste
// into a terminal would act on them and a reader would be misled by them.
func Pasteable(s string) string {
	return strings.Map(func(r rune) rune {
		if Unsafe(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}

// prependFormat reports whether r is a format character of Unicode's
// grapheme class Prepend: it joins the character after it into one
// cluster ("\u0602 " measures one cell, a terminal draws two).
func prependFormat(r rune) bool {
	switch {
	case r >= 0x0600 && r <= 0x0605, r == 0x06dd, r == 0x070f, r == 0x0890, r == 0x0891, r == 0x08e2,
		r == 0x110bd, r == 0x110cd:
		return true
	}
	return false
}

func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// Clip cuts s to at most n bytes, never inside a UTF-8 sequence, and marks
// the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
