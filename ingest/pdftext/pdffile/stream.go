package pdffile

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"
)

// ReadStream returns the decoded bytes of a stream (or of an array of
// streams, joined by newlines), at most limit bytes. The library's
// Value.Reader reads without limit, panics on a filter or predictor it
// does not know, and allocates what /Columns says; ReadStream checks the
// stream's filters first, and a filter the library cannot decode is a
// *Damage naming it. A stream that fails to decode part-way yields what
// was decoded before the failure, with the error (a context's error when
// the read was cancelled).
func ReadStream(v pdf.Value, limit int) (data []byte, err error) {
	var buf bytes.Buffer
	read := func(s pdf.Value) {
		defer func() {
			if x := recover(); x != nil && err == nil {
				if e, ok := x.(error); ok {
					err = e
				} else {
					err = fmt.Errorf("%v", x)
				}
			}
		}()
		if s.Kind() != pdf.Stream {
			return
		}
		if e := checkFilters(s); e != nil {
			if err == nil {
				err = e
			}
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

// checkFilters refuses a stream the library cannot decode: it knows
// FlateDecode, with no predictor or PNG Up (12), and ASCII85Decode without
// parameters.
func checkFilters(s pdf.Value) error {
	f, params := s.Key("Filter"), s.Key("DecodeParms")
	switch f.Kind() {
	case pdf.Null:
		return nil
	case pdf.Name:
		return checkFilter(f.Name(), params)
	case pdf.Array:
		for i := range f.Len() {
			if err := checkFilter(f.Index(i).Name(), params.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return unsupportedFilter("")
}

func checkFilter(filter string, params pdf.Value) error {
	switch filter {
	case "FlateDecode":
		pred := params.Key("Predictor")
		if pred.Kind() == pdf.Null {
			return nil
		}
		if pred.Int64() != 12 {
			return damage(-1, fmt.Sprintf("a stream uses predictor %s, which this reader does not support", pred))
		}
		if c := params.Key("Columns").Int64(); c < 0 || c > maxColumns {
			return damage(-1, fmt.Sprintf("a stream has %d columns", c))
		}
		return nil
	case "ASCII85Decode":
		if params.Keys() != nil {
			return damage(-1, "a stream is encoded with parameters this reader does not support")
		}
		return nil
	}
	return unsupportedFilter(filter)
}

func unsupportedFilter(filter string) *Damage {
	if filter == "" {
		return damage(-1, "a stream's filter is not one this reader knows")
	}
	return damage(-1, fmt.Sprintf("a stream is compressed with %s, which this reader does not support", filter))
}

// Interpret runs the library's interpreter of PostScript and content
// streams (pdf.Interpret) on decoded bytes. The library interprets only a
// stream of a file, and its lexer reads a hex string left open at the end
// forever: content is given as the one stream of a file made in memory,
// closed off by "\n%>" (a comment after complete content, and the end of
// a hex string left open). It returns an error only when that file
// cannot be made.
func Interpret(content []byte, do func(stk *pdf.Stack, op string)) error {
	s, err := memObject(fmt.Appendf(nil, "<</Length %d>>\nstream\n", len(content)+3), content, []byte("\n%>\nendstream"))
	if err != nil {
		return err
	}
	pdf.Interpret(s, do)
	return nil
}

// EmptyDict returns a fresh, empty dictionary Value, for a PostScript
// operator that pushes one.
func EmptyDict() (pdf.Value, error) {
	return memObject([]byte("<<>>"), nil, nil)
}

// memObject returns object 1 of a tiny in-memory PDF whose body is head,
// body and tail.
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
