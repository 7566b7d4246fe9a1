package htmltext

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// x/net/html builds its tree in time quadratic in how deeply elements
// nest (each start tag looks down the stack of open elements): up to
// v0.39, 100,000 nested <div>s, a 500 kB page, took a minute and a half,
// and nothing can interrupt html.Parse. Newer releases refuse a page
// with more than 512 open elements themselves: v0.59 (go.mod's) refuses
// those 100,000 <div>s in about 6 ms (BenchmarkDeepNesting; the model
// here, 1.4 ms). Before the tree is built, CheckNesting runs the page
// through the tokenizer alone, and follows the stack of open elements as
// the parser would build it, refusing the page as soon as that grows
// past maxDepth. That still matters beside Parse's own limit: the walks
// over the tree count on maxDepth, which the parser bounds only for its
// open stack, and only after v0.39 (built against an older x/net, a page
// would take minutes again).
//
// The model of the HTML5 tree builder here, written against x/net
// v0.59's parse.go (where <select>, <option> and <optgroup> are read by
// the body's rules: the "in select" insertion modes are gone), is
// simplified in one direction only: where it is unsure it keeps open
// elements the parser would close, never the reverse, so its stack is at
// least as deep as the parser's and a crafted page cannot slip under it.
// What real pages lean on is followed as the parser follows it, so that
// none is refused: an unclosed <p>, <li>, <dd>, <td>, <tr> or <option>,
// the next <a> closing an open one, formatting elements closed by a
// block's end and reopened (at most three alike), tables, selects, SVG
// and MathML. The tokenizer must read raw text (a script, a style)
// exactly where the parser's does, or the model would see tags the parser
// does not, or miss some; so foreign content, where the parser switches
// raw text off, is followed exactly, and so is a frameset, after which
// it ignores tags whose raw text the tokenizer still reads.

// CheckNesting returns an error when the elements of the page content
// (UTF-8) would nest more than maxDepth deep.
func CheckNesting(content []byte) error {
	_, err := modelDepth(content, maxDepth)
	return err
}

// modelDepth runs the model over content and returns the deepest its
// stack grew, stopping with an error once that passes limit.
func modelDepth(content []byte, limit int) (deepest int, err error) {
	z := html.NewTokenizer(bytes.NewReader(content))
	s := nesting{framesetOK: true}
	for {
		tt := z.Next()
		raw := s.rawNext // this token is a raw text element's content
		s.rawNext = false
		if !s.decided && tt != html.CommentToken && (tt != html.TextToken || !isWhitespace(z.Text())) {
			// The doctype, first or never, sets the quirks mode.
			s.decided, s.quirks = true, tt != html.DoctypeToken || quirks(z.Raw())
		}
		switch {
		case tt == html.ErrorToken:
			return deepest, nil // the end, or an error the parser stops at too
		case s.framesets > 0:
			s.inFrameset(z, tt)
		case tt == html.TextToken && !raw:
			s.text(z.Text())
		case tt == html.StartTagToken || tt == html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			e := elemOf(name)
			attrs := readAttrs(z, hasAttr)
			s.startTag(z, e, attrs, tt == html.SelfClosingTagToken)
		case tt == html.EndTagToken:
			name, _ := z.TagName()
			s.endTag(z, elemOf(name))
		}
		deepest = max(deepest, len(s.stack)+s.framesets)
		if deepest > limit {
			return deepest, fmt.Errorf("its elements nest more than %d deep, which no real page does", limit)
		}
	}
}

// text is a text token outside raw text.
func (s *nesting) text(t []byte) {
	content := !isWhitespace(t)
	switch {
	case s.inForeignContent(nil):
	default:
		if content && s.top().html(atom.Colgroup) {
			s.popTo(len(s.stack) - 1) // a column group holds no text
		}
		s.reconstruct()
		s.body = s.body || content
	}
	s.framesetOK = s.framesetOK && !content
}

func isWhitespace(t []byte) bool { return len(bytes.Trim(t, " \t\r\n\f\x00")) == 0 }

// quirks reports whether the parser reads a page with this doctype in
// quirks mode, where a table's start leaves a <p> open: it asks the
// parser, with a page that opens a table in a paragraph.
func quirks(doctype []byte) bool {
	root, err := html.Parse(io.MultiReader(bytes.NewReader(doctype), strings.NewReader("<p><table>")))
	if err != nil {
		return true
	}
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			return n.Parent != nil && n.Parent.DataAtom == atom.P
		}
	}
	return true
}

// A frameset replaces the body when it comes before any content (the
// parser's frameset-ok flag): from then on the parser reads nothing but
// framesets and frames. The model follows the flag, so that it knows
// when the parser reads a select or an svg, and so raw text, as it does.

// inFrameset is a token once a frameset has replaced the body: only
// framesets nest.
func (s *nesting) inFrameset(z *html.Tokenizer, tt html.TokenType) {
	name, _ := z.TagName()
	start := tt == html.StartTagToken || tt == html.SelfClosingTagToken // a slash closes no frameset
	switch e := elemOf(name); {
	case start && e.a == atom.Frameset && s.framesetOpen:
		s.framesets++
	case tt == html.EndTagToken && e.a == atom.Frameset && s.framesetOpen:
		if s.framesets--; s.framesets == 1 {
			s.framesetOpen = false // after the frameset: nothing opens any more
		}
	}
	s.rawNext = start && isRawText(elemOf(name).a)
}

// isRawText reports the elements whose content the tokenizer reads as
// text, unless told otherwise (NextIsNotRawText).
func isRawText(a atom.Atom) bool {
	switch a {
	case atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript, atom.Plaintext, atom.Script, atom.Style,
		atom.Textarea, atom.Title, atom.Xmp:
		return true
	}
	return false
}

// noteFrameset follows the parser's frameset-ok flag and whether the body
// has begun, for a start tag read as HTML.
func (s *nesting) noteFrameset(e elem, attrs []string) {
	switch e.a {
	case atom.Html, atom.Head, atom.Base, atom.Basefont, atom.Bgsound, atom.Link, atom.Meta, atom.Noframes,
		atom.Script, atom.Style, atom.Template, atom.Title, atom.Noscript, atom.Frameset:
	default:
		s.body = true
	}
	switch e.a {
	case atom.Body, atom.Pre, atom.Listing, atom.Li, atom.Dd, atom.Dt, atom.Button, atom.Applet, atom.Marquee,
		atom.Object, atom.Area, atom.Br, atom.Embed, atom.Img, atom.Keygen, atom.Wbr, atom.Hr, atom.Textarea,
		atom.Xmp, atom.Iframe, atom.Select, atom.Template, atom.Table:
		s.framesetOK = false
	case atom.Input:
		s.framesetOK = s.framesetOK && hiddenInput(attrs)
	}
}

// hiddenInput reports an input's attributes that make it hidden.
func hiddenInput(attrs []string) bool {
	return slices.ContainsFunc(attrs, func(a string) bool {
		k, v, _ := strings.Cut(a, "=")
		return k == "type" && strings.EqualFold(v, "hidden")
	})
}

// readAttrs returns a tag's attributes as sorted "key=value" strings.
func readAttrs(z *html.Tokenizer, more bool) []string {
	var attrs []string
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		attrs = append(attrs, string(k)+"="+string(v))
	}
	slices.Sort(attrs)
	return attrs
}

// elem is an open element of the model.
type elem struct {
	a    atom.Atom
	name string // when a is 0: unknown elements must not match each other
	ns   string // "svg" or "math" for a foreign element, else ""
	// integration is set for an SVG desc, foreignObject or title and a
	// MathML annotation-xml holding HTML, where HTML is parsed again.
	integration bool
	fmt         *formatting // its entry in the active formatting elements, if any
	// tmode is a template's insertion mode, decided by the first tag
	// read in it (decideTemplate).
	tmode tableMode
	// formPointer is set on the form the parser's form pointer names.
	formPointer bool
}

func elemOf(name []byte) elem {
	e := elem{a: atom.Lookup(name)}
	if e.a == 0 {
		e.name = string(name)
	}
	return e
}

func (e elem) is(o elem) bool { return e.a == o.a && e.name == o.name }

// html reports whether e is an HTML element with atom a.
func (e elem) html(a atom.Atom) bool { return e.ns == "" && e.a == a }

// mathText reports a MathML text integration point.
func (e elem) mathText() bool {
	switch e.a {
	case atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext:
		return e.ns == "math"
	}
	return false
}

// formatting is an entry of the list of active formatting elements: a
// marker (at a table cell, caption, applet, object, marquee or template)
// or a formatting element, with its tag and attributes (key) and whether
// it is on the stack now.
type formatting struct {
	marker  bool
	e       elem
	key     string
	onStack bool
}

// nesting is the model: the stack of open elements and the list of
// active formatting elements.
type nesting struct {
	stack []elem
	afe   []*formatting
	// framesetOK is the parser's frameset-ok flag; body is set once the
	// body has begun.
	framesetOK, body bool
	// framesets counts the open framesets once one replaced the body;
	// framesetOpen is cleared when the outermost closes.
	framesets    int
	framesetOpen bool
	// rawNext is set when the tokenizer reads the next token as raw text.
	rawNext bool
	// decided is set once the doctype has set quirks (or its absence).
	decided, quirks bool
	// form is the parser's form pointer: set from a form's start outside
	// a template until its end, when another form is ignored.
	form bool
	// open counts the open elements by tag, so that an end tag of an
	// element that is not open costs nothing: a page of a million of
	// them would otherwise cost a million searches of the stack.
	open map[elemKey]int
}

type elemKey struct {
	a    atom.Atom
	name string
}

func (e elem) key() elemKey { return elemKey{e.a, e.name} }

// has reports whether an element with e's tag is open.
func (s *nesting) has(e elem) bool { return s.open[e.key()] > 0 }

// top returns the current node, or the zero elem.
func (s *nesting) top() elem {
	if len(s.stack) == 0 {
		return elem{}
	}
	return s.stack[len(s.stack)-1]
}

func (s *nesting) push(e elem) {
	if e.ns == "" && isMarker(e.a) {
		s.afe = append(s.afe, &formatting{marker: true})
	}
	s.stack = append(s.stack, e)
	if s.open == nil {
		s.open = map[elemKey]int{}
	}
	s.open[e.key()]++
}

// popTo pops the elements above index i and the element at i; nothing
// when i is negative (not found).
func (s *nesting) popTo(i int) {
	for i >= 0 && len(s.stack) > i {
		e := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		s.open[e.key()]--
		if e.fmt != nil {
			e.fmt.onStack = false // closed by something else: reopened by reconstruct
		}
		if e.ns == "" && isMarker(e.a) {
			// Clear the formatting elements up to the last marker.
			for len(s.afe) > 0 {
				last := s.afe[len(s.afe)-1]
				s.afe = s.afe[:len(s.afe)-1]
				if last.marker {
					break
				}
			}
		}
	}
}

// findOpen is find for an element with atom a, answered without looking
// when none is open: on a page of 2,000 nested blocks each start tag
// would otherwise look down the whole stack for a <p> to close.
func (s *nesting) findOpen(a atom.Atom, match, stop func(elem) bool) int {
	if !s.has(elem{a: a}) {
		return -1
	}
	return s.find(match, stop)
}

// find returns the index of the topmost open element that match accepts,
// looking down from the top and giving up (-1) at one that stop accepts.
func (s *nesting) find(match, stop func(elem) bool) int {
	for i := len(s.stack) - 1; i >= 0; i-- {
		switch e := s.stack[i]; {
		case match(e):
			return i
		case stop(e):
			return -1
		}
	}
	return -1
}

// inForeignContent reports whether the parser reads a start tag (e) or
// text (e nil) as foreign content: the current node is SVG or MathML and
// not an integration point for it.
func (s *nesting) inForeignContent(e *elem) bool {
	t := s.top()
	switch {
	case t.ns == "":
		return false
	case t.mathText() && (e == nil || (e.a != atom.Mglyph && e.a != atom.Malignmark)):
		return false
	case t.ns == "math" && t.a == atom.AnnotationXml && e != nil && e.a == atom.Svg:
		return false
	case t.integration:
		return false
	}
	return true
}

func (s *nesting) startTag(z *html.Tokenizer, e elem, attrs []string, selfClosing bool) {
	if s.inForeignContent(&e) {
		if !breaksOut(e, attrs) {
			// A foreign element, in the namespace of the current node,
			// read without raw text; its slash closes it.
			e.ns = s.top().ns
			e.integration = integrationPoint(e, attrs)
			z.NextIsNotRawText()
			if !selfClosing {
				s.push(e)
			}
			return
		}
		// An HTML tag closes the foreign elements.
		s.popTo(s.find(func(o elem) bool { return o.ns == "" || o.integration || o.mathText() }, never) + 1)
	}
	s.start(e, attrs, selfClosing)
}

// start is a start tag read as HTML.
func (s *nesting) start(e elem, attrs []string, selfClosing bool) {
	if e.a == atom.Image {
		e.a = atom.Img // in HTML the parser reads <image> as <img>
	}
	s.decideTemplate(e)
	body := s.body
	s.noteFrameset(e, attrs)
	if isRawText(e.a) {
		s.rawNext = true
	}
	if s.top().html(atom.Colgroup) && e.a != atom.Col && e.a != atom.Template && e.a != atom.Colgroup {
		s.popTo(len(s.stack) - 1) // a column group holds only columns
	}
	switch {
	case e.a == atom.Frameset:
		if (!body || s.framesetOK) && !s.has(elem{a: atom.Template}) {
			// It replaces the body (or stands for it).
			s.popTo(0)
			s.framesets, s.framesetOpen = 2, true // the root and the frameset
		}
		return
	case isTablePart(e.a) || e.a == atom.Col || e.a == atom.Colgroup:
		if e.a == atom.Table && !s.quirks {
			s.closeP()
		}
		if !s.tableStart(e) {
			return
		}
	case e.a == atom.Hr:
		s.closeP()
		if s.selectInScope() >= 0 {
			s.closeImplied(0) // an option or optgroup, say
		}
		return
	case e.a == atom.Input:
		if m, _ := s.mode(); hiddenInput(attrs) && (m == tmTable || m == tmTableBody || m == tmRow) {
			return // a table's hidden input, put beside it as it is
		}
		s.popTo(s.selectInScope()) // an input closes a select
		s.reconstruct()
		return
	case e.a == atom.Area || e.a == atom.Br || e.a == atom.Embed || e.a == atom.Img || e.a == atom.Keygen ||
		e.a == atom.Wbr:
		s.reconstruct()
		return
	case isVoid(e.a):
		return // read as in a head, or ignored (a frame): nothing reopens
	case e.a == atom.Svg || e.a == atom.Math:
		s.reconstruct()
		if selfClosing {
			return
		}
		e.ns = e.a.String()
	case e.a == atom.Html || e.a == atom.Head:
		return // the root, merged into; a head, implied or ignored in a body
	case e.a == atom.Body:
		if body || s.has(e) {
			return // merged into the body there is
		}
	case e.a == atom.Form:
		if s.form && !s.has(elem{a: atom.Template}) {
			return // a form in a form is ignored
		}
		s.closeP()
		if !s.has(elem{a: atom.Template}) {
			s.form, e.formPointer = true, true
		}
	case e.a == atom.Xmp:
		s.closeP()
		s.reconstruct()
	case e.a == atom.Script || e.a == atom.Style || e.a == atom.Title || e.a == atom.Noframes ||
		e.a == atom.Template || e.a == atom.Textarea || e.a == atom.Iframe || e.a == atom.Noembed ||
		e.a == atom.Noscript:
		// read as in a head, or as raw text: nothing reopens
	case e.a == atom.Li:
		s.closeItem(atom.Li)
	case e.a == atom.Dd || e.a == atom.Dt:
		s.closeItem(atom.Dd, atom.Dt)
	case isHeading(e.a):
		s.closeP()
		if isHeading(s.top().a) {
			s.popTo(len(s.stack) - 1)
		}
	case closesP(e.a):
		s.closeP()
	case e.a == atom.Button:
		if i := s.findOpen(atom.Button, is(atom.Button), inDefaultScope); i >= 0 {
			s.popTo(i)
		}
		s.reconstruct()
	case e.a == atom.Select:
		if i := s.selectInScope(); i >= 0 {
			s.popTo(i) // a select in a select closes it, and is ignored
			return
		}
		s.reconstruct()
	case e.a == atom.Option || e.a == atom.Optgroup:
		switch {
		case s.selectInScope() >= 0 && e.a == atom.Option:
			s.closeImplied(atom.Optgroup) // an open option, not its group
		case s.selectInScope() >= 0:
			s.closeImplied(0)
		case s.top().a == atom.Option:
			s.popTo(len(s.stack) - 1)
		}
		s.reconstruct()
	case e.a == atom.Rb || e.a == atom.Rtc || e.a == atom.Rp || e.a == atom.Rt:
		if s.findOpen(atom.Ruby, is(atom.Ruby), inDefaultScope) >= 0 {
			if e.a == atom.Rp || e.a == atom.Rt {
				s.closeImplied(atom.Rtc)
			} else {
				s.closeImplied(0)
			}
		}
	case e.a == atom.A || e.a == atom.Nobr:
		// An open <a> (or <nobr>) is closed by the next one.
		s.adopt(e)
		s.reconstruct()
	default:
		s.reconstruct()
	}
	if isFormatting(e.a) {
		s.remember(&e, e.a.String()+"\x00"+strings.Join(attrs, "\x00"))
	}
	s.push(e)
}

// tableMode is the parser's insertion mode as far as tables go.
type tableMode int

const (
	tmTemplate tableMode = iota // a template whose first tag is still to come
	tmBody
	tmTable
	tmTableBody
	tmRow
	tmCell
	tmCaption
	tmColgroup
)

// mode returns the parser's insertion mode, as the nearest element that
// sets one says (the parser resets its mode the same way), and where
// that element is (-1: none, the body).
func (s *nesting) mode() (tableMode, int) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.ns != "" {
			continue
		}
		switch e.a {
		case atom.Td, atom.Th:
			return tmCell, i
		case atom.Tr:
			return tmRow, i
		case atom.Tbody, atom.Thead, atom.Tfoot:
			return tmTableBody, i
		case atom.Caption:
			return tmCaption, i
		case atom.Colgroup:
			return tmColgroup, i
		case atom.Table:
			return tmTable, i
		case atom.Template:
			return e.tmode, i
		case atom.Body, atom.Html, atom.Frameset, atom.Head:
			return tmBody, i
		}
	}
	return tmBody, -1
}

// inTableScope finds the nearest element match accepts below the
// nearest table, template or root.
func (s *nesting) inTableScope(match func(elem) bool) int {
	return s.find(match, in(atom.Html, atom.Table, atom.Template))
}

// tableStart follows the parser's table modes for the start tag of a
// table or one of its parts, reporting whether e is then to be opened
// (false: it was ignored, or opened here).
func (s *nesting) tableStart(e elem) bool {
	for range 8 { // a tag is read again at most a few times
		m, i := s.mode()
		switch {
		case m == tmTemplate:
			return true // decideTemplate has run: cannot happen
		case m == tmBody || (m == tmCaption || m == tmCell) && e.a == atom.Table:
			return e.a == atom.Table // in a body, parts of tables are ignored
		case m == tmCaption:
			j := s.inTableScope(is(atom.Caption))
			if j < 0 {
				return false
			}
			s.popTo(j)
		case m == tmCell:
			j := s.inTableScope(in(atom.Td, atom.Th))
			if j < 0 {
				return false
			}
			s.popTo(j) // the cell closes
		case m == tmColgroup:
			if e.a == atom.Col {
				return false // a column: void
			}
			if !s.top().html(atom.Colgroup) {
				return false
			}
			s.popTo(len(s.stack) - 1)
		case e.a == atom.Table:
			// In a table, another table's start closes it.
			j := s.inTableScope(is(atom.Table))
			if j < 0 {
				return false
			}
			s.popTo(j)
		case m == tmRow && (e.a == atom.Td || e.a == atom.Th):
			s.popTo(i + 1)
			return true
		case m == tmRow:
			j := s.inTableScope(is(atom.Tr))
			if j < 0 {
				return false
			}
			s.popTo(j) // the row closes
		case m == tmTableBody && e.a == atom.Tr:
			s.popTo(i + 1)
			return true
		case m == tmTableBody && (e.a == atom.Td || e.a == atom.Th):
			s.popTo(i + 1)
			s.push(elem{a: atom.Tr})
		case m == tmTableBody:
			j := s.inTableScope(in(atom.Tbody, atom.Thead, atom.Tfoot))
			if j < 0 {
				return false
			}
			s.popTo(j) // the body closes
		default: // in a table (or a template read as one)
			s.popTo(i + 1)
			switch e.a {
			case atom.Caption, atom.Colgroup, atom.Tbody, atom.Thead, atom.Tfoot:
				return true
			case atom.Col:
				s.push(elem{a: atom.Colgroup})
				return false
			default: // a row or cell: in a body of rows
				s.push(elem{a: atom.Tbody})
			}
		}
	}
	return false
}

// decideTemplate records, at the first tag read in a template, how the
// parser reads the template's content.
func (s *nesting) decideTemplate(e elem) {
	if !s.has(elem{a: atom.Template}) {
		return
	}
	m, i := s.mode()
	if m != tmTemplate || i < 0 {
		return
	}
	t := &s.stack[i]
	switch e.a {
	case atom.Base, atom.Basefont, atom.Bgsound, atom.Link, atom.Meta, atom.Noframes, atom.Script,
		atom.Style, atom.Template, atom.Title:
		// read as in a head: the next tag decides
	case atom.Caption, atom.Colgroup, atom.Tbody, atom.Tfoot, atom.Thead:
		t.tmode = tmTable
	case atom.Col:
		t.tmode = tmColgroup
	case atom.Tr:
		t.tmode = tmTableBody
	case atom.Td, atom.Th:
		t.tmode = tmRow
	default:
		t.tmode = tmBody
	}
}

// selectInScope returns the index of the select in default scope (which
// a select bounds too), or -1. Only an HTML select counts: one in SVG or
// MathML bounds the search, which keeps the model deep.
func (s *nesting) selectInScope() int {
	return s.findOpen(atom.Select, func(o elem) bool { return o.html(atom.Select) }, inDefaultScope)
}

// closeImplied closes the elements whose end tags the parser implies
// (impliedEnd) from the top down, stopping at one named except (0: none).
func (s *nesting) closeImplied(except atom.Atom) {
	for t := s.top().a; impliedEnd(t) && t != except; t = s.top().a {
		s.popTo(len(s.stack) - 1)
	}
}

// closeP closes a <p> in button scope, as a block's start tag does.
func (s *nesting) closeP() {
	if i := s.findOpen(atom.P, is(atom.P), inButtonScope); i >= 0 {
		s.popTo(i)
	}
}

// closeItem closes an open list item (or definition) when only inline
// elements or an address, div or p stand above it, then a <p>.
func (s *nesting) closeItem(items ...atom.Atom) {
	if !slices.ContainsFunc(items, func(a atom.Atom) bool { return s.has(elem{a: a}) }) {
		s.closeP()
		return // none open: no need to look down the stack
	}
	if i := s.find(in(items...), func(e elem) bool {
		return special(e) && e.a != atom.Address && e.a != atom.Div && e.a != atom.P
	}); i >= 0 {
		s.popTo(i)
	}
	s.closeP()
}

// reconstruct reopens the formatting elements that something else closed
// (a </p> around a <b>) after the last one still open, as the parser does
// before text and most start tags.
func (s *nesting) reconstruct() {
	i := len(s.afe)
	for i > 0 && !s.afe[i-1].marker && !s.afe[i-1].onStack {
		i--
	}
	for _, f := range s.afe[i:] {
		e := f.e
		e.fmt = f
		f.onStack = true
		s.push(e)
	}
}

// remember adds e to the active formatting elements, dropping the
// earliest of three alike after the last marker (the Noah's Ark clause).
func (s *nesting) remember(e *elem, key string) {
	alike, first := 0, -1
	for i := len(s.afe) - 1; i >= 0 && !s.afe[i].marker; i-- {
		if s.afe[i].key == key {
			alike, first = alike+1, i
		}
	}
	if alike >= 3 {
		s.afe = slices.Delete(s.afe, first, first+1)
	}
	f := &formatting{e: elem{a: e.a, name: e.name}, key: key, onStack: true}
	s.afe = append(s.afe, f)
	e.fmt = f
}

// adopt is the adoption agency's effect on the stack for the end of
// formatting element e, where it is sure: an open one with only
// non-special elements above it is closed with them; one closed already
// leaves the list. With a special element above it the parser moves
// elements about without deepening the stack, and the model changes
// nothing. It reports false when e is not an active formatting element.
func (s *nesting) adopt(e elem) bool {
	k := -1
	for i := len(s.afe) - 1; i >= 0 && !s.afe[i].marker; i-- {
		if s.afe[i].e.is(e) {
			k = i
			break
		}
	}
	if k < 0 {
		return false
	}
	f := s.afe[k]
	if !f.onStack {
		s.afe = slices.Delete(s.afe, k, k+1)
		return true
	}
	if i := s.find(func(o elem) bool { return o.fmt == f }, special); i >= 0 {
		s.popTo(i)
		s.afe = slices.DeleteFunc(s.afe, func(g *formatting) bool { return g == f })
	}
	return true
}

// endTag is an end tag: in foreign content it closes the nearest foreign
// element of its name, until an HTML element, whose rules then apply.
func (s *nesting) endTag(z *html.Tokenizer, e elem) {
	if s.top().ns != "" {
		i := len(s.stack) - 1
		for ; i >= 0 && s.stack[i].ns != ""; i-- {
			if s.stack[i].is(e) {
				s.popTo(i)
				return
			}
		}
		// An HTML element (the model's bottom stands for the body the
		// parser always has): its rules apply.
	}
	s.end(z, e)
}

// end is an end tag read as HTML.
func (s *nesting) end(z *html.Tokenizer, e elem) {
	if s.top().html(atom.Colgroup) && e.a != atom.Colgroup && e.a != atom.Col && e.a != atom.Template {
		s.popTo(len(s.stack) - 1) // it closes the column group, then is read again
	}
	switch e.a {
	case atom.Body, atom.Html:
		s.body = true
	case atom.Br:
		// Read as <br>, which ends foreign content like any start tag.
		s.startTag(z, e, nil, false)
		return
	case atom.P:
		if s.find(is(atom.P), inButtonScope) < 0 {
			// A lone </p> opens a <p> to close (ending foreign content).
			s.startTag(z, e, nil, false)
		}
	}
	if !s.has(e) && !isHeading(e.a) {
		if isFormatting(e.a) {
			s.adopt(e) // it may be active yet closed: it leaves the list
		}
		return // nothing of that name is open
	}
	var i int
	switch {
	case e.a == atom.Html || e.a == atom.Body:
		return // the parser keeps them open
	case isFormatting(e.a):
		if s.adopt(e) {
			return
		}
		i = s.find(e.is, special)
	case isTablePart(e.a):
		i = s.find(e.is, in(atom.Html, atom.Table, atom.Template))
		if e.a == atom.Table {
			i = s.find(e.is, in(atom.Html, atom.Template))
		}
	case e.a == atom.Template:
		i = s.find(e.is, never)
	case e.a == atom.Form && !s.has(elem{a: atom.Template}):
		// Outside a template </form> takes the form the pointer names
		// out of the stack, if it is in scope, and leaves what is open
		// inside it.
		open := s.form
		s.form = false
		if i := s.find(e.is, inDefaultScope); open && i >= 0 && s.stack[i].formPointer {
			f := s.stack[i]
			s.stack = slices.Delete(s.stack, i, i+1)
			s.open[f.key()]--
		}
		return
	case e.a == atom.P:
		i = s.find(e.is, inButtonScope)
	case e.a == atom.Li:
		i = s.find(e.is, func(o elem) bool { return inDefaultScope(o) || o.a == atom.Ol || o.a == atom.Ul })
	case isHeading(e.a):
		i = s.find(func(o elem) bool { return isHeading(o.a) }, inDefaultScope)
	case special(e) && !foreignName(e.a):
		// A special element's end closes it in scope; any other's
		// closes it unless a special element stands above it (an HTML
		// element named like a MathML or SVG one is not special).
		i = s.find(e.is, inDefaultScope)
	default:
		i = s.find(e.is, special)
	}
	if i >= 0 {
		s.popTo(i)
	}
}

func never(elem) bool { return false }

func is(a atom.Atom) func(elem) bool { return func(e elem) bool { return e.a == a } }

func in(as ...atom.Atom) func(elem) bool {
	return func(e elem) bool { return slices.Contains(as, e.a) }
}

// breaksOut reports the HTML start tags that end foreign content.
func breaksOut(e elem, attrs []string) bool {
	switch e.a {
	case atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center, atom.Code, atom.Dd, atom.Div,
		atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Head, atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu, atom.Meta, atom.Nobr,
		atom.Ol, atom.P, atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span, atom.Strong, atom.Strike,
		atom.Sub, atom.Sup, atom.Table, atom.Tt, atom.U, atom.Ul, atom.Var:
		return true
	case atom.Font:
		for _, a := range attrs {
			if k, _, _ := strings.Cut(a, "="); k == "color" || k == "face" || k == "size" {
				return true
			}
		}
	}
	return false
}

// integrationPoint reports a foreign element in which HTML is parsed.
func integrationPoint(e elem, attrs []string) bool {
	switch {
	case e.ns == "svg":
		return e.a == atom.Desc || e.a == atom.Foreignobject || e.a == atom.Title
	case e.ns == "math" && e.a == atom.AnnotationXml:
		for _, a := range attrs {
			if k, v, _ := strings.Cut(a, "="); k == "encoding" && (strings.EqualFold(v, "text/html") || strings.EqualFold(v, "application/xhtml+xml")) {
				return true
			}
		}
	}
	return false
}

func isHeading(a atom.Atom) bool {
	return a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6
}

// impliedEnd reports the elements whose end tag the parser implies.
func impliedEnd(a atom.Atom) bool {
	switch a {
	case atom.Dd, atom.Dt, atom.Li, atom.Optgroup, atom.Option, atom.P, atom.Rb, atom.Rp, atom.Rt, atom.Rtc:
		return true
	}
	return false
}

func isTablePart(a atom.Atom) bool {
	switch a {
	case atom.Caption, atom.Table, atom.Tbody, atom.Tfoot, atom.Thead, atom.Tr, atom.Td, atom.Th:
		return true
	}
	return false
}

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Basefont, atom.Bgsound, atom.Br, atom.Col, atom.Embed, atom.Frame, atom.Hr,
		atom.Img, atom.Input, atom.Keygen, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

func isFormatting(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr, atom.S, atom.Small,
		atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// isMarker reports the elements that put a marker on the list of active
// formatting elements.
func isMarker(a atom.Atom) bool {
	switch a {
	case atom.Applet, atom.Object, atom.Marquee, atom.Template, atom.Td, atom.Th, atom.Caption:
		return true
	}
	return false
}

// closesP reports the start tags that close an open <p> in button scope
// (those of li, dd, dt and headings have rules of their own; a table's
// depends on the quirks mode, and is left out).
func closesP(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Center, atom.Details, atom.Dialog,
		atom.Dir, atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header,
		atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Search, atom.Section, atom.Summary,
		atom.Ul, atom.Pre, atom.Listing, atom.Form, atom.Plaintext, atom.Xmp:
		return true
	}
	return false
}

// inDefaultScope reports the elements that bound "has an element in
// scope" (HTML, MathML and SVG alike: a name shared with another
// namespace only bounds a search sooner, which keeps the model deep).
func inDefaultScope(e elem) bool {
	switch e.a {
	case atom.Applet, atom.Caption, atom.Html, atom.Table, atom.Td, atom.Th, atom.Marquee, atom.Object,
		atom.Template, atom.Select, atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext, atom.AnnotationXml,
		atom.Foreignobject, atom.ForeignObject, atom.Desc, atom.Title:
		return true
	}
	return false
}

func inButtonScope(e elem) bool { return inDefaultScope(e) || e.a == atom.Button }

// foreignName reports the names special only as MathML or SVG elements.
func foreignName(a atom.Atom) bool {
	switch a {
	case atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext, atom.AnnotationXml, atom.Foreignobject, atom.ForeignObject, atom.Desc:
		return true
	}
	return false
}

// special reports the HTML5 parser's special elements (and the MathML
// and SVG ones of the default scope), whatever their namespace.
func special(e elem) bool {
	switch e.a {
	case atom.Address, atom.Applet, atom.Area, atom.Article, atom.Aside, atom.Base, atom.Basefont,
		atom.Bgsound, atom.Blockquote, atom.Body, atom.Br, atom.Button, atom.Caption, atom.Center, atom.Col,
		atom.Colgroup, atom.Dd, atom.Details, atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Embed, atom.Fieldset,
		atom.Figcaption, atom.Figure, atom.Footer, atom.Form, atom.Frame, atom.Frameset, atom.H1, atom.H2,
		atom.H3, atom.H4, atom.H5, atom.H6, atom.Head, atom.Header, atom.Hgroup, atom.Hr, atom.Html,
		atom.Iframe, atom.Img, atom.Input, atom.Keygen, atom.Li, atom.Link, atom.Listing, atom.Main,
		atom.Marquee, atom.Menu, atom.Meta, atom.Nav, atom.Noembed, atom.Noframes, atom.Noscript,
		atom.Object, atom.Ol, atom.P, atom.Param, atom.Plaintext, atom.Pre, atom.Script, atom.Search,
		atom.Section, atom.Select, atom.Source, atom.Style, atom.Summary, atom.Table, atom.Tbody, atom.Td,
		atom.Template, atom.Textarea, atom.Tfoot, atom.Th, atom.Thead, atom.Title, atom.Tr, atom.Track,
		atom.Ul, atom.Wbr, atom.Xmp, atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext, atom.AnnotationXml,
		atom.Foreignobject, atom.ForeignObject, atom.Desc:
		return true
	}
	return false
}
