package pdftext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// Rebuilding the cross-reference table of a damaged file, as viewers do:
// the objects are found by scanning for "N G obj", objects packed in object
// streams are listed from those streams, and a new cross-reference stream
// is appended to an in-memory copy of the file.

const maxRepairBytes = 200 << 20

var (
	objDefRE  = regexp.MustCompile(`(\d{1,10})\s+(\d{1,5})\s+obj\b`)
	rootRE    = regexp.MustCompile(`/Root\s+(\d+)\s+(\d+)\s+R`)
	infoRE    = regexp.MustCompile(`/Info\s+(\d+)\s+(\d+)\s+R`)
	catalogRE = regexp.MustCompile(`/Type\s*/Catalog\b`)
	objStmRE  = regexp.MustCompile(`/Type\s*/ObjStm\b`)
)

type xrefEntry struct {
	typ    byte // 1: at an offset; 2: in an object stream
	gen    uint16
	off    int64
	stream uint32
	index  int
}

// repairXref returns the file with a rebuilt cross-reference table.
func repairXref(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	if size > maxRepairBytes {
		return nil, 0, fmt.Errorf("the file is too large to repair")
	}
	head := make([]byte, min(size, 1024))
	if n, _ := r.ReadAt(head, 0); !bytes.Contains(head[:n], []byte("%PDF-")) {
		return nil, 0, fmt.Errorf("not a PDF file")
	}
	data := make([]byte, size)
	if n, _ := r.ReadAt(data, 0); int64(n) != size {
		return nil, 0, fmt.Errorf("the file cannot be read")
	}
	if bytes.Contains(data, []byte("/Encrypt")) {
		return nil, 0, fmt.Errorf("an encrypted file cannot be repaired")
	}
	// No file holds more objects than a few per byte; a bigger id is a
	// damaged number that would make the library allocate a huge table.
	idLimit := uint64(min(int64(maxXrefObjects), 4*size+1000))
	entries, maxID, streams, root := scanObjects(data, idLimit)
	info := ""
	// the trailer's own /Root and /Info, when they name existing objects
	if ms := rootRE.FindAllSubmatch(data, -1); len(ms) > 0 {
		m := ms[len(ms)-1]
		if id, _ := strconv.ParseUint(string(m[1]), 10, 32); entries[uint32(id)].typ != 0 {
			root = fmt.Sprintf("%s %s R", m[1], m[2])
		}
	}
	if ms := infoRE.FindAllSubmatch(data, -1); len(ms) > 0 {
		m := ms[len(ms)-1]
		if id, _ := strconv.ParseUint(string(m[1]), 10, 32); entries[uint32(id)].typ != 0 {
			info = fmt.Sprintf(" /Info %s %s R", m[1], m[2])
		}
	}
	if len(entries) == 0 {
		return nil, 0, fmt.Errorf("no objects found")
	}
	build := func(root string, extra string) []byte {
		var b bytes.Buffer
		b.Write(data)
		appendXref(&b, entries, maxID, root, info+extra)
		return b.Bytes()
	}
	if root == "" {
		root = "0 0 R" // found among the packed objects below, if anywhere
	}
	out := build(root, "")
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
		if rd, err := pdf.NewReader(bytes.NewReader(probe), int64(len(probe))); err == nil {
			arr := rd.Trailer().Key("PdftextObjStms")
			for i, sid := range streams {
				listObjStm(arr.Index(i), sid, entries, &maxID, &root, idLimit)
			}
			out = build(root, "")
		}
	}
	return bytes.NewReader(out), int64(len(out)), nil
}

// scanObjects finds the objects defined in data ("N G obj", the last
// definition of an id winning), the object streams among them and a
// catalog ("id gen R", or "").
func scanObjects(data []byte, idLimit uint64) (entries map[uint32]xrefEntry, maxID uint32, streams []uint32, root string) {
	entries = map[uint32]xrefEntry{}
	for at := 0; ; {
		k := bytes.Index(data[at:], []byte("obj"))
		if k < 0 {
			break
		}
		k += at
		at = k + 3
		start, id, gen, ok := objDef(data, k)
		if !ok || id == 0 || id > idLimit {
			continue
		}
		entries[uint32(id)] = xrefEntry{typ: 1, gen: uint16(gen), off: int64(start)}
		maxID = max(maxID, uint32(id))
		// the start of the object's dictionary, not the next object's
		head := data[k+3 : min(len(data), k+3+400)]
		for _, end := range []string{"endobj", "stream"} {
			if e := bytes.Index(head, []byte(end)); e >= 0 {
				head = head[:e]
			}
		}
		if objStmRE.Match(head) {
			streams = append(streams, uint32(id))
		}
		if catalogRE.Match(head) {
			root = fmt.Sprintf("%d %d R", id, gen)
		}
	}
	return entries, maxID, streams, root
}

// objDef reads the "N G" before the keyword "obj" at k: where N starts,
// and the numbers; ok is false when "obj" at k does not end such a
// definition.
func objDef(data []byte, k int) (start int, id, gen uint64, ok bool) {
	if k+3 < len(data) {
		if c := data[k+3]; c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return 0, 0, 0, false // a longer word
		}
	}
	// back over white space, the generation, white space, the number
	digits := func(end int) int {
		i := end
		for i > 0 && end-i < 10 && data[i-1] >= '0' && data[i-1] <= '9' {
			i--
		}
		return i
	}
	spaces := func(end int) int {
		i := end
		for i > 0 && isWS(data[i-1]) && data[i-1] != 0 {
			i--
		}
		return i
	}
	g1 := spaces(k)
	g0 := digits(g1)
	n1 := spaces(g0)
	n0 := digits(n1)
	if g1 == k || g0 == g1 || g1-g0 > 5 || n1 == g0 || n0 == n1 {
		return 0, 0, 0, false
	}
	if n0 > 0 && !isWS(data[n0-1]) && !bytes.ContainsRune([]byte("<>[]()/%"), rune(data[n0-1])) {
		return 0, 0, 0, false // digits inside a larger token
	}
	id, err1 := strconv.ParseUint(string(data[n0:n1]), 10, 32)
	gen, err2 := strconv.ParseUint(string(data[g0:g1]), 10, 16)
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return n0, id, gen, true
}

// appendXref ends the file in b with a cross-reference stream listing
// entries (ids up to maxID), and a trailer naming root and carrying extra.
func appendXref(b *bytes.Buffer, entries map[uint32]xrefEntry, maxID uint32, root, extra string) {
	appendXrefAt(b, 0, entries, maxID, root, extra)
}

// appendXrefAt is appendXref for b holding the end of a file, from offset
// base on.
func appendXrefAt(b *bytes.Buffer, base int64, entries map[uint32]xrefEntry, maxID uint32, root, extra string) {
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

// listObjStm adds the objects packed in object stream strm (object sid)
// to entries.
func listObjStm(strm pdf.Value, sid uint32, entries map[uint32]xrefEntry, maxID *uint32, root *string, idLimit uint64) {
	defer func() { _ = recover() }()
	if strm.Kind() != pdf.Stream {
		return
	}
	n := int(strm.Key("N").Int64())
	first := int(strm.Key("First").Int64())
	data, _ := readStream(strm, maxStreamBytes)
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
		if *root == "0 0 R" && off >= 0 && first+off < len(data) && catalogRE.Match(data[first+off:min(len(data), first+off+300)]) {
			*root = fmt.Sprintf("%d 0 R", id)
		}
	}
}
