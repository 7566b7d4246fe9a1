package pdftext

import (
	"bytes"
	"fmt"
	"io"
	"regexp"

	"github.com/ledongthuc/pdf"
)

// Limits that keep memory and time bounded on hostile or broken files.
const (
	maxStreamBytes   = 64 << 20 // decoded bytes read from one content stream or font file
	maxPageOps       = 4_000_000
	maxPageGlyphs    = 1_000_000
	maxFormDepth     = 12
	maxFormCalls     = 4096 // form XObject invocations per page
	maxPages         = 200_000
	maxPageTreeNodes = 400_000
	maxCMapEntries   = 1 << 20
)

// readStream returns the decoded bytes of a stream (or of an array of
// streams, joined by newlines), at most limit bytes. A stream that fails to
// decode part-way yields what was decoded before the failure.
func readStream(v pdf.Value, limit int) (data []byte, err error) {
	var buf bytes.Buffer
	read := func(s pdf.Value) {
		defer func() {
			if x := recover(); x != nil {
				err = fmt.Errorf("%v", x)
			}
		}()
		if s.Kind() != pdf.Stream {
			return
		}
		rc := s.Reader()
		defer rc.Close()
		_, e := io.Copy(&buf, io.LimitReader(rc, int64(limit-buf.Len())))
		if e != nil && err == nil {
			err = e
		}
	}
	if v.Kind() == pdf.Array {
		for i := 0; i < v.Len() && buf.Len() < limit; i++ {
			read(v.Index(i))
			buf.WriteByte('\n')
		}
	} else {
		read(v)
	}
	return buf.Bytes(), err
}

// memStream wraps data as a stream Value of a tiny in-memory PDF, so that
// pdf.Interpret can run on bytes this package has cleaned or bounded.
func memStream(data []byte) (pdf.Value, error) {
	return memObject(fmt.Appendf(nil, "<</Length %d>>\nstream\n", len(data)), data, []byte("\nendstream"))
}

// memDict returns a fresh, empty dictionary Value.
func memDict() (pdf.Value, error) {
	return memObject([]byte("<<>>"), nil, nil)
}

func memObject(head, body, tail []byte) (pdf.Value, error) {
	var b bytes.Buffer
	b.Grow(len(body) + 256)
	b.WriteString("%PDF-1.7\n")
	off := b.Len()
	b.WriteString("1 0 obj\n")
	b.Write(head)
	b.Write(body)
	b.Write(tail)
	b.WriteString("\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 2\n0000000000 65535 f \n%010d 00000 n \ntrailer\n<</Size 2/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", off, xref)
	r, err := pdf.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		return pdf.Value{}, err
	}
	return r.Trailer().Key("Root"), nil
}

var refRE = regexp.MustCompile(`/([^\s/<>\[\]()]+) (\d+) (\d+) R`)

// refKeys maps each key of dictionary d whose value is an indirect
// reference to "id gen", the referenced object's identity. The library
// exposes no object identity, but its textual form of a dictionary prints
// references unresolved, so fonts and streams can be cached per object.
// Only d's own entries count: the entries of dictionaries and arrays
// nested in it, and the insides of strings, are blanked out first.
func refKeys(d pdf.Value) map[string]string {
	m := map[string]string{}
	for _, sm := range refRE.FindAllStringSubmatch(topLevel(d.String()), -1) {
		m[sm[1]] = sm[2] + " " + sm[3]
	}
	return m
}

// topLevel returns the textual form of a dictionary with everything below
// its top level (nested dictionaries and arrays, quoted strings) replaced
// by spaces.
func topLevel(s string) string {
	b := []byte(s)
	depth := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			for k := i; k <= j && k < len(b); k++ {
				b[k] = ' '
			}
			i = j
			continue
		}
		// A dictionary's brackets come in pairs ("<<", ">>"); a lone "<" or
		// ">" is a hex string's or the reader's "<nil>".
		double := (c == '<' || c == '>') && i+1 < len(b) && b[i+1] == c
		switch {
		case double && c == '<', c == '[':
			depth++
		case double && c == '>', c == ']':
			depth--
		}
		if depth > 1 {
			b[i] = ' '
			if double {
				b[i+1] = ' '
				i++
			}
		} else if double {
			i++ // the pair's second bracket
		}
	}
	return string(b)
}

// floats reads a numeric array.
func floats(v pdf.Value, max int) []float64 {
	n := min(v.Len(), max)
	out := make([]float64, n)
	for i := range n {
		out[i] = v.Index(i).Float64()
	}
	return out
}
