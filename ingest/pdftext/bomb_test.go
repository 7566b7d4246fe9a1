package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// bombPDF builds a decompression bomb: pages pages whose content is the
// same FlateDecode stream, which inflates to size bytes of repeated unit
// (page-drawing operators, say) — what a 114 KB file inflating to tens of
// MB on every one of its 200 pages looked like.
func bombPDF(pages, size int, unit string) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	chunk := []byte(strings.Repeat(unit, 1<<16/len(unit)))
	for n := 0; n < size; n += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("")
	cs := p.add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	var kids strings.Builder
	for range pages {
		pg := p.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents %d 0 R >>", cs))
		fmt.Fprintf(&kids, "%d 0 R ", pg)
	}
	p.objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), pages)
	return p.bytes()
}
