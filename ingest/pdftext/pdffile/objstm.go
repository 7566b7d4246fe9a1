package pdffile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// The library resolves an object packed in an object stream by decoding
// the stream and reading its header from the start: /N pairs of "id
// offset", then the object at /First plus its offset. Three things there
// have no end: a hex string open at the end of the stream (its lexer
// reads white space past the end, forever), an /N far beyond the pairs
// the stream holds (it reads /N pairs, past the end), and /Extends that
// lead back to a stream already searched (it follows them without a
// visited set). checkObjStms decodes each object stream the library may
// read, once, through the library itself (so that every filter and
// encryption the library knows applies), and refuses a file where one of
// them would not end.

// maxObjStmBytes bounds an object stream's decoded size. Real ones hold a
// few hundred small objects.
const maxObjStmBytes = 64 << 20

// maxExtends bounds a chain of /Extends, which real files hardly use.
const maxExtends = 64

// An objStm is an object stream as the library decodes it.
type objStm struct {
	id       uint32
	n, first int64
	data     []byte          // decoded; nil unless kept for flattening
	ids      map[uint32]bool // the objects its header lists
}

// checkObjStms checks the object streams of the chain c of the file src,
// whose library Reader opened without error. With keep, it returns them
// decoded.
func checkObjStms(ctx context.Context, src *source, c *xrefChain, keep bool) ([]*objStm, error) {
	ids := c.objStms()
	if len(ids) == 0 {
		return nil, nil
	}
	rd, err := probe(ctx, src, c, ids)
	if err != nil {
		return nil, err
	}
	arr := rd.Trailer().Key("PdftextObjStms")
	byID := map[uint32]*objStm{}
	var out []*objStm
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := checkObjStm(arr.Index(i), id, keep)
		if err != nil {
			return nil, err
		}
		if s != nil {
			byID[id] = s
			out = append(out, s)
		}
	}
	// an object missing from the stream the table puts it in is looked
	// for along the stream's /Extends; so is one in a stream that did not
	// decode here, which the library may still read as empty (a stream
	// with no /Length and a filter it does not know) and then leave by
	// its /Extends
	walk := map[uint32]bool{}
	for x, id := range c.packed {
		if s := byID[id]; s == nil || !s.ids[x] {
			walk[id] = true
		}
	}
	for i, id := range ids {
		if walk[id] {
			if err := checkExtends(ctx, arr.Index(i), id); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// probe opens the file with one more, empty, cross-reference section at
// its end, whose trailer names the object streams in an array: the
// library resolves objects only from the trailer down.
func probe(ctx context.Context, src *source, c *xrefChain, ids []uint32) (*pdf.Reader, error) {
	var tail bytes.Buffer
	off := src.size + 1
	fmt.Fprintf(&tail, "\n%d 0 obj\n<</Type /XRef /Size %d /W [1 1 1] /Index [0 0] /Length 0 /Prev %d", c.size, c.size, c.start)
	for _, key := range []string{"Encrypt", "ID"} {
		if span, ok := c.trailers[0].spans[name(key)]; ok {
			raw, _ := src.window(span[0], int(span[1]-span[0]))
			tail.WriteByte(' ')
			tail.Write(raw)
		}
	}
	tail.WriteString(" /PdftextObjStms [")
	for _, id := range ids {
		fmt.Fprintf(&tail, "%d 0 R ", id)
	}
	fmt.Fprintf(&tail, "]>>\nstream\n\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", off)
	j := joined{src.r, src.size, tail.Bytes()}
	rd, err := openReader(ctx, j, j.size())
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, damage(-1, "its cross-reference table is missing or damaged")
	}
	return rd, nil
}

// checkObjStm decodes object stream v (object id) and checks it; nil when
// the library fails on it without looping (not an object stream, or one
// it cannot decode at all).
func checkObjStm(v pdf.Value, id uint32, keep bool) (s *objStm, err error) {
	defer func() {
		if x := recover(); x != nil {
			s, err = nil, nil // resolving it fails: so does the library
		}
	}()
	if v.Kind() != pdf.Stream || v.Key("Type").Name() != "ObjStm" {
		return nil, nil
	}
	data, rerr := ReadStream(v, maxObjStmBytes+1)
	if rerr != nil && len(data) == 0 {
		return nil, nil // the library fails at its first read
	}
	// The library reads a stream lazily: one that fails to decode
	// part-way is read up to the failure, where its lexer stops. So the
	// end of the data matters only when the data is all there.
	whole := rerr == nil
	if whole && len(data) > maxObjStmBytes {
		return nil, damage(-1, fmt.Sprintf("an object stream inflates to more than %d MB", maxObjStmBytes>>20))
	}
	if whole && openHexAtEnd(data) {
		return nil, damage(-1, "an object stream ends inside a hex string")
	}
	s = &objStm{id: id, n: v.Key("N").Int64(), first: v.Key("First").Int64(), ids: map[uint32]bool{}}
	l := newLexer(data, 0, true, true)
	for range max(0, s.n) {
		a, err1 := l.token()
		b, err2 := l.token()
		if err1 != nil || err2 != nil {
			break // the library fails on the header
		}
		if a.kind == tokEOF || b.kind == tokEOF {
			if !whole {
				break // the library fails where the data does
			}
			return nil, damage(-1, fmt.Sprintf("an object stream says it holds %d objects, more than it does", s.n))
		}
		if a.kind == tokInt {
			s.ids[uint32(a.n)] = true
		} else {
			s.ids[0] = true
		}
	}
	if keep && whole {
		s.data = data
	}
	return s, nil
}

// openHexAtEnd reports whether the library's lexer, started anywhere in
// data, could read a hex string to its end, and so forever: it reads a
// hex string's digits in pairs, skipping white space, and checks a pair
// only once both are read. That is a "<" followed to the end only by
// white space and hex digits, or by pairs of hex digits and then any
// character but ">".
func openHexAtEnd(data []byte) bool {
	hex := func(c byte) bool { return unhex(c) >= 0 }
	i := len(data) - 1
	for i >= 0 && isSpace(data[i]) {
		i--
	}
	if i < 0 {
		return false
	}
	// digits and white space to the end, after a "<"
	j := i
	for j >= 0 && (hex(data[j]) || isSpace(data[j])) {
		j--
	}
	if j >= 0 && data[j] == '<' {
		return true
	}
	// one more character, read as a pair's first, after pairs of digits
	if data[i] == '>' {
		return false
	}
	digits := 0
	for j = i - 1; j >= 0 && (hex(data[j]) || isSpace(data[j])); j-- {
		if hex(data[j]) {
			digits++
		}
	}
	return j >= 0 && data[j] == '<' && digits%2 == 0
}

// checkExtends follows the /Extends of object stream v (object id) as the
// library does for an object it does not find there, refusing a chain
// that comes back on itself or does not end.
func checkExtends(ctx context.Context, v pdf.Value, id uint32) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = nil // resolving fails: so does the library
		}
	}()
	seen := map[string]bool{fmt.Sprintf("%d 0", id): true}
	for range maxExtends {
		if err := ctx.Err(); err != nil {
			return err
		}
		next := RefKeys(v)["Extends"]
		if next == "" {
			return nil
		}
		if seen[next] {
			return damage(-1, "its object streams extend one another in a loop")
		}
		seen[next] = true
		if v = v.Key("Extends"); v.Kind() != pdf.Stream {
			return nil
		}
		n, _ := strconv.ParseUint(strings.Fields(next)[0], 10, 32)
		if _, err := checkObjStm(v, uint32(n), false); err != nil {
			return err
		}
	}
	return damage(-1, fmt.Sprintf("its object streams extend one another more than %d deep", maxExtends))
}

// openReader opens r with the library behind a guard, which stays with
// the Reader: every later read checks ctx too.
func openReader(ctx context.Context, r io.ReaderAt, size int64) (*pdf.Reader, error) {
	g := newGuard(ctx, r, size)
	rd, err := pdf.NewReader(g, size)
	g.opened()
	return rd, err
}
