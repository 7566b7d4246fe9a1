package textproc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriteJSONEscapesC1AndBidi(t *testing.T) {
	in := map[string]string{"text": "csi \u009b2J, rlo \u202egnp.exe, del \x7f, esc \x1b, <kept> & é"}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, in, "  "); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, raw := range []string{"\u009b", "\u202e", "\x7f", "\x1b"} {
		if strings.Contains(out, raw) {
			t.Errorf("%U is raw in %q", []rune(raw)[0], out)
		}
	}
	for _, esc := range []string{`\u009b`, `\u202e`, `\u007f`, `\u001b`, "<kept> & é"} {
		if !strings.Contains(out, esc) {
			t.Errorf("%q missing from %q", esc, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["text"] != in["text"] {
		t.Errorf("round trip: %q, %v", back["text"], err)
	}
}

func TestPasteable(t *testing.T) {
	in := "keep\ttabs\nand lines; drop \x1b]52;c;cm0gLXJmIH4=\x07 \u202eevil\u202c \u009bx"
	want := "keep\ttabs\nand lines; drop ]52;c;cm0gLXJmIH4= evil x"
	if got := Pasteable(in); got != want {
		t.Errorf("Pasteable = %q, want %q", got, want)
	}
}

// FuzzEscapeJSON checks that escaping keeps any encoded string decodable
// to itself and leaves no Unsafe character raw.
func FuzzEscapeJSON(f *testing.F) {
	f.Add("\u009b\u202e\x7f plain")
	f.Add("\xff\xfe bad")
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, []string{s}, ""); err != nil {
			t.Fatal(err)
		}
		for _, r := range buf.String() {
			if Unsafe(r) {
				t.Fatalf("%U raw in %q", r, buf.String())
			}
		}
		var back []string
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatalf("%q does not decode: %v", buf.String(), err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); utf8.ValidString(s) && back[0] != want {
			t.Fatalf("round trip %q -> %q", s, back[0])
		}
	})
}
