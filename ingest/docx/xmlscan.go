package docx

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// A Word document's body is megabytes of small elements; encoding/xml
// reads it a byte at a time through an interface and allocates for every
// name and attribute, which made it most of an ingest's time. scanner is
// the little of XML a WordprocessingML part needs, read with IndexByte
// over the bytes in memory: elements, attributes, text with the five
// entities and character references, CDATA; comments, processing
// instructions and a DOCTYPE are skipped (entities a DTD would declare
// are not expanded).

// tokenKind is what a token is.
type tokenKind uint8

const (
	tokStart tokenKind = iota + 1
	tokEnd
	tokText
)

// token is one element start, element end, or run of text. Its slices
// point into the scanned data or a scratch buffer, valid until the next
// call of next.
type token struct {
	kind          tokenKind
	prefix, local []byte // an element's name (prefix empty if none)
	attrs         []byte // a start tag's attributes, unparsed
	text          []byte // tokText: the decoded text
}

// scanner reads tokens from an XML document in memory.
type scanner struct {
	data    []byte
	pos     int
	depth   int  // elements open
	selfEnd bool // the last start tag was empty (<x/>): its end comes next
	end     token
	scratch []byte
}

var errEOF = errors.New("end of the XML")

// next returns the next token, errEOF at the end of a well-formed
// document, or an error saying where the XML is malformed.
func (s *scanner) next() (token, error) {
	if s.selfEnd {
		s.selfEnd = false
		s.depth--
		return s.end, nil
	}
	for s.pos < len(s.data) {
		if s.data[s.pos] != '<' {
			return s.textToken()
		}
		rest := s.data[s.pos:]
		switch {
		case bytes.HasPrefix(rest, []byte("<?")):
			if err := s.skipPast("?>"); err != nil {
				return token{}, err
			}
		case bytes.HasPrefix(rest, []byte("<!--")):
			if err := s.skipPast("-->"); err != nil {
				return token{}, err
			}
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			end := bytes.Index(rest, []byte("]]>"))
			if end < 0 {
				return token{}, s.errorf("a CDATA section does not end")
			}
			s.pos += end + 3
			return token{kind: tokText, text: rest[9:end]}, nil
		case bytes.HasPrefix(rest, []byte("<!")):
			if err := s.skipPast(">"); err != nil {
				return token{}, err
			}
		case len(rest) > 1 && rest[1] == '/':
			end := bytes.IndexByte(rest, '>')
			if end < 0 {
				return token{}, s.errorf("an end tag does not close")
			}
			if s.depth == 0 {
				return token{}, s.errorf("an end tag has no start")
			}
			s.depth--
			t := token{kind: tokEnd}
			t.prefix, t.local = splitName(bytes.TrimSpace(rest[2:end]))
			s.pos += end + 1
			return t, nil
		default:
			return s.startToken(rest)
		}
	}
	if s.depth > 0 {
		return token{}, s.errorf("the XML ends inside an element")
	}
	return token{}, errEOF
}

// startToken reads a start tag at the start of rest.
func (s *scanner) startToken(rest []byte) (token, error) {
	// The tag ends at the first '>' outside a quoted attribute value.
	i, quote := 1, byte(0)
	for ; i < len(rest); i++ {
		c := rest[i]
		if quote != 0 {
			if j := bytes.IndexByte(rest[i:], quote); j >= 0 {
				i += j
				quote = 0
				continue
			}
			break
		}
		if c == '"' || c == '\'' {
			quote = c
		} else if c == '>' {
			break
		}
	}
	if i >= len(rest) {
		return token{}, s.errorf("a start tag does not close")
	}
	tag := rest[1:i]
	s.pos += i + 1
	empty := len(tag) > 0 && tag[len(tag)-1] == '/'
	if empty {
		tag = tag[:len(tag)-1]
	}
	nameEnd := bytes.IndexAny(tag, " \t\r\n")
	if nameEnd < 0 {
		nameEnd = len(tag)
	}
	if nameEnd == 0 {
		return token{}, s.errorf("a tag has no name")
	}
	t := token{kind: tokStart, attrs: tag[nameEnd:]}
	t.prefix, t.local = splitName(tag[:nameEnd])
	s.depth++
	if empty {
		s.selfEnd = true
		s.end = token{kind: tokEnd, prefix: t.prefix, local: t.local}
	}
	return t, nil
}

// textToken reads text up to the next tag, decoding references.
func (s *scanner) textToken() (token, error) {
	end := bytes.IndexByte(s.data[s.pos:], '<')
	if end < 0 {
		end = len(s.data) - s.pos
	}
	raw := s.data[s.pos : s.pos+end]
	s.pos += end
	if bytes.IndexByte(raw, '&') < 0 {
		return token{kind: tokText, text: raw}, nil
	}
	var err error
	s.scratch, err = unescape(s.scratch[:0], raw)
	if err != nil {
		return token{}, s.errorf("%v", err)
	}
	return token{kind: tokText, text: s.scratch}, nil
}

// skip reads past the end of the element whose start was just returned.
func (s *scanner) skip() error {
	for depth := 1; depth > 0; {
		t, err := s.next()
		if err != nil {
			if err == errEOF {
				return s.errorf("the XML ends inside an element")
			}
			return err
		}
		switch t.kind {
		case tokStart:
			depth++
		case tokEnd:
			depth--
		}
	}
	return nil
}

func (s *scanner) skipPast(end string) error {
	i := bytes.Index(s.data[s.pos:], []byte(end))
	if i < 0 {
		return s.errorf("a %q does not close", s.data[s.pos:min(s.pos+4, len(s.data))])
	}
	s.pos += i + len(end)
	return nil
}

// errorf words a syntax error with its line.
func (s *scanner) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(s.data[:min(s.pos, len(s.data))], []byte("\n"))
	return fmt.Errorf("XML syntax error on line %d: %s", line, fmt.Sprintf(format, args...))
}

// splitName splits "w:p" into "w" and "p".
func splitName(name []byte) (prefix, local []byte) {
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return nil, name
}

// eachAttr calls fn with each attribute of a start tag, its name split
// and its value still escaped, until fn returns false.
func (t token) eachAttr(fn func(prefix, local, raw []byte) bool) {
	a := t.attrs
	for len(a) > 0 {
		a = bytes.TrimLeft(a, " \t\r\n")
		eq := bytes.IndexByte(a, '=')
		if eq < 0 {
			return
		}
		name := bytes.TrimSpace(a[:eq])
		a = bytes.TrimLeft(a[eq+1:], " \t\r\n")
		if len(a) == 0 || (a[0] != '"' && a[0] != '\'') {
			return
		}
		end := bytes.IndexByte(a[1:], a[0])
		if end < 0 {
			return
		}
		raw := a[1 : 1+end]
		a = a[end+2:]
		prefix, local := splitName(name)
		if !fn(prefix, local, raw) {
			return
		}
	}
}

// attr returns the value of the attribute with that local name (any
// prefix), decoded; "" if absent.
func (t token) attr(local string) string {
	var val string
	t.eachAttr(func(_, l, raw []byte) bool {
		if string(l) != local {
			return true
		}
		if out, err := unescape(nil, raw); err == nil {
			val = string(out)
		}
		return false
	})
	return val
}

// namespaces calls fn for each namespace a start tag declares, with its
// prefix ("" for the default namespace).
func (t token) namespaces(fn func(prefix, uri string)) {
	if !bytes.Contains(t.attrs, []byte("xmlns")) {
		return
	}
	t.eachAttr(func(p, l, raw []byte) bool {
		switch {
		case p == nil && string(l) == "xmlns":
			fn("", string(raw))
		case string(p) == "xmlns":
			fn(string(l), string(raw))
		}
		return true
	})
}

// unescape appends raw to dst with its entity and character references
// decoded.
func unescape(dst, raw []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(raw, '&')
		if i < 0 {
			return append(dst, raw...), nil
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		semi := bytes.IndexByte(raw, ';')
		if semi < 0 || semi > 12 {
			return nil, errors.New("an & starts no reference")
		}
		ref := string(raw[1:semi])
		raw = raw[semi+1:]
		switch ref {
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "amp":
			dst = append(dst, '&')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			var n uint64
			var err error
			switch {
			case len(ref) > 2 && (ref[:2] == "#x" || ref[:2] == "#X"):
				n, err = strconv.ParseUint(ref[2:], 16, 32)
			case len(ref) > 1 && ref[0] == '#':
				n, err = strconv.ParseUint(ref[1:], 10, 32)
			default:
				return nil, fmt.Errorf("unknown entity &%s;", ref)
			}
			if err != nil || !utf8.ValidRune(rune(n)) {
				return nil, fmt.Errorf("bad character reference &%s;", ref)
			}
			dst = utf8.AppendRune(dst, rune(n))
		}
	}
}
