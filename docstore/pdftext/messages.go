package pdftext

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// The PDF library reports damage in its own terms: Go types
// ("unexpected non-name key pdf.keyword(q) parsing dictionary"), lexer
// states, and for a bad hex string its whole read buffer, so that a
// damaged file could print 170 lines of raw PDF bytes. describeDamage
// says the same in a reader's terms, on one line, with no bytes of the
// file in it, and where it can, at which byte of the file the damage is.

// damageRule maps a library message to a phrase. at, if set, finds the
// byte of the file the message is about (-1 when it cannot).
type damageRule struct {
	re     *regexp.Regexp
	phrase func(m []string) string
	at     func(m []string, file []byte) int64
}

func fixed(s string) func([]string) string { return func([]string) string { return s } }

var damageRules = []damageRule{
	{re: regexp.MustCompile(`reading at offset (\d+): (?:unexpected )?EOF`), phrase: fixed("the file ends early"), at: offsetGroup},
	{re: regexp.MustCompile(`reading at offset (\d+): flate: corrupt input`), phrase: fixed("compressed data is corrupt"), at: offsetGroup},
	{re: regexp.MustCompile(`reading at offset (\d+)`), phrase: fixed("it cannot be read there"), at: offsetGroup},
	{re: regexp.MustCompile(`(?s)malformed hex string (.) (.) (.*)`), phrase: fixed("a hex string holds a character that is not a hex digit"), at: hexStringAt},
	{re: regexp.MustCompile(`unexpected non-name key`), phrase: fixed("a dictionary has a key that is not a name")},
	{re: regexp.MustCompile(`unexpected delimiter '(.)'`), phrase: func(m []string) string { return fmt.Sprintf("an unexpected %s", quoteChar(m[1])) }},
	{re: regexp.MustCompile(`unexpected keyword "(.*)" parsing object`), phrase: fixed("an object holds an unexpected word")},
	{re: regexp.MustCompile(`invalid (?:escape sequence|octal escape)`), phrase: fixed("a string has an invalid escape")},
	{re: regexp.MustCompile(`malformed name`), phrase: fixed("a name is malformed")},
	{re: regexp.MustCompile(`invalid (?:integer|real)`), phrase: fixed("a number is malformed")},
	{re: regexp.MustCompile(`nesting exceeds maximum depth`), phrase: fixed("objects are nested too deeply")},
	{re: regexp.MustCompile(`missing endobj`), phrase: fixed("an object is not closed by endobj")},
	{re: regexp.MustCompile(`stream keyword not followed by newline`), phrase: fixed("a stream does not start on a new line")},
	{re: regexp.MustCompile(`loading (\d+) (\d+) R: found`), phrase: func(m []string) string {
		return fmt.Sprintf("object %s is not where the cross-reference table puts it", m[1])
	}, at: objectAt},
	{re: regexp.MustCompile(`cannot find object in stream|not an object stream|missing First|object stream`), phrase: fixed("an object stream is damaged")},
	{re: regexp.MustCompile(`^not a stream$`), phrase: fixed("an object that should be a stream is not one")},
	{re: regexp.MustCompile(`(?:unsupported|unknown) filter /?(\w+)`), phrase: func(m []string) string {
		return fmt.Sprintf("a stream is compressed with %s, which this reader does not support", m[1])
	}},
	{re: regexp.MustCompile(`flate: corrupt input|zlib: invalid|unexpected EOF`), phrase: fixed("compressed data is corrupt")},
	{re: regexp.MustCompile(`invalid header`), phrase: fixed("it does not start with %PDF- (is it a PDF?)"), at: func([]string, []byte) int64 { return 0 }},
	{re: regexp.MustCompile(`missing %%?EOF`), phrase: fixed("it has no %EOF at its end: it is cut short, or not a PDF"), at: endOfFile},
	{re: regexp.MustCompile(`startxref`), phrase: fixed("it has no startxref at its end: it is cut short"), at: endOfFile},
	{re: regexp.MustCompile(`cross-reference (?:table not found|\w+ \d+ is out of range)|xref|trailer`), phrase: fixed("its cross-reference table is missing or damaged")},
	{re: regexp.MustCompile(`ends inside a hex string`), phrase: fixed("an object stream ends inside a hex string")},
}

// describeDamage returns a library message in the user's terms: "the file
// is damaged at byte N: …" when the place is known, "the file is damaged:
// …" otherwise. file is the file's content, or nil.
func describeDamage(msg string, file []byte) string {
	msg = strings.ReplaceAll(msg, "%%", "%") // the library's unformatted "%%EOF"
	for _, r := range damageRules {
		m := r.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		if r.at != nil && file != nil {
			if at := r.at(m, file); at >= 0 {
				return fmt.Sprintf("the file is damaged at byte %d: %s", at, r.phrase(m))
			}
		}
		return "the file is damaged: " + r.phrase(m)
	}
	return "the file is damaged: " + plainWords(msg)
}

// describeContent is describeDamage for a page's content stream, whose
// offsets are not offsets of the file: it names no byte.
func describeContent(msg string) string {
	for _, r := range damageRules {
		if m := r.re.FindStringSubmatch(msg); m != nil {
			return r.phrase(m)
		}
	}
	return plainWords(msg)
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

func quoteChar(c string) string {
	if len(c) == 1 && c[0] > ' ' && c[0] < 0x7f {
		return "“" + c + "”"
	}
	return "character"
}

func offsetGroup(m []string, _ []byte) int64 {
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func endOfFile(_ []string, file []byte) int64 { return int64(len(file)) }

// hexStringAt finds the bad hex string from the rest of the read buffer
// the library quotes: the file holds those bytes right after the bad one.
func hexStringAt(m []string, file []byte) int64 {
	rest := m[3]
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

// objectAt finds where object "id gen" is defined in the file.
func objectAt(m []string, file []byte) int64 {
	re, err := regexp.Compile(`(?:^|[^0-9])` + m[1] + `\s+` + m[2] + `\s+obj\b`)
	if err != nil {
		return -1
	}
	loc := re.FindIndex(file)
	if loc == nil {
		return -1
	}
	if file[loc[0]] < '0' || file[loc[0]] > '9' {
		loc[0]++
	}
	return int64(loc[0])
}
