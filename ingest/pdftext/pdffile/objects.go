package pdffile

import (
	"bytes"
	"fmt"
	"strconv"
)

// Reading objects from the file's bytes without the library, where the
// library cannot be asked: to rebuild a damaged cross-reference table,
// to decrypt what it cannot, to write packed objects out plain, to say
// where damage is.

// eachObject calls fn for each object definition "N G obj" in data, in
// file order, with where the definition starts, its numbers and where
// its keyword "obj" is, until fn returns false.
func eachObject(data []byte, fn func(start int, id, gen uint64, obj int) bool) {
	for at := 0; ; {
		k := bytes.Index(data[at:], []byte("obj"))
		if k < 0 {
			return
		}
		k += at
		at = k + 3
		if start, id, gen, ok := objDef(data, k); ok && !fn(start, id, gen, k) {
			return
		}
	}
}

// objDef reads the "N G" before the keyword "obj" at k: where N starts,
// and the numbers; ok is false when "obj" at k does not end such a
// definition.
func objDef(data []byte, k int) (start int, id, gen uint64, ok bool) {
	if k+3 < len(data) {
		if c := data[k+3]; c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return 0, 0, 0, false // a longer word
		}
	}
	// back over white space, the generation, white space, the number
	digits := func(end int) int {
		i := end
		for i > 0 && end-i < 10 && data[i-1] >= '0' && data[i-1] <= '9' {
			i--
		}
		return i
	}
	spaces := func(end int) int {
		i := end
		for i > 0 && isSpace(data[i-1]) && data[i-1] != 0 {
			i--
		}
		return i
	}
	g1 := spaces(k)
	g0 := digits(g1)
	n1 := spaces(g0)
	n0 := digits(n1)
	if g1 == k || g0 == g1 || g1-g0 > 5 || n1 == g0 || n0 == n1 {
		return 0, 0, 0, false
	}
	if n0 > 0 && !isSpace(data[n0-1]) && !bytes.ContainsRune([]byte("<>[]()/%"), rune(data[n0-1])) {
		return 0, 0, 0, false // digits inside a larger token
	}
	id, err1 := strconv.ParseUint(string(data[n0:n1]), 10, 32)
	gen, err2 := strconv.ParseUint(string(data[g0:g1]), 10, 16)
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return n0, id, gen, true
}

// objectHead is the start of the object whose keyword "obj" is at k: up
// to 400 bytes, ending before "endobj" or "stream", so that it holds the
// object's dictionary and not the next object's.
func objectHead(data []byte, k int) []byte {
	head := data[k+3 : min(len(data), k+3+400)]
	for _, end := range []string{"endobj", "stream"} {
		if e := bytes.Index(head, []byte(end)); e >= 0 {
			head = head[:e]
		}
	}
	return head
}

// hasType reports whether text holds "/Type /NAME" anywhere, as names
// the lexer reads (text may be cut short).
func hasType(text []byte, typ string) bool {
	l := newLexer(text, 0, false, false)
	typeKey := false
	for {
		t, err := l.token()
		if err != nil {
			// past damage: look on from the next name
			i := bytes.IndexByte(text[min(l.pos+1, len(text)):], '/')
			if i < 0 {
				return false
			}
			l.pos = min(l.pos+1, len(text)) + i
			l.unread = nil
			typeKey = false
			continue
		}
		if typeKey && t.kind == tokName && t.s == typ {
			return true
		}
		typeKey = t.kind == tokName && t.s == "Type"
	}
}

// lastRef finds the last "/KEY N G R" in data and returns "N G R", or "".
func lastRef(data []byte, key string) string {
	pat := []byte("/" + key)
	for end := len(data); ; {
		i := bytes.LastIndex(data[:end], pat)
		if i < 0 {
			return ""
		}
		end = i
		from, to := i+len(pat), min(len(data), i+len(pat)+64)
		if from < len(data) && !isSpace(data[from]) && !isDelim(data[from]) {
			continue // a longer name
		}
		l := newLexer(data[from:to], 0, to == len(data), false)
		v, _, err := l.object(0)
		if r, ok := v.(ref); ok && err == nil {
			return fmt.Sprintf("%d %d R", r.id, r.gen)
		}
	}
}

// objectBody returns the text of object id's last definition, from after
// "obj" to "endobj", and where it starts.
func objectBody(data []byte, id uint64) ([]byte, int, bool) {
	at := -1
	eachObject(data, func(_ int, oid, _ uint64, k int) bool {
		if oid == id {
			at = k + 3
		}
		return true
	})
	if at < 0 {
		return nil, 0, false
	}
	end := bytes.Index(data[at:], []byte("endobj"))
	if end < 0 {
		end = min(len(data)-at, 4096)
	}
	return data[at : at+end], at, true
}

// dictOf reads the dictionary at the start of an object's text.
func dictOf(body []byte) *dict {
	v, _, err := newLexer(body, 0, true, true).object(0)
	if d, ok := v.(*dict); ok && err == nil {
		return d
	}
	if s, ok := v.(*stream); ok && err == nil {
		return s.dict
	}
	return nil
}
