package raidd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

// TestICLMetaPrompt: raidd-s-icl answers from raidd-s's chunks after a
// meta-prompt of the lessons it was given and those of its lessons file,
// newest last and at most engine.MaxLessons; raidd-s ignores lessons.
func TestICLMetaPrompt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.m.setWant(millSentence)
	given := []engine.Lesson{{Question: "Which station was wettest?", Answer: "Station 7.", Truth: "Station 12", Score: 0.1}}
	file := filepath.Join(t.TempDir(), "lessons.jsonl")
	lines := `{"question": "Who calibrated the gauges?", "answer": "A crew.", "ground_truth": "A crew of four", "score": 0.8}` + "\n\n" +
		`{"question": "When did the river rise?", "answer": "In May.", "ground_truth": "In May", "score": 1}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := engine.New(ICLName, f.env)
	var ev enginetest.Events
	ans, err := engine.Run(t.Context(), f.env, s, engine.Request{Question: "Which conflagration destroyed the mill?",
		Options: engine.Settings("lessons", file), Lessons: given}, ev.Emit)
	if err != nil || len(ans.Statements) == 0 || len(ans.Statements[0].Citations) == 0 || !strings.Contains(ans.Statements[0].Citations[0].Text, "Flames burned") {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	reqs := f.srv.ChatRequests()
	msgs := reqs[len(reqs)-1].Messages
	if len(msgs) != 3 || msgs[0].Role != "user" || msgs[1].Role != "assistant" {
		t.Fatalf("the answering request has %d messages; want the meta-prompt, its acknowledgement and the prompt", len(msgs))
	}
	meta := msgs[0].Content
	order := []string{"learn from your past answers", "Who calibrated the gauges?", "Score: 0.80", "When did the river rise?", "Which station was wettest?", "True answer: Station 12", "Score: 0.10"}
	at := 0
	for _, w := range order {
		i := strings.Index(meta[at:], w)
		if i < 0 {
			t.Fatalf("the meta-prompt lacks %q after offset %d:\n%s", w, at, meta)
		}
		at += i
	}
	if !strings.Contains(strings.Join(ev.Stages, "\n"), "learning in context from 3 graded earlier answers") {
		t.Errorf("stages %q", ev.Stages)
	}

	// raidd-s is given the same lessons and shows none.
	if _, _, err := f.ask(t, "raidd-s", "Which conflagration destroyed the mill?", nil); err != nil {
		t.Fatal(err)
	}
	s2, _ := engine.New("raidd-s", f.env)
	if _, err := engine.Run(t.Context(), f.env, s2, engine.Request{Question: "mill", Lessons: given}, nil); err != nil {
		t.Fatal(err)
	}
	reqs = f.srv.ChatRequests()
	if msgs := reqs[len(reqs)-1].Messages; len(msgs) != 1 {
		t.Errorf("raidd-s sent %d messages; lessons are raidd-s-icl's", len(msgs))
	}

	// More than MaxLessons: the newest are kept.
	var many []engine.Lesson
	for i := range engine.MaxLessons + 3 {
		many = append(many, engine.Lesson{Question: "Question number " + string(rune('A'+i)) + "?", Answer: "x", Truth: "y", Score: 0.5})
	}
	if _, err := engine.Run(t.Context(), f.env, s, engine.Request{Question: "mill", Lessons: many}, nil); err != nil {
		t.Fatal(err)
	}
	reqs = f.srv.ChatRequests()
	meta = reqs[len(reqs)-1].Messages[0].Content
	if strings.Contains(meta, "Question number A?") || !strings.Contains(meta, "Question number "+string(rune('A'+engine.MaxLessons+2))+"?") || strings.Count(meta, "Past question") != engine.MaxLessons {
		t.Errorf("meta-prompt of %d lessons:\n%s", len(many), meta)
	}
}

// TestICLLessonsFile: a lessons file that is not one, or a line that is
// not a graded answer, is refused with the line; no model is asked.
func TestICLLessonsFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	before := len(f.srv.ChatRequests())
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"question": "q", "answer": "a", "ground_truth": "t", "score": 0.5}`+"\n"+`{"question": "q", "score": 7}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{bad: "line 2 is not a graded answer", filepath.Join(dir, "none.jsonl"): "none.jsonl", dir: "not a regular file"} {
		_, _, err := f.ask(t, ICLName, "mill", engine.Settings("lessons", path))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("lessons %s: %v, want %q", path, err, want)
		}
	}
	if n := len(f.srv.ChatRequests()); n != before {
		t.Errorf("%d model requests for refused lessons", n-before)
	}
}

// TestGrade: the model's score of its answer, as models write it; a reply
// with none is asked again once, then ErrUngraded.
func TestGrade(t *testing.T) {
	t.Parallel()
	for reply, want := range map[string]float64{"0.7": 0.7, "Score: 7/10": 0.7, "<think>Close.</think>\n1": 1, "3 out of 4": 0.75, "0": 0} {
		if got, ok := parseScore(reply); !ok || got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%q: %v %v, want %v", reply, got, ok, want)
		}
	}
	for _, reply := range []string{"", "about right", "7", "-0.2", "1.5/1"} {
		if got, ok := parseScore(reply); ok {
			t.Errorf("%q read as %v", reply, got)
		}
	}
	f := newFixture(t)
	s, _ := engine.New(ICLName, f.env)
	g := s.(engine.Grader)
	ans := &engine.Answer{Statements: []citations.Statement{{Text: "The mill burned in 1911."}}}
	f.m.grades = []string{"I think it is good.", "Score: 0.9"}
	l, u, err := g.Grade(t.Context(), f.env, "When did the mill burn?", ans, []string{"1911", "in 1911"})
	if err != nil || l.Score != 0.9 || l.Answer != "The mill burned in 1911." || l.Truth != "1911 / in 1911" || u.LLMCalls != 2 {
		t.Errorf("grade %+v, usage %+v, %v", l, u, err)
	}
	f.m.grades = []string{"no idea"}
	if _, u, err := g.Grade(t.Context(), f.env, "q", ans, []string{"t"}); !errors.Is(err, engine.ErrUngraded) || u.LLMCalls != 2 {
		t.Errorf("ungradable: %v, usage %+v", err, u)
	}
}
