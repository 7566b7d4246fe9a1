package pdffile

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// Rebuilding the cross-reference table of a damaged file, as viewers do
// (the library has no repair of its own): the objects are found by
// scanning for "N G obj", objects packed in object streams are listed
// from those streams, and a new cross-reference stream is appended to an
// in-memory copy of the file.

type xrefEntry struct {
	typ    byte // 1: at an offset; 2: in an object stream
	gen    uint16
	off    int64
	stream uint32
	index  int
}

// rebuildXref returns the file with a rebuilt cross-reference table.
func rebuildXref(ctx context.Context, data []byte) (out []byte, err error) {
	defer func() {
		if x := recover(); x != nil {
			out, err = nil, describe(x, data)
		}
	}()
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, fmt.Errorf("not a PDF file")
	}
	if bytes.Contains(data, []byte("/Encrypt")) {
		return nil, fmt.Errorf("an encrypted file cannot be repaired")
	}
	// No file holds more objects than a few per byte; a bigger id is a
	// damaged number that would make the library allocate a huge table.
	idLimit := uint64(min(int64(maxXrefObjects), 4*int64(len(data))+1000))
	entries, maxID, streams, root, err := scanObjects(ctx, data, idLimit)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("no objects found")
	}
	// the trailer's own /Root and /Info, when they name existing objects
	info := ""
	if r := lastRef(data, "Root"); r != "" && entries[parseRef(r).id].typ != 0 {
		root = r
	}
	if r := lastRef(data, "Info"); r != "" && entries[parseRef(r).id].typ != 0 {
		info = " /Info " + r
	}
	build := func(root string, extra string) []byte {
		var b bytes.Buffer
		b.Write(data)
		appendXref(&b, 0, entries, maxID, root, info+extra)
		return b.Bytes()
	}
	if root == "" {
		root = "0 0 R" // found among the packed objects below, if anywhere
	}
	out = build(root, "")
	// List the objects packed in object streams through the library: the
	// library resolves objects only from the trailer down, so the rebuilt
	// trailer names the object streams in an extra array.
	if len(streams) > 0 {
		var list bytes.Buffer
		list.WriteString(" /PdftextObjStms [")
		for _, sid := range streams {
			fmt.Fprintf(&list, "%d 0 R ", sid)
		}
		list.WriteString("]")
		probe := build(root, list.String())
		if rd, err := pdf.NewReader(newGuard(ctx, bytes.NewReader(probe), int64(len(probe))), int64(len(probe))); err == nil {
			arr := rd.Trailer().Key("PdftextObjStms")
			for i, sid := range streams {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				listObjStm(arr, i, sid, entries, &maxID, &root, idLimit)
			}
			out = build(root, "")
		}
	}
	return out, nil
}

// scanObjects finds the objects defined in data ("N G obj", the last
// definition of an id winning), the object streams among them and a
// catalog ("id gen R", or "").
func scanObjects(ctx context.Context, data []byte, idLimit uint64) (entries map[uint32]xrefEntry, maxID uint32, streams []uint32, root string, err error) {
	entries = map[uint32]xrefEntry{}
	n := 0
	eachObject(data, func(start int, id, gen uint64, k int) bool {
		if n++; n%65536 == 0 && ctx.Err() != nil {
			return false
		}
		if id == 0 || id > idLimit {
			return true
		}
		entries[uint32(id)] = xrefEntry{typ: 1, gen: uint16(gen), off: int64(start)}
		maxID = max(maxID, uint32(id))
		head := objectHead(data, k)
		if hasType(head, "ObjStm") {
			streams = append(streams, uint32(id))
		}
		if hasType(head, "Catalog") {
			root = fmt.Sprintf("%d %d R", id, gen)
		}
		return true
	})
	return entries, maxID, streams, root, ctx.Err()
}

// appendXref ends the file in b, which holds the file from offset base
// on, with a cross-reference stream listing entries (ids up to maxID),
// and a trailer naming root and carrying extra.
func appendXref(b *bytes.Buffer, base int64, entries map[uint32]xrefEntry, maxID uint32, root, extra string) {
	n := maxID + 1 // the new cross-reference stream is object n
	off := base + int64(b.Len()) + 1
	var tbl bytes.Buffer
	for id := uint32(0); id <= n; id++ {
		e := entries[id]
		if id == n {
			e = xrefEntry{typ: 1, off: off}
		}
		var row [7]byte
		row[0] = e.typ
		switch e.typ {
		case 1:
			binary.BigEndian.PutUint32(row[1:], uint32(e.off))
			binary.BigEndian.PutUint16(row[5:], e.gen)
		case 2:
			binary.BigEndian.PutUint32(row[1:], e.stream)
			binary.BigEndian.PutUint16(row[5:], uint16(e.index))
		}
		tbl.Write(row[:])
	}
	fmt.Fprintf(b, "\n%d 0 obj\n<</Type /XRef /Size %d /W [1 4 2] /Root %s%s /Length %d>>\nstream\n", n, n+1, root, extra, tbl.Len())
	b.Write(tbl.Bytes())
	fmt.Fprintf(b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", off)
}

// listObjStm adds the objects packed in object stream k of arr (object
// sid) to entries.
func listObjStm(arr pdf.Value, k int, sid uint32, entries map[uint32]xrefEntry, maxID *uint32, root *string, idLimit uint64) {
	defer func() { _ = recover() }() // a stream the library cannot read lists nothing
	strm := arr.Index(k)
	if strm.Kind() != pdf.Stream {
		return
	}
	n := int(strm.Key("N").Int64())
	first := int(strm.Key("First").Int64())
	data, _ := ReadStream(strm, maxObjStmBytes)
	if first <= 0 || first > len(data) || n <= 0 {
		return
	}
	f := bytes.Fields(data[:first])
	for i := 0; i+1 < len(f) && i/2 < n; i += 2 {
		id, err1 := strconv.ParseUint(string(f[i]), 10, 32)
		off, err2 := strconv.Atoi(string(f[i+1]))
		if err1 != nil || err2 != nil || id == 0 || id > idLimit {
			continue
		}
		if e, ok := entries[uint32(id)]; ok && e.typ == 1 {
			continue // a direct definition wins
		}
		entries[uint32(id)] = xrefEntry{typ: 2, stream: sid, index: i / 2}
		*maxID = max(*maxID, uint32(id))
		if *root == "0 0 R" && off >= 0 && first+off < len(data) && hasType(data[first+off:min(len(data), first+off+300)], "Catalog") {
			*root = fmt.Sprintf("%d 0 R", id)
		}
	}
}
