package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
)

// TestScopeKeptFromOtherProcesses: once the user has narrowed the scope,
// a document another process adds is listed but left out of it, and the
// status line says so; with the whole library in scope it joins.
func TestScopeKeptFromOtherProcesses(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration, enginetest.WriteFile(t, "minutes.txt", "The meeting agreed on the budget. It adjourned at noon.\n"))
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("2/2 in scope")
	s.press("shift+tab", "*") // only the document under the cursor
	s.waitText("1/2 in scope")
	scope := s.settleModel().lib.Scope()

	other, err := docstore.Open(lib.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, _, err := ingest.New(other, nil).Add(t.Context(), enginetest.WriteFile(t, "harbour.txt", "Boats sail across the harbour. The harbour is quiet at night.\n"), nil); err != nil {
		t.Fatal(err)
	}
	s.waitText("harbour.txt")
	s.waitText("1/3 in scope")
	s.waitText("left out of the scope you chose: harbour.txt")
	if got := s.settleModel().lib.Scope(); !sameScope(got, scope) {
		t.Errorf("the scope went from %v to %v", scope, got)
	}
	// The whole library in scope again: what is added next joins it.
	s.press("*")
	s.waitText("3/3 in scope")
	if _, _, err := ingest.New(other, nil).Add(t.Context(), enginetest.WriteFile(t, "tower.txt", "Clocks tick in the tower.\n"), nil); err != nil {
		t.Fatal(err)
	}
	s.waitText("4/4 in scope")
	s.finish()
}

// TestAnswerAskedBeforeTheNewestShows: an answer another process asked
// before the newest one shown here, and saved after it, shows without a
// question asked here.
func TestAnswerAskedBeforeTheNewestShows(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	saveAnswers(t, lib, 1) // the newest shown at start: answerID(0)
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("question 00")
	other, err := docstore.Open(lib.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// Asked a minute before, saved now.
	docs, _ := other.List()
	doc, _ := other.Document(docs[0].ID)
	st := citations.Statement{Text: "Quoted.", Citations: []citations.Span{citations.SpanOf(doc, 3, 3)}}
	a := &engine.Answer{ID: answerIDAt(-60_000), Question: "asked a minute before", Strategy: "extractive",
		Statements: []citations.Statement{st}, Docs: []citations.DocRef{{ID: doc.ID, Name: doc.Name}}}
	if err := engine.Save(other, a); err != nil {
		t.Fatal(err)
	}
	s.waitText("asked a minute before")
	if v := ansi.Strip(s.view()); strings.Count(v, "question 00") != 1 {
		t.Errorf("an answer shown twice:\n%s", v)
	}
	s.finish()
}

// answerIDAt is the ID of an answer asked ms milliseconds from
// answerID(0).
func answerIDAt(ms int64) string { return fmt.Sprintf("%011x%04x", 1_700_000_000_000+ms, 1) }
