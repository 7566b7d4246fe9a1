package generate

import (
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/textproc"
)

// NoRelevant is what CoF's sentence-level prompt (LongCite's Figure 13)
// tells the model to answer when the passage supports nothing in the
// statement.
const NoRelevant = "No relevant information"

// ParseSpans reads the answer to CoF's step 3 (CiteAnswer): the spans
// "[a-b]" (one per line, or run together), as numbers of the passage's
// sentences. It is more tolerant than THUDM/LongCite's reference, which takes only "[a-b]":
// "[a]", "[a, b-c]", "[C3-C5]", en dashes and spaces are read too, and
// when no bracket holds a span, "<C3>-<C5>" and "<C3>" written bare are.
// Other text, including "No relevant information", yields no span; what
// stood inside brackets but was not a span is returned in garbled.
func ParseSpans(text string) (refs []citations.Ref, garbled []string) {
	for rest := text; ; {
		i := strings.IndexByte(rest, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], ']')
		if j < 0 {
			break
		}
		inner := rest[i+1 : i+j]
		rest = rest[i+j+1:]
		ok := true
		var got []citations.Ref
		for _, item := range strings.Split(inner, ",") {
			r, good := parseRange(item)
			if !good {
				ok = false
				break
			}
			got = append(got, r)
		}
		if ok {
			refs = append(refs, got...)
		} else if strings.TrimSpace(inner) != "" {
			garbled = append(garbled, textproc.Clip(inner, 40))
		}
	}
	if len(refs) > 0 {
		return refs, garbled
	}
	return bareTags(text), garbled
}

// bareTags reads "<C3>-<C5>" and "<C3>" written without brackets.
func bareTags(text string) []citations.Ref {
	var refs []citations.Ref
	for rest := text; ; {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			return refs
		}
		a, after, ok := tagAt(rest[i:])
		if !ok {
			rest = rest[i+1:]
			continue
		}
		r := citations.Ref{First: a, Last: a}
		t := strings.TrimLeft(after, " ")
		for _, dash := range []string{"-", "–"} {
			if strings.HasPrefix(t, dash) {
				if b, after2, ok := tagAt(strings.TrimLeft(t[len(dash):], " ")); ok {
					r.Last, after = b, after2
				}
				break
			}
		}
		refs = append(refs, r)
		rest = after
	}
}

// tagAt reads the "<Cn>" (spaces allowed inside) s starts with.
func tagAt(s string) (int, string, bool) {
	if !strings.HasPrefix(s, "<") {
		return 0, "", false
	}
	t := strings.TrimLeft(s[1:], " ")
	if len(t) == 0 || (t[0] != 'C' && t[0] != 'c') {
		return 0, "", false
	}
	n, k := leadingDigits(t[1:])
	if k == 0 {
		return 0, "", false
	}
	t = strings.TrimLeft(t[1+k:], " ")
	if len(t) == 0 || t[0] != '>' {
		return 0, "", false
	}
	return n, t[1:], true
}

// parseRange reads "a", "a-b", "Ca-Cb", with spaces and en dashes.
func parseRange(item string) (citations.Ref, bool) {
	s := strings.TrimSpace(item)
	a, rest, ok := number(s)
	if !ok {
		return citations.Ref{}, false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return citations.Ref{First: a, Last: a}, true
	}
	switch {
	case strings.HasPrefix(rest, "-"):
		rest = rest[1:]
	case strings.HasPrefix(rest, "–"):
		rest = rest[len("–"):]
	default:
		return citations.Ref{}, false
	}
	b, rest, ok := number(strings.TrimSpace(rest))
	if !ok || strings.TrimSpace(rest) != "" {
		return citations.Ref{}, false
	}
	return citations.Ref{First: a, Last: b}, true
}

// number reads an optional "C" and digits.
func number(s string) (int, string, bool) {
	if len(s) > 0 && (s[0] == 'C' || s[0] == 'c') {
		s = s[1:]
	}
	n, k := leadingDigits(s)
	return n, s[k:], k > 0
}

// leadingDigits reads up to 9 leading digits (larger numbers are no
// sentence).
func leadingDigits(s string) (int, int) {
	n, k := 0, 0
	for k < len(s) && k < 9 && s[k] >= '0' && s[k] <= '9' {
		n = n*10 + int(s[k]-'0')
		k++
	}
	if k < len(s) && s[k] >= '0' && s[k] <= '9' {
		return 0, 0
	}
	return n, k
}
