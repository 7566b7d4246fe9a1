package citations

import (
	"bytes"
	"strings"
)

// Ref is one citation as the model wrote it: numbers First..Last inclusive,
// "[a-b]" or "[a]" (First == Last). What the numbers mean — sentences or
// chunks, and of which documents — is the Numbering's business.
type Ref struct{ First, Last int }

// RawStatement is one statement as parsed from model text, before its
// numbers are resolved to spans.
type RawStatement struct {
	// Text is the statement with its <cite> blocks removed and surrounding
	// whitespace trimmed.
	Text string
	// Refs are the citations in the order written.
	Refs []Ref
	// Tagged is false for text the model wrote outside any
	// <statement>…</statement> pair; such text is kept as an uncited
	// statement when longer than five characters, as LongCite does.
	Tagged bool
	// Unclosed is set when the statement's </statement> never came: it was
	// ended by the next <statement> or by the end of the stream.
	Unclosed bool
	// Garbled lists what stood inside <cite> but was not a number or a range
	// ("[5-]", "see above"), as written, each cut to at most 40 bytes.
	Garbled []string
}

// Parser reads LongCite's answer format,
//
//	<statement>TEXT<cite>[a-b][c-d]…</cite></statement>
//
// from model text streamed in deltas of any size, and returns each statement
// the moment its </statement> completes. How the text is split never changes
// the result: a tag, a number or a multi-byte character may be cut anywhere.
//
// It follows the postprocess of THUDM/LongCite's
// LongBench-Cite/pred_one_shot.py (postprocess, get_citations): a missing
// '<' on "statement>" at the very start is restored, text between statements
// becomes an uncited statement when longer than five characters after
// trimming, and <cite> blocks are removed from the statement's text wherever
// they stand. It is more tolerant than the reference where a model's slips
// would otherwise lose text:
//
//   - tag names are matched case-insensitively, with spaces allowed inside
//     the angle brackets ("< cite>", "</statement >");
//   - a statement whose </statement> is missing ends at the next <statement>
//     or at Close, and a missing </cite> ends at </statement>;
//   - "[a]" (one sentence, or chunk k in chunk mode), "[a, b-c]", "[C3-C5]"
//     and en dashes are read as citations; anything else inside <cite> is
//     reported in Garbled rather than dropped silently;
//   - a stray </statement> with text before it closes that text as a
//     statement (the model lost the opening tag); a stray </cite> is dropped;
//   - any other '<' — unknown or broken tags, "x < y" — is kept as text.
//
// A Parser is not safe for concurrent use. The zero value is ready to use.
type Parser struct {
	text     []byte // current statement's text, cite blocks excluded
	refs     []Ref
	garbled  []string
	inStmt   bool // opened by <statement>
	inCite   bool
	sawStart bool // past the stream's leading "statement>" check

	// A possible tag being matched across deltas: its bytes so far.
	tag    [maxTagLen]byte
	tagLen int
	tagSt  tagState
	name   [9]byte // tag name letters so far, lower-cased
	nameN  int
	slash  bool

	// The stream's start, while it may still be "statement>" without '<'.
	probe int // bytes of "statement>" matched so far

	// Cite content, read whole when its </cite> comes (parseCite).
	cite []byte

	// A reply in JSON (or fenced as JSON) is held whole and read at Close
	// (tolerance.go): raw is what was held, fence the bytes of "```json"
	// matched at the start.
	jsonMode bool
	raw      []byte
	fence    int

	out []RawStatement
}

const (
	maxTagLen     = 24   // longest "< / statement >" we wait for before calling it text
	maxCiteToken  = 40   // longest bracket or junk run kept for Garbled
	maxCite       = 4096 // longest cite content read; a longer one is cut
	outsideMinLen = 5    // outside text is kept when longer than this (runes)
	lostOpenTag   = "statement>"
)

type tagState uint8

const (
	tagNone     tagState = iota
	tagOpen              // after '<', spaces allowed
	tagSlash             // after '/', spaces allowed
	tagName              // reading the name
	tagNameDone          // spaces after the name
)

// NewParser returns a parser at the start of a stream.
func NewParser() *Parser { return &Parser{} }

// Parse parses a complete answer in one piece.
func Parse(text string) []RawStatement {
	var p Parser
	out := p.Write(text)
	return append(out, p.Close()...)
}

// Write feeds the next delta of model text and returns the statements it
// completed, in order (usually none). The returned slice is the caller's.
func (p *Parser) Write(delta string) []RawStatement {
	p.out = nil
	for i := 0; i < len(delta); {
		i = p.step(delta, i)
	}
	out := p.out
	p.out = nil
	return out
}

// Close ends the stream: a tag cut off at the end is kept as text, an
// unclosed <cite> or <statement> is closed, and the last statement (or the
// text after the last </statement>) is returned. The parser is then ready for
// a new stream.
func (p *Parser) Close() []RawStatement {
	p.out = nil
	if p.jsonMode {
		out := parseHeld(p.raw)
		*p = Parser{}
		return out
	}
	if p.fence > 0 {
		p.text = append(p.text, jsonFence[:p.fence]...)
		p.fence = 0
	}
	if p.probe > 0 {
		p.text = append(p.text, lostOpenTag[:p.probe]...)
		p.probe = 0
	}
	if p.tagLen > 0 {
		p.sink(p.tag[:p.tagLen])
		p.resetTag()
	}
	p.endCite()
	p.finish(p.inStmt)
	out := p.out
	*p = Parser{text: p.text[:0], refs: p.refs[:0], cite: p.cite[:0]}
	return out
}

// step consumes input from s[i:] and returns the index after what it took.
func (p *Parser) step(s string, i int) int {
	if p.jsonMode {
		p.raw = append(p.raw, s[i:]...)
		return len(s)
	}
	if !p.sawStart {
		return p.stepStart(s, i)
	}
	if p.tagLen > 0 {
		return p.stepTag(s, i)
	}
	if p.inCite {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			p.citeBytes(s[i:])
			return len(s)
		}
		p.citeBytes(s[i : i+j])
		p.beginTag()
		return i + j + 1
	}
	// Plain text: copy everything up to the next '<' in one go.
	j := strings.IndexByte(s[i:], '<')
	if j < 0 {
		p.text = append(p.text, s[i:]...)
		return len(s)
	}
	p.text = append(p.text, s[i:i+j]...)
	p.beginTag()
	return i + j + 1
}

// stepStart handles the stream's first bytes: leading whitespace, then
// possibly "statement>" whose '<' the model (or a chat template) ate, which
// LongCite's scripts restore.
func (p *Parser) stepStart(s string, i int) int {
	c := s[i]
	if p.probe == 0 && p.fence == 0 && isSpace(c) {
		p.text = append(p.text, c)
		return i + 1
	}
	// A reply that opens as JSON, bare or fenced, is held to be read
	// whole (tolerance.go).
	if p.probe == 0 && p.fence == 0 && (c == '{' || c == '[') {
		p.startJSON(s, i, "")
		return len(s)
	}
	if p.probe == 0 && (p.fence > 0 || c == '`') {
		if lower(c) == jsonFence[p.fence] {
			p.fence++
			if p.fence == len(jsonFence) {
				p.startJSON(s, i+1, jsonFence)
				return len(s)
			}
			return i + 1
		}
		// Another fence ("```xml"): its line is dropped with the outside
		// text; what was held is text.
		p.text = append(p.text, jsonFence[:p.fence]...)
		p.fence = 0
		p.sawStart = true
		return i
	}
	if c == lostOpenTag[p.probe] {
		p.probe++
		if p.probe == len(lostOpenTag) {
			p.probe = 0
			p.sawStart = true
			p.openStatement()
		}
		return i + 1
	}
	// Not the lost tag: what was held is text; c is processed normally.
	p.text = append(p.text, lostOpenTag[:p.probe]...)
	p.probe = 0
	p.sawStart = true
	return i
}

func (p *Parser) beginTag() {
	p.tag[0] = '<'
	p.tagLen = 1
	p.tagSt = tagOpen
	p.nameN = 0
	p.slash = false
}

func (p *Parser) resetTag() {
	p.tagLen = 0
	p.tagSt = tagNone
}

// stepTag advances the tag matcher by one byte.
func (p *Parser) stepTag(s string, i int) int {
	c := s[i]
	ok := false
	switch p.tagSt {
	case tagOpen:
		switch {
		case c == ' ':
			ok = true
		case c == '/' && !p.slash:
			p.slash, p.tagSt, ok = true, tagSlash, true
		default:
			ok = p.nameByte(c)
		}
	case tagSlash:
		if c == ' ' {
			ok = true
		} else {
			ok = p.nameByte(c)
		}
	case tagName:
		switch {
		case c == ' ':
			p.tagSt, ok = tagNameDone, true
		case c == '>':
			return p.completeTag(i)
		default:
			ok = p.nameByte(c)
		}
	case tagNameDone:
		switch c {
		case ' ':
			ok = true
		case '>':
			return p.completeTag(i)
		}
	}
	if ok && p.tagLen < maxTagLen {
		p.tag[p.tagLen] = c
		p.tagLen++
		return i + 1
	}
	// Not one of our tags: what was held is ordinary content, and c starts
	// afresh (it may itself be '<').
	p.sink(p.tag[:p.tagLen])
	p.resetTag()
	return i
}

// nameByte extends the tag name with c if the name stays a prefix of
// "statement" or "cite".
func (p *Parser) nameByte(c byte) bool {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	n := p.nameN
	if n >= len(p.name) {
		return false
	}
	if !(n < len("statement") && "statement"[n] == c && (n == 0 || p.name[0] == 's')) &&
		!(n < len("cite") && "cite"[n] == c && (n == 0 || p.name[0] == 'c')) {
		return false
	}
	p.name[n] = c
	p.nameN++
	p.tagSt = tagName
	return true
}

// completeTag acts on a tag whose '>' is at s[i].
func (p *Parser) completeTag(i int) int {
	name := string(p.name[:p.nameN]) // no allocation: compared, not kept
	switch {
	case name == "statement" && !p.slash:
		p.resetTag()
		p.endCite()
		p.openStatement()
	case name == "statement":
		p.resetTag()
		p.endCite()
		p.closeStatement()
	case name == "cite" && !p.slash:
		p.resetTag()
		p.inCite = true // a repeated <cite> inside a cite is harmless
	case name == "cite":
		p.resetTag()
		p.endCite() // a stray </cite> outside a cite is dropped
	default:
		// A prefix such as "<stat>": plain content, '>' included.
		if p.tagLen < maxTagLen {
			p.tag[p.tagLen] = '>'
			p.tagLen++
		}
		p.sink(p.tag[:p.tagLen])
		p.resetTag()
	}
	return i + 1
}

// sink appends bytes that turned out not to be a tag to whatever is being
// read: statement text or cite content.
func (p *Parser) sink(b []byte) {
	if p.inCite {
		for _, c := range b {
			p.citeByte(c)
		}
		return
	}
	p.text = append(p.text, b...)
}

func (p *Parser) openStatement() {
	if p.inStmt {
		if len(bytes.TrimSpace(p.text)) == 0 && len(p.refs) == 0 && len(p.garbled) == 0 {
			return // "<statement><statement>": one is enough
		}
		p.finishAs(true, true) // the previous one never got its </statement>
	} else {
		p.finish(false)
	}
	p.inStmt = true
}

func (p *Parser) closeStatement() {
	// A </statement> with no opening: the text before it was meant as a
	// statement, unless there is nothing there ("</statement></statement>").
	p.finishAs(true, false)
	p.inStmt = false
}

// finish ends the current segment, tagged or outside text.
func (p *Parser) finish(tagged bool) { p.finishAs(tagged, tagged) }

func (p *Parser) finishAs(tagged, unclosed bool) {
	p.out = append(p.out, segment(p.text, tagged, unclosed, p.refs, p.garbled)...)
	p.text = p.text[:0]
	p.refs = p.refs[:0]
	p.garbled = nil
}

// --- cite content ---

func (p *Parser) endCite() {
	if !p.inCite {
		return
	}
	p.refs, p.garbled = appendCite(p.refs, p.garbled, p.cite)
	p.cite = p.cite[:0]
	p.inCite = false
}

// citeBytes takes cite content; past maxCite it is cut (and reported as
// garbled by parseCite, since the cut leaves a bracket open or a token
// cut short).
func (p *Parser) citeBytes(b string) {
	if room := maxCite - len(p.cite); room > 0 {
		p.cite = append(p.cite, b[:min(len(b), room)]...)
	}
}

func (p *Parser) citeByte(c byte) {
	if len(p.cite) < maxCite {
		p.cite = append(p.cite, c)
	}
}

// parseRange reads "a", "a-b", "a – b", "Ca-Cb".
func parseRange(item []byte) (Ref, bool) {
	a, i, ok := parseNum(item, skipSpaces(item, 0))
	if !ok {
		return Ref{}, false
	}
	i = skipSpaces(item, i)
	if i == len(item) {
		return Ref{a, a}, true
	}
	switch {
	case item[i] == '-' || item[i] == '~':
		i++
	case bytes.HasPrefix(item[i:], []byte("–")) || bytes.HasPrefix(item[i:], []byte("—")):
		i += 3
	default:
		return Ref{}, false
	}
	b, i, ok := parseNum(item, skipSpaces(item, i))
	if !ok || skipSpaces(item, i) != len(item) {
		return Ref{}, false
	}
	return Ref{a, b}, true
}

// parseNum reads an optional 'C' (the prompt's "<C12>" marker leaking into
// the citation) and up to nine digits.
func parseNum(b []byte, i int) (int, int, bool) {
	if i < len(b) && (b[i] == 'C' || b[i] == 'c') {
		i++
	}
	n, start := 0, i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		if i-start == 9 {
			return 0, i, false // no sentence number is that long
		}
		n = n*10 + int(b[i]-'0')
		i++
	}
	return n, i, i > start
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
