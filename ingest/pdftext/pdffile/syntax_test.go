package pdffile

import (
	"testing"
)

// The lexer reads as the library's does, including where the library's
// would read forever.
func TestLexer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in       string
		final    bool
		allowEOF bool
		want     error
	}{
		{"<< /A [1 2 0 R] /B (a\\)b) /C <4142> /D 3.5 >> startxref ", true, false, nil},
		{"<< /A 1 >>", true, false, errEOF}, // the library reads on for "stream"
		{"<< /A 1 ", false, false, errTruncated},
		{"<< /A 1 ", true, false, errEOF},
		{"<< /A 1 ", true, true, nil}, // an object stream's last object: it ends there
		{"<< /A <4142", true, true, errEndless},
		{"<< /A <41 42 \n", true, true, errEndless},
		{"<< /A <4g> >>", true, true, errSyntax},
		{"<< /A (\\q) >>", true, false, errSyntax}, // the library refuses unknown escapes
		{"<< 1 2 >>", true, false, errSyntax},
		{"[1 >", true, true, errSyntax},
	} {
		_, _, err := newLexer([]byte(c.in), 0, c.final, c.allowEOF).object(0)
		if err != c.want {
			t.Errorf("%q (final %v, allowEOF %v): err = %v, want %v", c.in, c.final, c.allowEOF, err, c.want)
		}
	}
	v, end, err := newLexer([]byte("<< /Prev 123 /Size 5 >> startxref "), 100, true, false).object(0)
	d, _ := v.(*dict)
	if err != nil || d == nil || d.spans["Prev"] != [2]int64{103, 112} || end != 123 {
		t.Errorf("%v: end %d err %v", v, end, err)
	}
}

func TestOpenHexAtEnd(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"1 0 << >> <4142":    true,
		"1 0 << >> <41 42\n": true,
		"1 0 << >> <4142>":   false,
		"1 0 <<":             true, // a reader started at the second "<" reads a hex string
		"1 0 (a) \x05\x05":   false,
		"<":                  true,
		"0<X":                true, // a pair's first character, waiting for its second
		"<41<":               true,
		"<41 X \n":           true,
		"<4X":                false, // a pair read and refused
		"<41X2":              false,
	} {
		if got := openHexAtEnd([]byte(in)); got != want {
			t.Errorf("openHexAtEnd(%q) = %v", in, got)
		}
	}
}
