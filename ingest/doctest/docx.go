// Package doctest builds small documents of the formats citelens reads —
// Word files, e-books, text and scanned PDFs — for tests and benchmarks,
// so fixtures are made in the test from readable Go instead of stored as
// opaque binaries.
//
// The documents are real: a DOCX has the parts Word writes (styles with
// outline levels, list numbering, footnotes, a tracked deletion), an EPUB
// has a container, a package document, a spine and a navigation document,
// and a scanned PDF's pages are images rendered by poppler.
package doctest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"strings"
)

// DOCX builds a Word document paragraph by paragraph.
type DOCX struct {
	title     string
	body      strings.Builder
	footnotes []string
}

// NewDOCX starts a document whose core properties carry title.
func NewDOCX(title string) *DOCX { return &DOCX{title: title} }

// Title writes a paragraph in the Title style.
func (d *DOCX) Title(text string) { d.para("Title", "", text) }

// Heading writes a heading paragraph in the "Heading N" style (levels 1
// to 3 take their level from the style's outline level, deeper ones from
// its name).
func (d *DOCX) Heading(level int, text string) {
	d.para(fmt.Sprintf("Heading%d", level), "", text)
}

// Para writes a body paragraph. Runs split at "|" become separate w:r
// elements, as Word writes text whose formatting changes.
func (d *DOCX) Para(text string) { d.para("", "", text) }

// Bullet writes an item of the bulleted list.
func (d *DOCX) Bullet(text string) {
	d.para("ListParagraph", `<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`, text)
}

// Numbered writes an item of the numbered list at level (0 or 1).
func (d *DOCX) Numbered(level int, text string) {
	d.para("ListParagraph", fmt.Sprintf(`<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="2"/></w:numPr>`, level), text)
}

// Caption writes a paragraph in the Caption style.
func (d *DOCX) Caption(text string) { d.para("Caption", "", text) }

// WithFootnote writes a paragraph ending in a reference to a new footnote.
func (d *DOCX) WithFootnote(text, note string) {
	d.footnotes = append(d.footnotes, note)
	d.body.WriteString(`<w:p>` + runs(text) + fmt.Sprintf(`<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="%d"/></w:r></w:p>`, len(d.footnotes)))
}

// WithDeletion writes a paragraph with a tracked deletion between before
// and after: deleted text that must not be read.
func (d *DOCX) WithDeletion(before, deleted, after string) {
	d.body.WriteString(`<w:p>` + runs(before) +
		`<w:del w:id="90" w:author="Editor" w:date="2024-01-01T00:00:00Z"><w:r><w:delText xml:space="preserve">` + html.EscapeString(deleted) + `</w:delText></w:r></w:del>` +
		runs(after) + `</w:p>`)
}

// Table writes a table whose first row repeats as a header, with rows of
// cells.
func (d *DOCX) Table(header []string, rows ...[]string) {
	d.body.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr>`)
	row := func(cells []string, head bool) {
		d.body.WriteString(`<w:tr>`)
		if head {
			d.body.WriteString(`<w:trPr><w:tblHeader/></w:trPr>`)
		}
		for _, c := range cells {
			d.body.WriteString(`<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>` + runs(c) + `</w:p></w:tc>`)
		}
		d.body.WriteString(`</w:tr>`)
	}
	row(header, true)
	for _, r := range rows {
		row(r, false)
	}
	d.body.WriteString(`</w:tbl>`)
}

func (d *DOCX) para(style, numPr, text string) {
	d.body.WriteString(`<w:p>`)
	if style != "" || numPr != "" {
		d.body.WriteString(`<w:pPr>`)
		if style != "" {
			d.body.WriteString(`<w:pStyle w:val="` + style + `"/>`)
		}
		d.body.WriteString(numPr + `</w:pPr>`)
	}
	d.body.WriteString(runs(text) + `</w:p>`)
}

// runs writes text as runs, one per "|"-separated part, tabs as w:tab.
func runs(text string) string {
	var sb strings.Builder
	for _, part := range strings.Split(text, "|") {
		sb.WriteString(`<w:r>`)
		for i, seg := range strings.Split(part, "\t") {
			if i > 0 {
				sb.WriteString(`<w:tab/>`)
			}
			sb.WriteString(`<w:t xml:space="preserve">` + html.EscapeString(seg) + `</w:t>`)
		}
		sb.WriteString(`</w:r>`)
	}
	return sb.String()
}

// DocumentXML returns the document's word/document.xml.
func (d *DOCX) DocumentXML() []byte {
	return []byte(xmlHead + `<w:document ` + wNS + `><w:body>` + d.body.String() +
		`<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`)
}

// Bytes returns the .docx file.
func (d *DOCX) Bytes() []byte {
	var notes strings.Builder
	notes.WriteString(xmlHead + `<w:footnotes ` + wNS + `>` +
		`<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>` +
		`<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>`)
	for i, n := range d.footnotes {
		fmt.Fprintf(&notes, `<w:footnote w:id="%d"><w:p><w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr><w:r><w:footnoteRef/></w:r>%s</w:p></w:footnote>`, i+1, runs(" "+n))
	}
	notes.WriteString(`</w:footnotes>`)
	return zipFiles([][2]string{
		{"[Content_Types].xml", xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
			`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
			`<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>` +
			`<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/>` +
			`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
			`</Types>`},
		{"_rels/.rels", xmlHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
			`</Relationships>`},
		{"word/_rels/document.xml.rels", xmlHead + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>` +
			`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>` +
			`</Relationships>`},
		{"docProps/core.xml", xmlHead + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
			`<dc:title>` + html.EscapeString(d.title) + `</dc:title></cp:coreProperties>`},
		{"word/styles.xml", docxStyles},
		{"word/numbering.xml", docxNumbering},
		{"word/footnotes.xml", notes.String()},
		{"word/document.xml", string(d.DocumentXML())},
	})
}

const (
	xmlHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	wNS     = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
)

// docxStyles defines the styles Word's default template has for what
// DOCX writes: headings 1–3 with outline levels, deeper ones by name only.
var docxStyles = xmlHead + `<w:styles ` + wNS + `>` +
	`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Heading3"><w:name w:val="heading 3"/><w:basedOn w:val="Heading2"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Heading4"><w:name w:val="heading 4"/><w:basedOn w:val="Normal"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Caption"><w:name w:val="caption"/><w:basedOn w:val="Normal"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="FootnoteText"><w:name w:val="footnote text"/></w:style>` +
	`<w:style w:type="character" w:styleId="FootnoteReference"><w:name w:val="footnote reference"/></w:style>` +
	`</w:styles>`

// docxNumbering defines list 1 (bullets) and list 2 (1., then a) under it).
var docxNumbering = xmlHead + `<w:numbering ` + wNS + `>` +
	`<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val=""/></w:lvl></w:abstractNum>` +
	`<w:abstractNum w:abstractNumId="1">` +
	`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>` +
	`<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl>` +
	`</w:abstractNum>` +
	`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>` +
	`<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>` +
	`</w:numbering>`

// zipFiles packs name/content pairs, in order, as a zip archive.
func zipFiles(files [][2]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		method := zip.Deflate
		if f[0] == "mimetype" {
			method = zip.Store // EPUB: first and uncompressed
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: method})
		if err != nil {
			panic(err) // writing to memory cannot fail
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
