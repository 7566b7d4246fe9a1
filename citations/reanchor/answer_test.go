package reanchor

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
)

// An answer's citations of a document with a newer version are carried
// over one by one; citations of other documents are left alone, and the
// answer is not touched.
func TestAnswer(t *testing.T) {
	old := version(contract)
	nv := version(strings.Replace(contract, "within 30 days of the Order", "within 45 days of the Order", 1))
	a := Align(old, nv)
	span := func(doc docstore.DocID, v *Version, prefix string) citations.Span {
		i := find(t, v, prefix)
		s := v.Sentences[i]
		return citations.Span{Doc: doc, First: i, Last: i, Start: s.Start, End: s.End, Text: v.text(i)}
	}
	ans := &citations.Answer{Statements: []citations.Statement{
		{Text: "Goods come in 30 days.", Citations: []citations.Span{span("v1", old, "The Supplier shall deliver"), span("other", old, "Risk passes")}},
		{Text: "Payment is due in thirty days.", Citations: []citations.Span{span("v1", old, "Payment is due")}},
	}}
	before := ans.Statements[0].Citations[0]
	changes, err := Answer(ans, func(doc docstore.DocID) (Pair, bool, error) {
		if doc != "v1" {
			return Pair{}, false, nil
		}
		return Pair{To: "v2", Alignment: a}, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 {
		t.Fatalf("%d changes, want 2: %+v", len(changes), changes)
	}
	c := changes[0]
	if c.Class != Changed || c.Statement != 0 || c.Citation != 0 || c.From != "v1" || c.To != "v2" || !strings.Contains(c.NewText, "45 days") {
		t.Errorf("first change %+v", c)
	}
	if len(c.Diff) == 0 {
		t.Error("a changed citation has no difference to show")
	}
	if changes[1].Class != Unchanged || changes[1].Statement != 1 || nv.Text[changes[1].Start:changes[1].End] != changes[1].OldText {
		t.Errorf("second change %+v", changes[1])
	}
	if !Stale(changes) || Stale(changes[1:]) {
		t.Error("Stale: a changed citation makes an answer stale, an unchanged one does not")
	}
	if ans.Statements[0].Citations[0] != before {
		t.Error("the answer was rewritten")
	}
}
