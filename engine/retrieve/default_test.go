package retrieve

import (
	"slices"
	"testing"

	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/internal/textproc"
)

// "unless told otherwise" asks for a default: its words only frame the
// question, and a line that gives the question's word a value states one.
func TestDefaultFrameAndAssignment(t *testing.T) {
	t.Parallel()
	got := frameTerms("What compression level does bzfile() use unless told otherwise?")
	for _, w := range []string{"unless", "told", "otherwise"} {
		if !slices.Contains(got, textproc.Term(w)) {
			t.Errorf("frame terms %q: want %q, which only frames the question", got, w)
		}
	}
	if got := frameTerms("What happens without naming a library?"); len(got) != 1 {
		t.Errorf("frame terms %q: want only \"happens\"", got)
	}
	q := parseQuery("What compression level does bzfile() use unless told otherwise?")
	for text, want := range map[string]bool{
		`bzfile(description, open = "", compression = 9)`:    true,
		"MaxSessions=10 compression=yes":                     true,
		`gzfile(description, open = "", mode = "rb")`:        false,
		"if (compression == 9) stop()":                       false,
		"The compression level is chosen by the library.":    false,
		"x <= compression":                                   false,
		"compression_level = 6 sets the level for gzip only": false,
	} {
		if got := assignsQuestionTerm(q, text); got != want {
			t.Errorf("assignsQuestionTerm(%q) = %v, want %v", text, got, want)
		}
	}
}

// Asked for a default in other words, the usage line that gives the
// argument its value outranks the argument's description.
func TestDefaultFromUsageLine(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t, "refman.txt", `bzfile Compressed file connections

Usage

bzfile(description, open = "", compression = 9)

Arguments

compression   integer in 0-9: the amount of compression applied when writing.

The bzfile connection compresses what it writes.

Other things follow here.
`)
	ps, got := rankedFirst(t, lib, docs[0].ID, "What compression level does bzfile() use unless told otherwise?", 1)
	if got != `bzfile(description, open = "", compression = 9)` {
		t.Errorf("best: %q, want the usage line that gives the default", got)
	}
	if !ps[0].Scores.Answer {
		t.Error("the usage line states no default of the argument asked about")
	}
}
