package docx

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/ingest/textbuild"
	"github.com/citelens/citelens/ingest/zipread"
)

// survey is a Word document with every construct the extractor reads.
func survey() *doctest.DOCX {
	d := doctest.NewDOCX("Template leftover")
	d.Title("Survey of the Harbour Wall")
	d.Heading(1, "1 Findings")
	d.Para("The wall |was built in |1874 and rebuilt in 1952.")
	d.WithFootnote("Its foundations rest on timber piles.", "Piles were inspected by divers in 2019.")
	d.Bullet("Cracks in the parapet")
	d.Bullet("Spalling of the coping stones")
	d.Heading(2, "1.1 Measurements")
	d.Caption("Table 1: Settlement by section")
	d.Table([]string{"Section", "Settlement (mm)"}, []string{"North", "12"}, []string{"South", "31"})
	d.Numbered(0, "Survey the north arm")
	d.Numbered(1, "with sonar")
	d.Numbered(1, "with divers")
	d.Numbered(0, "Repair the south arm")
	d.WithDeletion("The cost is ", "unknown and ", "estimated at £2 million.")
	d.Heading(4, "Annex\tA")
	return d
}

func spanText(res *textbuild.Result, s structure.Span) string { return res.Text[s.Start:s.End] }

func TestSurvey(t *testing.T) {
	t.Parallel()
	res, err := Extract(survey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := `Survey of the Harbour Wall

1 Findings

The wall was built in 1874 and rebuilt in 1952.

Its foundations rest on timber piles.[1]

• Cracks in the parapet
• Spalling of the coping stones

1.1 Measurements

Table 1: Settlement by section

Section  Settlement (mm)
North  12
South  31

1. Survey the north arm
a) with sonar
b) with divers
2. Repair the south arm

The cost is estimated at £2 million.

Annex A

Footnotes

[1] Piles were inspected by divers in 2019.`
	if res.Text != want {
		t.Errorf("text\n%s\nwant\n%s", res.Text, want)
	}
	if res.Title != "Survey of the Harbour Wall" {
		t.Errorf("title %q: the Title paragraph comes before the core property", res.Title)
	}
	if got := doctest.Outline(res); got != "1 1 Findings | 2 1.1 Measurements | 4 Annex A | 1 Footnotes" {
		t.Errorf("headings %s", got)
	}
	if len(res.Tables) != 1 {
		t.Fatalf("tables %+v", res.Tables)
	}
	tb := res.Tables[0]
	if spanText(res, tb.Caption) != "Table 1: Settlement by section" || len(tb.Header) != 1 || spanText(res, tb.Header[0]) != "Section  Settlement (mm)" ||
		len(tb.Rows) != 2 || spanText(res, tb.Rows[1]) != "South  31" {
		t.Errorf("table %+v", tb)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %v", res.Warnings)
	}
}

func TestBadFilesGetClearErrors(t *testing.T) {
	t.Parallel()
	good := survey().Bytes()
	bomb := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("word/document.xml")
		zeros := make([]byte, 1<<20)
		for range zipread.MaxPartBytes>>20 + 1 {
			w.Write(zeros)
		}
		zw.Close()
		return buf.Bytes()
	}()
	for _, c := range []struct {
		name    string
		file    []byte
		mention string
	}{
		{"not a zip", []byte("plain text, not a zip"), "not a DOCX file"},
		{"encrypted", append([]byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}, make([]byte, 512)...), "password-protected"},
		{"malformed XML", doctest.Rezip(good, map[string][]byte{"word/document.xml": []byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>cut`)}), "malformed"},
		{"zip bomb", bomb, "zip bomb"},
	} {
		_, err := Extract(c.file)
		if err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: %v, want an error mentioning %q", c.name, err, c.mention)
		}
		if c.name == "zip bomb" && !errors.Is(err, zipread.ErrTooLarge) {
			t.Errorf("zip bomb: %v does not wrap ErrTooLarge", err)
		}
	}
	// A package without word/document.xml is not a Word document.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("xl/workbook.xml")
	w.Write([]byte("<workbook/>"))
	zw.Close()
	if _, err := Extract(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "not a Word document") {
		t.Errorf("a spreadsheet: %v", err)
	}
	// Broken styles cost headings, not the document.
	res, err := Extract(doctest.Rezip(good, map[string][]byte{"word/styles.xml": []byte("<w:styles><w:style")}))
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Text, "1874") {
		t.Errorf("broken styles: %v %v", err, res)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add(doctest.TinyZip([2]string{"word/document.xml", smallBody}))
	doctest.Fuzz(f, Extract)
}

// smallBody is a document.xml with one of each thing the body parser
// reads — a heading style, a list item, a footnote reference, a tab, an
// entity, a break, a table — and nothing more: a fuzzer minimizes every
// input that finds something new byte by byte, which for a seed of
// kilobytes (survey's) took the whole run.
const smallBody = `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Title</w:t></w:r></w:p>` +
	`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t xml:space="preserve">Item </w:t></w:r>` +
	`<w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:tab/><w:t>&amp;</w:t><w:br/></w:r></w:p>` +
	`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`

// FuzzDocumentXML fuzzes the body parser with a document.xml inside a
// valid package, where a fuzzer mutating the zip would rarely reach.
func FuzzDocumentXML(f *testing.F) {
	f.Add([]byte(smallBody))
	doctest.Fuzz(f, func(doc []byte) (*textbuild.Result, error) {
		x := &extractor{notes: map[string]*noteList{}}
		err := x.body(doc)
		return x.b.Result(), err
	})
}

func BenchmarkExtract1MB(b *testing.B) {
	file := doctest.LargeDOCX(1 << 20)
	for b.Loop() {
		if _, err := Extract(file); err != nil {
			b.Fatal(err)
		}
	}
}
