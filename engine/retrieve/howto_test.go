package retrieve

import (
	"github.com/citelens/citelens/docstore"
	"slices"
	"testing"

	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/internal/textproc"
)

// A how-to question wants the paragraph that leads in to a command over a
// sentence with the same words that shows none.
func TestHowToWantsTheCommand(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"How do I generate the locale data?":          true,
		"How can I unpack it?":                        true,
		"Which command opens it?":                     true,
		"What should a configuration file look like?": true,
		"How much memory does it need?":               false,
		"Why is the locale data compiled?":            false,
	} {
		if asksHow(q) != want {
			t.Errorf("asksHow(%q) = %v", q, !want)
		}
	}
	if got := frameTerms("What should a configuration file look like?"); !slices.Contains(got, textproc.Term("look")) {
		t.Errorf("frame terms %v: want \"look\", which only frames the question", got)
	}
	lib, docs := librarytest.TextLibrary(t, "manual.txt", `Locales

The locale data of a locale is generated at install time, a system step.

Generating

In order for the system to use a locale, its locale data must be generated. You need to configure it as:

$ dpkg-reconfigure locales

Other things follow here.
`)
	ps, got := rankedFirst(t, lib, docs[0].ID, "How do I generate the locale data?", 2)
	if got != "In order for the system to use a locale, its locale data must be generated." {
		t.Errorf("best: %q, want the paragraph that leads in to the command", got)
	}
	if !ps[0].Scores.Answer {
		t.Error("the lead-in's paragraph holds no answer of the kind asked")
	}
}

// A lead-in is ranked with the words of the command under it: the
// statement cites both, so "Use this command line:" over the command that
// names the question's words outranks a sentence that names them only in
// passing.
func TestLeadInTakesItsCommandsWords(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t, "manual.txt", `Quick start

If you normally run your program like this:

myprog arg1 arg2

Use this command line:

valgrind --leak-check=yes myprog arg1 arg2

Leak checking

To check a program for memory leaks, the leak check runs on the command line when the program exits.

Other things follow here.
`)
	_, got := rankedFirst(t, lib, docs[0].ID, "What command line do I use to check my program for memory leaks with valgrind?", 1)
	if got != "Use this command line:" {
		t.Errorf("best: %q, want the lead-in to the command", got)
	}
}

// A sentence that names a long option answers a how-to question the way
// a lead-in to a command does.
func TestHowToOption(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"If --leak-check=full is specified, Memcheck gives details.": true,
		"(--keep) keeps the input files.":                            true,
		"The pages 10--20 are blank.":                                false,
		"A rule -- like this one -- is prose.":                       false,
		"No option here.":                                            false,
	} {
		if got := namesOption(s); got != want {
			t.Errorf("namesOption(%q) = %v, want %v", s, got, want)
		}
	}
	lib, docs := librarytest.TextLibrary(t, "manual.txt", `Leak detection

Memcheck reports the leaked blocks where they were allocated in the leak summary.

If --leak-check=full is specified, Memcheck reports each leaked block where it was allocated.

Other things follow here.
`)
	ps, err := New(lib).Sentences(t.Context(), "How do I get Memcheck to report where each leaked block was allocated?", Options{K: 2})
	if err != nil || len(ps) == 0 {
		t.Fatal(err, len(ps))
	}
	d, err := lib.View(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if got := d.SentenceText(p.First); got == "If --leak-check=full is specified, Memcheck reports each leaked block where it was allocated." && !p.Scores.Answer {
			t.Error("the sentence naming the option holds no answer of the kind asked")
		}
	}
}

// rankedFirst ranks question's sentences in document id and returns the
// k passages and the text of the first one's first sentence.
func rankedFirst(t *testing.T, lib *docstore.Library, id docstore.DocID, question string, k int) ([]Passage, string) {
	t.Helper()
	ps, err := New(lib).Sentences(t.Context(), question, Options{K: k})
	if err != nil || len(ps) == 0 {
		t.Fatal(err, len(ps))
	}
	d, err := lib.View(id)
	if err != nil {
		t.Fatal(err)
	}
	return ps, d.SentenceText(ps[0].First)
}
