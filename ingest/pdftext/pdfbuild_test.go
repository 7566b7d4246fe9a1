package pdftext

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// testPDF builds a small PDF from object bodies: objs[i] becomes object
// i+1. Object 1 must be the catalog. Streams are written with "stream:"
// prefix bodies as <<dict>> + data.
type testPDF struct {
	objs []string
}

func (p *testPDF) add(body string) int {
	p.objs = append(p.objs, body)
	return len(p.objs)
}

// stream returns an object body for a stream with an extra dict entry.
func stream(dict, data string) string {
	return fmt.Sprintf("<<%s /Length %d>>\nstream\n%s\nendstream", dict, len(data), data)
}

func (p *testPDF) bytes() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(p.objs))
	for i, o := range p.objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(p.objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d /Root 1 0 R /Info << /Title (A Test) >> >>\nstartxref\n%d\n%%%%EOF\n", len(p.objs)+1, x)
	return b.Bytes()
}

// pagesPDF builds a PDF whose pages share the font dictionary fonts and
// have the given content streams.
func pagesPDF(fonts string, contents ...string) []byte {
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.addPages(fonts, contents...)
	return p.bytes()
}

// addPages adds the page tree (which must be object 2) and a page for each
// content stream, and returns the pages' object numbers.
func (p *testPDF) addPages(fonts string, contents ...string) []int {
	tree := p.add("") // filled in below
	var kids string
	var pages []int
	for _, c := range contents {
		cs := p.add(stream("", c))
		pg := p.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font %s >> /Contents %d 0 R >>", tree, fonts, cs))
		kids += fmt.Sprintf("%d 0 R ", pg)
		pages = append(pages, pg)
	}
	p.objs[tree-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(contents))
	return pages
}

func extractBytes(t testing.TB, data []byte) *Result {
	t.Helper()
	res, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return res
}

// testPages returns the pages of the PDF data.
func testPages(t testing.TB, data []byte) []pageRef {
	t.Helper()
	f, err := pdffile.Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := walkPages(f)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// pdfValueForTest returns the font named name of the first page of data.
func pdfValueForTest(t testing.TB, data []byte, name string) pdfValue {
	t.Helper()
	return testPages(t, data)[0].res.Key("Font").Key(name)
}
