package docstore

import (
	"fmt"
	"slices"
	"testing"
)

// TestRecentAnswers pages through saved answers newest first and finds
// those saved after a known one.
func TestRecentAnswers(t *testing.T) {
	t.Parallel()
	forBackends(t, testRecentAnswers)
}

func testRecentAnswers(t *testing.T, bk backend) {
	l := bk.library(t)
	var ids []string
	for i := range 7 {
		id := fmt.Sprintf("%011x%04x", 1_700_000_000_000+i, 0)
		ids = append(ids, id)
		if err := l.Answers().Save(id, []byte(`{"answer_id":"`+id+`","author":{"user":"u"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	before, more := "", true
	for pages := 0; more; pages++ {
		if pages > 4 {
			t.Fatal("paging never ends")
		}
		recs, m, err := l.Answers().Recent(before, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			got = append(got, r.ID)
			if string(r.Record) != `{"answer_id":"`+r.ID+`","author":{"user":"u"}}` {
				t.Errorf("record of %s: %s", r.ID, r.Record)
			}
		}
		before, more = recs[len(recs)-1].ID, m
	}
	want := slices.Clone(ids)
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Errorf("pages gave %v, want %v", got, want)
	}
	if recs, more, _ := l.Answers().Recent(ids[0], 3); len(recs) != 0 || more {
		t.Errorf("before the oldest: %v, %v", recs, more)
	}
	// A "before" that is no answer's ID (deleted meanwhile) still pages.
	if recs, _, _ := l.Answers().Recent(ids[3]+"x", 2); len(recs) != 2 || recs[0].ID != ids[3] {
		t.Errorf("before a missing ID: %v", recs)
	}
	newer, err := l.Answers().Newer(ids[4], 10)
	if err != nil || !slices.Equal(newer, ids[5:]) {
		t.Errorf("Newer = %v, %v; want %v", newer, err, ids[5:])
	}
	if newer, _ := l.Answers().Newer("", 2); !slices.Equal(newer, ids[:2]) {
		t.Errorf("Newer from the start = %v", newer)
	}
}
