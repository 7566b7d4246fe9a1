package retrieve

import (
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/internal/textproc"
)

// A question the passages answer in other words: the first pass is weak,
// and the word the best passages share joins the question; a question
// in the document's words is left alone.
func TestFeedbackOnlyWhenWeak(t *testing.T) {
	t.Parallel()
	const text = "Unfinished work can be saved with the stash command.\n\n" +
		"The stash command keeps changes aside while you fix a bug.\n\n" +
		"Later the stash command brings the changes back.\n\n" +
		"Branches hold commits. Tags name commits. Remotes hold branches.\n"
	lib, _ := librarytest.TextLibrary(t, "git.txt", text)
	r := New(lib)
	var added []string
	if _, err := r.Sentences(t.Context(), "How do I shelve unfinished work, then fix a bug?", Options{K: 3, Feedback: func(a []string) { added = a }}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(added, textproc.Term("stash")) {
		t.Errorf("weak first pass: added %v, want stash among them", added)
	}
	for _, w := range added {
		if !strings.Contains(text, w) {
			t.Errorf("added %q: the plan tells the words as the passages write them, not their stems", w)
		}
	}
	added = nil
	if _, err := r.Sentences(t.Context(), "Which command brings the work back?", Options{K: 3, Feedback: func(a []string) { added = a }}); err != nil {
		t.Fatal(err)
	}
	if added != nil {
		t.Errorf("strong first pass: added %v, want nothing", added)
	}
}

// The words feedback adds are told as the passages write them.
func TestFeedbackWordsAsWritten(t *testing.T) {
	t.Parallel()
	texts := []string{"Nothing here.", "The stash keeps changes aside; memory is freed."}
	terms := []string{textproc.Term("changes"), textproc.Term("memory"), "zzz"}
	if got, want := asWritten(terms, texts), []string{"changes", "memory", "zzz"}; !slices.Equal(got, want) {
		t.Errorf("asWritten(%q) = %q, want %q", terms, got, want)
	}
}
