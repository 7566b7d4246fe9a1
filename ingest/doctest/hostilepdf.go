package doctest

import (
	"bytes"
	"fmt"
	"strings"
)

// A HostilePDF is a small PDF built to make a reader loop, recurse or
// allocate without end: each must be read or refused quickly.
type HostilePDF struct {
	Name string
	// Why says what it does to a reader that trusts it.
	Why  string
	Data []byte
	// Text is what a reader should find in it; "" means it should refuse
	// it with an error.
	Text string
}

// hostileText is the text of the page of every hostile PDF that has one.
const hostileText = "The hostile page still reads."

// HostilePDFs returns the hostile PDFs, each a few hundred bytes.
func HostilePDFs() []HostilePDF {
	return []HostilePDF{
		{Name: "prev-self", Why: "its cross-reference table's /Prev points at itself", Data: prevLoop(false), Text: hostileText},
		{Name: "prev-mutual", Why: "two cross-reference sections point at each other", Data: prevLoop(true), Text: hostileText},
		{Name: "prev-xref-stream", Why: "a cross-reference stream's /Prev points at itself", Data: xrefStreamPrevLoop(), Text: hostileText},
		{Name: "objstm-in-objstm", Why: "its cross-reference stream puts an object stream inside itself", Data: objStmInObjStm(), Text: hostileText},
		{Name: "objstm-open-hex", Why: "an object stream ends inside a hex string", Data: openHexObjStm(0)},
		{Name: "objstm-open-hex-rc4", Why: "an RC4-encrypted object stream ends inside a hex string", Data: openHexObjStm(1)},
		{Name: "objstm-open-hex-aes128", Why: "an AES-128-encrypted object stream ends inside a hex string", Data: openHexObjStm(2)},
		{Name: "objstm-huge-n", Why: "an object stream says it holds 10^15 objects", Data: hugeNObjStm()},
		{Name: "objstm-extends-loop", Why: "two object streams extend each other, and an object is in neither", Data: extendsLoop(), Text: hostileText},
		{Name: "xref-huge-index", Why: "an older cross-reference stream's /Index names object 4,000,000,000", Data: hugeIndex(), Text: hostileText},
		{Name: "xref-wide-entries", Why: "a cross-reference stream's /W makes each entry 2 GB wide", Data: wideEntries(), Text: hostileText},
		{Name: "stream-huge-columns", Why: "a content stream's predictor has 4,000,000,000 columns", Data: hugeColumns()},
		{Name: "page-tree-cycle", Why: "a page tree node lists itself among its kids", Data: pageTreeCycle(), Text: hostileText},
	}
}

const (
	hostileFont    = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	hostileContent = "BT /F1 12 Tf 72 700 Td (" + hostileText + ") Tj ET"
)

// hostilePage writes the catalog (1), the page tree (2), the page (3),
// its content (4) and font (5).
func hostilePage(p *RawPDF) {
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.Object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
	p.Stream(4, "", []byte(hostileContent))
	p.Object(5, hostileFont)
}

// prevLoop: a table whose /Prev is its own offset, or (mutual) two tables
// whose /Prev name each other.
func prevLoop(mutual bool) []byte {
	p := NewRawPDF("1.4")
	hostilePage(p)
	first := p.Table("/Root 1 0 R /Prev 9999999999")
	if !mutual {
		return fix(p.End(first), "/Prev 9999999999", fmt.Sprintf("/Prev %010d", first))
	}
	second := p.Table(fmt.Sprintf("/Root 1 0 R /Prev %d", first))
	return fix(p.End(second), "/Prev 9999999999", fmt.Sprintf("/Prev %010d", second))
}

// fix replaces a placeholder of the same length.
func fix(data []byte, placeholder, value string) []byte {
	if len(placeholder) != len(value) {
		panic("doctest: a placeholder and its value differ in length")
	}
	return bytes.Replace(data, []byte(placeholder), []byte(value), 1)
}

func xrefStreamPrevLoop() []byte {
	p := NewRawPDF("1.5")
	hostilePage(p)
	at := p.Len()
	return p.End(p.XrefStream(6, fmt.Sprintf("/Root 1 0 R /Prev %d", at)))
}

// packedPage is a file whose page tree, page and font (2, 3, 5) are
// packed in object stream 6 (with font as the font's dictionary, and n,
// if not 0, as its /N), listed by cross-reference stream 7. The font is
// also defined plain, in an older revision the table does not use: a
// reader cannot write the packed objects out plain without taking one
// of the two for the other, and must read the object stream as it is.
func packedPage(p *RawPDF, font string, n int) {
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Stream(4, "", []byte(hostileContent))
	p.Object(5, hostileFont)
	delete(p.offs, 5)
	p.ObjStm(6, []int{2, 3, 5}, []string{
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		font,
	}, "", n)
}

// objStmInObjStm lists object stream 6 as packed in itself: a reader that
// resolves a stream before the objects in it recurses without end.
func objStmInObjStm() []byte {
	p := NewRawPDF("1.5")
	packedPage(p, hostileFont, 0)
	delete(p.offs, 6)
	p.packed[6] = [2]int{6, 0}
	return p.End(p.XrefStream(7, "/Root 1 0 R"))
}

// openHexObjStm: the object stream's last object, the font, ends in an
// open hex string; plain (0), RC4- (1) or AES-128-encrypted (2).
func openHexObjStm(crypt int) []byte {
	p := NewRawPDF("1.5")
	enc := ""
	if crypt > 0 {
		enc = p.Encrypt(8, crypt == 2)
	}
	packedPage(p, strings.TrimSuffix(hostileFont, ">>")+"/Hex <4142", 0)
	return p.End(p.XrefStream(7, "/Root 1 0 R "+enc))
}

// hugeNObjStm: looking for the document information dictionary (9),
// which is not there, a reader that trusts /N reads 10^15 header pairs.
func hugeNObjStm() []byte {
	p := NewRawPDF("1.5")
	packedPage(p, hostileFont, 1_000_000_000_000_000)
	p.packed[9] = [2]int{6, 3}
	return p.End(p.XrefStream(7, "/Root 1 0 R /Info 9 0 R"))
}

// extendsLoop: object streams 6 and 8 extend each other, and the
// document information dictionary (9), which the cross-reference stream
// puts in 6, is in neither.
func extendsLoop() []byte {
	p := NewRawPDF("1.5")
	hostilePage(p)
	p.Object(10, "<< >>") // packed too: see packedPage
	p.Stream(6, "/Type /ObjStm /N 1 /First 5 /Extends 8 0 R /Filter /FlateDecode", Flate([]byte("10 0 << >>\n")))
	p.Stream(8, "/Type /ObjStm /N 1 /First 5 /Extends 6 0 R /Filter /FlateDecode", Flate([]byte("11 0 << >>\n")))
	p.packed[9] = [2]int{6, 0}
	return p.End(p.XrefStream(7, "/Root 1 0 R /Info 9 0 R"))
}

// hugeIndex: an older cross-reference stream (the first) whose /Index
// starts at object 4,000,000,000; the newer one lists the objects.
func hugeIndex() []byte {
	p := NewRawPDF("1.5")
	hostilePage(p)
	old := p.Len()
	p.Object(6, "<< /Type /XRef /Size 6 /W [1 4 2] /Index [4000000000 1] /Length 7 >>\nstream\n\x01\x00\x00\x00\x09\x00\x00\nendstream")
	return p.End(p.XrefStream(7, fmt.Sprintf("/Root 1 0 R /Prev %d", old)))
}

func wideEntries() []byte {
	p := NewRawPDF("1.5")
	hostilePage(p)
	data := p.End(p.XrefStream(6, "/Root 1 0 R"))
	return bytes.Replace(data, []byte("/W [1 4 2]"), []byte("/W [1 2000000000 2]"), 1)
}

func hugeColumns() []byte {
	p := NewRawPDF("1.4")
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.Object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
	p.Stream(4, " /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4000000000 >>", Flate([]byte(hostileContent)))
	p.Object(5, hostileFont)
	return p.End(p.Table("/Root 1 0 R"))
}

func pageTreeCycle() []byte {
	p := NewRawPDF("1.4")
	hostilePage(p)
	p.Object(2, "<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 3 >>")
	return p.End(p.Table("/Root 1 0 R"))
}

// ManyPagesPDF returns a PDF of n pages, each a line of text, its pages
// listed in one flat page tree: the shape that makes page counting
// quadratic in a reader that walks the tree for each page.
func ManyPagesPDF(n int) []byte {
	p := NewRawPDF("1.4")
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", 4+2*i)
	}
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Object(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), n))
	p.Object(3, hostileFont)
	for i := range n {
		p.Object(4+2*i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		p.Stream(5+2*i, "", fmt.Appendf(nil, "BT /F1 12 Tf 72 700 Td (Line %d of a long book, set on a page of its own.) Tj ET", i+1))
	}
	return p.End(p.Table("/Root 1 0 R"))
}

// HugePagesPDF returns a PDF of pages pages with no text, each inches
// inches square: what OCR would render at hundreds of megapixels.
func HugePagesPDF(pages int, inches float64) []byte {
	p := NewRawPDF("1.4")
	var kids strings.Builder
	for i := range pages {
		fmt.Fprintf(&kids, "%d 0 R ", 3+i)
	}
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Object(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), pages))
	for i := range pages {
		p.Object(3+i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] >>", inches*72, inches*72))
	}
	return p.End(p.Table("/Root 1 0 R"))
}
