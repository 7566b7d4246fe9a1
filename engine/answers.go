package engine

import (
	"encoding/json"
	"fmt"

	"github.com/citelens/citelens/docstore"
)

// Save stores an answer in the library so it can be listed and exported.
// An answer that failed before it stated anything (a rejected key, a dead
// endpoint: partial, with no statement) is not saved: there is nothing in
// it to read or export, and the history would fill with failures.
func Save(lib *docstore.Library, ans *Answer) error {
	if ans.Partial && len(ans.Statements) == 0 {
		return nil
	}
	rec, err := json.Marshal(ans)
	if err != nil {
		return err
	}
	return lib.Answers().Save(ans.ID, rec)
}

// Load reads a saved answer by ID or unique ID prefix.
func Load(lib *docstore.Library, ref string) (*Answer, error) {
	_, rec, err := lib.Answers().Get(ref)
	if err != nil {
		return nil, err
	}
	var ans Answer
	if err := json.Unmarshal(rec, &ans); err != nil {
		return nil, fmt.Errorf("saved answer %s: %w", ref, docstore.ErrCorrupt)
	}
	return &ans, nil
}

// Page is a page of saved answers, newest first (Recent).
type Page struct {
	Answers []*Answer
	// Skipped counts records that could not be read (not failing the
	// rest); Oldest is the ID of the oldest record read, where the next
	// page starts; More says older answers remain.
	Skipped int
	Oldest  string
	More    bool
}

// Recent reads up to n saved answers older than the one whose ID is
// before ("" for the newest), newest first (see
// docstore.Answers.Recent).
func Recent(lib *docstore.Library, before string, n int) (Page, error) {
	recs, more, err := lib.Answers().Recent(before, n)
	if err != nil {
		return Page{}, err
	}
	p := Page{More: more}
	for _, r := range recs {
		p.Oldest = r.ID
		var ans Answer
		if err := json.Unmarshal(r.Record, &ans); err != nil {
			p.Skipped++
			continue
		}
		if ans.ID == "" {
			ans.ID = r.ID
		}
		p.Answers = append(p.Answers, &ans)
	}
	return p, nil
}
