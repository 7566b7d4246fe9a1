package tui

import (
	"encoding/base64"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

// threadIDs are the saved answers of startThreads: two of one thread,
// the second following up on the first, and one of another.
var threadIDs = [3]string{"19b7c1a2b0000000", "19b7c1a2c0000000", "19b7c1a2d0000000"}

// startThreads starts the program over the declaration with three saved
// answers in two threads, asked 30, 20 and 10 minutes before the test's
// clock.
func startThreads(t *testing.T, w, h int) (*docstore.Library, *session) {
	t.Helper()
	lib, _ := enginetest.Library(t, declaration)
	opts := testOptions(t, lib, "no-color")
	now := opts.Now()
	docs, _ := lib.List()
	doc, err := lib.Document(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range []string{"What did the colonists object to?", "And the King’s judges?", "Who signed it?"} {
		st := citations.Statement{Text: "Quoted.", Citations: []citations.Span{citations.SpanOf(doc, 3+i, 3+i)}}
		citations.Verify(&st)
		a := &engine.Answer{ID: threadIDs[i], Question: q, Strategy: "extractive", Created: now.Add(time.Duration(i-3) * 10 * time.Minute),
			Statements: []citations.Statement{st}, Docs: []citations.DocRef{{ID: doc.ID, Name: doc.Name}}}
		if i == 1 {
			a.Thread = threadIDs[0]
			a.FollowUp = &citations.FollowUp{After: []string{"What did the colonists object to?"}}
		}
		if err := engine.Save(lib, a); err != nil {
			t.Fatal(err)
		}
	}
	return lib, start(t, opts, w, h)
}

// TestGoldenThreads opens the threads, filters them by a word of an
// answer's question, resumes one — the conversation shows it alone — and
// asks a follow-up, which is saved in the thread resumed.
func TestGoldenThreads(t *testing.T) {
	declarationScript(t, -1)
	lib, s := startThreads(t, 100, 30)
	s.waitText("Who signed it?")
	s.press("ctrl+t")
	s.waitText("Threads (2)")
	s.golden("list")
	s.press("esc", "esc") // closed; then from the answers, / finds answers by words
	s.waitGone("Threads (2)")
	s.press("/")
	s.waitText("Threads (2)")
	s.typeText("JUDGES")
	s.waitText("Threads (1 of 2)")
	s.golden("filtered")
	s.press("enter", "enter")
	s.waitText("Resumed “What did the colonists object to?”")
	s.waitGone("Who signed it?")
	s.golden("resumed")
	m := s.finishAfter(func() {
		s.ask("Who wrote it?")
		s.waitText("scripted · 3 statements")
	})
	if m.threads != nil {
		t.Error("the threads dialog is still open")
	}
	th, err := lib.Answers().Thread(threadIDs[0])
	if err != nil || len(th.Answers) != 3 {
		t.Fatalf("the resumed thread after a question: %+v, %v", th, err)
	}
	a, err := engine.Load(lib, th.LastAnswer())
	if err != nil || a.Question != "Who wrote it?" || a.Thread != threadIDs[0] || a.FollowUp == nil || a.FollowUp.After[len(a.FollowUp.After)-1] != "And the King’s judges?" {
		t.Errorf("the question asked after resuming: %+v, %v", a, err)
	}
}

// finishAfter runs do, then finishes the session.
func (s *session) finishAfter(do func()) Model {
	s.t.Helper()
	do()
	return s.finish()
}

// TestThreadsRenameExportCopy renames a thread in the dialog, copies it
// whole to the clipboard and exports it whole; and copies a whole answer
// from the answers.
func TestThreadsRenameExportCopy(t *testing.T) {
	lib, s := startThreads(t, 100, 30)
	s.waitText("Who signed it?")
	s.press("ctrl+t")
	s.waitText("Threads (2)")
	s.press("j", "r")
	s.waitText("name: What did the colonists object to?")
	s.press("ctrl+u")
	s.typeText("Grievances")
	s.press("enter")
	s.waitText("Renamed the thread “Grievances”.")
	s.waitText("Grievances")
	if th, err := lib.Answers().Thread(threadIDs[0]); err != nil || th.Name != "Grievances" {
		t.Errorf("renamed: %+v, %v", th, err)
	}

	s.press("y")
	s.waitText("Copied “Grievances”, 2 answers with their evidence")
	s.waitClipboard(func(text string) bool {
		return strings.HasPrefix(text, "# Grievances\n") && strings.Contains(text, "## And the King’s judges?") && strings.Contains(text, "[^2-1]:")
	})

	s.press("e")
	s.waitText("Export the thread as")
	s.press("enter")
	s.waitText("Exported to ")
	path := exportedPath(t, s)
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "# Grievances") || !strings.Contains(string(b), "## What did the colonists object to?") || strings.Contains(string(b), "Who signed it?") {
		t.Errorf("the thread's export %s: %v\n%s", path, err, b)
	}

	// A whole answer, from the answers.
	s.press("esc")
	s.press("Y")
	s.waitText("Copied the whole answer with its evidence")
	s.waitClipboard(func(text string) bool { return strings.HasPrefix(text, "# Who signed it?\n") })
	s.finish()
}

// waitClipboard waits for an OSC 52 sequence in the program's output
// whose text ok accepts.
func (s *session) waitClipboard(ok func(text string) bool) {
	s.t.Helper()
	var out []byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, _ := io.ReadAll(s.tm.Output())
		out = append(out, b...)
		for _, part := range strings.Split(string(out), "\x1b]52;c;")[1:] {
			enc, _, _ := strings.Cut(part, "\a")
			enc, _, _ = strings.Cut(enc, "\x1b")
			if text, err := base64.StdEncoding.DecodeString(enc); err == nil && ok(string(text)) {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no OSC 52 sequence with the text wanted in the output; screen:\n%s", ansi.Strip(s.view()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
