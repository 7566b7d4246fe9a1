package extractive

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

// A statement is the passage a reader needs: the lead-in with the command
// under it, the option with its default, and nothing unrelated after.
func TestStatementTakesWhatItIntroduces(t *testing.T) {
	t.Parallel()
	const manual = `Archives

To make a compressed archive of a particular version of the project, run the following:

$ git archive -o latest.tar.gz HEAD

Unrelated things happen in the next paragraph. Nobody needs them.

Queues

This option sets the size of the queue of freed blocks. The default value is twenty million bytes. Blocks leave the queue in order.
`
	lib, docs := enginetest.TextLibrary(t, "manual.txt", manual)
	ask := func(q string) string {
		ans, err := engine.Run(t.Context(), &engine.Env{Library: lib}, Strategy{},
			engine.Request{Question: q, Docs: []docstore.DocID{docs[0].ID}, Options: engine.Settings("k", "1")}, func(engine.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		if len(ans.Statements) == 0 {
			t.Fatalf("%q: no statement", q)
		}
		return ans.Statements[0].Text
	}
	if got := ask("How do I make a compressed archive of a particular version?"); !strings.Contains(got, "git archive -o") || strings.Contains(got, "Unrelated") {
		t.Errorf("lead-in: %q, want the command under it and nothing after", got)
	}
	if got := ask("What size is the queue of freed blocks?"); !strings.Contains(got, "twenty million bytes") || strings.Contains(got, "in order") {
		t.Errorf("option: %q, want its default and nothing after", got)
	}
}

func TestIntroducesCompletesRefersBack(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"It can be mounted as follows:":           true,
		"The following reconfigure the timezone.": true,
		"start Valgrind like this:":               true,
		"Compression is fast.":                    false,
	} {
		if introduces(s) != want {
			t.Errorf("introduces(%q) = %v", s, !want)
		}
	}
	if !completes("Valid values are 1...22 with default 7.") || completes("Blocks leave the queue in order.") {
		t.Error("completes: a default or limit, nothing else")
	}
	if !refersBack("It is controlled by FC_DEBUG.") || refersBack("Italy is a country.") {
		t.Error("refersBack: a pronoun as a word, not a prefix")
	}
}
