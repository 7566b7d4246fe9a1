package pdffile

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// The library reads an object packed in an object stream by decoding the
// stream from its start, again for every object: the page tree, the
// fonts, the outline and the named destinations are thousands of small
// objects packed a hundred to a stream. The document is read instead from
// a copy of the file in which each object stream is decoded once (the
// checks of objstm.go have decoded them already) and its objects are
// written out plain.

// maxFlatBytes bounds the files read through a flattened copy, which
// holds the file and its decoded object streams in memory.
const maxFlatBytes = 64 << 20

// flatten returns a Reader over a copy of the file src whose packed
// objects, decoded in stms, are plain objects; nil when the copy could
// read differently from the file: an object defined both plain and
// packed, or twice packed (which one is current only the file's
// cross-reference chain says).
func flatten(ctx context.Context, src *source, trailer pdf.Value, stms []*objStm) *pdf.Reader {
	refs := RefKeys(trailer)
	root := refs["Root"]
	data := src.content()
	if root == "" || data == nil {
		return nil
	}
	extra := ""
	if info := refs["Info"]; info != "" {
		extra = " /Info " + info + " R"
	}
	idLimit := uint64(min(int64(maxXrefObjects), 4*src.size+1000))
	entries, maxID, _, _, err := scanObjects(ctx, data, idLimit)
	if err != nil {
		return nil
	}
	// the copy is the file followed by the packed objects and a new
	// cross-reference stream
	var b bytes.Buffer
	for _, s := range stms {
		if ctx.Err() != nil {
			return nil
		}
		objs := s.objects(idLimit)
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
	appendXref(&b, int64(len(data)), entries, maxID, root+" R", extra)
	j := joined{bytes.NewReader(data), int64(len(data)), b.Bytes()}
	rd, err := openReader(ctx, j, j.size())
	if err != nil {
		return nil
	}
	return rd
}

// packedObject is an object read out of an object stream.
type packedObject struct {
	id   uint32
	body []byte
}

// objects lists the objects of the object stream by its header; nil if
// it cannot be read so.
func (s *objStm) objects(idLimit uint64) []packedObject {
	n, first, data := int(s.n), int(s.first), s.data
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
