package reanchor

import (
	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
)

// Change is what became of one citation of a saved answer in the latest
// version of the document it cites.
type Change struct {
	// Statement and Citation index the answer's statement and that
	// statement's citation.
	Statement int `json:"statement"`
	Citation  int `json:"citation"`
	// From is the cited version, To the latest.
	From docstore.DocID `json:"from"`
	To   docstore.DocID `json:"to"`
	// Class and the new place: First..Last, Start..End and Page in To;
	// First is -1 when gone.
	Class      Class       `json:"class"`
	First      int         `json:"first_sentence"`
	Last       int         `json:"last_sentence"`
	Start      int         `json:"start"`
	End        int         `json:"end"`
	Page       int         `json:"page"`
	Similarity float64     `json:"similarity"`
	OldText    string      `json:"old_text"`
	NewText    string      `json:"new_text,omitempty"`
	Diff       []Op        `json:"diff,omitempty"`
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Pair is a cited document's latest version and the alignment of the
// cited version with it.
type Pair struct {
	To        docstore.DocID
	Alignment *Alignment
}

// Newer returns the latest version of doc and their alignment, or ok
// false when doc is its own latest version (or no longer known).
type Newer func(doc docstore.DocID) (p Pair, ok bool, err error)

// Answer re-anchors every citation of ans whose document has a newer
// version, in statement order. The answer itself is not touched: what
// the user saw stays as it was, and the changes are said beside it.
func Answer(ans *citations.Answer, newer Newer) ([]Change, error) {
	var out []Change
	for si, st := range ans.Statements {
		for ci, c := range st.Citations {
			p, ok, err := newer(c.Doc)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			r := p.Alignment.Citation(c.First, c.Last)
			ch := Change{Statement: si, Citation: ci, From: c.Doc, To: p.To,
				Class: r.Class, First: r.First, Last: r.Last, Start: r.Start, End: r.End,
				Page: r.Page, Similarity: r.Similarity, OldText: c.Text, Candidates: r.Candidates}
			if r.First >= 0 {
				ch.NewText = p.Alignment.new.span(r.First, r.Last)
				if r.Class == Changed {
					ch.Diff = Diff(c.Text, ch.NewText)
				}
			}
			out = append(out, ch)
		}
	}
	return out, nil
}

// Stale reports whether any change is more than a new place for the
// same text: the answer's evidence changed.
func Stale(changes []Change) bool {
	for _, c := range changes {
		if c.Class == Changed || c.Class == Gone {
			return true
		}
	}
	return false
}
