package retrieve

import (
	"slices"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/internal/textproc"
)

func TestAliasesIn(t *testing.T) {
	t.Parallel()
	term := textproc.Term
	has := func(text, a, b string) bool {
		for _, p := range aliasesIn(text) {
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
	} {
		if !has(tt.text, tt.a, tt.b) {
			t.Errorf("%q: no alias %s -> %s in %v", tt.text, tt.a, tt.b, aliasesIn(tt.text))
		}
	}
	for _, text := range []string{
		"Compression is fast and memory is small.",
		// a verb's other form, and a name that is only a description
		"When a block is freed (or alloc'd) the tool records it.",
		"Call a function called free to release it.",
		"You may use it under version 3 (or, at your option, any later version).",
	} {
		if got := aliasesIn(text); got != nil {
			t.Errorf("%q: no alias named, got %v", text, got)
		}
	}
}

// An alias leads from the question's word to the name the documents use
// more: "Rijndael" reaches "AES", but "bzip2", used everywhere, does not
// reach the rarer "bunzip2" named beside it.
func TestAliasTowardsDocumentWords(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t, "manual.txt",
		"The winner was AES, also known as Rijndael, a block cipher.\n\n"+
			"AES has a block size of 16 octets.\n\n"+
			"AES keys are 128, 192 or 256 bits long.\n\n"+
			"bunzip2 (or bzip2 -d) decompresses all specified files.\n\n"+
			"bzip2 compresses files in blocks.\n\n"+
			"bzip2 is a resource hog.\n\n"+
			"bzip2 reads arguments from an environment variable.\n")
	r := New(lib)
	term := textproc.Term
	rk := &ranker{q: parseQuery("Is Rijndael patented, and is bzip2?")}
	found := []Alias{{Word: term("Rijndael"), Other: term("AES")}, {Word: term("bzip2"), Other: term("bunzip2")}}
	kept, add, err := r.towardsDocumentWords(rk, found, []docstore.DocID{docs[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Word != term("Rijndael") || !slices.Equal(add, []string{term("AES")}) {
		t.Errorf("kept %v adding %v, want Rijndael's alias alone, adding AES", kept, add)
	}
}
