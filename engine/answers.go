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
	return lib.SaveAnswer(ans.ID, rec)
}

// Load reads a saved answer by ID or unique ID prefix.
func Load(lib *docstore.Library, ref string) (*Answer, error) {
	_, rec, err := lib.Answer(ref)
	if err != nil {
		return nil, err
	}
	var ans Answer
	if err := json.Unmarshal(rec, &ans); err != nil {
		return nil, fmt.Errorf("saved answer %s: %w", ref, docstore.ErrCorrupt)
	}
	return &ans, nil
}
