package pdffile

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The library reports damage by panicking, mostly with formatted strings
// in its own terms: Go types ("unexpected non-name key pdf.keyword(q)
// parsing dictionary"), lexer states, and for a bad hex string its whole
// read buffer, so that a damaged file could print 170 lines of raw PDF
// bytes. describe says the same in a reader's words, as a *Damage. It
// goes by type where there is one to go by (the context's errors, this
// package's own *Damage, the compression errors of the standard library);
// only the library's own messages are told apart by their text, in the
// table below.

// libraryMessages are the library's messages, by a fixed part of their
// text, most specific first: what each means for a reader and, where the
// message tells, at which byte of the file the damage is.
var libraryMessages = []struct {
	says []string // any of these in the message
	// what says the damage; rest is the message after the part found.
	what func(rest string) string
	// at finds the byte of the file (-1: cannot); nil: the message tells
	// no place.
	at func(rest string, file []byte) int64
	// structural: an object was not where the cross-reference table puts
	// it.
	structural bool
}{
	{says: []string{"reading at offset "}, what: readFailure, at: leadingNumber, structural: true},
	{says: []string{"malformed hex string "}, what: fixed("a hex string holds a character that is not a hex digit"), at: hexStringAt},
	{says: []string{"unexpected non-name key"}, what: fixed("a dictionary has a key that is not a name")},
	{says: []string{"unexpected delimiter "}, what: func(rest string) string { return "an unexpected " + quoteChar(rest) }},
	{says: []string{"unexpected keyword "}, what: fixed("an object holds an unexpected word")},
	{says: []string{"invalid escape sequence", "invalid octal escape"}, what: fixed("a string has an invalid escape")},
	{says: []string{"malformed name"}, what: fixed("a name is malformed")},
	{says: []string{"invalid integer", "invalid real"}, what: fixed("a number is malformed")},
	{says: []string{"nesting exceeds maximum depth"}, what: fixed("objects are nested too deeply")},
	{says: []string{"missing endobj"}, what: fixed("an object is not closed by endobj")},
	{says: []string{"stream keyword not followed by newline"}, what: fixed("a stream does not start on a new line")},
	{says: []string{"loading "}, what: misplacedObject, at: objectAt, structural: true},
	{says: []string{"cannot find object in stream", "not an object stream", "missing First", "object stream"}, what: fixed("an object stream is damaged"), structural: true},
	{says: []string{"not a stream"}, what: fixed("an object that should be a stream is not one"), structural: true},
	{says: []string{"unsupported filter ", "unknown filter "}, what: func(rest string) string { return unsupportedFilter(firstWord(rest)).What }},
	{says: []string{"DecodeParms"}, what: fixed("a stream is encoded with parameters this reader does not support")},
	{says: []string{"flate: corrupt input", "zlib: invalid", "unexpected EOF", "PNG-Up"}, what: fixed("compressed data is corrupt")},
	{says: []string{"AES block size"}, what: fixed("an encrypted string is cut short")},
	{says: []string{"invalid header"}, what: fixed("it does not start with %PDF- (is it a PDF?)"), at: func(string, []byte) int64 { return 0 }},
	{says: []string{"missing %EOF"}, what: fixed("it has no %EOF at its end: it is cut short, or not a PDF"), at: endOfFile},
	{says: []string{"startxref"}, what: fixed("it has no startxref at its end: it is cut short"), at: endOfFile},
	{says: []string{"cross-reference table not found", "xref", "trailer"}, what: fixed("its cross-reference table is missing or damaged")},
}

func fixed(s string) func(string) string { return func(string) string { return s } }

// describe returns what the library reported, a value recovered from its
// panic or an error it returned, as a *Damage; the context's errors are
// returned as they are. file is the file's content, or nil.
func describe(x any, file []byte) error {
	err, _ := x.(error)
	var d *Damage
	var corrupt flate.CorruptInputError
	switch {
	case err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return err
	case errors.As(err, &d):
		return d
	case errors.As(err, &corrupt) || errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrDictionary) || errors.Is(err, io.ErrUnexpectedEOF):
		return damage(-1, "compressed data is corrupt")
	}
	msg := strings.ReplaceAll(fmt.Sprint(x), "%%", "%") // the library's unformatted "%%EOF"
	for _, m := range libraryMessages {
		for _, s := range m.says {
			i := strings.Index(msg, s)
			if i < 0 {
				continue
			}
			rest := msg[i+len(s):]
			d := &Damage{At: -1, What: m.what(rest), Structural: m.structural}
			if m.at != nil && file != nil {
				d.At = m.at(rest, file)
			}
			return d
		}
	}
	return damage(-1, plainWords(msg))
}

// readFailure is what "reading at offset N: ERR" means.
func readFailure(rest string) string {
	_, cause, _ := strings.Cut(rest, ": ")
	switch {
	case strings.HasPrefix(cause, "EOF") || strings.HasPrefix(cause, "unexpected EOF"):
		return "the file ends early"
	case strings.HasPrefix(cause, "flate: corrupt input"):
		return "compressed data is corrupt"
	}
	return "it cannot be read there"
}

// misplacedObject is what "loading N G R: found …" means.
func misplacedObject(rest string) string {
	var id, gen int
	if _, err := fmt.Sscanf(rest, "%d %d R: found", &id, &gen); err != nil {
		return "an object is not where the cross-reference table puts it"
	}
	return fmt.Sprintf("object %d is not where the cross-reference table puts it", id)
}

// plainWords keeps a message the rules do not know to its first words of
// plain text: letters, digits, spaces and common punctuation, at most 60
// bytes, so that no bytes of the file get through.
func plainWords(msg string) string {
	var b strings.Builder
	for _, r := range msg {
		if b.Len() >= 60 || r == '\n' {
			break
		}
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" .,:;-_/()'", r)) {
			b.WriteRune(r)
		}
	}
	s := strings.TrimSpace(b.String())
	if s == "" {
		return "it cannot be read"
	}
	return s
}

// quoteChar names the delimiter in "'c'", as the library quotes it.
func quoteChar(q string) string {
	if len(q) >= 3 && q[0] == '\'' && q[2] == '\'' && q[1] > ' ' && q[1] < 0x7f {
		return "“" + q[1:2] + "”"
	}
	return "character"
}

// firstWord is the run of letters and digits that starts s, past a "/".
func firstWord(s string) string {
	s = strings.TrimPrefix(s, "/")
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return s[:i]
		}
	}
	return s
}

func leadingNumber(rest string, _ []byte) int64 {
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.ParseInt(rest[:end], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func endOfFile(_ string, file []byte) int64 { return int64(len(file)) }

// hexStringAt finds the bad hex string from the message's "C C BUFFER":
// the two characters read and the rest of the library's read buffer,
// which the file holds right after the bad character.
func hexStringAt(rest string, file []byte) int64 {
	for range 2 { // past each character and the space after it
		_, n := utf8.DecodeRuneInString(rest)
		if len(rest) < n+1 {
			return -1
		}
		rest = rest[n+1:]
	}
	if len(rest) < 8 {
		return -1
	}
	rest = rest[:min(len(rest), 64)]
	i := bytes.Index(file, []byte(rest))
	if i < 0 || bytes.Contains(file[i+1:], []byte(rest)) { // not found, or not unique
		return -1
	}
	return int64(max(0, i-1))
}

// objectAt finds where object "N G" of the message is defined in the file.
func objectAt(rest string, file []byte) int64 {
	var id, gen uint64
	if _, err := fmt.Sscanf(rest, "%d %d R", &id, &gen); err != nil {
		return -1
	}
	at := int64(-1)
	eachObject(file, func(start int, oid, ogen uint64, _ int) bool {
		if oid == id && ogen == gen {
			at = int64(start)
			return false
		}
		return true
	})
	return at
}
