// Package docx extracts the text of a Word document (.docx, Office Open
// XML): its paragraphs in order, headings with their levels (from the
// paragraph's outline level or its "Heading N" style), list items with
// their markers (from numbering.xml), tables as rows, text boxes, and its
// footnotes and endnotes, appended under a "Footnotes" and an "Endnotes"
// heading. Deleted tracked changes, field codes, headers and footers and
// comments are left out.
//
// It reads the package with archive/zip (through zipread's limits, so a
// zip bomb is refused), the small parts with encoding/xml, and the body
// and notes with a scanner of its own, three times faster (xmlscan.go). A Word document
// has no fixed pages — they depend on how Word lays it out — so the text
// is one page.
package docx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/textbuild"
	"github.com/citelens/citelens/ingest/zipread"
)

// cfbMagic starts an OLE compound file: an encrypted (password-protected)
// Office document, or a Word 97–2003 .doc renamed.
var cfbMagic = []byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}

// Relationship types of the parts read, by their last path element.
const (
	relOfficeDocument = "officeDocument"
	relStyles         = "styles"
	relNumbering      = "numbering"
	relFootnotes      = "footnotes"
	relEndnotes       = "endnotes"
)

// Extract reads a .docx file's text.
func Extract(content []byte) (*textbuild.Result, error) {
	if bytes.HasPrefix(content, cfbMagic) {
		return nil, errors.New("it is a password-protected Word document or an old Word 97–2003 file renamed .docx; save it from Word as an unprotected .docx")
	}
	a, err := zipread.Open(content, "DOCX")
	if err != nil {
		return nil, err
	}
	main := "word/document.xml"
	if rels, err := readRels(a, "_rels/.rels", ""); err == nil && rels[relOfficeDocument] != "" {
		main = rels[relOfficeDocument]
	}
	if !a.Has(main) {
		return nil, fmt.Errorf("not a Word document: the package has no %s", main)
	}
	dir := path.Dir(main)
	rels, _ := readRels(a, path.Join(dir, "_rels", path.Base(main)+".rels"), dir)
	part := func(rel, def string) string {
		if p := rels[rel]; p != "" {
			return p
		}
		return path.Join(dir, def)
	}

	x := &extractor{notes: map[string]*noteList{}}
	var warn []string
	if data, err := readOptional(a, part(relStyles, "styles.xml")); err != nil {
		return nil, err
	} else if data != nil {
		if x.styles, err = parseStyles(data); err != nil {
			warn = append(warn, fmt.Sprintf("the styles are unreadable (%v); headings may be missed", err))
		}
	}
	if data, err := readOptional(a, part(relNumbering, "numbering.xml")); err != nil {
		return nil, err
	} else if data != nil {
		if x.numbering, err = parseNumbering(data); err != nil {
			warn = append(warn, fmt.Sprintf("the list numbering is unreadable (%v); list items show bullets", err))
		}
	}
	data, err := a.Read(main)
	if err != nil {
		return nil, err
	}
	if err := x.body(data); err != nil {
		return nil, fmt.Errorf("its %s is malformed (%v)", main, err)
	}
	for _, n := range []struct{ rel, def, heading, kind string }{
		{relFootnotes, "footnotes.xml", "Footnotes", "footnote"},
		{relEndnotes, "endnotes.xml", "Endnotes", "endnote"},
	} {
		data, err := readOptional(a, part(n.rel, n.def))
		if err != nil {
			return nil, err
		}
		if data == nil {
			continue
		}
		if err := x.notesPart(data, n.kind, n.heading); err != nil {
			warn = append(warn, fmt.Sprintf("the %ss are unreadable (%v)", n.kind, err))
		}
	}
	res := x.b.Result()
	res.Title = x.title
	// The Title paragraph is what the reader sees; the core property is
	// often a template's leftover ("Document1"), so it comes second.
	if core, err := readOptional(a, "docProps/core.xml"); err == nil && core != nil && res.Title == "" {
		res.Title = coreTitle(core)
	}
	res.Warnings = warn
	return res, nil
}

// readOptional reads a part that may be absent (nil, nil).
func readOptional(a *zipread.Archive, name string) ([]byte, error) {
	if !a.Has(name) {
		return nil, nil
	}
	return a.Read(name)
}

// readRels reads a relationships part into target paths by relationship
// type (its last path element), resolved against dir.
func readRels(a *zipread.Archive, name, dir string) (map[string]string, error) {
	data, err := readOptional(a, name)
	if err != nil || data == nil {
		return nil, err
	}
	var doc struct {
		Rels []struct {
			Type     string `xml:"Type,attr"`
			Target   string `xml:"Target,attr"`
			External string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range doc.Rels {
		if r.External == "External" || r.Target == "" {
			continue
		}
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join(dir, t)
		}
		kind := path.Base(r.Type)
		if _, dup := out[kind]; !dup {
			out[kind] = t
		}
	}
	return out, nil
}

// coreTitle returns dc:title from docProps/core.xml.
func coreTitle(data []byte) string {
	var doc struct {
		Title string `xml:"title"`
	}
	if xml.Unmarshal(data, &doc) != nil {
		return ""
	}
	return textbuild.Clean(doc.Title)
}

// extractor writes a document's body and notes.
type extractor struct {
	b         textbuild.Builder
	styles    styles
	numbering *numbering
	title     string
	// caption is a Caption-styled paragraph held back in case a table
	// follows, whose caption it then is.
	caption string
	// notes numbers footnotes and endnotes in the order they are
	// referenced, as Word shows them.
	notes map[string]*noteList
}

// noteList numbers the notes of one kind by first reference.
type noteList struct {
	order []string       // note ids in reference order
	num   map[string]int // id -> number shown
}

func (x *extractor) noteNumber(kind, id string) int {
	l := x.notes[kind]
	if l == nil {
		l = &noteList{num: map[string]int{}}
		x.notes[kind] = l
	}
	if n, ok := l.num[id]; ok {
		return n
	}
	l.order = append(l.order, id)
	l.num[id] = len(l.order)
	return len(l.order)
}

// noteMark is how a note reference reads in the text: [1] for footnotes,
// [i] for endnotes, as Word numbers them by default.
func noteMark(kind string, n int) string {
	if kind == "endnote" {
		return "[" + strings.ToLower(roman(n)) + "]"
	}
	return fmt.Sprintf("[%d]", n)
}

// body writes document.xml's paragraphs and tables.
func (x *extractor) body(data []byte) error {
	return walk(data, x, func(p *paragraph) { x.paragraph(p) }, func(t *table) { x.table(t) }, nil)
}

// paragraph writes one body paragraph as a heading, list item, caption or
// prose.
func (x *extractor) paragraph(p *paragraph) {
	text := textbuild.Clean(p.text.String())
	if text == "" {
		return
	}
	level := 0
	switch {
	case p.outline >= 0 && p.outline < 9:
		level = p.outline + 1
	case p.outline < 0:
		level = x.styles.headingLevel(p.style)
	}
	x.flushCaption()
	switch {
	case x.styles.isNamed(p.style, "Title"):
		if x.title == "" {
			x.title = text
		}
		x.b.Paragraph(text)
	case level > 0:
		x.b.Heading(level, structure.SourceMarkup, text)
	case x.styles.isNamed(p.style, "Caption"):
		x.caption = text
	default:
		ref := p.num
		if !p.hasNum {
			ref = x.styles.list(p.style)
		}
		if m := x.marker(ref); m != "" {
			x.b.Line(m + " " + text)
		} else {
			x.b.Paragraph(text)
		}
	}
}

// marker is the list marker of a paragraph at ref, "" if not in a list.
func (x *extractor) marker(ref numRef) string {
	if ref.id == "" {
		return ""
	}
	return x.numbering.marker(ref)
}

// flushCaption writes a held-back caption as the paragraph it is.
func (x *extractor) flushCaption() {
	if x.caption != "" {
		x.b.Paragraph(x.caption)
		x.caption = ""
	}
}

// table writes a table as rows under its header, or the text of a
// one-cell table (a frame around text) as paragraphs.
func (x *extractor) table(t *table) {
	cols := 0
	for _, r := range t.rows {
		cols = max(cols, len(r.cells))
	}
	if len(t.rows) == 0 || cols == 0 {
		return
	}
	if len(t.rows) == 1 && cols == 1 {
		x.flushCaption()
		for _, p := range t.rows[0].cells[0].paras {
			x.b.Paragraph(p)
		}
		return
	}
	x.b.BeginTable(x.caption)
	x.caption = ""
	marked := t.rows[0].header
	for i, r := range t.rows {
		cells := make([]string, 0, len(r.cells))
		for _, c := range r.cells {
			cells = append(cells, strings.Join(c.paras, " "))
			for k := 1; k < min(c.span, 64); k++ {
				cells = append(cells, "")
			}
		}
		// Word marks header rows only when they repeat on each page;
		// otherwise the first row of a table is taken as its header.
		x.b.Row(cells, r.header || (!marked && i == 0 && len(t.rows) > 1))
	}
	x.b.EndTable()
}

// notesPart appends a footnotes or endnotes part under its heading, the
// notes in the order the text references them (unreferenced ones after).
func (x *extractor) notesPart(data []byte, kind, heading string) error {
	texts := map[string]string{}
	var ids []string
	err := walk(data, x, nil, nil, func(id string, paras []string) {
		if t := textbuild.Clean(strings.Join(paras, " ")); t != "" {
			texts[id] = t
			ids = append(ids, id)
		}
	})
	if err != nil || len(texts) == 0 {
		return err
	}
	x.flushCaption()
	x.b.Heading(1, structure.SourceMarkup, heading)
	for _, id := range ids { // unreferenced notes are numbered after the rest
		x.noteNumber(kind, id)
	}
	for _, id := range x.notes[kind].order {
		if t, ok := texts[id]; ok {
			x.b.Line(noteMark(kind, x.notes[kind].num[id]) + " " + t)
		}
	}
	x.b.EndGroup()
	return nil
}

// paragraph is a w:p being read.
type paragraph struct {
	text    strings.Builder
	style   string
	outline int // w:outlineLvl, -1 if unset
	num     numRef
	hasNum  bool
}

// cell is a w:tc being read: its paragraphs' text.
type cell struct {
	paras []string
	span  int // w:gridSpan
}

// row is a w:tr being read.
type row struct {
	cells  []*cell
	header bool
}

// table is a w:tbl being read.
type table struct{ rows []*row }

// Namespaces of the elements read: WordprocessingML (transitional and
// strict) and markup compatibility.
const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// walk reads a WordprocessingML part. Body paragraphs go to onPara and
// top-level tables to onTable; in a notes part each w:footnote or
// w:endnote goes to onNote with its paragraphs' text. Paragraphs inside
// table cells become the cells' text; tables inside cells are flattened
// into the enclosing cell.
func walk(data []byte, x *extractor, onPara func(*paragraph), onTable func(*table), onNote func(id string, paras []string)) error {
	// Word declares its prefixes once, on the root; they are resolved
	// here (ns) rather than on every element.
	d := &scanner{data: data}
	ns := map[string]string{}
	isW := func(prefix []byte) bool { u := ns[string(prefix)]; return u == nsW || u == nsWStrict }
	var (
		paras  []*paragraph
		tables []*table
		pPr    int  // depth inside w:pPr, whose children describe, not hold, text
		inText bool // inside w:t
		noteID string
		note   []string
	)
	cur := func() *paragraph {
		if len(paras) == 0 {
			return nil
		}
		return paras[len(paras)-1]
	}
	openCell := func() *cell {
		if len(tables) == 0 {
			return nil
		}
		t := tables[len(tables)-1]
		if len(t.rows) == 0 {
			return nil
		}
		r := t.rows[len(t.rows)-1]
		if len(r.cells) == 0 {
			return nil
		}
		return r.cells[len(r.cells)-1]
	}
	for {
		t, err := d.next()
		if err == errEOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t.kind {
		case tokStart:
			t.namespaces(func(prefix, uri string) { ns[prefix] = uri })
			if ns[string(t.prefix)] == nsMC && string(t.local) == "Fallback" {
				// The fallback repeats the choice's content (a text box
				// as VML): read it once.
				if err := d.skip(); err != nil {
					return err
				}
				continue
			}
			if !isW(t.prefix) {
				continue
			}
			p := cur()
			switch string(t.local) {
			case "p":
				paras = append(paras, &paragraph{outline: -1})
			case "pPr":
				pPr++
			case "pStyle":
				if p != nil && pPr > 0 {
					p.style = t.attr("val")
				}
			case "outlineLvl":
				if p != nil && pPr > 0 {
					p.outline = atoi(t.attr("val"), -1)
				}
			case "ilvl":
				if p != nil && pPr > 0 {
					p.num.level, p.hasNum = atoi(t.attr("val"), 0), true
				}
			case "numId":
				if p != nil && pPr > 0 {
					p.num.id, p.hasNum = t.attr("val"), true
				}
			case "t":
				inText = pPr == 0
			case "tab", "br", "cr":
				if p != nil && pPr == 0 {
					p.text.WriteByte(' ')
				}
			case "noBreakHyphen":
				if p != nil && pPr == 0 {
					p.text.WriteByte('-')
				}
			case "footnoteReference", "endnoteReference":
				kind := strings.TrimSuffix(string(t.local), "Reference")
				if p != nil {
					p.text.WriteString(noteMark(kind, x.noteNumber(kind, t.attr("id"))))
				}
			case "del", "moveFrom", "instrText", "delText", "delInstrText":
				if err := d.skip(); err != nil {
					return err
				}
			case "tbl":
				tables = append(tables, &table{})
			case "tr":
				if len(tables) > 0 {
					tb := tables[len(tables)-1]
					tb.rows = append(tb.rows, &row{})
				}
			case "tblHeader":
				if len(tables) > 0 && len(tables[len(tables)-1].rows) > 0 {
					v := t.attr("val")
					tb := tables[len(tables)-1]
					tb.rows[len(tb.rows)-1].header = v == "" || v == "1" || v == "true" || v == "on"
				}
			case "tc":
				if len(tables) > 0 && len(tables[len(tables)-1].rows) > 0 {
					tb := tables[len(tables)-1]
					r := tb.rows[len(tb.rows)-1]
					r.cells = append(r.cells, &cell{span: 1})
				}
			case "gridSpan":
				if c := openCell(); c != nil {
					c.span = atoi(t.attr("val"), 1)
				}
			case "footnote", "endnote":
				if onNote != nil {
					if typ := t.attr("type"); typ != "" && typ != "normal" {
						if err := d.skip(); err != nil { // separators
							return err
						}
						continue
					}
					noteID, note = t.attr("id"), nil
				}
			}
		case tokEnd:
			if !isW(t.prefix) {
				continue
			}
			switch string(t.local) {
			case "t":
				inText = false
			case "pPr":
				pPr = max(0, pPr-1)
			case "p":
				p := cur()
				if p == nil {
					continue
				}
				paras = paras[:len(paras)-1]
				switch c := openCell(); {
				case c != nil && len(paras) == 0:
					c.paras = append(c.paras, textbuild.Clean(p.text.String()))
				case c != nil:
					// a text box in a paragraph in a cell
					cur().text.WriteString(" " + p.text.String())
				case onNote != nil && noteID != "":
					note = append(note, p.text.String())
				case onPara != nil:
					onPara(p)
				}
			case "tbl":
				if len(tables) == 0 {
					continue
				}
				tb := tables[len(tables)-1]
				tables = tables[:len(tables)-1]
				if c := openCell(); c != nil {
					c.paras = append(c.paras, flatten(tb))
				} else if onNote != nil && noteID != "" {
					note = append(note, flatten(tb))
				} else if onTable != nil {
					onTable(tb)
				}
			case "footnote", "endnote":
				if onNote != nil && noteID != "" {
					onNote(noteID, note)
					noteID, note = "", nil
				}
			}
		case tokText:
			if inText {
				if p := cur(); p != nil {
					p.text.Write(t.text)
				}
			}
		}
	}
}

// flatten writes a table inside a cell as one line: rows separated by
// "; ", cells by spaces.
func flatten(t *table) string {
	var rows []string
	for _, r := range t.rows {
		var cells []string
		for _, c := range r.cells {
			if s := strings.Join(c.paras, " "); s != "" {
				cells = append(cells, s)
			}
		}
		if len(cells) > 0 {
			rows = append(rows, strings.Join(cells, " "))
		}
	}
	return strings.Join(rows, "; ")
}
