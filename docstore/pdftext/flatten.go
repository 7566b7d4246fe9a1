package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// The library reads an object packed in an object stream by inflating the
// stream from its start, again for every object: the page tree, the fonts,
// the outline and the named destinations are thousands of small objects
// packed a hundred to a stream. The document is read instead from a copy
// of the file in which each object stream is inflated once and its objects
// are written out plain.

// maxFlatBytes bounds the files read through a flattened copy, which
// holds the file and its inflated object streams in memory.
const maxFlatBytes = 64 << 20

var (
	objStmNRE     = regexp.MustCompile(`/N\s+(\d+)`)
	objStmFirstRE = regexp.MustCompile(`/First\s+(\d+)`)
	flateOnlyRE   = regexp.MustCompile(`/Filter\s*(/FlateDecode|\[\s*/FlateDecode\s*\])`)
)

// flatReader returns a Reader over a copy of the file whose packed objects
// are plain objects, or nil when the file packs none or the copy could
// read differently from the file: encrypted, too large, an object stream
// it cannot inflate, an object defined both plain and packed or twice
// packed (which one is current only the file's cross-reference chain
// says).
func flatReader(r io.ReaderAt, size int64, trailer pdf.Value) *pdf.Reader {
	refs := refKeys(trailer)
	root := refs["Root"]
	if size > maxFlatBytes || root == "" {
		return nil
	}
	extra := ""
	if info := refs["Info"]; info != "" {
		extra = " /Info " + info + " R"
	}
	data := make([]byte, size)
	if n, _ := r.ReadAt(data, 0); int64(n) != size {
		return nil
	}
	if !objStmHeadRE.Match(data) || bytes.Contains(data, []byte("/Encrypt")) {
		return nil
	}
	idLimit := uint64(min(int64(maxXrefObjects), 4*size+1000))
	entries, maxID, streams, _ := scanObjects(data, idLimit)
	// the copy is the file followed by the packed objects and a new
	// cross-reference stream
	var b bytes.Buffer
	b.Grow(len(data))
	var in inflater
	for _, sid := range streams {
		objs := in.packedObjects(data[entries[sid].off:], idLimit)
		if objs == nil {
			return nil
		}
		for _, o := range objs {
			if _, ok := entries[o.id]; ok {
				return nil
			}
			entries[o.id] = xrefEntry{typ: 1, off: int64(len(data)+b.Len()) + 1}
			maxID = max(maxID, o.id)
			fmt.Fprintf(&b, "\n%d 0 obj\n", o.id)
			b.Write(o.body)
			b.WriteString("\nendobj\n")
		}
	}
	tail := &b
	appendXrefAt(tail, int64(len(data)), entries, maxID, root+" R", extra)
	whole := joinedReader{data, tail.Bytes()}
	rd, err := pdf.NewReader(whole, whole.size())
	if err != nil {
		return nil
	}
	return rd
}

// joinedReader reads two byte slices as one.
type joinedReader struct{ a, b []byte }

func (j joinedReader) size() int64 { return int64(len(j.a) + len(j.b)) }

func (j joinedReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.EOF
	}
	n := 0
	if off < int64(len(j.a)) {
		n = copy(p, j.a[off:])
	}
	if n < len(p) {
		if o := off + int64(n) - int64(len(j.a)); o >= 0 && o < int64(len(j.b)) {
			n += copy(p[n:], j.b[o:])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// packedObject is an object read out of an object stream.
type packedObject struct {
	id   uint32
	body []byte
}

// inflater inflates one stream after another into one buffer, which the
// objects returned last point into.
type inflater struct {
	zr  io.ReadCloser
	buf bytes.Buffer
}

func (in *inflater) inflate(data []byte) ([]byte, error) {
	var err error
	if in.zr == nil {
		in.zr, err = zlib.NewReader(bytes.NewReader(data))
	} else {
		err = in.zr.(zlib.Resetter).Reset(bytes.NewReader(data), nil)
	}
	if err != nil {
		return nil, err
	}
	in.buf.Reset()
	_, err = io.Copy(&in.buf, io.LimitReader(in.zr, maxStreamBytes))
	return in.buf.Bytes(), err
}

// packedObjects lists the objects of the Flate-compressed object stream
// defined at the start of def; none if it cannot be read. The objects are
// valid until the next call.
func (in *inflater) packedObjects(def []byte, idLimit uint64) []packedObject {
	dict, body, ok := streamData(def)
	if !ok {
		return nil
	}
	nm, fm := objStmNRE.FindSubmatch(dict), objStmFirstRE.FindSubmatch(dict)
	if nm == nil || fm == nil || !flateOnlyRE.Match(dict) || bytes.Contains(dict, []byte("/DecodeParms")) {
		return nil
	}
	n, _ := strconv.Atoi(string(nm[1]))
	first, _ := strconv.Atoi(string(fm[1]))
	data, err := in.inflate(body)
	if err != nil && len(data) == 0 {
		return nil
	}
	if first <= 0 || first > len(data) || n <= 0 {
		return nil
	}
	f := bytes.Fields(data[:first])
	type at struct {
		id  uint32
		off int
	}
	var offs []at
	for k := 0; k+1 < len(f) && k/2 < n; k += 2 {
		id, err1 := strconv.ParseUint(string(f[k]), 10, 32)
		off, err2 := strconv.Atoi(string(f[k+1]))
		if err1 != nil || err2 != nil || id == 0 || id > idLimit || off < 0 || first+off >= len(data) {
			continue
		}
		offs = append(offs, at{uint32(id), first + off})
	}
	slices.SortFunc(offs, func(a, b at) int { return a.off - b.off })
	out := make([]packedObject, 0, len(offs))
	for k, o := range offs {
		end := len(data)
		if k+1 < len(offs) {
			end = offs[k+1].off
		}
		out = append(out, packedObject{id: o.id, body: data[o.off:end]})
	}
	return out
}
