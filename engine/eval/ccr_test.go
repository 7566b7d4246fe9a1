package eval

import (
	"testing"

	"github.com/citelens/citelens/citations"
)

// TestContextHit: the shown text holds the evidence when it overlaps
// every item (mode all) or one (mode any), in the same document, by name
// or ID; nothing shown or no evidence tells nothing.
func TestContextHit(t *testing.T) {
	t.Parallel()
	shown := []citations.Range{{Doc: "d1", Name: "a.txt", Start: 100, End: 200}, {Doc: "d2", Name: "b.txt", Start: 0, End: 50}}
	ev := func(doc string, s, e int) citations.Evidence { return citations.Evidence{Doc: doc, Start: s, End: e} }
	for _, c := range []struct {
		name    string
		g       citations.Gold
		hit, ok bool
	}{
		{"inside", citations.Gold{Evidence: []citations.Evidence{ev("a.txt", 120, 130)}}, true, true},
		{"by ID", citations.Gold{Evidence: []citations.Evidence{ev("d2", 40, 60)}}, true, true},
		{"touching is not overlapping", citations.Gold{Evidence: []citations.Evidence{ev("a.txt", 200, 210)}}, false, true},
		{"other document", citations.Gold{Evidence: []citations.Evidence{ev("b.txt", 120, 130)}}, false, true},
		{"all, one missing", citations.Gold{Evidence: []citations.Evidence{ev("a.txt", 120, 130), ev("a.txt", 300, 310)}}, false, true},
		{"any, one found", citations.Gold{Mode: citations.EvidenceAny, Evidence: []citations.Evidence{ev("a.txt", 300, 310), ev("b.txt", 0, 5)}}, true, true},
		{"no evidence", citations.Gold{}, false, false},
	} {
		hit, ok := citations.ContextHit(shown, c.g)
		if hit != c.hit || ok != c.ok {
			t.Errorf("%s: hit %v ok %v, want %v %v", c.name, hit, ok, c.hit, c.ok)
		}
	}
	if _, ok := citations.ContextHit(nil, citations.Gold{Evidence: []citations.Evidence{ev("a.txt", 1, 2)}}); ok {
		t.Error("nothing shown told something")
	}
}

// TestCCRSplit: CP-CCR and IP-CCR are the context hits of the correct and
// the incorrect predictions, correct by the judge where it judged and by
// answer_hit where not, and the report says which.
func TestCCRSplit(t *testing.T) {
	t.Parallel()
	hit, miss := &CCRScores{ContextHit: new(1.0)}, &CCRScores{ContextHit: new(0.0)}
	var s ccrSummary
	s.add(hit, nil, 1)  // correct by answer_hit
	s.add(miss, nil, 1) // correct
	s.add(hit, nil, 0)  // incorrect
	s.add(nil, nil, 1)  // no figure: not counted
	r := s.report()
	if r.CCRQuestions != 3 || r.CCR < 0.66 || r.CCR > 0.67 || r.CPQuestions != 2 || *r.CPCCR != 0.5 || r.IPQuestions != 1 || *r.IPCCR != 1 || r.CorrectBy != "answer_hit" {
		t.Errorf("report %+v", r)
	}
	var j ccrSummary
	j.add(hit, new(0.8), 0) // the judge's word over answer_hit
	j.add(miss, new(0.2), 1)
	r = j.report()
	if *r.CPCCR != 1 || *r.IPCCR != 0 || r.CorrectBy != "judged correctness ≥ 0.5" {
		t.Errorf("judged report %+v", r)
	}
	if (&ccrSummary{}).report() != nil {
		t.Error("a report of nothing")
	}
}
