package aliases

import (
	"slices"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
)

func TestParseIndexLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line  string
		want  IndexEntry
		valid bool
	}{
		{"Triple-DES . . . . . . . . . . . . . . . . . 32", IndexEntry{Entry: "Triple-DES", Pages: []string{"32"}}, true},
		{"AES. . . . . . . . . . . . . . 22", IndexEntry{Entry: "AES", Pages: []string{"22"}}, true},
		{"regular expression, 10, 267", IndexEntry{Entry: "regular expression", Pages: []string{"10", "267"}}, true},
		{"regexpr (grep), 266", IndexEntry{Entry: "regexpr (grep)", Pages: []string{"266"}}, true},
		{"front matter . . . . xii", IndexEntry{Entry: "front matter", Pages: []string{"xii"}}, true},
		{"Triple-DES, see DES3", IndexEntry{Entry: "Triple-DES", See: "DES3"}, true},
		{"Rijndael (see AES)", IndexEntry{Entry: "Rijndael", See: "AES"}, true},
		// a letter's heading, two columns run together, "see also", prose
		{"D", IndexEntry{}, false},
		{"! (Logic), 348 princomp, 1768", IndexEntry{}, false},
		{"cfb8_decrypt cfb8_encrypt . . . . . . . . . . 40 40", IndexEntry{}, false},
		{"ciphers, see also block ciphers", IndexEntry{}, false},
		{"The key is 32 bytes long, as the standard says, 12", IndexEntry{}, false},
		{"", IndexEntry{}, false},
	} {
		got, ok := ParseIndexLine(tt.line)
		if ok != tt.valid || ok && (got.Entry != tt.want.Entry || got.See != tt.want.See || !slices.Equal(got.Pages, tt.want.Pages)) {
			t.Errorf("ParseIndexLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.valid)
		}
	}
}

func TestIsIndexHeading(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"Index", "Concept Index", "Function and Concept Index", "A.3 Index", "Index of Functions", "INDEX"} {
		if !IsIndexHeading(h) {
			t.Errorf("%q is an index's heading", h)
		}
	}
	for _, h := range []string{"Indexing a table", "7.2 Column indexes and how to use them well", "Reference", ""} {
		if IsIndexHeading(h) {
			t.Errorf("%q is no index's heading", h)
		}
	}
}

func TestHeadingNameAndTopic(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]string{"7.2.9 DES3": "DES3", "A.1 Options": "Options", "12. Errors": "Errors",
		"grep Pattern Matching": "grep Pattern Matching", "DES3": "DES3", "3DES": "3DES"} {
		if got := HeadingName(h); got != want {
			t.Errorf("HeadingName(%q) = %q, want %q", h, got, want)
		}
	}
	if n, tp := SplitTopic("regexpr (grep)"); n != "regexpr" || tp != "grep" {
		t.Errorf("SplitTopic: %q, %q", n, tp)
	}
	if n, tp := SplitTopic("Triple-DES"); n != "Triple-DES" || tp != "" {
		t.Errorf("SplitTopic: %q, %q", n, tp)
	}
}

func TestIsIdentifier(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"des3_set_key", "struct des3_ctx", "read.table", "std::sort", "free()", "column", "regexpr", "askYesNo"} {
		if !IsIdentifier(e) {
			t.Errorf("%q is a program's name", e)
		}
	}
	for _, e := range []string{"Triple-DES", "3DES", "ABI compatibility", "e.g.", "regular expression", "Arcfour", "non-blocking", "URLs"} {
		if IsIdentifier(e) {
			t.Errorf("%q is words", e)
		}
	}
}

func TestSeeInText(t *testing.T) {
	t.Parallel()
	term := textproc.Term
	got := SeeInText("If one uses DES at all one should be using “triple DES”, see DES3 below.")
	if len(got) != 1 || !slices.Equal(got[0][0], []string{term("triple"), term("DES")}) || !slices.Equal(got[0][1], []string{term("DES3")}) {
		t.Errorf("SeeInText: %q", got)
	}
	for _, text := range []string{"See DES3 below.", "Use it (see below).", "The “ede” mode; see the text."} {
		if got := SeeInText(text); len(got) != 0 {
			t.Errorf("SeeInText(%q) = %q, want none", text, got)
		}
	}
}
