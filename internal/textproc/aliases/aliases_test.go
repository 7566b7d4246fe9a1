package aliases

import (
	"slices"
	"strings"
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
		{`"Licensor" shall mean the copyright owner or entity authorized by the copyright owner.`, "licensor", "owner"},
		{`“The Program” refers to any copyrightable work licensed under this License.`, "program", "copyrightable"},
		{`1.5. “Contributor Version” means the Covered Software of a Contributor.`, "contributor", "covered"},
		{`"Licensee" (or "Holder") shall mean an individual or Legal Entity exercising permissions.`, "licensee", "individual"},
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
		// capitals in parentheses that abbreviate nothing before them
		"Querying the Viewport Tree, 1185 R_INSTALL_TAR (INSTALL), 2160",
		// "means" that defines nothing quoted
		"This means any file can be decompressed in 2300k of memory.",
	} {
		if got := In(text); got != nil {
			t.Errorf("%q: no alias named, got %v", text, got)
		}
	}
}

// ungated is In without the cheap tests: what the patterns alone find.
func ungated(text string) [][2][]string {
	var out [][2][]string
	for _, p := range patterns {
		for _, pr := range p.pairs(text) {
			out = append(out, [2][]string{pr.a, pr.b})
		}
	}
	return out
}

// The cheap tests only skip work: In finds what the patterns alone find.
// (Checked on 139,704 lines of library-qa, licenses-qa and the seeds
// when they came in; go test -fuzz FuzzIn looks for a counterexample.)
func FuzzIn(f *testing.F) {
	for _, s := range []string{
		`Our capital expenditures ("capex") rose.`, "bzcat (or bzip2 -dc) runs.", "The Advanced Encryption Standard (AES) is.",
		"The design (also known as the RIJNDAEL cipher) won.", `Acme Inc. (the “Company”) and you.`, `par("font")`,
		"x (  the \"Y\")", "free cash flow (an \"FCF\") grew", "a list (a “List”)", "f(x) (The AES)", "a (\n\"b\")", "(", "root, also called superuser",
		`"Licensor" shall mean the copyright owner`, `“X” (or “Y”) refers to a thing`, `"a" means`, "R_INSTALL_TAR (INSTALL)", "Portable Document Format (PDF)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := In(text), ungated(text); !slices.EqualFunc(got, want, func(a, b [2][]string) bool {
			return slices.Equal(a[0], b[0]) && slices.Equal(a[1], b[1])
		}) {
			t.Errorf("%q: In %v, the patterns alone %v", text, got, want)
		}
	})
}

// A one-word name leads to the other name both ways; a definition's
// head leads to the term it defines, never the other way.
func TestLeads(t *testing.T) {
	t.Parallel()
	leads := func(text string) map[string]string {
		out := map[string]string{}
		Leads(text, func(w string, other []string) { out[w] = strings.Join(other, " ") })
		return out
	}
	term := textproc.Term
	got := leads("bzcat (or bzip2) decompresses to standard output.")
	if got[term("bzcat")] != term("bzip2") || got[term("bzip2")] != term("bzcat") {
		t.Errorf("bzcat (or bzip2): %v, want each to the other", got)
	}
	got = leads(`"Licensor" shall mean the copyright owner or entity authorized by the copyright owner.`)
	if got[term("copyright")] != term("licensor") || got[term("owner")] != term("licensor") {
		t.Errorf("Licensor's definition: %v, want copyright and owner to lead to licensor", got)
	}
	if _, ok := got[term("licensor")]; ok {
		t.Errorf("Licensor's definition: %v, want the defined term to lead nowhere", got)
	}
}
