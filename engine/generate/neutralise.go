package generate

import (
	"strings"
)

// Neutralise writes document text s to b with anything that could pass for
// the prompt's own markup made inert:
//
//   - tags the prompt or the answer format uses — "<C12>", "<statement>",
//     "</statement>", "<cite>", "</cite>", matched as loosely as the answer
//     parser matches them (any case, spaces inside the brackets) — have
//     their angle brackets replaced by parentheses: "(C12)";
//   - the prompt's section markers — "[Document Start]", "[Document End]",
//     "[Question]", "[Remind]", "[Answer with Citations]", "[Contexts
//     Start]", "[Context End]" — and "Snippet [3]" have their square
//     brackets replaced by parentheses.
//
// A document quoting LongCite's format (this project's own notes, the
// paper) would otherwise plant sentence numbers that are not its own, or
// end the document early in the model's eyes. Replacements are ASCII for
// ASCII, so the text keeps its length and its token estimate. Everything
// else, including ordinary citations such as "[12]", is written as is.
func Neutralise(b *strings.Builder, s string) {
	done := 0 // s[:done] is written
	for at := 0; ; {
		i := nextBracket(s[at:])
		if i < 0 {
			break
		}
		i += at
		var n int
		if s[i] == '<' {
			n = tagLen(s[i:])
		} else {
			n = markerLen(s[i:])
			if n == 0 && hasSuffixFold(s[:i], "snippet ") {
				n = numberLen(s[i:])
			}
		}
		if n == 0 {
			at = i + 1
			continue
		}
		b.WriteString(s[done:i])
		b.WriteByte('(')
		b.WriteString(s[i+1 : i+n-1])
		b.WriteByte(')')
		done = i + n
		at = done
	}
	b.WriteString(s[done:])
}

// NeutraliseString is Neutralise returning a string.
func NeutraliseString(s string) string {
	if nextBracket(s) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	Neutralise(&b, s)
	return b.String()
}

// nextBracket finds the next '<' or '[' (two byte scans are much faster
// than one scan for either).
func nextBracket(s string) int {
	i := strings.IndexByte(s, '<')
	j := strings.IndexByte(s, '[')
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// tagLen returns the length of the tag s starts with ("<C12>", "< /Cite >"),
// or 0 if s does not start with one.
func tagLen(s string) int {
	i := skipSpaces(s, 1)
	if i < len(s) && s[i] == '/' {
		i = skipSpaces(s, i+1)
	}
	switch {
	case hasPrefixFold(s[i:], "statement"):
		i += len("statement")
	case hasPrefixFold(s[i:], "cite"):
		i += len("cite")
	case i < len(s) && (s[i] == 'C' || s[i] == 'c'):
		j := i + 1
		for j < len(s) && j-i <= 12 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	default:
		return 0
	}
	i = skipSpaces(s, i)
	if i < len(s) && s[i] == '>' {
		return i + 1
	}
	return 0
}

// markers are the prompt's bracketed section markers, lower-cased.
var markers = []string{
	"[document start]", "[document end]", "[question]", "[remind]",
	"[answer with citations]", "[contexts start]", "[context end]",
}

// markerLen returns the length of the section marker s starts with, or 0.
func markerLen(s string) int {
	for _, m := range markers {
		if hasPrefixFold(s, m) {
			return len(m)
		}
	}
	return 0
}

// numberLen returns the length of the "[digits]" s starts with, or 0.
func numberLen(s string) int {
	j := 1
	for j < len(s) && j <= 12 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 1 || j >= len(s) || s[j] != ']' {
		return 0
	}
	return j + 1
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// hasPrefixFold reports whether s starts with lower-case ASCII prefix p,
// ignoring the case of s.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

// hasSuffixFold reports whether s ends with lower-case ASCII suffix p,
// ignoring the case of s.
func hasSuffixFold(s, p string) bool {
	return len(s) >= len(p) && hasPrefixFold(s[len(s)-len(p):], p)
}
