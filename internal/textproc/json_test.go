package textproc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWriteJSONEscapesC1AndBidi(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestWriteSafeJSON: strings decode to what Printable makes of them —
// keys too — so a consumer that decodes them (jq -r) gets no control
// character; everything else is as WriteJSON writes it.
func TestWriteSafeJSON(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"text \x1b[2J": "title \x1b]0;pwned\x07, clipboard \x1b]52;c;cm0=\x07, csi \u009b2J, rlo \u202egnp.exe, cr \r, <kept> & é\n\ttabbed",
		"n":            3.5,
		"list":         []string{"plain", "\u202e"},
	}
	var buf bytes.Buffer
	if err := WriteSafeJSON(&buf, in, "  "); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	for k, v := range back {
		if s, ok := v.(string); ok && s != Printable(in[strings.Replace(k, "␛", "\x1b", 1)].(string)) {
			t.Errorf("%q: %q is not Printable", k, s)
		}
		if strings.ContainsFunc(k+fmt.Sprint(v), Unsafe) {
			t.Errorf("%q: %q holds a control character", k, v)
		}
	}
	if back["n"] != 3.5 || fmt.Sprint(back["list"]) != "[plain ]" || !strings.Contains(buf.String(), "<kept> & é\\n\\ttabbed") {
		t.Errorf("changed beyond its strings: %s", buf.String())
	}
	var plain bytes.Buffer
	WriteJSON(&plain, map[string]string{"a": "b"}, "")
	if safe := SanitizeJSON(plain.Bytes()); !bytes.Equal(safe, plain.Bytes()) {
		t.Errorf("a clean value changed: %s", safe)
	}
}

// FuzzWriteSafeJSON: any string is written as valid JSON that decodes to
// Printable's version of it.
func FuzzWriteSafeJSON(f *testing.F) {
	f.Add("\x1b]0;t\x07 \u009b \u202e \r\"\\ é")
	f.Add("\x7f \f \b") // written raw (DEL) and as short escapes
	f.Add("\xff\xfe bad")
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		if err := WriteSafeJSON(&buf, map[string]string{s: s}, ""); err != nil {
			t.Fatal(err)
		}
		var back map[string]string
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatalf("%q does not decode: %v", buf.String(), err)
		}
		// encoding/json writes each invalid byte as U+FFFD
		var valid string
		enc, _ := json.Marshal(s)
		json.Unmarshal(enc, &valid)
		want := Printable(valid)
		if v, ok := back[want]; !ok || v != want {
			t.Fatalf("%q -> %q, want %q", s, back, want)
		}
	})
}
