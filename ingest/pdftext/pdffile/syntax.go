package pdffile

import (
	"errors"
	"strconv"
)

// A lexer reads PDF objects from raw bytes with the library's own rules
// (its white space, delimiters, escapes and strictness), so that what this
// package checks before the library reads a file is what the library will
// read. It never panics: malformed input is an error, as the library's
// panic would be.
//
// data is a window of the file (or of a decoded stream) starting at file
// offset base. When the window is not the whole input (final is false),
// running off its end is errTruncated and the caller may retry with a
// larger window. At the end of the input, allowEOF picks the library's
// two behaviours: an object stream's or content's buffer reads as if
// endless white space followed (tokens end, and a hex string never does:
// errEndless), the file's buffer fails (errEOF).
type lexer struct {
	data     []byte
	pos      int
	base     int64
	final    bool
	allowEOF bool
	unread   []token
}

// The kinds of token, as the library's lexer returns them.
type tokenKind uint8

const (
	tokEOF     tokenKind = iota // the end of an input read with allowEOF
	tokKeyword                  // a bare word, or "<<", ">>", "[", "]", "{", "}"
	tokInt
	tokReal
	tokBool
	tokName
	tokString
)

type token struct {
	kind tokenKind
	s    string // keyword, name or string bytes
	n    int64
	f    float64
	at   int64 // file offset where the token starts
	end  int64 // and where it ends
}

func (t token) is(kw string) bool { return t.kind == tokKeyword && t.s == kw }

var (
	errTruncated = errors.New("pdffile: the window ends inside an object")
	errEOF       = errors.New("pdffile: the input ends inside an object")
	// errEndless: the library's lexer would read this hex string forever.
	errEndless = errors.New("pdffile: a hex string runs to the end of the input")
	errSyntax  = errors.New("pdffile: malformed object")
)

func newLexer(data []byte, base int64, final, allowEOF bool) *lexer {
	return &lexer{data: data, base: base, final: final, allowEOF: allowEOF}
}

// offset is the file offset of the next byte.
func (l *lexer) offset() int64 { return l.base + int64(l.pos) }

// end is what reading past the last byte means (see lexer).
func (l *lexer) end() error {
	switch {
	case !l.final:
		return errTruncated
	case l.allowEOF:
		return nil
	}
	return errEOF
}

func isSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func isDelim(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) unreadToken(t token) { l.unread = append(l.unread, t) }

func (l *lexer) token() (token, error) {
	if n := len(l.unread); n > 0 {
		t := l.unread[n-1]
		l.unread = l.unread[:n-1]
		return t, nil
	}
	for {
		if l.pos >= len(l.data) {
			return token{kind: tokEOF, at: l.offset(), end: l.offset()}, l.end()
		}
		c := l.data[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if c != '%' {
			break
		}
		for l.pos < len(l.data) && l.data[l.pos] != '\r' && l.data[l.pos] != '\n' {
			l.pos++
		}
	}
	t, err := l.fresh()
	t.end = l.offset()
	return t, err
}

// fresh reads a token from the input, at the first byte of one.
func (l *lexer) fresh() (token, error) {
	at := l.offset()
	c := l.data[l.pos]
	l.pos++
	// next is the byte after c, for "<<" and ">>"; past the end the
	// library reads a newline, or fails
	next := func() (byte, error) {
		if l.pos < len(l.data) {
			return l.data[l.pos], nil
		}
		return '\n', l.end()
	}
	switch c {
	case '<':
		n, err := next()
		if err != nil {
			return token{}, err
		}
		if n == '<' {
			l.pos++
			return token{kind: tokKeyword, s: "<<", at: at}, nil
		}
		s, err := l.hexString()
		return token{kind: tokString, s: s, at: at}, err
	case '(':
		s, err := l.literalString()
		return token{kind: tokString, s: s, at: at}, err
	case '[', ']', '{', '}':
		return token{kind: tokKeyword, s: string(c), at: at}, nil
	case '/':
		s, err := l.name()
		return token{kind: tokName, s: s, at: at}, err
	case '>':
		n, err := next()
		if err != nil {
			return token{}, err
		}
		if n == '>' {
			l.pos++
			return token{kind: tokKeyword, s: ">>", at: at}, nil
		}
		return token{}, errSyntax // an unexpected delimiter
	}
	if isDelim(c) {
		return token{}, errSyntax
	}
	l.pos--
	t, err := l.keyword()
	t.at = at
	return t, err
}

// hexString reads after "<"; an odd number of digits is an error, as in
// the library.
func (l *lexer) hexString() (string, error) {
	var out []byte
	digit := func() (byte, error) {
		for {
			if l.pos >= len(l.data) {
				if err := l.end(); err != nil {
					return 0, err
				}
				return 0, errEndless // the library reads white space forever
			}
			c := l.data[l.pos]
			l.pos++
			if !isSpace(c) {
				return c, nil
			}
		}
	}
	for {
		c, err := digit()
		if err != nil {
			return "", err
		}
		if c == '>' {
			return string(out), nil
		}
		c2, err := digit()
		if err != nil {
			return "", err
		}
		hi, lo := unhex(c), unhex(c2)
		if hi < 0 || lo < 0 {
			return "", errSyntax
		}
		out = append(out, byte(hi<<4|lo))
	}
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// literalString reads after "(". At the end of an input read with
// allowEOF the string ends there, as in the library.
func (l *lexer) literalString() (string, error) {
	var out []byte
	depth := 1
	read := func() (byte, bool, error) {
		if l.pos >= len(l.data) {
			return '\n', true, l.end()
		}
		l.pos++
		return l.data[l.pos-1], false, nil
	}
	for {
		c, eof, err := read()
		if err != nil || eof {
			return string(out), err
		}
		switch c {
		case '(':
			depth++
			out = append(out, c)
		case ')':
			if depth--; depth == 0 {
				return string(out), nil
			}
			out = append(out, c)
		case '\\':
			e, eof, err := read()
			if err != nil {
				return "", err
			}
			switch e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 'b':
				out = append(out, '\b')
			case 't':
				out = append(out, '\t')
			case 'f':
				out = append(out, '\f')
			case '(', ')', '\\':
				out = append(out, e)
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
			case '\n':
			case '0', '1', '2', '3', '4', '5', '6', '7':
				x := int(e - '0')
				for range 2 {
					if l.pos >= len(l.data) || l.data[l.pos] < '0' || l.data[l.pos] > '7' {
						break
					}
					x = x*8 + int(l.data[l.pos]-'0')
					l.pos++
				}
				if x > 255 {
					return "", errSyntax
				}
				out = append(out, byte(x))
			default:
				return "", errSyntax // the library refuses other escapes
			}
			if eof {
				return string(out), nil
			}
		default:
			out = append(out, c)
		}
	}
}

func (l *lexer) name() (string, error) {
	var out []byte
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if isDelim(c) || isSpace(c) {
			return string(out), nil
		}
		l.pos++
		if c != '#' {
			out = append(out, c)
			continue
		}
		if l.pos+2 > len(l.data) {
			return "", l.endOr(errSyntax)
		}
		hi, lo := unhex(l.data[l.pos]), unhex(l.data[l.pos+1])
		if hi < 0 || lo < 0 {
			return "", errSyntax
		}
		out = append(out, byte(hi<<4|lo))
		l.pos += 2
	}
	return string(out), l.end()
}

func (l *lexer) keyword() (token, error) {
	start := l.pos
	for l.pos < len(l.data) && !isDelim(l.data[l.pos]) && !isSpace(l.data[l.pos]) {
		l.pos++
	}
	if l.pos == len(l.data) {
		if err := l.end(); err != nil {
			return token{}, err
		}
	}
	s := string(l.data[start:l.pos])
	switch {
	case s == "true" || s == "false":
		return token{kind: tokBool, n: boolInt(s == "true")}, nil
	case isInteger(s):
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return token{}, errSyntax
		}
		return token{kind: tokInt, n: n}, nil
	case isReal(s):
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return token{}, errSyntax
		}
		return token{kind: tokReal, f: f}, nil
	}
	return token{kind: tokKeyword, s: s}, nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func isInteger(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isReal(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.':
			dots++
		case s[i] < '0' || s[i] > '9':
			return false
		}
	}
	return s != "" && dots == 1
}

// Objects as this package reads them: nil (null), bool, int64, float64,
// string, name, ref, *dict, array, *stream, objdef.
type (
	name  string
	array []any
	ref   struct {
		id  uint32
		gen uint16
	}
	objdef struct {
		ref ref
		obj any
	}
	// dict keeps, with each value, where its entry is in the file: from
	// the key's slash to the end of the value, so an entry can be blanked.
	dict struct {
		vals  map[name]any
		spans map[name][2]int64
	}
	// stream is a stream's dictionary and the file offset of its data.
	stream struct {
		dict *dict
		data int64
	}
)

func (d *dict) get(key string) any {
	if d == nil {
		return nil
	}
	return d.vals[name(key)]
}

func (d *dict) int(key string) (int64, bool) {
	n, ok := d.get(key).(int64)
	return n, ok
}

func (d *dict) name(key string) string {
	n, _ := d.get(key).(name)
	return string(n)
}

// maxDepth is the library's limit on nested objects.
const maxDepth = 1000

// object reads one object the way the library's readObject does, with
// streams allowed: "N G R" is a ref, "N G obj … endobj" an objdef, and a
// stray ">>" or "]" reads as null. end is the file offset just after it.
func (l *lexer) object(depth int) (v any, end int64, err error) {
	if depth > maxDepth {
		return nil, 0, errSyntax
	}
	t, err := l.token()
	if err != nil {
		return nil, 0, err
	}
	switch t.kind {
	case tokEOF:
		return nil, t.end, nil
	case tokKeyword:
		switch t.s {
		case "null", ">>", "]":
			return nil, t.end, nil
		case "<<":
			return l.dict(depth)
		case "[":
			return l.array(depth)
		}
		return nil, 0, errSyntax
	case tokBool:
		return t.n == 1, t.end, nil
	case tokReal:
		return t.f, t.end, nil
	case tokName:
		return name(t.s), t.end, nil
	case tokString:
		return t.s, t.end, nil
	}
	// an integer: maybe the start of a reference or a definition
	if int64(uint32(t.n)) != t.n {
		return t.n, t.end, nil
	}
	t2, err := l.token()
	if err != nil {
		return nil, 0, err
	}
	if t2.kind == tokInt && int64(uint16(t2.n)) == t2.n {
		t3, err := l.token()
		if err != nil {
			return nil, 0, err
		}
		r := ref{uint32(t.n), uint16(t2.n)}
		switch {
		case t3.is("R"):
			return r, t3.end, nil
		case t3.is("obj"):
			obj, end, err := l.object(depth + 1)
			if err != nil {
				return nil, 0, err
			}
			if _, ok := obj.(*stream); !ok {
				t4, err := l.token()
				if err != nil {
					return nil, 0, err
				}
				if !t4.is("endobj") {
					return nil, 0, errSyntax
				}
				end = t4.end
			}
			return objdef{r, obj}, end, nil
		}
		l.unreadToken(t3)
	}
	l.unreadToken(t2)
	return t.n, t.end, nil
}

func (l *lexer) array(depth int) (any, int64, error) {
	var a array
	for {
		t, err := l.token()
		if err != nil {
			return nil, 0, err
		}
		if t.kind == tokEOF || t.is("]") {
			return a, t.end, nil
		}
		l.unreadToken(t)
		v, _, err := l.object(depth + 1)
		if err != nil {
			return nil, 0, err
		}
		a = append(a, v)
	}
}

func (l *lexer) dict(depth int) (any, int64, error) {
	d := &dict{vals: map[name]any{}, spans: map[name][2]int64{}}
	var end int64
	for {
		t, err := l.token()
		if err != nil {
			return nil, 0, err
		}
		if t.kind == tokEOF || t.is(">>") {
			end = t.end
			break
		}
		if t.kind != tokName {
			return nil, 0, errSyntax
		}
		v, vend, err := l.object(depth + 1)
		if err != nil {
			return nil, 0, err
		}
		d.vals[name(t.s)] = v
		d.spans[name(t.s)] = [2]int64{t.at, vend}
	}
	t, err := l.token()
	if err != nil {
		return nil, 0, err
	}
	if !t.is("stream") {
		l.unreadToken(t)
		return d, end, nil
	}
	// "stream" ends with CR LF or LF
	if l.pos >= len(l.data) {
		return nil, 0, l.endOr(errSyntax)
	}
	switch l.data[l.pos] {
	case '\r':
		l.pos++
		if l.pos < len(l.data) && l.data[l.pos] == '\n' {
			l.pos++
		}
	case '\n':
		l.pos++
	default:
		return nil, 0, errSyntax
	}
	return &stream{dict: d, data: l.offset()}, l.offset(), nil
}

// endOr is the error for input that ends where the library needs more:
// errTruncated for a window, else err.
func (l *lexer) endOr(err error) error {
	if !l.final {
		return errTruncated
	}
	return err
}
