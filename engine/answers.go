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

// Recent reads up to n saved answers older than the one whose ID is
// before ("" for the newest), newest first, with the number of records
// that could not be read (skipped, not failing the rest) and whether
// older answers remain (see docstore.Library.RecentAnswers).
func Recent(lib *docstore.Library, before string, n int) (answers []*Answer, skipped int, more bool, err error) {
	recs, more, err := lib.RecentAnswers(before, n)
	if err != nil {
		return nil, 0, false, err
	}
	for _, r := range recs {
		var ans Answer
		if err := json.Unmarshal(r.Record, &ans); err != nil {
			skipped++
			continue
		}
		if ans.ID == "" {
			ans.ID = r.ID
		}
		answers = append(answers, &ans)
	}
	return answers, skipped, more, nil
}
