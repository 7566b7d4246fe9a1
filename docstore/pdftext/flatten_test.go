package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"testing"
)

// objStmPDF builds a one-page PDF whose page tree, page and font are
// packed in an object stream, listed by a cross-reference stream. With
// stale, the file also holds a plain definition of the page that the
// cross-reference stream does not use, with other text.
func objStmPDF(stale bool) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	entries := map[uint32]xrefEntry{}
	plain := func(id uint32, body string, listed bool) {
		if listed {
			entries[id] = xrefEntry{typ: 1, off: int64(b.Len())}
		}
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", id, body)
	}
	plain(1, "<< /Type /Catalog /Pages 2 0 R >>", true)
	plain(5, stream("", "BT /F1 10 Tf 72 700 Td (Packed objects are read.) Tj ET"), true)
	if stale {
		plain(7, stream("", "BT /F1 10 Tf 72 700 Td (A stale page.) Tj ET"), true)
		plain(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 7 0 R >>", false)
	}
	packed := []string{
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		propFont,
	}
	var head, objs bytes.Buffer
	for i, o := range packed {
		fmt.Fprintf(&head, "%d %d ", i+2, objs.Len())
		objs.WriteString(o + "\n")
		entries[uint32(i+2)] = xrefEntry{typ: 2, stream: 6, index: i}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(head.Bytes())
	zw.Write(objs.Bytes())
	zw.Close()
	plain(6, fmt.Sprintf("<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", len(packed), head.Len(), z.Len(), z.Bytes()), true)
	appendXref(&b, entries, 7, "1 0 R", "")
	return b.Bytes()
}

// The document is read through the flattened copy, with the same text;
// a file whose copy could read differently (an object defined both plain
// and packed) is read as it is.
func TestFlatReader(t *testing.T) {
	for _, stale := range []bool{false, true} {
		data := objStmPDF(stale)
		rd, err := newTestReader(data)
		if err != nil {
			t.Fatal(err)
		}
		flat := flatReader(bytes.NewReader(data), int64(len(data)), rd.Trailer())
		if got := flat != nil; got == stale {
			t.Errorf("stale %v: flattened %v", stale, got)
		}
		if flat != nil {
			if typ := flat.Trailer().Key("Root").Key("Pages").Key("Kids").Index(0).Key("Type").Name(); typ != "Page" {
				t.Errorf("the packed page reads as %q", typ)
			}
		}
		if res := extractBytes(t, data); res.Text != "Packed objects are read." {
			t.Errorf("stale %v: text %q", stale, res.Text)
		}
	}
}
