// Package htmltext extracts the readable text of a web page: its main
// content as paragraphs, its h1–h6 headings with their levels, its data
// tables as rows, its lists as lines and its links as plain text.
//
// Parsing is golang.org/x/net/html's, the HTML5 algorithm browsers use, so
// malformed markup reads as a browser would show it and entities are
// decoded. The charset comes from a byte order mark or a <meta> tag
// (UTF-8 otherwise) and is converted with golang.org/x/text.
//
// Around an article a saved page carries navigation, headers and footers,
// sidebars, forms, advertisements and link lists. Unless told to keep the
// whole page, Extract drops them: by element (nav, aside, form, a header
// or footer outside the content), by ARIA role, by class or id names that
// say what they are (sidebar, cookie, advert…), and by link density (a
// block that is mostly links). The main content is the page's <main>, else
// the <article> that holds most of its text, else the body.
package htmltext

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/textbuild"
)

// Options tune the extraction.
type Options struct {
	// Whole keeps everything in the body (an e-book chapter, whose every
	// part is content): only scripts, styles, hidden and interactive
	// elements are dropped.
	Whole bool
	// HeadingShift is added to every heading level (an e-book chapter
	// whose title the caller writes as level 1 shifts its own headings
	// down); levels stay at least 1.
	HeadingShift int
}

// MaxBytes bounds the HTML a page may have: 256 MB.
const MaxBytes = 256 << 20

// Page is a parsed web page.
type Page struct {
	root  *html.Node // the <html> document node
	Title string     // the <title>, one line; "" if none
}

// Extract reads a web page into its stored text.
func Extract(content []byte, opt Options) (*textbuild.Result, error) {
	p, err := Parse(content)
	if err != nil {
		return nil, err
	}
	var b textbuild.Builder
	p.Write(&b, opt)
	res := b.Result()
	res.Title = p.Title
	if res.Title == "" {
		if _, t := p.FirstHeading(); t != "" {
			res.Title = t
		}
	}
	return res, nil
}

// Parse decodes content to UTF-8 (from the charset its byte order mark or
// <meta> declares) and parses it.
func Parse(content []byte) (*Page, error) {
	if len(content) > MaxBytes {
		return nil, fmt.Errorf("the page is %d MB, over the %d MB a web page may have", len(content)>>20, MaxBytes>>20)
	}
	if bytes.IndexByte(content, 0) >= 0 && !utf16BOM(content) {
		return nil, fmt.Errorf("it holds NUL bytes: not a web page")
	}
	if enc, name, _ := charset.DetermineEncoding(content, ""); name != "utf-8" {
		dec, err := enc.NewDecoder().Bytes(content)
		if err != nil {
			return nil, fmt.Errorf("cannot decode its %s text: %v", name, err)
		}
		content = dec
	}
	content = bytes.TrimPrefix(content, []byte("\uFEFF"))
	if err := CheckNesting(content); err != nil {
		return nil, err // before html.Parse, which takes minutes on it
	}
	root, err := html.Parse(bytes.NewReader(content))
	if err != nil {
		if strings.Contains(err.Error(), "open stack of elements exceeds") {
			// golang.org/x/net/html (newer releases) refuses a page whose
			// open elements nest past its own limit, before depth sees it.
			return nil, fmt.Errorf("its elements nest deeper than the HTML parser allows, which no real page does")
		}
		return nil, fmt.Errorf("cannot parse the HTML: %v", err)
	}
	if depth(root) > maxDepth {
		return nil, fmt.Errorf("its elements nest more than %d deep, which no real page does", maxDepth)
	}
	p := &Page{root: root}
	if t := find(root, atom.Title); t != nil {
		p.Title = textbuild.Clean(textOf(t))
	}
	return p, nil
}

func utf16BOM(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff})
}

// FirstHeading returns the level and text of the page's first h1–h6 in
// its body, or 0 and "" if it has none.
func (p *Page) FirstHeading() (level int, text string) {
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			if skipAlways(n) {
				return false
			}
			if l := headingLevel(n.DataAtom); l > 0 {
				if t := textbuild.Clean(textOf(n)); t != "" {
					level, text = l, t
					return true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	if body := find(p.root, atom.Body); body != nil {
		walk(body)
	}
	return level, text
}

// Write writes the page's content into b. It changes the page (dropped
// parts are removed), so a page is written once.
func (p *Page) Write(b *textbuild.Builder, opt Options) {
	body := find(p.root, atom.Body)
	if body == nil {
		return
	}
	removeIf(body, func(n *html.Node) bool { return skipAlways(n) || (!opt.Whole && boilerplate(n)) })
	root := body
	if !opt.Whole {
		st := measure(body)
		root = mainContent(body, st)
		pruneLinkLists(root, st)
	}
	w := &writer{b: b, opt: opt}
	w.children(root)
	w.flush()
}

// writer walks the content and writes it as blocks.
type writer struct {
	b      *textbuild.Builder
	opt    Options
	para   strings.Builder // inline text of the block being gathered
	lines  bool            // the block had a <br>: its parts are lines
	marker string          // list marker for the next line written
	lists  int             // depth of lists being written
}

// flush writes the inline text gathered so far as a paragraph, or as a
// line when it belongs to a list item or was broken by <br>.
func (w *writer) flush() {
	text := w.para.String()
	w.para.Reset()
	if textbuild.Clean(text) == "" {
		return
	}
	switch {
	case w.marker != "":
		w.b.Line(w.marker + " " + text)
		w.marker = ""
	case w.lines:
		w.b.Line(text)
	default:
		w.b.Paragraph(text)
	}
}

// endBlock ends a block-level element: its text is written and a group
// of lines it started ends.
func (w *writer) endBlock() {
	w.flush()
	if w.lines {
		w.lines = false
		w.b.EndGroup()
	}
}

func (w *writer) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *writer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.para.WriteString(n.Data)
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	a := n.DataAtom
	if l := headingLevel(a); l > 0 {
		w.endBlock()
		w.b.Heading(max(1, l+w.opt.HeadingShift), structure.SourceMarkup, textOf(n))
		return
	}
	switch a {
	case atom.Br:
		w.lines = true
		w.flush()
	case atom.Pre:
		w.endBlock()
		w.b.Preformatted(textOf(n))
	case atom.Ul, atom.Ol, atom.Menu:
		w.endBlock()
		w.lists++
		w.list(n)
		if w.lists--; w.lists == 0 { // a nested list's items go on with its parent's
			w.b.EndGroup()
		}
	case atom.Table:
		w.endBlock()
		w.table(n)
	case atom.Img:
		// Pictures carry no text of their own; alt text is mostly
		// decoration ("logo") and would be cited as if it were prose.
	default:
		if isBlock(a) {
			w.endBlock()
			w.children(n)
			w.endBlock()
			return
		}
		w.children(n)
	}
}

// list writes the items of a ul or ol as lines with their markers.
func (w *writer) list(n *html.Node) {
	num, step := 1, 1
	if n.DataAtom == atom.Ol {
		if v, err := strconv.Atoi(attr(n, "start")); err == nil {
			num = v
		}
		if _, ok := hasAttr(n, "reversed"); ok {
			step = -1
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li {
			w.node(c)
			continue
		}
		w.flush()
		w.marker = "•"
		if n.DataAtom == atom.Ol {
			if v, err := strconv.Atoi(attr(c, "value")); err == nil {
				num = v
			}
			w.marker = strconv.Itoa(num) + "."
			num += step
		}
		w.children(c)
		w.flush()
		w.marker = ""
	}
}

// table writes a data table as rows, or a layout table's cells as blocks.
func (w *writer) table(n *html.Node) {
	var rows []*html.Node
	var caption *html.Node
	var collect func(*html.Node, bool)
	inHead := map[*html.Node]bool{}
	collect = func(p *html.Node, head bool) {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Caption:
				if caption == nil {
					caption = c
				}
			case atom.Thead:
				collect(c, true)
			case atom.Tbody, atom.Tfoot:
				collect(c, false)
			case atom.Tr:
				rows = append(rows, c)
				inHead[c] = head
			}
		}
	}
	collect(n, false)
	if layoutTable(n, rows) {
		if caption != nil {
			w.b.Paragraph(textOf(caption))
		}
		for _, r := range rows {
			for c := r.FirstChild; c != nil; c = c.NextSibling {
				w.children(c)
				w.endBlock()
			}
		}
		return
	}
	capText := ""
	if caption != nil {
		capText = textOf(caption)
	}
	w.b.BeginTable(capText)
	for _, r := range rows {
		var cells []string
		allTH := true
		for c := r.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
				continue
			}
			if c.DataAtom != atom.Th {
				allTH = false
			}
			cells = append(cells, textOf(c))
			// A cell spanning columns leaves the ones it covers empty,
			// so the cells after it stay under their headers.
			span, _ := strconv.Atoi(attr(c, "colspan"))
			for i := 1; i < min(span, 64); i++ {
				cells = append(cells, "")
			}
		}
		w.b.Row(cells, len(cells) > 0 && (inHead[r] || allTH))
	}
	w.b.EndTable()
}

// layoutTable reports whether a table lays out a page rather than holding
// data: marked so, or with cells holding blocks, long text or tables.
func layoutTable(n *html.Node, rows []*html.Node) bool {
	if r := attr(n, "role"); r == "presentation" || r == "none" {
		return true
	}
	if len(rows) == 0 {
		return false
	}
	for _, r := range rows {
		for c := r.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if len(textOf(c)) > 400 {
				return true
			}
			for d := range c.Descendants() {
				if d.Type == html.ElementNode {
					switch d.DataAtom {
					case atom.Table, atom.Ul, atom.Ol, atom.Pre, atom.Blockquote, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
						return true
					}
				}
			}
		}
	}
	return false
}

// textOf is the text of n and its descendants, with a space where blocks
// and line breaks meet, on one line.
func textOf(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
			return
		case html.ElementNode:
			if skipAlways(n) && n.DataAtom != atom.Title {
				return
			}
			if n.DataAtom == atom.Br || isBlock(n.DataAtom) || n.DataAtom == atom.Td || n.DataAtom == atom.Th || n.DataAtom == atom.Li {
				sb.WriteByte(' ')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && (isBlock(n.DataAtom) || n.DataAtom == atom.Td || n.DataAtom == atom.Th || n.DataAtom == atom.Li) {
			sb.WriteByte(' ')
		}
	}
	walk(n)
	if n.DataAtom == atom.Pre {
		return strings.TrimSpace(sb.String())
	}
	return textbuild.Clean(sb.String())
}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// isBlock reports whether elements a start a new block of text.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer,
		atom.Blockquote, atom.Figure, atom.Figcaption, atom.Address, atom.Center, atom.Details,
		atom.Summary, atom.Dl, atom.Dt, atom.Dd, atom.Hgroup, atom.Hr, atom.Li, atom.Ul, atom.Ol,
		atom.Table, atom.Tr, atom.Pre, atom.Body, atom.Html, atom.Caption, atom.Fieldset, atom.Legend,
		atom.Nav, atom.Aside, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	v, _ := hasAttr(n, key)
	return v
}

func hasAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
