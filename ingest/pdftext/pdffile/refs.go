package pdffile

import (
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/internal/textproc"
)

// The library's Value hides whether a value came through a reference, so
// objects have no identity: a font shared by a hundred pages looks like a
// hundred fonts, and a page tree that lists a node twice looks like a
// bigger tree. Its textual form (Value.String) prints the references of a
// dictionary or an array unresolved, though, and RefKeys and ArrayRefs
// read them from it.

// RefKeys maps each key of dictionary d whose value is an indirect
// reference to "id gen", the referenced object's identity. Only d's own
// entries count, not those of dictionaries and arrays nested in it, nor
// the insides of strings.
func RefKeys(d pdf.Value) map[string]string {
	m := map[string]string{}
	s := d.String()
	if d.Kind() == pdf.Stream { // "<<…>>@offset"
		s = s[:strings.LastIndexByte(s, '@')]
	}
	as, ok := inside(s, "<<", ">>")
	if !ok {
		return m
	}
	for i := 0; i+1 < len(as); i += 2 {
		key, isName := strings.CutPrefix(as[i], "/")
		if !isName {
			return m
		}
		if i+3 < len(as) && as[i+3] == "R" && textproc.IsDigits(as[i+1]) && textproc.IsDigits(as[i+2]) {
			m[key] = as[i+1] + " " + as[i+2]
			i += 2
		}
	}
	return m
}

// ArrayRefs returns, for each element of array v, its "id gen" when it is
// an indirect reference, or "". It returns nil when the array's text
// cannot be split reliably.
func ArrayRefs(v pdf.Value) []string {
	as, ok := inside(v.String(), "[", "]")
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < len(as); i++ {
		if i+2 < len(as) && as[i+2] == "R" && textproc.IsDigits(as[i]) && textproc.IsDigits(as[i+1]) {
			out = append(out, as[i]+" "+as[i+1])
			i += 2
			continue
		}
		out = append(out, "")
	}
	if len(out) != v.Len() {
		return nil
	}
	return out
}

// inside splits s, a dictionary's or an array's textual form between
// open and close, into its atoms.
func inside(s, open, close string) ([]string, bool) {
	inner, opened := strings.CutPrefix(s, open)
	inner, closed := strings.CutSuffix(inner, close)
	if !opened || !closed {
		return nil, false
	}
	return atoms(inner)
}

// atoms splits s, the inside of a dictionary's or an array's textual
// form, into its top-level atoms: names, numbers, "R", null ("<nil>"),
// quoted strings, and nested dictionaries and arrays, each one atom. ok
// is false when s cannot be split reliably.
func atoms(s string) (out []string, ok bool) {
	depth, start := 0, -1
	flush := func(i int) {
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.HasPrefix(s[i:], "<nil>"):
			if depth == 0 {
				flush(i)
				out = append(out, "<nil>")
			}
			i += len("<nil>") - 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if depth == 0 {
				flush(i)
				out = append(out, s[i:min(j+1, len(s))])
			}
			i = j
		case c == '[' || c == '<' && strings.HasPrefix(s[i:], "<<"):
			if depth == 0 {
				flush(i)
				start = i
			}
			depth++
			if c == '<' {
				i++
			}
		case c == ']' || c == '>' && strings.HasPrefix(s[i:], ">>"):
			if c == '>' {
				i++
			}
			if depth--; depth < 0 {
				return nil, false
			}
			if depth == 0 {
				out = append(out, s[start:i+1])
				start = -1
			}
		case c == ' ':
			if depth == 0 {
				flush(i)
			}
		default:
			if depth == 0 && start < 0 {
				start = i
			}
		}
	}
	flush(len(s))
	return out, depth == 0
}

// Seen holds the objects a walk of one of the document's trees (pages,
// page labels, names) has met, by identity ("id gen"), so that a node
// listed twice, or inside itself, is visited once.
type Seen map[string]bool

// First reports whether element i of an array whose references are refs
// (from ArrayRefs) is met for the first time, and marks it met. Elements
// that are not references, and any element of an array whose references
// could not be read (refs nil), always are.
func (s Seen) First(refs []string, i int) bool {
	if i >= len(refs) || refs[i] == "" {
		return true
	}
	if s[refs[i]] {
		return false
	}
	s[refs[i]] = true
	return true
}
