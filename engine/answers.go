package engine

import (
	"encoding/json"
	"fmt"

	"github.com/citelens/citelens/docstore"
)

// Save stores an answer in the library so it can be listed and exported.
func Save(lib *docstore.Library, ans *Answer) error {
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
