package extractive

import (
	"slices"
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

// A lead-in takes the items under it — steps, options, commands — but a
// series of clauses that each end in ":" (a prose list such as the
// Declaration's grievances) stays one clause per statement.
func TestLeadInTakesItemsNotSiblingClauses(t *testing.T) {
	t.Parallel()
	const text = `Grievances

He has refused his Assent to Laws, the most wholesome and necessary for the public good:

For cutting off our Trade with all parts of the world:

For imposing Taxes on us without our Consent:

For depriving us in many cases, of the benefits of Trial by Jury:

Installing

To install the package on a fresh machine, do this:

1. Update the package lists.

2. Install the package with apt.

Options

The compressor takes these flags:

-k, --keep keep the input files

-s, --small reduce memory usage

An unrelated sentence ends the section. Nothing else follows it.
`
	lib, docs := enginetest.TextLibrary(t, "mixed.txt", text)
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
	if got := ask("imposing taxes without consent"); strings.Contains(got, "Trial by Jury") || !strings.Contains(got, "Taxes") {
		t.Errorf("clause series: %q, want the one clause alone", got)
	}
	if got := ask("How do I install the package on a fresh machine?"); !strings.Contains(got, "Update the package lists") || !strings.Contains(got, "Install the package with apt") {
		t.Errorf("steps: %q, want both numbered steps", got)
	}
	if got := ask("Which flags does the compressor take?"); !strings.Contains(got, "--keep") || !strings.Contains(got, "--small") || strings.Contains(got, "unrelated") {
		t.Errorf("options: %q, want both options and nothing after", got)
	}
}

func TestItemText(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"1. Update the package lists.":                  true,
		"(b) the second case":                           true,
		"-k, --keep keep the input files":               true,
		"systemctl restart nginx":                       true,
		"Debian GNU/Linux":                              true,
		"For imposing Taxes on us without our Consent:": false,
		"He has kept among us Standing Armies.":         false,
		"This sentence stands on its own and goes on without any closing mark at all": false,
	} {
		if itemText(s) != want {
			t.Errorf("itemText(%q) = %v", s, !want)
		}
	}
}

// A description in a list of options is cited with the option it
// describes.
func TestDescriptionTakesItsOption(t *testing.T) {
	t.Parallel()
	const text = `Options

-c --stdout

Compress or decompress to standard output.

-k --keep

Keep (don't delete) input files during compression or decompression.

Memory

Larger block sizes give rapidly diminishing returns. Most files gain little.
`
	lib, docs := enginetest.TextLibrary(t, "opts.txt", text)
	ans, err := engine.Run(t.Context(), &engine.Env{Library: lib}, Strategy{},
		engine.Request{Question: "How do I stop it from deleting the input files?", Docs: []docstore.DocID{docs[0].ID}, Options: engine.Settings("k", "1")}, func(engine.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) == 0 || !strings.Contains(ans.Statements[0].Text, "--keep") || strings.Contains(ans.Statements[0].Text, "stdout") {
		t.Errorf("got %+v, want the description with its option line and nothing before", ans.Statements)
	}
	for s, want := range map[string]bool{"-k --keep": true, "--freelist-vol=<number> [default: 20000000]": true, "- a bullet.": false, "Keep input files.": false} {
		if optionLine(s) != want {
			t.Errorf("optionLine(%q) = %v", s, !want)
		}
	}
}

// A term standing alone, as a glossary gives it, is cited with its
// definition and what refers back to it.
func TestTermTakesItsDefinition(t *testing.T) {
	t.Parallel()
	const text = `Glossary

commit object

An object which contains the information about a particular revision.

dangling object

An unreachable object which is not reachable even from other unreachable objects. This means nothing refers to it.

detached HEAD

Normally the HEAD stores the name of a branch.
`
	lib, docs := enginetest.TextLibrary(t, "glossary.txt", text)
	ans, err := engine.Run(t.Context(), &engine.Env{Library: lib}, Strategy{},
		engine.Request{Question: "dangling object", Docs: []docstore.DocID{docs[0].ID}, Options: engine.Settings("k", "1")}, func(engine.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) == 0 {
		t.Fatal("no statement")
	}
	if got := ans.Statements[0].Text; !strings.Contains(got, "not reachable") || !strings.Contains(got, "nothing refers") || strings.Contains(got, "HEAD") {
		t.Errorf("got %q, want the term with its definition and nothing after", got)
	}
}

// A statement takes what its sentence leaves to its neighbours: the
// sentence after it that goes on about what it names, the sentences
// before a short one or a definite description, the example command
// under a paragraph that names it, and the command after a bare lead-in.
func TestStatementTakesItsNeighbours(t *testing.T) {
	t.Parallel()
	const manual = `Debugging Applications

To help diagnose font problems, the library is built with internal debugging left enabled. It is controlled by means of the FC_DEBUG environment variable.

Tweaked mode

XEX-based tweaked mode (XTS) is a block mode that encrypts partial blocks. The most common usage is for disk encryption. Data is not authenticated.

Stashing

While you are in the middle of working on something complicated, you find a bug. You can use git-stash(1) to save the current state of your work.

$ git stash push -m "work in progress"

Running under the checker

If you normally run your program like this:

myprog arg1 arg2

Use this command line:

valgrind --leak-check=yes myprog arg1 arg2

The checker is the default tool.

Locales

In order for the system to use a locale, its locale data must be compiled. The package comes with none. You need to configure it as:

$ dpkg-reconfigure locales

Options

digits: controls the number of significant digits to print. It is a suggestion only. Valid values are 1...22 with default 7.
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
	for q, want := range map[string]string{
		"How do I diagnose font problems with debugging?":     "FC_DEBUG",
		"Which mode is for disk encryption usage?":            "XTS",
		"How do I save the state of my work with git-stash?":  "git stash push",
		"How do I normally run my program under the checker?": "valgrind --leak-check=yes",
		"Why must the system compile locale data?":            "dpkg-reconfigure locales",
		"What controls the significant digits printed?":       "default 7",
	} {
		if got := ask(q); !strings.Contains(got, want) {
			t.Errorf("%q: %q, want it to hold %q", q, got, want)
		}
	}
}

// A sentence announcing what follows with prose after it, not a list,
// takes the next sentence of its paragraph.
func TestAnnouncementTakesWhatFollows(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "manual.txt", `Extendable output

To get a SHAKE256 digest, the following function is used instead of the plain one. For an output size of 32, security is equivalent to SHA3-256. Nothing else matters here.
`)
	d, err := lib.View(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for j := range d.NumSentences() {
		if strings.HasPrefix(d.SentenceText(j), "To get") {
			i = j
		}
	}
	if i < 0 {
		t.Fatal("no announcing sentence")
	}
	g := passageOf(d, group{doc: d.ID(), first: i, last: i})
	if g.first != i || g.last != i+1 {
		t.Errorf("passage %d-%d, want %d-%d: the announcement and the sentence after it", g.first, g.last, i, i+1)
	}
}

// A step of a procedure takes the steps before it.
func TestStepTakesTheStepsBefore(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "manual.txt", `Debugging

• Crash-first approach:

– Update the limits file to include the following:

* soft core unlimited

– Type "ulimit -c unlimited" to the shell prompt.

– Crash the program to produce a core dump file.
`)
	d, err := lib.View(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for j := range d.NumSentences() {
		if strings.HasPrefix(d.SentenceText(j), "– Crash") {
			i = j
		}
	}
	if i < 0 {
		t.Fatal("no last step")
	}
	g := passageOf(d, group{doc: d.ID(), first: i, last: i})
	if got := d.Slice(int(d.Sentence(g.first).Start), int(d.Sentence(g.last).End)); !strings.Contains(got, "soft core unlimited") {
		t.Errorf("passage %q: want the steps before the last", got)
	}
	if step("-k --keep") || step("• The archive uses .txz.") || !step("– Type it.") {
		t.Error("step: a dash or bullet and an instruction")
	}
}

// A word cut at a line's end is finished past the blank line the
// extraction put between its halves.
func TestCutWordIsFinished(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "manual.txt", `Heuristics

The set all activates every heuristic. It is equivalent to --leak-check-

heuristics=stdstring,length64.

Other things follow.
`)
	d, err := lib.View(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for j := range d.NumSentences() {
		if strings.HasPrefix(d.SentenceText(j), "It is equivalent") {
			i = j
		}
	}
	if i < 0 {
		t.Fatal("no cut sentence")
	}
	gs := []group{{doc: d.ID(), first: i, last: i}}
	if err := complete(func(docstore.DocID) (*docstore.View, error) { return d, nil }, gs); err != nil {
		t.Fatal(err)
	}
	if got := d.Slice(int(d.Sentence(gs[0].first).Start), int(d.Sentence(gs[0].last).End)); !strings.Contains(got, "stdstring") || strings.Contains(got, "Other") {
		t.Errorf("completed %q: want the cut word finished and nothing after", got)
	}
	if cutWord("a well-", "Known thing") || cutWord("a range 1 -", "two") || !cutWord("year-on-", "year growth") {
		t.Error("cutWord: a letter and a hyphen at the end, lower case after")
	}
}

// An answer whose search went beyond the question's words says so in
// plain words, in its warnings and in its plan.
func TestAnswerSaysItSearchedFurther(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "git.txt",
		"Unfinished work can be saved with the stash command.\n\n"+
			"The stash command keeps work aside while you fix a bug.\n\n"+
			"Later the stash command brings the work back.\n\n"+
			"Branches hold commits. Tags name commits. Remotes hold branches.\n")
	ans, err := engine.Run(t.Context(), &engine.Env{Library: lib}, Strategy{},
		engine.Request{Question: "How do I shelve unfinished work, then fix a bug?", Docs: []docstore.DocID{docs[0].ID}, Options: engine.Settings("k", "2")}, func(engine.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := ans.Plan.(engine.Plan)
	if !ok || !strings.Contains(p.Line(), "also searched for words the best ones share: ") || !strings.Contains(p.Line(), "stash") {
		t.Errorf("plan %#v: want it to say which words the best passages added", ans.Plan)
	}
	if !slices.ContainsFunc(ans.Warnings, func(w string) bool { return strings.Contains(w, "also searched for words") }) {
		t.Errorf("warnings %q: want the answer to say it searched further", ans.Warnings)
	}
	if got := (searchPlan{Aliases: []string{`"rijndael" is also "aes" (nettle.pdf, p. 20, sentence 830)`}}).Line(); !strings.Contains(got, "searched through aliases the documents give: \"rijndael\" is also \"aes\"") {
		t.Errorf("alias plan line %q", got)
	}
}
