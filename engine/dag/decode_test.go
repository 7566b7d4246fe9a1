package dag

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// decoder is a scripted model for Algorithm 2's prompts. It drafts the
// steps in order — the first wrong, as a model's own knowledge may be —
// then "Yes is the answer."; asked to hold a step to the knowledge, it
// writes the step as the shown sentence found by its words says, citing
// that sentence; the final answer cites every shown sentence.
type decoder struct {
	t      testing.TB
	drafts []string
	// knowledge maps a draft to the words of the sentence that holds the
	// truth and the step as it says it.
	knowledge map[string]fact

	mu      sync.Mutex
	prompts []string
}

// filmDecoder drafts the nationality question in two steps, the first
// with the wrong nationality.
func filmDecoder(t testing.TB) *decoder {
	return &decoder{t: t,
		drafts: []string{"Scott Derrickson is a Canadian director.", "Ed Wood was an American filmmaker."},
		knowledge: map[string]fact{
			"Scott Derrickson is a Canadian director.": {"Scott Derrickson (born July 16, 1966) is an American director", "Scott Derrickson is an American director."},
			"Ed Wood was an American filmmaker.":       {"was an American filmmaker", "Ed Wood was an American filmmaker."},
		}}
}

func (m *decoder) respond(r llmtest.ChatRequest) llmtest.Reply {
	p := r.Last()
	m.mu.Lock()
	m.prompts = append(m.prompts, p)
	m.mu.Unlock()
	switch {
	case strings.HasPrefix(p, decodeInstruction):
		_, test, _ := strings.Cut(strings.TrimPrefix(p, decodeInstruction+"\n\n"+decodeExamples), "\n"+thoughtsLabel)
		n := strings.Count(test, "#")
		if n < len(m.drafts) {
			return llmtest.Text(m.drafts[n] + "#")
		}
		return llmtest.Text("Yes is the answer.#")
	case strings.HasPrefix(p, constrainHead):
		ctx, _, _ := strings.Cut(strings.TrimPrefix(p, constrainHead), constrainAsk)
		_, draft, _ := strings.Cut(p, "\n"+draftLabel)
		draft, _, _ = strings.Cut(draft, "\n")
		k, ok := m.knowledge[draft]
		n := parseNumbered(ctx).find(k.find)
		if !ok || n < 0 {
			return llmtest.Text("<statement>The knowledge does not give it.<cite></cite></statement>")
		}
		return llmtest.Text(fmt.Sprintf("<statement>%s<cite>[%d-%d]</cite></statement>", k.text, n, n))
	case strings.Contains(p, "[Answer with Citations]"):
		var b strings.Builder
		for _, n := range documentOf(p).nums {
			fmt.Fprintf(&b, "<statement>Sentence %d says so.<cite>[%d-%d]</cite></statement>", n, n, n)
		}
		return llmtest.Text(b.String())
	}
	m.t.Errorf("unexpected prompt:\n%.300s", p)
	return llmtest.Status(400)
}

// TestConstrainedDecoding: Algorithm 2 end to end against the scripted
// server. The model drafts "Scott Derrickson is a Canadian director";
// the knowledge retrieved for that step says he is American, and the
// constrained step says so, citing the sentence the knowledge came from;
// the answer cites exactly the steps' sentences.
func TestConstrainedDecoding(t *testing.T) {
	t.Parallel()
	lib, docs := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmDecoder(t)
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, t.Context(), env, engine.Request{Question: question, Options: engine.Settings("algorithm", "2")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := ans.Plan.(*Plan)
	if plan.Algorithm != 2 || plan.Stopped != StopModel || len(plan.Steps) != 2 || plan.Draft != "Yes" {
		t.Fatalf("plan: algorithm %d, stopped %q after %d steps, draft %q", plan.Algorithm, plan.Stopped, len(plan.Steps), plan.Draft)
	}
	first := plan.Steps[0]
	if first.Draft != "Scott Derrickson is a Canadian director." || first.Fact != "Scott Derrickson is an American director." || first.SubQuestion != "" {
		t.Errorf("step 1: drafted %q, constrained to %q", first.Draft, first.Fact)
	}
	people := docs[1]
	if len(first.Citations) != 1 || first.Citations[0].Doc != people.ID ||
		!strings.HasPrefix(first.Citations[0].Text, "Scott Derrickson (born July 16, 1966) is an American director") ||
		first.Citations[0].Text != people.Text[first.Citations[0].Start:first.Citations[0].End] {
		t.Errorf("step 1 cites %+v; want the sentence the knowledge came from", first.Citations)
	}
	if first.support[0].Level != citations.Supported {
		t.Errorf("step 1's citation verdict %+v", first.support)
	}
	var stepSpans, answerSpans []citations.Span
	for _, st := range plan.Steps {
		stepSpans = append(stepSpans, st.Citations...)
	}
	for _, st := range ans.Statements {
		answerSpans = append(answerSpans, st.Citations...)
	}
	if got, want := sentenceSet(answerSpans), sentenceSet(stepSpans); !slices.Equal(got, want) || len(want) != 2 {
		t.Errorf("the answer cites %v, want the steps' sentences %v", got, want)
	}
	wantStages := []string{
		"step 1/5, drafted: Scott Derrickson is a Canadian director",
		"step 1: Scott Derrickson is an American director [s. ",
		"step 2/5, drafted: Ed Wood was an American filmmaker",
		"step 2: Ed Wood was an American filmmaker [s. ",
		"answering from 2 steps (2 sentences): the model stopped after 2 steps",
	}
	checkStages(t, ans.Stages, wantStages)
	if !strings.HasPrefix(plan.Summary, "2 steps, then stopped: the model had enough to answer") || ans.Usage.LLMCalls != 6 {
		t.Errorf("summary %q, %d calls", plan.Summary, ans.Usage.LLMCalls)
	}
}

// TestConstrainedDecodingPrompts: the prompts Algorithm 2 sends, captured
// from the requests, against testdata/algorithm2.golden (go test -update
// rewrites it). The template is Figure 4(b)'s, reconstructed in DeepEdit's
// layout (decode_prompt.go): Appendix D's five questions in order, each
// with its "Thoughts with New Knowledge:" steps separated by "#" and
// ending "X is the answer.", and "Answer:"; Figure 4(b)'s own question,
// third, reads as the figure's caption describes it.
func TestConstrainedDecodingPrompts(t *testing.T) {
	t.Parallel()
	at := 0
	for _, q := range seedQuestions {
		i := strings.Index(decodeExamples, "Question: "+q+"\n"+thoughtsLabel)
		if i < at {
			t.Fatalf("the template lacks %q (in order)", q)
		}
		at = i
	}
	for ex := range strings.SplitSeq(decodeExamples, "\n\n") {
		lines := strings.Split(ex, "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[1], thoughtsLabel) || !strings.HasSuffix(lines[1], " is the answer.") ||
			!strings.HasPrefix(lines[2], "Answer: ") || strings.Count(lines[1], "# ") < 2 {
			t.Errorf("an example not in DeepEdit's layout:\n%s", ex)
		}
		if last := parseStep(lines[1][strings.LastIndex(lines[1], "# ")+2:]); !last.Final {
			t.Errorf("the example's last step is no stop signal: %q", lines[1])
		}
	}
	figure4b := "Question: What is the capital city of the country of citizenship of Ivanka Trump's spouse?\n" +
		"Thoughts with New Knowledge: Ivanka Trump is married to Jared Kushner.# Jared Kushner is a citizen of the United States.# Washington, D.C. is the capital of the United States.# Washington, D.C. is the answer.\n" +
		"Answer: Washington, D.C."
	if !strings.Contains(decodeExamples, figure4b) {
		t.Errorf("Figure 4(b)'s example is not %q", figure4b)
	}

	lib, _ := filmLibrary(t)
	srv := llmtest.New(t)
	m := filmDecoder(t)
	srv.Respond(m.respond)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	if _, err := ask(t, t.Context(), env, engine.Request{Question: question, Options: engine.Settings("algorithm", "2")}, nil); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, p := range m.prompts {
		// The template's examples are the same in every planning prompt:
		// shown once, in the first.
		if i > 0 {
			p = strings.Replace(p, decodeInstruction+"\n\n"+decodeExamples, "[the instruction and the five examples, as above]", 1)
		}
		fmt.Fprintf(&b, "===== request %d =====\n%s\n", i+1, p)
	}
	golden := filepath.Join("testdata", "algorithm2.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestConstrainedDecodingPrompts -update writes it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("the prompts differ from %s (go test -update rewrites it):\n%s", golden, b.String())
	}
}

func TestParseStep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		final bool
		text  string
	}{
		{"Scott Derrickson is an American director.#", false, "Scott Derrickson is an American director."},
		{"Scott Derrickson is an American director.# Ed Wood was American.# Yes is the answer.", false, "Scott Derrickson is an American director."},
		{"Thoughts with New Knowledge: Jared Kushner is a citizen of the United States.#", false, "Jared Kushner is a citizen of the United States."},
		{"**Step 2:** Ed Wood was American.", false, "Ed Wood was American."},
		{"Washington, D.C. is the answer.", true, "Washington, D.C."},
		{"Yes is the answer.#", true, "Yes"},
		{"Gigi, whose director died first, is the answer.", true, "Gigi, whose director died first"},
		{"So the answer is Henry Smith.", true, "Henry Smith"},
		{"Answer: Henry Smith", true, "Henry Smith"},
		{"\n\n", true, ""},
		{"Question: Who is it?\nHenry Smith is the father of Edward Smith.#", false, "Henry Smith is the father of Edward Smith."},
	} {
		got := parseStep(tc.in)
		if got.Final != tc.final || got.Text != tc.text {
			t.Errorf("parseStep(%q) = %+v, want final %v, %q", tc.in, got, tc.final, tc.text)
		}
	}
}

// TestUnreadablePlannerFallsBack: a planner reply that is not a step in
// the template ("**Answer:**" and nothing else, as a model drifting from
// DeepEdit's layout writes) is asked again with the format restated;
// still unreadable, the answer is a cited answer from retrieval over the
// question, and the warning and the plan say so. Before, the loop stopped
// after 0 steps and the answer was silently empty.
func TestUnreadablePlannerFallsBack(t *testing.T) {
	t.Parallel()
	for _, algorithm := range []string{"1", "2"} {
		t.Run("algorithm "+algorithm, func(t *testing.T) {
			t.Parallel()
			lib, _ := filmLibrary(t)
			var mu sync.Mutex
			restated := 0
			srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
				p := r.Last()
				switch {
				case strings.HasPrefix(p, decodeInstruction) || strings.HasPrefix(p, planInstruction):
					if r.Messages[0].Role == "system" && (r.Messages[0].Content == restateStep || r.Messages[0].Content == restatePlan) {
						mu.Lock()
						restated++
						mu.Unlock()
					}
					return llmtest.Text("**Answer:**\n\n")
				case strings.Contains(p, "<C"):
					nums := documentOf(p).nums
					return llmtest.Text(fmt.Sprintf("<statement>Scott Derrickson is American.<cite>[%d-%d]</cite></statement>", nums[0], nums[0]))
				}
				t.Errorf("unexpected prompt:\n%.300s", p)
				return llmtest.Status(400)
			}))
			env := enginetest.Env(t, lib, enginetest.Config(srv))
			ans, err := ask(t, t.Context(), env, engine.Request{Question: question, Options: engine.Settings("algorithm", algorithm)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			plan := ans.Plan.(*Plan)
			if restated != 1 || plan.Stopped != StopUnread || plan.Fallback == "" || !strings.Contains(plan.Summary, "fell back") {
				t.Errorf("restated %d times; plan %+v", restated, plan)
			}
			if len(ans.Statements) != 1 || len(ans.Statements[0].Citations) != 1 {
				t.Fatalf("statements %+v", ans.Statements)
			}
			if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "not a step in the template") {
				t.Errorf("warnings %q", ans.Warnings)
			}
		})
	}
}
