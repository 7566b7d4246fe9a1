package docstore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// holders returns the documents whose postings of term the index reads,
// over the whole library.
func holders(t *testing.T, l *Library, term string) map[DocID]int {
	t.Helper()
	out := map[DocID]int{}
	err := l.Index().Read(nil, FieldSentences, []string{term}, func(r *IndexReader) error {
		p := r.Postings(0)
		for p.Next() {
			id, err := r.DocID(p.Doc())
			if err != nil {
				return err
			}
			out[id] = p.Count()
		}
		return p.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// segmentCount is the number of active segments.
func segmentCount(t *testing.T, l *Library) int {
	t.Helper()
	n := 0
	err := l.store.View(func(tx storage.Tx) error {
		segs, err := readSegments(tx, segActive)
		n = len(segs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSegmentsMergeAndDropRemoved: documents written a transaction at a
// time make a segment each; they are merged mergeFactor at a time, with
// every posting kept; a removed document's postings stop counting at once
// and are dropped by the merge of their segment.
func TestSegmentsMergeAndDropRemoved(t *testing.T) {
	t.Parallel()
	forBackends(t, testSegmentsMergeAndDropRemoved)
}

func testSegmentsMergeAndDropRemoved(t *testing.T, bk backend) {
	l := bk.library(t)
	paths := make([]string, 2*mergeFactor+3)
	var ids []DocID
	for i := range paths {
		paths[i] = fmt.Sprintf("d%03d.txt", i)
		text := fmt.Sprintf("Document number%d talks about rivers and lakes.\n\nIts second paragraph mentions item%d and the common harbour.\n", i, i)
		info, _, err := writeText(l, paths[i], text)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	if n := segmentCount(t, l); n >= mergeFactor {
		t.Errorf("%d segments after %d adds: never merged", n, len(paths))
	}
	harbour := textproc.Terms("harbour")[0]
	if got := holders(t, l, harbour); len(got) != len(paths) {
		t.Fatalf("%d documents hold %q, want %d", len(got), harbour, len(paths))
	}
	for i, id := range ids {
		term := textproc.Terms(fmt.Sprintf("item%d", i))[0]
		if got := holders(t, l, term); len(got) != 1 || got[id] != 1 {
			t.Fatalf("item%d: %v", i, got)
		}
	}
	// Remove a third of the documents: gone from the postings at once.
	removed := ids[:len(ids)/3+1]
	if err := l.Remove(removed...); err != nil {
		t.Fatal(err)
	}
	got := holders(t, l, harbour)
	for _, id := range removed {
		if _, ok := got[id]; ok {
			t.Errorf("removed document %s still holds %q", id, harbour)
		}
	}
	if len(got) != len(ids)-len(removed) {
		t.Errorf("%d holders after removal, want %d", len(got), len(ids)-len(removed))
	}
	// The removal rewrote the segments it emptied by a third: none holds
	// a removed document's postings any more.
	err := l.store.View(func(tx storage.Tx) error {
		segs, err := readSegments(tx, segActive)
		for _, s := range segs {
			if 3*s.rec.dead >= len(s.rec.docs) && len(s.rec.docs) > 0 {
				t.Errorf("segment %d: %d of %d documents removed, not rewritten", s.id, s.rec.dead, len(s.rec.docs))
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := l.Index().Stats(nil, FieldSentences, []string{harbour})
	if err != nil || st.DF[0] > len(ids) || st.DF[0] < len(ids)-len(removed) {
		t.Errorf("df of %q = %v, %v", harbour, st.DF, err)
	}
}

// TestOverlappingRunsAreDamage: runs of one document's postings that
// overlap (only a damaged index has them) are ErrCorrupt, not postings
// out of order.
func TestOverlappingRunsAreDamage(t *testing.T) {
	t.Parallel()
	a := appendGroups(nil, 1, []groupPosting{{1, 1, 5}, {5, 1, 5}, {9, 2, 5}})
	b := appendGroups(nil, 1, []groupPosting{{3, 1, 4}, {7, 1, 4}})
	c := appendGroups(nil, 1, []groupPosting{{12, 1, 4}})
	p := &TermPostings{term: "harbour", read: -1}
	run := func(g group) PostingRun {
		return PostingRun{data: g.data, n: g.n, first: runStart(g.data), p: p}
	}
	var units []int
	each := func(unit, tf, length int) { units = append(units, unit) }
	if err := run(a[0]).Each(each); err != nil {
		t.Fatal(err)
	}
	if err := run(c[0]).Each(each); err != nil || !slices.Equal(units, []int{1, 5, 9, 12}) {
		t.Fatalf("units %v, %v", units, err)
	}
	if err := run(b[0]).Each(each); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "harbour") {
		t.Errorf("an overlapping run: %v", err)
	}
}
