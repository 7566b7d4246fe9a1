package textproc

import (
	"bytes"
	"encoding/json"
	"io"
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

// WriteJSON writes v to w as one JSON value and a newline, as every JSON
// output of citelens is written: indented by indent (none when empty), HTML
// characters left alone so quoted text stays readable ("<", not
// "\u003c"), and passed through EscapeJSON.
func WriteJSON(w io.Writer, v any, indent string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(EscapeJSON(buf.Bytes()))
	return err
}
