package retrieve

import (
	"testing"

	"github.com/citelens/citelens/engine/enginetest/librarytest"
)

// A question that asks for a limit or asks how fast or precise wants a
// quantity, and a quantity is a number that starts with its digits and is
// not one the question gives: a name with digits in it ("bzip2",
// "sha256") states none.
func TestQuantityAnswers(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]AnswerType{
		"What is the least memory bzip2 can decompress a file in?": CountAnswer,
		"What's the largest number of stack frames shown?":         CountAnswer,
		"How precise is the pause?":                                CountAnswer,
		"How much slower can it get?":                              CountAnswer,
		"What is the most important option?":                       AnyAnswer,
		"Which cipher is the most common?":                         AnyAnswer,
		"What are dangling objects?":                               AnyAnswer,
	} {
		if got := answerType(q); got != want {
			t.Errorf("answerType(%q) = %v, want %v", q, got, want)
		}
	}
	for _, question := range []string{"How much bigger does a small file get?", "How many digits are printed?"} {
		if got := frameTerms(question); len(got) != 1 {
			t.Errorf("frameTerms(%q) = %q: want \"much\" or \"many\", which only frame the quantity asked for", question, got)
		}
	}
	q := parseQuery("How much memory does bzip2 need with -9?")
	none := func(string) []string { return nil }
	for text, want := range map[string]bool{
		"bzip2 compresses large files in blocks.":                  false,
		"Use sha256 or sha512 for the digest.":                     false,
		"With -9 the compressor is slow.":                          false,
		"With -9 the compressor allocates around 7600k of memory.": true,
		"The ratio is in the region of 10:1.":                      true,
		"It grows by twenty bytes.":                                true,
	} {
		if got := analyseUnit(q, text, none, false).number; got != want {
			t.Errorf("%q states a quantity: %v, want %v", text, got, want)
		}
	}
}

// The quantity the question asks for lifts the sentence that states one
// over a sentence with more of the question's words that states none.
func TestQuantityOutranksNameWithDigits(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t, "manual.txt", `Memory management

lz4 files decompress in memory.

Files decompress in 2300k of memory.

Other things follow here.
`)
	_, got := rankedFirst(t, lib, docs[0].ID, "What is the least memory bzip2 can decompress a file in?", 1)
	if got != "Files decompress in 2300k of memory." {
		t.Errorf("best: %q, want the sentence that states the quantity", got)
	}
}
