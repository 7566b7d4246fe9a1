package docstore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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

// TestAnswerThreads gathers saved answers into threads — by the thread an
// answer records, by the question an older follow-up names, else one
// answer alone — lists them newest first, finds one by an ID prefix,
// and renames one, over every backend.
func TestAnswerThreads(t *testing.T) {
	t.Parallel()
	forBackends(t, testAnswerThreads)
}

func testAnswerThreads(t *testing.T, bk backend) {
	l := bk.library(t)
	id := func(i int) string { return fmt.Sprintf("%011x%04x", 1_700_000_000_000+i*1000, 0) }
	at := func(i int) string { return fmt.Sprintf("2023-11-14T22:%02d:00Z", 10+i) }
	save := func(i int, question, extra string) {
		t.Helper()
		rec := `{"answer_id":"` + id(i) + `","question":"` + question + `","created":"` + at(i) + `"` + extra + `}`
		if err := l.Answers().Save(id(i), []byte(rec)); err != nil {
			t.Fatal(err)
		}
	}
	long := "How do I draw a scatter plot with coloured points and a legend in R without ggplot?"
	save(0, long, "")
	save(1, "What is gnuplot?", "")
	save(2, "And in colour?", `,"thread":"`+id(0)+`","follow_up":{"after":["x"]}`)
	// Saved before threads were: its follow-up names the question.
	save(3, "Does it do 3D?", `,"follow_up":{"after":["What is gnuplot?"]}`)
	// A follow-up whose question no saved answer asked: a thread alone.
	save(4, "Why?", `,"follow_up":{"after":["gone"]}`)
	// One that names an answer of a thread joins the thread.
	save(5, "In 3D too?", `,"thread":"`+id(3)+`"`)

	list, err := l.Answers().Threads()
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id, name string
		answers  []string
	}
	var got []row
	for _, th := range list {
		got = append(got, row{th.ID, th.Name, th.Answers})
	}
	want := []row{
		{id(1), "What is gnuplot?", []string{id(1), id(3), id(5)}},
		{id(4), "Why?", []string{id(4)}},
		{id(0), "How do I draw a scatter plot with coloured points and a…", []string{id(0), id(2)}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("threads:\n got %v\nwant %v", got, want)
	}
	if th := list[0]; th.LastAnswer() != id(5) || th.First.Format("15:04") != "22:11" || th.Last.Format("15:04") != "22:15" {
		t.Errorf("thread %s: last answer %s, asked %v to %v", th.ID, th.LastAnswer(), th.First, th.Last)
	}

	if _, err := l.Answers().Thread(id(0)[:5]); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("a prefix of every ID: %v", err)
	}
	th, err := l.Answers().RenameThread(id(0)[:14], "  R \x1b[31mplots\n ")
	if err != nil || th.Name != "R ␛[31mplots" || !th.Named || th.ID != id(0) {
		t.Fatalf("rename: %+v, %v", th, err)
	}
	if th, err := l.Answers().Thread(id(0)); err != nil || th.Name != "R ␛[31mplots" || len(th.Answers) != 2 {
		t.Errorf("renamed thread read back: %+v, %v", th, err)
	}
	if _, err := l.Answers().RenameThread("nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename of no thread: %v", err)
	}
	if _, err := l.Answers().RenameThread(id(0), strings.Repeat("x", MaxThreadName+1)); err == nil {
		t.Errorf("a name too long was taken")
	}
	// A salvage keeps the name given.
	dst := openTestLibrary(t)
	if _, err := l.Salvage(t.Context(), dst, fixtureSplit, nil); err != nil {
		t.Fatal(err)
	}
	if th, err := dst.Answers().Thread(id(0)); err != nil || th.Name != "R ␛[31mplots" {
		t.Errorf("salvaged thread: %+v, %v", th, err)
	}
	if th, err := l.Answers().RenameThread(id(0), " "); err != nil || th.Named || th.Name != ThreadName(long) {
		t.Errorf("an empty name gives back the first question's: %+v, %v", th, err)
	}
	// The answers' records are as saved: an older citelens reads them.
	if _, rec, _ := l.Answers().Get(id(2)); !strings.Contains(string(rec), `"thread":"`+id(0)+`"`) {
		t.Errorf("record: %s", rec)
	}
}

// BenchmarkAnswerThreads lists the threads of 1,000 saved answers of
// about 4 KB each, one in three a follow-up: every record is read.
func BenchmarkAnswerThreads(b *testing.B) {
	l := openTestLibrary(b)
	body := strings.Repeat(`{"text":"A statement of some length that cites a passage.","citations":[]},`, 50)
	for i := range 1000 {
		id := fmt.Sprintf("%011x%04x", 1_700_000_000_000+i*1000, 0)
		extra := ""
		if i%3 != 0 {
			extra = fmt.Sprintf(`,"thread":"%011x%04x"`, 1_700_000_000_000+(i-i%3)*1000, 0)
		}
		rec := fmt.Sprintf(`{"answer_id":"%s","question":"question %d","created":"2023-11-14T22:10:%02dZ","statements":[%s{}]%s}`, id, i, i%60, body, extra)
		if err := l.Answers().Save(id, []byte(rec)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		list, err := l.Answers().Threads()
		if err != nil || len(list) != 334 {
			b.Fatalf("%d threads, %v", len(list), err)
		}
	}
}
