package raidd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/llm"
)

// RAIDD-S ICL (section 2.2, Figure 3): the model as an optimiser in a
// feedback loop. It answers as raidd-s does, from the chunks whose
// summaries match the question, but its prompt is preceded by a
// meta-prompt: a task description and solution-score pairs — earlier
// questions, its answers to them, the true answers, and the score from 0
// to 1 it gave each of its answers against the truth
// (engine.LessonMessages). The pairs come from an evaluation, which
// grades each answer with the model (Grade) and hands the lessons to the
// questions after it, or from a file of them (option lessons), for
// asking outside an evaluation.

// ICLName is the in-context learning variant's name.
const ICLName = "raidd-s-icl"

// maxLessonsFile bounds a lessons file: lessons beyond the newest
// engine.MaxLessons are not read into a prompt anyway.
const maxLessonsFile = 4 << 20

// icl is the registered raidd-s-icl: raidd-s's answer, and Grade.
type icl struct{ engine.Strategy }

var _ engine.Grader = icl{}

// iclOptions are raidd-s's options and the lessons file.
var iclOptions = append(append(engine.Options{}, options...),
	engine.Option{Name: "lessons", Kind: engine.Text, Help: "a JSON Lines file of graded earlier answers ({\"question\", \"answer\", \"ground_truth\", \"score\"}) to learn from; eval grades and passes its own"})

// iclVariant is RAIDD-S ICL as a variant: raidd-s's kinds of unit.
var iclVariant = Variant{ICLName, []docstore.DerivedKind{docstore.DerivedSummary},
	"RAIDD-S ICL: raidd-s, answered after a meta-prompt of earlier answers with their true answers and the scores the model gave them (the authors' in-context learning loop)",
	"As raidd-s, and the model first sees how its earlier answers scored (in an evaluation, or from a file of graded answers)."}

func init() {
	v := iclVariant
	engine.Register(engine.Info{Strategy: icl{engine.Define(v.Name, iclOptions, v.answer)}, Description: v.Description, Purpose: v.Purpose, NeedsLLM: true, Preparer: preparer{}})
}

// readLessons reads a lessons file: a JSON object a line, blank lines
// skipped; a line that is not a lesson is an error naming it.
func readLessons(ctx context.Context, path string) ([]engine.Lesson, error) {
	raw, err := ingest.ReadRegular(ctx, path, maxLessonsFile)
	if err != nil {
		return nil, fix.With(err, "The lessons option names a JSON Lines file of graded answers.")
	}
	var out []engine.Lesson
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), maxLessonsFile)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l engine.Lesson
		if err := json.Unmarshal(line, &l); err != nil || l.Question == "" || l.Score < 0 || l.Score > 1 {
			return nil, fix.With(fmt.Errorf("%s line %d is not a graded answer", path, n),
				`Write one {"question": …, "answer": …, "ground_truth": …, "score": 0 to 1} a line.`)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// gradePrompt asks the model to score its own answer against the truth,
// as the authors' loop has it assign "a self-score ranging from 0 to 1".
const gradePrompt = `Score how well an answer to a question agrees with the true answer, from 0 (wrong, or unrelated) to 1 (correct and complete). Judge the meaning, not the wording.

Question: %s

True answer: %s

Answer: %s

Reply with the score alone: a number from 0 to 1.`

// scoreRE finds the score in a grading reply: the first number, possibly
// "out of" or "/" a scale.
var scoreRE = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s*(?:/|out of)?\s*(\d+)?`)

// parseScore reads a grading reply's score, 0 to 1 ("0.7", "Score: 7/10").
func parseScore(reply string) (float64, bool) {
	reply, _, _ = llm.SplitReasoning(reply)
	m := scoreRE.FindStringSubmatch(reply)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	if m[2] != "" {
		scale, err := strconv.ParseFloat(m[2], 64)
		if err != nil || scale <= 0 {
			return 0, false
		}
		v /= scale
	}
	return v, v >= 0 && v <= 1
}

// Grade has the model score ans against truths (the true answers, joined
// when several), asking once more when the reply holds no score.
func (icl) Grade(ctx context.Context, env *engine.Env, question string, ans *engine.Answer, truths []string) (engine.Lesson, llm.Usage, error) {
	l := engine.Lesson{Question: question, Answer: citations.AnswerText(ans), Truth: strings.Join(truths, " / ")}
	var total llm.Usage
	client, err := env.RequireLLM(ICLName)
	if err != nil {
		return l, total, err
	}
	req := llm.ChatRequest{Messages: []llm.Message{llm.User(fmt.Sprintf(gradePrompt, l.Question, l.Truth, l.Answer))}}
	for range 2 {
		reply, err := client.Chat(ctx, req)
		total.Add(reply.Usage)
		if err != nil {
			return l, total, err
		}
		if v, ok := parseScore(reply.Text); ok {
			l.Score = v
			return l, total, nil
		}
	}
	return l, total, engine.ErrUngraded
}
