package dag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm/llmtest"
)

const question = "Were Scott Derrickson and Ed Wood of the same nationality?"

// filmModel answers the nationality question in two or three steps.
func filmModel(t testing.TB, stop bool) *model {
	return &model{
		t: t, stop: stop,
		subs: []string{"What is the nationality of Scott Derrickson?", "What is the nationality of Ed Wood?"},
		facts: map[string]fact{
			"What is the nationality of Scott Derrickson?": {"Scott Derrickson (born July 16, 1966) is an American director", "Scott Derrickson is an American director."},
			"What is the nationality of Ed Wood?":          {"was an American filmmaker", "Ed Wood was an American filmmaker."},
		},
	}
}

// checkStages fails t unless stages begin as want says, one for one.
func checkStages(t *testing.T, stages, want []string) {
	t.Helper()
	if len(stages) != len(want) {
		t.Fatalf("stages %q", stages)
	}
	for i, w := range want {
		if !strings.HasPrefix(stages[i], w) {
			t.Errorf("stage %d is %q, want %q…", i+1, stages[i], w)
		}
	}
}

// sentenceSet lists the (document, sentence) pairs spans cover.
func sentenceSet(spans []citations.Span) []string {
	var out []string
	for _, c := range spans {
		for i := c.First; i <= c.Last; i++ {
			out = append(out, fmt.Sprintf("%s/%d", c.Doc, i))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestStopsOnModelSignal: the planner asks two sub-questions and then
// writes "Final answer:"; the steps end there, each fact cites the
// sentence it came from, and the answer cites exactly the facts'
// sentences.
func TestStopsOnModelSignal(t *testing.T) {
	t.Parallel()
	lib, docs := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, true)
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var ev enginetest.Events
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	plan, ok := ans.Plan.(*Plan)
	if !ok {
		t.Fatalf("plan %T", ans.Plan)
	}
	if plan.Stopped != StopModel || len(plan.Steps) != 2 || plan.Draft != "yes" {
		t.Fatalf("stopped %q after %d steps (draft %q), want the model's stop after 2", plan.Stopped, len(plan.Steps), plan.Draft)
	}
	// 3 planning calls (the third says "Final answer"), 2 extractions, the answer.
	kinds := map[string]int{}
	for _, r := range srv.ChatRequests() {
		kinds[promptKind(r.Last())]++
	}
	if kinds[kindPlan] != 3 || kinds[kindFact] != 2 || kinds[kindFinal] != 1 {
		t.Errorf("calls %v, want 3 plan, 2 fact, 1 final", kinds)
	}
	if ans.Usage.LLMCalls != 6 || ans.Usage.PromptTokens == 0 || ans.Usage.CompletionTokens == 0 || len(ev.Usage) != 6 {
		t.Errorf("usage %+v from %d events, want 6 calls with tokens", ans.Usage, len(ev.Usage))
	}
	// Each fact cites the sentence with its words, in its own document.
	want := []struct {
		doc  *docstore.Document
		find string
	}{{docs[1], "Scott Derrickson (born July 16, 1966)"}, {docs[1], "Edward Davis Wood Jr."}}
	var factSpans []citations.Span
	for i, st := range plan.Steps {
		if len(st.Citations) != 1 {
			t.Fatalf("step %d cites %+v", i+1, st.Citations)
		}
		c := st.Citations[0]
		if c.Doc != want[i].doc.ID || !strings.Contains(c.Text, want[i].find) || c.Text != want[i].doc.Text[c.Start:c.End] {
			t.Errorf("fact %d cites %q in %s", i+1, c.Text, c.Doc)
		}
		if len(st.Retrieved) == 0 || len(st.Retrieved) > DefaultChunks {
			t.Errorf("step %d retrieved %d chunks", i+1, len(st.Retrieved))
		}
		factSpans = append(factSpans, st.Citations...)
	}
	var answerSpans []citations.Span
	for _, st := range ans.Statements {
		answerSpans = append(answerSpans, st.Citations...)
		if len(st.Support) != len(st.Citations) {
			t.Errorf("statement %q has %d verdicts for %d citations", st.Text, len(st.Support), len(st.Citations))
		}
	}
	if got, want := sentenceSet(answerSpans), sentenceSet(factSpans); !slices.Equal(got, want) {
		t.Errorf("the answer cites %v, want the facts' sentences %v", got, want)
	}
	// The stages tell the steps as they happened; engine.Run keeps them.
	wantStages := []string{
		"sub-question 1/5: What is the nationality of Scott Derrickson?",
		"fact 1: Scott Derrickson is an American director [s. ",
		"sub-question 2/5: What is the nationality of Ed Wood?",
		"fact 2: Ed Wood was an American filmmaker [s. ",
		"answering from 2 facts (2 sentences): the model stopped after 2 steps",
	}
	checkStages(t, ans.Stages, wantStages)
	if len(ev.Plans) != 1 {
		t.Errorf("%d plan events", len(ev.Plans))
	}
}

// TestStopsAtStepLimit: a planner that never stops is cut at max_steps,
// and the answer is written from the facts found.
func TestStopsAtStepLimit(t *testing.T) {
	t.Parallel()
	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, false)
	m.subs = append(m.subs, "Who directed Doctor Strange?")
	m.facts["Who directed Doctor Strange?"] = fact{"It was directed by Scott Derrickson", "Scott Derrickson directed Doctor Strange."}
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	for _, steps := range []int{1, 3} {
		before := len(srv.ChatRequests())
		ans, err := ask(t, t.Context(), env, engine.Request{Question: question, Options: engine.Settings("max_steps", fmt.Sprint(steps))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		plan := ans.Plan.(*Plan)
		if plan.Stopped != StopLimit || len(plan.Steps) != steps || plan.MaxSteps != steps {
			t.Errorf("max_steps=%d: stopped %q after %d steps", steps, plan.Stopped, len(plan.Steps))
		}
		if calls := len(srv.ChatRequests()) - before; calls != 2*steps+1 || ans.Usage.LLMCalls != calls {
			t.Errorf("max_steps=%d: %d calls (usage says %d), want %d", steps, calls, ans.Usage.LLMCalls, 2*steps+1)
		}
		last := ans.Stages[len(ans.Stages)-1]
		if want := fmt.Sprintf("answering from %s (%s): the step limit of %d was reached", humanize.Plural(steps, "fact", "facts"), humanize.Plural(steps, "sentence", "sentences"), steps); last != want {
			t.Errorf("max_steps=%d: last stage %q, want %q…", steps, last, want)
		}
		if len(ans.Statements) == 0 {
			t.Errorf("max_steps=%d: no statements", steps)
		}
	}
}

// TestRepeatedSubQuestion: a sub-question asked again is shown the
// next-best chunks, not the same ones; when none are left the fact says
// so without a model call.
func TestRepeatedSubQuestion(t *testing.T) {
	t.Parallel()
	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	sub := "How many tonnes of barley did the farms grow?"
	m := &model{t: t, subs: []string{sub}, facts: map[string]fact{sub: {"tonnes of barley", "The farms grew barley."}}}
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, t.Context(), env, engine.Request{Question: "How much barley was grown?", Options: engine.Settings("max_steps", "3")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := ans.Plan.(*Plan).Steps
	seen := map[Chunk]bool{}
	for i, st := range steps {
		if st.SubQuestion != sub || st.Repeated != (i > 0) || len(st.Retrieved) != DefaultChunks {
			t.Fatalf("step %d: %+v", i+1, st)
		}
		for _, c := range st.Retrieved {
			if seen[c] {
				t.Errorf("step %d was shown chunk %+v again", i+1, c)
			}
			seen[c] = true
		}
	}

	// "Ed Wood" matches few chunks: asked again and again, it runs out.
	m = filmModel(t, false)
	m.subs = m.subs[1:]
	srv.Respond(m.respond)
	before := len(srv.ChatRequests())
	ans, err = ask(t, t.Context(), env, engine.Request{Question: question, Options: engine.Settings("max_steps", "6")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps = ans.Plan.(*Plan).Steps
	last := steps[len(steps)-1]
	if len(last.Retrieved) != 0 || last.Fact != "" {
		t.Fatalf("the last repeat still found %+v", last)
	}
	facts := 0
	for _, r := range srv.ChatRequests()[before:] {
		if promptKind(r.Last()) == kindFact {
			facts++
		}
	}
	if facts >= 6 {
		t.Errorf("%d fact calls for 6 steps, some with nothing retrieved", facts)
	}
	if !slices.Contains(ans.Stages, "fact 6: nothing more in the documents matches the sub-question") {
		t.Errorf("stages %q", ans.Stages)
	}
}

// TestFinalCitationsAreFactSentences: the final prompt shows exactly the
// facts' cited sentences under their real numbers, the thought gives each
// fact's numbers, and a citation of anything else is dropped.
func TestFinalCitationsAreFactSentences(t *testing.T) {
	t.Parallel()
	lib, docs := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, true)
	var finalShown shown
	m.final = func(s shown) string {
		finalShown = s
		// Cite both facts, and a sentence the facts do not cite: the one
		// before the first fact's (retrieved with it, but not a fact's).
		a, b := s.nums[0], s.nums[len(s.nums)-1]
		return fmt.Sprintf("<statement>Both are American.<cite>[%d-%d][%d-%d]</cite></statement><statement>Derrickson lives in Los Angeles.<cite>[%d-%d]</cite></statement>",
			a, a, b, b, a+1, a+1)
	}
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := ans.Plan.(*Plan)
	offset := len(docs[0].Sentences) // people.txt is the second document
	var want []int
	for _, st := range plan.Steps {
		for _, c := range st.Citations {
			want = append(want, offset+c.First)
		}
	}
	if !slices.Equal(finalShown.nums, want) {
		t.Fatalf("the final prompt shows %v, want the facts' sentences %v", finalShown.nums, want)
	}
	for _, n := range want {
		if !strings.Contains(finalShown.texts[n], docs[1].SentenceText(n - offset)[:20]) {
			t.Errorf("<C%d> shows %q", n, finalShown.texts[n])
		}
	}
	final := srv.ChatRequests()[len(srv.ChatRequests())-1].Last()
	for i, st := range plan.Steps {
		line := fmt.Sprintf("Fact: %s [%d-%d]", st.Fact, want[i], want[i])
		if !strings.Contains(final, line) {
			t.Errorf("the final prompt lacks %q", line)
		}
	}
	if got := sentenceSet(ans.Statements[0].Citations); !slices.Equal(got, sentenceSet(append(plan.Steps[0].Citations, plan.Steps[1].Citations...))) {
		t.Errorf("statement 1 cites %v", got)
	}
	st := ans.Statements[1]
	if len(st.Citations) != 0 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "shown to the model") {
		t.Errorf("a citation outside the facts was kept: %+v", st)
	}
	if !st.NeedsCitation {
		t.Errorf("an uncited statement of fact is not flagged")
	}
}

// TestFailureMidway: when a call fails part-way, the answer is partial: it
// keeps the steps done, and the facts found are its statements.
func TestFailureMidway(t *testing.T) {
	t.Parallel()
	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, true)
	facts := 0
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		if promptKind(r.Last()) == kindFact {
			if facts++; facts == 2 {
				return llmtest.Status(400)
			}
		}
		return m.respond(r)
	})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err == nil || !strings.Contains(err.Error(), "extracting the fact for sub-question 2") {
		t.Fatalf("error %v", err)
	}
	if !ans.Partial || ans.Error == "" {
		t.Errorf("answer not partial: %+v", ans)
	}
	plan := ans.Plan.(*Plan)
	if plan.Stopped != StopFailed || len(plan.Steps) != 2 || plan.Steps[0].Fact == "" || plan.Steps[1].Fact != "" {
		t.Fatalf("plan %+v", plan)
	}
	if len(ans.Statements) != 1 || ans.Statements[0].Text != plan.Steps[0].Fact || len(ans.Statements[0].Citations) != 1 {
		t.Errorf("statements %+v, want the first fact with its citation", ans.Statements)
	}
	if len(ans.Warnings) == 0 || !strings.Contains(ans.Warnings[0], "the answer was not written") {
		t.Errorf("warnings %q", ans.Warnings)
	}
	// plan, fact, plan; the refused call never started an answer.
	if ans.Usage.LLMCalls != 3 {
		t.Errorf("usage %+v", ans.Usage)
	}

	// A final answer cut off before its first statement falls back to the
	// facts too.
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		if promptKind(r.Last()) == kindFinal {
			return llmtest.Reply{Text: "<statement>Both are Amer", Drop: true, DropAfter: 2}
		}
		return m.respond(r)
	})
	ans, err = ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	// The facts, and the statement being written, kept unfinished.
	if err == nil || !ans.Partial || len(ans.Statements) != 3 || !ans.Statements[2].Unfinished || ans.Plan.(*Plan).Stopped != StopModel {
		t.Errorf("cut-off answer: err %v, %d statements, plan %+v", err, len(ans.Statements), ans.Plan)
	}
}

// TestCancellation: cancelling while the model plans step 2 returns at
// once with the first fact.
func TestCancellation(t *testing.T) {
	t.Parallel()
	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, true)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		if promptKind(r.Last()) == kindPlan && strings.Contains(r.Last(), "\nFact: ") && strings.Count(thoughtOf(r.Last()), "\nFact: ") == 1 {
			return llmtest.Reply{Text: "Subquestion: never", HeaderDelay: 10 * 1e9}
		}
		return m.respond(r)
	})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, ctx, env, engine.Request{Question: question}, func(ev engine.Event) {
		if s, ok := ev.(engine.Stage); ok && strings.HasPrefix(string(s), "fact 1:") {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	if ans == nil || !ans.Partial || ans.Error != "cancelled" || len(ans.Statements) != 1 {
		t.Fatalf("answer %+v", ans)
	}
	if plan := ans.Plan.(*Plan); plan.Stopped != StopFailed || len(plan.Steps) != 1 {
		t.Errorf("plan %+v", plan)
	}
}

// TestModelAnswersAtOnce: a planner that stops before any step does not
// skip the documents: the question itself is looked up first.
func TestModelAnswersAtOnce(t *testing.T) {
	t.Parallel()
	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, true)
	m.subs = nil
	m.facts[question] = fact{"Scott Derrickson (born July 16, 1966) is an American director", "Scott Derrickson is American."}
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := ans.Plan.(*Plan)
	if len(plan.Steps) != 1 || plan.Steps[0].SubQuestion != question || plan.Stopped != StopModel || len(plan.Steps[0].Citations) != 1 {
		t.Fatalf("plan %+v", plan)
	}
}

// TestUncitedFact: a fact written without the statement format is given
// the retrieved sentence that supports it, and says so; a fact that the
// reference lacks the answer cites nothing, and with no fact citing the
// documents the answer is the facts, without a final call.
func TestUncitedFact(t *testing.T) {
	t.Parallel()
	lib, docs := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmModel(t, true)
	m.subs = m.subs[:1]
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		if promptKind(r.Last()) == kindFact {
			return llmtest.Text("Fact: Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer.")
		}
		return m.respond(r)
	})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := ans.Plan.(*Plan).Steps[0]
	if st.Fact != "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer." {
		t.Errorf("fact %q", st.Fact)
	}
	if len(st.Citations) != 1 || !strings.HasPrefix(st.Citations[0].Text, "Scott Derrickson (born") || st.Citations[0].Doc != docs[1].ID {
		t.Errorf("citations %+v", st.Citations)
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "cited nothing") {
		t.Errorf("warnings %q", st.Warnings)
	}

	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		if promptKind(r.Last()) == kindFact {
			return llmtest.Text("The reference does not mention Scott Derrickson's nationality.")
		}
		return m.respond(r)
	})
	before := len(srv.ChatRequests())
	ans, err = ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := len(srv.ChatRequests()) - before; calls != 3 {
		t.Errorf("%d calls, want plan, fact, plan (no final answer)", calls)
	}
	if len(ans.Statements) != 1 || len(ans.Statements[0].Citations) != 0 || len(ans.Warnings) != 1 {
		t.Errorf("answer %+v", ans)
	}
}

// TestRetrieval: a step shows the top 3 chunks of about 80 words,
// sentence-aligned, in document order with their real numbers; chunks and
// chunk_words change that.
func TestRetrieval(t *testing.T) {
	t.Parallel()
	lib, docs := filmLibrary(t)
	srv := llmtest.New(t)
	subs := []string{"How many tonnes of barley did the northern farms grow?", "When did the harvest of rye end?"}
	m := &model{t: t, subs: subs, stop: true, facts: map[string]fact{
		subs[0]: {"tonnes of barley", "The northern farms grew barley."},
		subs[1]: {"harvest of rye", "The rye harvest ended."},
	}}
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	for _, tc := range []struct {
		opts          []engine.Setting
		chunks, words int
	}{
		{nil, 3, 80},
		{engine.Settings("chunks", "5", "chunk_words", "40"), 5, 40},
		{engine.Settings("k", "2", "chunk_words", "200"), 2, 200},
	} {
		ans, err := ask(t, t.Context(), env, engine.Request{Question: "How much barley and rye was grown?", Options: tc.opts}, nil)
		if err != nil {
			t.Fatal(err)
		}
		plan := ans.Plan.(*Plan)
		if plan.Chunks != tc.chunks || plan.ChunkWords != tc.words {
			t.Errorf("%v: plan says %d chunks of %d words", tc.opts, plan.Chunks, plan.ChunkWords)
		}
		for _, st := range plan.Steps {
			if len(st.Retrieved) != tc.chunks {
				t.Errorf("%v: %d chunks, want %d", tc.opts, len(st.Retrieved), tc.chunks)
			}
			for i, c := range st.Retrieved {
				d := docs[0]
				if c.Doc == docs[1].ID {
					d = docs[1]
				}
				words := 0
				textproc.Words(d.Text[d.Sentences[c.First].Start:d.Sentences[c.Last].End], func(int, int) { words++ })
				// Chunks end at sentence ends, so they come within a
				// sentence (about 12 words here) of the size.
				if words > tc.words+5 || words < tc.words-20 {
					t.Errorf("%v: chunk %+v has %d words, want about %d", tc.opts, c, words, tc.words)
				}
				if i > 0 {
					p := st.Retrieved[i-1]
					if p.Doc == c.Doc && p.Last >= c.First {
						t.Errorf("chunks out of document order or overlapping: %+v", st.Retrieved)
					}
				}
			}
		}
	}
	// The reference shows the chunks' sentences under their real numbers.
	for _, r := range srv.ChatRequests() {
		if promptKind(r.Last()) != kindFact {
			continue
		}
		ref := referenceOf(r.Last())
		for i, n := range ref.nums {
			d, k := docs[0], n
			if n >= len(docs[0].Sentences) {
				d, k = docs[1], n-len(docs[0].Sentences)
			}
			if strings.Join(strings.Fields(ref.texts[n]), " ") != strings.Join(strings.Fields(d.SentenceText(k)), " ") &&
				!strings.HasPrefix(strings.Join(strings.Fields(ref.texts[n]), " "), strings.Join(strings.Fields(d.SentenceText(k)), " ")) {
				t.Errorf("<C%d> shows %q, sentence is %q", n, ref.texts[n], d.SentenceText(k))
			}
			if i > 0 && n <= ref.nums[i-1] {
				t.Errorf("numbers out of order: %v", ref.nums)
			}
		}
	}
}

// TestOptions: bad options are errors that say what the option takes.
func TestOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, val, want string }{
		{"max_steps", "0", "1 to 20"},
		{"max_steps", "x", "max_steps"},
		{"chunks", "100", "1 to 20"},
		{"chunk_words", "5", "10 to 1000"},
		{"format", "xml", "one-shot"},
		{"max_citations", "-1", "0 for no limit"},
		{"level", "chunk", "takes algorithm, max_steps, chunks"},
		{"algorithm", "3", "give 1 (iterative QA"},
	} {
		_, err := options.Parse(Name, engine.Settings(tc.key, tc.val))
		if !errors.Is(err, engine.ErrOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v", tc.key, tc.val, err)
		}
	}
	o, err := options.Parse(Name, engine.Settings("max_steps", "7", "chunks", "4", "chunk_words", "120", "format", "longcite-model", "max_citations", "2"))
	if err != nil || o.Int("max_steps") != 7 || o.Int("chunks") != 4 || o.Int("chunk_words") != 120 || o.String("format") != "longcite-model" || o.Int("max_citations") != 2 {
		t.Errorf("%+v %v", o, err)
	}
}

// TestStagesFit: every stage fits an 80-column terminal line, however long
// the sub-question or fact.
func TestStagesFit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Which of the many long-named administrative districts ", 5) + "?"
	cjk := strings.Repeat("斯科特·德瑞克森是美国导演", 10)
	spans := []citations.Span{{First: 583, Last: 585}, {First: 9000, Last: 9001}, {First: 12}, {First: 14}, {First: 99}}
	for _, s := range []string{
		subStage(2, 5, "Who directed Doctor Strange?"),
		subStage(12, 20, long),
		subStage(1, 5, cjk),
		factStage(2, &Step{Fact: long, Citations: spans, Retrieved: []Chunk{{}}}),
		factStage(2, &Step{Fact: cjk, Retrieved: []Chunk{{}}}),
		factStage(3, &Step{}),
		factStage(3, &Step{Retrieved: []Chunk{{}}}),
		factStage(1, &Step{Fact: "Scott Derrickson directed\nDoctor Strange.\x1b[2J", Citations: spans[:1], Retrieved: []Chunk{{}}}),
	} {
		w := 0
		for _, r := range s {
			w++
			if textproc.IsCJK(r) {
				w++
			}
		}
		if w > stageWidth || strings.ContainsAny(s, "\n\x1b") || !utf8.ValidString(s) {
			t.Errorf("stage %q is %d columns", s, w)
		}
	}
	if got := factStage(2, &Step{Fact: "Scott Derrickson directed Doctor Strange.", Citations: spans[:1], Retrieved: []Chunk{{}}}); got != "fact 2: Scott Derrickson directed Doctor Strange [s. 583-585]" {
		t.Errorf("got %q", got)
	}
	if got := sentenceList(spans); got != "s. 583-585, 9000-9001, 12 +2" {
		t.Errorf("got %q", got)
	}
}

// TestDense: with an embedding model configured, chunks are ranked with
// dense similarity fused in, the embedding calls count in the usage, and
// the plan says so; when embedding fails, BM25 carries on with a warning.
func TestDense(t *testing.T) {
	t.Parallel()
	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	srv.Respond(filmModel(t, true).respond)
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	env := enginetest.Env(t, lib, cfg)
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	embeds := 0
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			embeds++
		}
	}
	plan := ans.Plan.(*Plan)
	if embeds == 0 || plan.Retrieval != "bm25+dense (test-embed)" {
		t.Fatalf("%d embedding calls, retrieval %q", embeds, plan.Retrieval)
	}
	if ans.Usage.LLMCalls != 6+embeds {
		t.Errorf("usage counts %d calls, want 6 chat and %d embedding", ans.Usage.LLMCalls, embeds)
	}
	if len(plan.Steps) != 2 || len(plan.Steps[0].Citations) != 1 || len(plan.Steps[1].Citations) != 1 {
		t.Errorf("steps %+v", plan.Steps)
	}

	// A library whose vectors are not stored yet, and an endpoint that
	// refuses to embed.
	lib2, _ := filmLibrary(t)
	env = enginetest.Env(t, lib2, cfg)
	for range 8 {
		srv.EnqueueEmbeddings(llmtest.Status(400))
	}
	ans, err = ask(t, t.Context(), env, engine.Request{Question: question}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan := ans.Plan.(*Plan); plan.Retrieval != RetrievalBM25 || len(plan.Steps) != 2 {
		t.Errorf("plan %+v", plan)
	}
	stage := slices.IndexFunc(ans.Stages, func(s string) bool {
		return strings.HasPrefix(s, "dense retrieval is off for this answer (") && strings.HasSuffix(s, "; ranking by words only")
	})
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "HTTP 400") || stage < 0 {
		t.Errorf("warnings %q, stages %q", ans.Warnings, ans.Stages)
	}
}
