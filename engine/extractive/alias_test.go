package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

// A filing defines its abbreviation once and uses the long form after: an
// answer to a question in the abbreviation cites the long form's figures,
// reached through the alias stored when the filing was added, and says so
// in its plan and warnings, with the sentence that defines it.
func TestAnswerThroughStoredAlias(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "filing.txt",
		"Revenue grew by a tenth in 2024.\n\n"+
			"Our capital expenditures (\"capex\") are spent on new plants.\n\n"+
			"Capital expenditures were 7 million in 2024.\n\n"+
			"Capital expenditures will fall to 3 million in 2025.\n\n"+
			"The board met twice.\n")
	ans, err := engine.Run(t.Context(), &engine.Env{Library: lib}, Strategy{},
		engine.Request{Question: "What did the capex come to?", Docs: []docstore.DocID{docs[0].ID}, Options: engine.Settings("k", "3")}, func(engine.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range ans.Statements {
		texts = append(texts, s.Text)
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "7 million") }) {
		t.Errorf("statements %q: want the long form's figure", texts)
	}
	p, ok := ans.Plan.(engine.Plan)
	if !ok || !strings.Contains(p.Line(), `"capex" is also "capital expenditures" (filing.txt, p. 1, sentence 1)`) {
		t.Errorf("plan %#v: want the alias and the sentence that gives it", ans.Plan)
	}
	if !slices.ContainsFunc(ans.Warnings, func(w string) bool { return strings.Contains(w, "searched through an alias the document gives") }) {
		t.Errorf("warnings %q: want the answer to say it searched through an alias", ans.Warnings)
	}
}
