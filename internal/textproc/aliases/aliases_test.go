package aliases

import (
	"slices"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
)

func TestIn(t *testing.T) {
	t.Parallel()
	term := textproc.Term
	has := func(text, a, b string) bool {
		for _, p := range In(text) {
			if slices.Contains(p[0], term(a)) && slices.Contains(p[1], term(b)) {
				return true
			}
		}
		return false
	}
	for _, tt := range []struct{ text, a, b string }{
		{"bzcat (or bzip2 -dc) decompresses to standard output.", "bzcat", "bzip2"},
		{"The root account, also called superuser, may do anything.", "account", "superuser"},
		{"The design (also known as the RIJNDAEL cipher) won.", "design", "RIJNDAEL"},
		{"The Advanced Encryption Standard (AES) is a block cipher.", "encryption", "AES"},
		{"The base16 encoding, also known as “hexadecimal”, uses the digits.", "base16", "hexadecimal"},
		{`Our capital expenditures ("capex") rose in 2023.`, "expenditures", "capex"},
		{`This agreement is made by Acme Holdings Inc. (the “Company”) and you.`, "holdings", "company"},
	} {
		if !has(tt.text, tt.a, tt.b) {
			t.Errorf("%q: no alias %s -> %s in %v", tt.text, tt.a, tt.b, In(tt.text))
		}
	}
	for _, text := range []string{
		"Compression is fast and memory is small.",
		// a verb's other form, and a name that is only a description
		"When a block is freed (or alloc'd) the tool records it.",
		"Call a function called free to release it.",
		"You may use it under version 3 (or, at your option, any later version).",
		// a parenthesis without quotes defines nothing; a name is not its own alias
		"The totals (see below) are rounded.",
		`This Agreement (the "Agreement") binds both.`,
		`font for text. Defaults to par("font").`,
	} {
		if got := In(text); got != nil {
			t.Errorf("%q: no alias named, got %v", text, got)
		}
	}
}
