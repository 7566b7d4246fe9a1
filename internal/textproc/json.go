package textproc

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"
)

// EscapeJSON rewrites encoded JSON so that no Unsafe character appears in
// it as itself: encoding/json already escapes C0 controls, but writes DEL,
// the C1 controls (U+009B acts as CSI on many terminals) and bidi overrides
// (U+202E) raw, so `citelens ask --json | less` or a log viewer could act on
// them. Each becomes its \uXXXX escape, which decodes to the same string, so
// the output stays lossless. Such characters can only occur inside JSON
// strings, which makes the rewrite safe on any valid encoding.
func EscapeJSON(b []byte) []byte {
	if !needsJSONEscape(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if Unsafe(r) && r != utf8.RuneError {
			out = append(out, '\\', 'u', hexDigit(r>>12), hexDigit(r>>8), hexDigit(r>>4), hexDigit(r))
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func needsJSONEscape(b []byte) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 0x7f {
			return true
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(b[i:])
			if Unsafe(r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

func hexDigit(r rune) byte { return "0123456789abcdef"[r&0xf] }

// WriteJSON writes v to w as one JSON value and a newline, exactly: its
// strings as they are, indented by indent (none when empty), HTML
// characters left alone so quoted text stays readable ("<", not
// "\u003c"), and passed through EscapeJSON, so that no control
// character is written as itself but each decodes back to itself. It is
// for a program that wants the bytes as stored (--raw, --exact): a
// consumer that decodes the strings (jq -r) gets the escape sequences
// back, and a terminal acts on them. WriteSafeJSON is the default.
func WriteJSON(w io.Writer, v any, indent string) error {
	b, err := encodeJSON(v, indent)
	if err != nil {
		return err
	}
	_, err = w.Write(EscapeJSON(b))
	return err
}

// WriteSafeJSON is WriteJSON with every string made Printable first, as
// every other output of citelens is: an escape sequence from a document
// or a model decodes to harmless text (ESC as ␛), a C1 control to U+FFFD,
// and a bidi override to nothing, so `... --json | jq -r` cannot set the
// terminal's title, write its clipboard or reorder what it shows.
func WriteSafeJSON(w io.Writer, v any, indent string) error {
	b, err := encodeJSON(v, indent)
	if err != nil {
		return err
	}
	_, err = w.Write(SafeJSON(b))
	return err
}

// SafeJSON returns the valid JSON b as WriteSafeJSON writes it: its
// strings Printable, nothing unsafe raw.
func SafeJSON(b []byte) []byte { return EscapeJSON(SanitizeJSON(b)) }

func encodeJSON(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// SanitizeJSON rewrites every string of the valid JSON b (keys too) as
// Printable makes it; b is returned as is when no string needs it.
func SanitizeJSON(b []byte) []byte {
	var out []byte // nil until a string changes
	last := 0      // b[:last] is in out
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j, suspect := i+1, false
		for ; j < len(b) && b[j] != '"'; j++ {
			switch {
			case b[j] == '\\':
				// A control (\u001b, \r, \b, \f) is what Printable
				// changes; newlines, tabs, quotes and backslashes it keeps.
				suspect = suspect || j+1 < len(b) && !strings.ContainsRune(`nt"\/`, rune(b[j+1]))
				j++
			case b[j] >= 0x7f: // DEL, which the encoder writes raw, or beyond ASCII
				suspect = true
			}
		}
		if suspect && j < len(b) {
			var s string
			if json.Unmarshal(b[i:j+1], &s) == nil {
				if p := Printable(s); p != s {
					enc, _ := encodeJSON(p, "")
					out = append(append(out, b[last:i]...), bytes.TrimSuffix(enc, []byte("\n"))...)
					last = j + 1
				}
			}
		}
		i = j
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}
