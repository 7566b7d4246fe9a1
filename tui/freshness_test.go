package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestOldAnswersAreNotNew is issue 32's: with 30 answers saved within
// the hour, the start shows the latest 20 and one question asked adds
// only its answer — the 10 older ones not loaded yet are history, not
// answers asked elsewhere. Answers really saved elsewhere afterwards
// show, each in its place.
func TestOldAnswersAreNotNew(t *testing.T) {
	declarationScript(t, -1)
	lib, _ := enginetest.Library(t, declaration)
	// Asked a second apart, the last ten minutes ago: what 30 runs of
	// citelens ask leave, within the hour the TUI looks back.
	base := time.Now().Add(-10*time.Minute).UnixMilli() - 30_000
	idAt := func(s float64) string { return fmt.Sprintf("%011x%04x", base+int64(s*1000), 0) }
	saveAnswersAt(t, lib, 30, func(i int) string { return idAt(float64(i)) })
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("question 29")
	s.ask(question)
	s.waitText("scripted · 3 statements")

	// Another process saves one answer asked between questions 25 and
	// 26, and one asked now.
	other, err := docstore.Open(lib.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	saveAnswer(t, other, idAt(25.5), "asked elsewhere between 25 and 26")
	saveAnswer(t, other, docstore.NewAnswerID(), "asked elsewhere just now")
	s.waitText("asked elsewhere just now")
	m := s.settleModel()
	for i := range 30 {
		if got, want := m.conv.Has(idAt(float64(i))), i >= 30-answerPage; got != want {
			t.Errorf("question %02d shown: %v, want %v", i, got, want)
		}
	}
	if !m.conv.Has(idAt(25.5)) {
		t.Error("the answer asked elsewhere between questions 25 and 26 is not shown")
	}
	// Its place is the conversation's business (see the conversation's
	// TestAddInPlace); here, that the latest are in view, the new one
	// under the answer asked here.
	v := ansi.Strip(s.view())
	if i, j := strings.Index(v, question), strings.Index(v, "asked elsewhere just now"); i < 0 || j < i {
		t.Errorf("the answer asked here and the one asked since are not in view, in order:\n%s", v)
	}
	if n := strings.Count(v, "· asked elsewhere"); n != 1 {
		t.Errorf("%d answers on screen marked asked elsewhere, want 1:\n%s", n, v)
	}
	s.finish()
}

// saveAnswersAt saves n answers of one statement each, oldest first,
// answer i under id(i) asking "question <i>".
func saveAnswersAt(t testing.TB, lib *docstore.Library, n int, id func(int) string) {
	t.Helper()
	for i := range n {
		saveAnswer(t, lib, id(i), fmt.Sprintf("question %02d", i))
	}
}

// saveAnswer saves an answer to question, of one statement quoting the
// library's first document, under id.
func saveAnswer(t testing.TB, lib *docstore.Library, id, question string) {
	t.Helper()
	docs, _ := lib.List()
	doc, err := lib.Document(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	st := citations.Statement{Text: "Quoted.", Citations: []citations.Span{citations.SpanOf(doc, 3, 3)}}
	citations.Verify(&st)
	a := &engine.Answer{ID: id, Question: question, Strategy: "extractive",
		Statements: []citations.Statement{st}, Docs: []citations.DocRef{{ID: doc.ID, Name: doc.Name}}}
	if err := engine.Save(lib, a); err != nil {
		t.Fatal(err)
	}
}
