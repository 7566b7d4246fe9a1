package okra

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/longcite"
	"github.com/citelens/citelens/llm/llmtest"
)

// cited reports whether some statement of ans cites text containing
// substr.
func cited(ans *engine.Answer, substr string) bool {
	for _, st := range ans.Statements {
		for _, c := range st.Citations {
			if strings.Contains(c.Text, substr) {
				return true
			}
		}
	}
	return false
}

func TestExtractiveExactEvidence(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "yes"), cite: []string{"born in Chicago"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond), llmtest.WithModels(llmtest.DefaultModel, "tiny-analyzer"))
	cfg := enginetest.Config(srv)
	cfg.AnalyzerModel = "tiny-analyzer"
	q := "Where was Raquel Welch born?"
	ans, ev, err := ask(t, enginetest.Env(t, lib, cfg), false, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	an := sc.requests(kindAnalyzer)
	if len(an) != 1 {
		t.Fatalf("%d analyzer requests, want 1", len(an))
	}
	if an[0].Model != "tiny-analyzer" {
		t.Errorf("the analyzer asked %q, want the analyzer model", an[0].Model)
	}
	if len(an[0].Messages) != 2 || !strings.HasSuffix(an[0].Messages[1].Content, "### Question: "+q+" ### Answer:") ||
		!strings.HasPrefix(an[0].Messages[1].Content, "### Context: ") {
		t.Errorf("analyzer prompt is not Table 7's: %+v", an[0].Messages)
	}
	if !strings.Contains(an[0].Messages[1].Content, "Raquel Welch was an American actress born in Chicago") {
		t.Errorf("the primary segments miss the evidence:\n%s", an[0].Messages[1].Content)
	}
	if n := len(sc.requests(kindSplitter)) + len(sc.requests(kindReasoner)); n != 0 {
		t.Errorf("%d splitter or reasoner requests for an extractive question", n)
	}
	gen := sc.requests(kindGenerate)
	if len(gen) != 1 || gen[0].Model != llmtest.DefaultModel {
		t.Fatalf("generation requests: %d", len(gen))
	}
	p := planOf(t, ans)
	want := Plan{Workflow: WorkflowDirect, Windows: 5, Granularity: 150, Weights: Weights{Lexical: 3, Dense: 2}}
	if p.Workflow != want.Workflow || p.Windows != want.Windows || p.Granularity != want.Granularity ||
		p.Weights.Lexical != 3 || p.Weights.Dense != 2 || p.Weights.DenseAvailable || p.Cutoff != 0.1 {
		t.Errorf("plan %+v", p)
	}
	if p.Analysis.Source != SourceModel || p.Analysis.Model != "tiny-analyzer" || p.Analysis.QuestionType != Extractive ||
		p.Analysis.InformationType != Exact || !p.Analysis.EvidenceContained {
		t.Errorf("analysis %+v", p.Analysis)
	}
	if !ev.HasStage("plan: extractive, exact information, evidence found (model) → retrieve and generate, 5 × 150-token segments, BM25 alone (no dense scores for the paper's 3:2)") {
		t.Errorf("no plan stage in %q", ev.Stages)
	}
	if len(ev.Plans) == 0 || ev.Plan().(*Plan).Context == nil {
		t.Fatalf("plan events: %d, the last without the context size", len(ev.Plans))
	}
	if !cited(ans, "born in Chicago") {
		t.Errorf("the answer does not cite the evidence: %+v", ans.Statements)
	}
	if ans.Usage.LLMCalls != 2 {
		t.Errorf("usage %+v, want 2 calls", ans.Usage)
	}
	// The final prompt shows few sentences: at most 5 segments of 150
	// tokens, merged, and the one-shot prompt around them.
	if got := gen[0].PromptTokens(); got > 3500 {
		t.Errorf("final prompt of %d tokens for 5 segments", got)
	}
}

func TestAbstractiveSemanticNoEvidence(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("abstractive", "semantic", "no"), cite: []string{"river changed its course"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "Why did the harbour silt up?", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, ans)
	if p.Workflow != WorkflowDirect || p.Windows != 8 || p.Granularity != 400 || p.Weights.Lexical != 2 || p.Weights.Dense != 3 {
		t.Errorf("plan %+v", p)
	}
	if !cited(ans, "river changed its course") {
		t.Errorf("statements %+v", ans.Statements)
	}
}

func TestFactoidNoEvidenceRescales(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "same", "no"), cite: []string{"1,600 acres"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "How large is the campus of West Florida?", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, ans)
	if p.Windows != 5 || p.Granularity != 256 || p.Weights.Lexical != 1 || p.Weights.Dense != 1 {
		t.Errorf("plan %+v", p)
	}
}

func TestArithmeticExtendsContextAndRecoversTable(t *testing.T) {
	t.Parallel()
	lib, docs := almanacLibrary(t)
	d := docs[0]
	// The table must span several sentences for recovery to matter.
	if first, last := strings.Index(d.Text, "1980  400"), strings.Index(d.Text, "2019  517"); sentenceAt(d, first) == sentenceAt(d, last) {
		t.Fatal("the table is one sentence; recovery would have nothing to do")
	}
	sc := &script{analysis: analysisJSON("arithmetic", "exact", "yes"), cite: []string{"2019  517"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "What was the total revenue of the harbour authority in 2019 and 2018?", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, ans)
	if p.Workflow != WorkflowExtension || !slices.Contains(p.Operators, OpExtend) {
		t.Errorf("plan %+v", p)
	}
	ctx := shownContext(sc.requests(kindGenerate)[0].Text())
	for _, want := range []string{
		"Year  Revenue  Costs  Surplus", // the header, recovered
		"1980  400  350  50",            // the first row
		"2019  517  428  89",            // the row asked about
		"The budget table of the harbour authority follows.",
		"The surplus of every year went to the dredging fund.", // extended context
	} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the final context lacks %q:\n%s", want, ctx)
		}
	}
}

func TestMultiSourceSplitsTheQuery(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{
		analysis: analysisJSON("multi-source", "exact", "no"),
		subs:     []string{"1. What is the campus size of University of New Haven?", "2. What is the campus size of University of West Florida?"},
		cite:     []string{"84 acres", "1,600 acres"},
	}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	q := "Which university has the larger campus, University of New Haven or University of West Florida?"
	ans, ev, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := sc.requests(kindSplitter)
	if len(sp) != 1 {
		t.Fatalf("%d splitter requests", len(sp))
	}
	if m := sp[0].Messages; len(m) != 4 || m[1].Content != splitterDemoUser || m[2].Role != "assistant" || m[3].Content != q {
		t.Errorf("splitter prompt is not Table 8's: %+v", m)
	}
	p := planOf(t, ans)
	want := []string{"What is the campus size of University of New Haven?", "What is the campus size of University of West Florida?"}
	if p.Workflow != WorkflowSplit || !slices.Equal(p.SubQueries, want) || p.Granularity != 256 {
		t.Errorf("plan %+v", p)
	}
	if !ev.HasStage("sub-question 2/2: What is the campus size of University of West Florida?") {
		t.Errorf("stages %q", ev.Stages)
	}
	if !cited(ans, "84 acres") || !cited(ans, "1,600 acres") {
		t.Errorf("the answer does not cite both sources: %+v", ans.Statements)
	}
}

func TestMultiSourceFailedSplitUsesTheQuestion(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("multi-source", "exact", "yes"), subs: []string{""}, cite: []string{"84 acres"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "Is the University of New Haven campus larger than 50 acres?", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, ans)
	if len(p.SubQueries) != 0 || !strings.Contains(strings.Join(p.Reasons, "|"), "retrieving for the question itself") {
		t.Errorf("plan %+v", p)
	}
	if !cited(ans, "84 acres") {
		t.Errorf("statements %+v", ans.Statements)
	}
}

func TestMultiBridgeReasonsStepByStep(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{
		analysis: analysisJSON("multi-bridge", "exact", "no"),
		steps: []string{
			"### Evidence: The main actress in The Lost Valley is Raquel Welch. ### Next-Query: What is the nationality of Raquel Welch? ### Answer: None",
			"### Evidence: Raquel Welch was an American actress.\n### Next-Query: None\n### Answer: The answer is: American",
		},
		cite: []string{"starring Raquel Welch", "was an American actress"},
	}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	q := "The Lost Valley is a western film starring an actress of what nationality?"
	ans, ev, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := sc.requests(kindReasoner)
	if len(rs) != 2 {
		t.Fatalf("%d reasoner requests, want 2 (the second answers)", len(rs))
	}
	m := rs[0].Messages
	if len(m) != 4 || m[1].Content != reasonerDemoUser || m[2].Content != reasonerDemoAssistant ||
		!strings.HasSuffix(m[3].Content, " ### Question:"+q) {
		t.Errorf("reasoner prompt is not Table 9's: %+v", m)
	}
	if !strings.Contains(rs[1].Last(), "Raquel Welch was an American actress") {
		t.Errorf("the second step's context lacks what the next query found:\n%s", rs[1].Last())
	}
	if !ev.HasStage("step 2/3: retrieving for: What is the nationality of Raquel Welch?") {
		t.Errorf("stages %q", ev.Stages)
	}
	p := planOf(t, ans)
	if p.Workflow != WorkflowStepwise || len(p.Steps) != 2 || p.Steps[1].Answer != "American" ||
		p.Steps[0].NextQuery != "What is the nationality of Raquel Welch?" || p.Steps[0].Query != q {
		t.Errorf("plan %+v", p)
	}
	if !cited(ans, "starring Raquel Welch") || !cited(ans, "was an American actress") {
		t.Errorf("statements %+v", ans.Statements)
	}
}

func TestStepwiseStopsOnRepeatAndLimit(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	again := "### Evidence: nothing. ### Next-Query: What is the nationality of Raquel Welch? ### Answer: None"
	sc := &script{analysis: analysisJSON("multi-bridge", "exact", "no"), steps: []string{again, again, again}, cite: []string{"Raquel Welch"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "The Lost Valley stars an actress of what nationality?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.requests(kindReasoner)); n != 2 {
		t.Errorf("%d reasoner requests; a repeated query should stop the second round", n)
	}
	if !strings.Contains(strings.Join(planOf(t, ans).Reasons, "|"), "repeated an earlier query") {
		t.Errorf("reasons %q", planOf(t, ans).Reasons)
	}

	sc2 := &script{analysis: analysisJSON("multi-bridge", "exact", "no"), steps: []string{
		"### Next-Query: first? ### Answer: None", "### Next-Query: second? ### Answer: None", "### Next-Query: third? ### Answer: None",
	}, cite: []string{"Raquel Welch"}}
	srv.Respond(sc2.respond)
	if _, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "The Lost Valley stars an actress of what nationality?", engine.Settings("steps", "2")); err != nil {
		t.Fatal(err)
	}
	if n := len(sc2.requests(kindReasoner)); n != 2 {
		t.Errorf("%d reasoner requests with steps=2", n)
	}
}

func TestDenseWeightsWhenEmbeddingsConfigured(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "semantic", "yes"), cite: []string{"born in Chicago"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	ans, ev, err := ask(t, enginetest.Env(t, lib, cfg), false, "Where was Raquel Welch born?", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, ans)
	if !p.Weights.DenseAvailable || p.Weights.Note != "" || p.Weights.Lexical != 2 || p.Weights.Dense != 3 {
		t.Errorf("weights %+v", p.Weights)
	}
	if strings.Contains(p.Summary, "dense unavailable") || !strings.Contains(p.Summary, "BM25:dense 2:3") {
		t.Errorf("summary %q", p.Summary)
	}
	embeds := 0
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			embeds++
		}
	}
	if embeds == 0 || !ev.HasStage("embedding") {
		t.Errorf("%d embedding requests, stages %q", embeds, ev.Stages)
	}
	if !cited(ans, "born in Chicago") {
		t.Errorf("statements %+v", ans.Statements)
	}
}

func TestMalformedAnalysisFallsBackToRules(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{
		"I think this is a comparison question.",
		`{"question-type": "comparative", "info-type": "exact", "containing": "yes"}`,
		`{"question-type": "multi-source", "info-type": "exact"}`,
		`{"question-type": "multi-source", "info-type": "exact", "containing": "maybe"}`,
		`{"question-type": "multi-source", `,
	} {
		t.Run(reply, func(t *testing.T) {
			lib, _ := almanacLibrary(t)
			sc := &script{analysis: reply,
				subs: []string{"What is the campus size of University of New Haven?", "What is the campus size of University of West Florida?"},
				cite: []string{"84 acres"}}
			srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
			ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false,
				"Which university has the larger campus, University of New Haven or University of West Florida?", nil)
			if err != nil {
				t.Fatal(err)
			}
			p := planOf(t, ans)
			if !strings.HasPrefix(p.Analysis.Source, "rules (model reply unusable: ") || p.Analysis.Model != llmtest.DefaultModel {
				t.Errorf("source %q", p.Analysis.Source)
			}
			// The rules see a choice between two alternatives.
			if p.Analysis.QuestionType != MultiSource || p.Workflow != WorkflowSplit || len(sc.requests(kindSplitter)) != 1 {
				t.Errorf("plan %+v", p)
			}
			// The reader is told: a warning, not only a stage.
			if len(p.Analysis.Reasons) != 3 || len(ans.Warnings) != 1 || !strings.HasPrefix(ans.Warnings[0], "okra's analyzer: the model's reply was not Table 7's dictionary; the question was classified by rules (model reply unusable") {
				t.Errorf("reasons %q, warnings %q", p.Analysis.Reasons, ans.Warnings)
			}
		})
	}
}

func TestAnalyzerModelFailureFallsBackToRules(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{cite: []string{"born in Chicago"}}
	// The server does not serve the analyzer model: a 404, not retried.
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	cfg := enginetest.Config(srv)
	cfg.AnalyzerModel = "missing-analyzer"
	ans, _, err := ask(t, enginetest.Env(t, lib, cfg), false, "Where was Raquel Welch born?", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, ans)
	if !strings.HasPrefix(p.Analysis.Source, "rules (model reply unusable: ") || !strings.Contains(p.Analysis.Source, "not found") {
		t.Errorf("source %q", p.Analysis.Source)
	}
	if !cited(ans, "born in Chicago") {
		t.Errorf("statements %+v", ans.Statements)
	}
}

func TestRulesOption(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{cite: []string{"born in Chicago"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "Where was Raquel Welch born?", engine.Settings("analyzer", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.requests(kindAnalyzer)); n != 0 {
		t.Errorf("%d analyzer requests with analyzer=rules", n)
	}
	p := planOf(t, ans)
	if p.Analysis.Source != SourceRules || p.Analysis.Model != "" || p.Analysis.QuestionType != Extractive || !p.Analysis.EvidenceContained {
		t.Errorf("analysis %+v", p.Analysis)
	}
}

// With no model to ask, the analyzer is the rules: the strategy itself
// needs a model to generate, so this runs the analyzer step alone.
func TestNoModelAnalyzerIsRules(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	var a Analysis
	analyzer := engine.Define("analyzer", options, func(ctx context.Context, rt *engine.Runtime) error {
		var err error
		a, err = (&run{rt: rt}).analyze(ctx, nil)
		return err
	})
	req := engine.Request{Question: "Were Raquel Welch and Tom Gries both American?", Options: engine.Settings("analyzer", AnalyzerModel)}
	if _, err := engine.Run(t.Context(), &engine.Env{Library: lib}, analyzer, req, nil); err != nil {
		t.Fatal(err)
	}
	if a.Source != SourceRules || a.QuestionType != MultiSource || a.EvidenceContained {
		t.Errorf("analysis %+v", a)
	}
}

func TestPreciseRereadsWholeDocuments(t *testing.T) {
	t.Parallel()
	lib, docs := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "yes")}
	whole := 0
	sc.answer = func(prompt string) string {
		if strings.Count(shownContext(prompt), "<C") < len(docs[0].Sentences) {
			return "<statement>The document does not contain the crew's names.<cite></cite></statement>"
		}
		whole++
		n, _ := shownNumber(prompt, "calibrated in 1995 by a crew of 7")
		return "<statement>Station 5's gauge was calibrated by a crew of seven.<cite>[" + strconv.Itoa(n) + "-" + strconv.Itoa(n) + "]</cite></statement>"
	}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, ev, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), true, "Who calibrated the gauge of Station 5?", nil)
	if err != nil {
		t.Fatal(err)
	}
	gen := sc.requests(kindGenerate)
	if len(gen) != 2 || whole != 1 {
		t.Fatalf("%d generations, %d over the whole document; want 2 and 1", len(gen), whole)
	}
	if !strings.Contains(gen[0].Text(), `answer "unanswerable".)`) || strings.Contains(gen[1].Text(), "unanswerable") {
		t.Errorf("the first prompt should ask for \"unanswerable\", the whole-context one not")
	}
	if !ev.HasStage("the answer says \"The document does not contain the crew's names.\": the context is insufficient; rereading the whole documents") {
		t.Errorf("stages %q", ev.Stages)
	}
	p := planOf(t, ans)
	if p.Precise == nil || !p.Precise.Reread || !slices.Contains(p.Operators, OpWhole) {
		t.Errorf("plan %+v", p)
	}
	if len(ans.Statements) != 1 || !cited(ans, "crew of 7") {
		t.Errorf("the answer should be the whole-context one: %+v", ans.Statements)
	}
	if len(ans.Warnings) == 0 || !strings.Contains(ans.Warnings[0], "reread the whole documents") {
		t.Errorf("warnings %q", ans.Warnings)
	}
	if ans.Strategy != PreciseName || ans.Usage.LLMCalls != 3 {
		t.Errorf("strategy %q usage %+v", ans.Strategy, ans.Usage)
	}
}

func TestPreciseKeepsAnAnsweredQuestion(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "yes"), cite: []string{"born in Chicago"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), true, "Where was Raquel Welch born?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.requests(kindGenerate)); n != 1 {
		t.Errorf("%d generations", n)
	}
	if p := planOf(t, ans); p.Precise == nil || p.Precise.Reread {
		t.Errorf("precise %+v", p.Precise)
	}
}

func TestOkraKeepsAnUnanswerableAnswer(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "yes"), answer: func(string) string {
		return "<statement>Unanswerable.<cite></cite></statement>"
	}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	ans, _, err := ask(t, enginetest.Env(t, lib, enginetest.Config(srv)), false, "Who calibrated the gauge of Station 5?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.requests(kindGenerate)); n != 1 || planOf(t, ans).Precise != nil {
		t.Errorf("okra reran (%d generations) or checked precision; %+v %q", n, ans.Statements, ans.Warnings)
	}
}

func TestNothingRetrieved(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "no"), answer: func(p string) string {
		return "<statement>The word is not in the document.<cite></cite></statement>"
	}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	_, _, err := ask(t, env, false, "zyzzyva quokka?", nil)
	if !errors.Is(err, engine.ErrNothingRetrieved) {
		t.Fatalf("err %v, want ErrNothingRetrieved", err)
	}
	ans, _, err := ask(t, env, true, "zyzzyva quokka?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := planOf(t, ans); p.Precise == nil || !p.Precise.Reread || p.Precise.Reason != "nothing was retrieved" {
		t.Errorf("precise %+v", p.Precise)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]engine.Setting{
		engine.Settings("k", "5"), engine.Settings("analyzer", "gpt"), engine.Settings("steps", "0"), engine.Settings("steps", "11"),
		engine.Settings("format", "xml"), engine.Settings("max_citations", "-1"),
	} {
		if _, err := options.Parse(Name, bad); !errors.Is(err, engine.ErrOption) {
			t.Errorf("%v: err %v", bad, err)
		}
	}
	o, err := options.Parse(Name, engine.Settings("analyzer", "Rules", "steps", "5", "format", "longcite-model", "max_citations", "0"))
	if err != nil || o.String("analyzer") != AnalyzerRules || o.Int("steps") != 5 || o.String("format") != "longcite-model" || o.Int("max_citations") != 0 {
		t.Errorf("%+v %v", o, err)
	}
}

func TestUnavailableWithoutModel(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	for _, precise := range []bool{false, true} {
		if _, err := New(engine.NewEnv(lib, config.Default()), precise); !errors.Is(err, engine.ErrUnavailable) {
			t.Errorf("precise=%v: err %v", precise, err)
		}
	}
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "yes"), cite: []string{"born in Chicago"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, _ := New(env, true)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := engine.Run(ctx, env, s, engine.Request{Question: "Where was Raquel Welch born?"}, nil)
	if err == nil {
		t.Fatal("no error after cancellation")
	}
}

// The cost claim: okra sends a small share of what reading the whole
// document (longcite) sends, on a document the size of HotpotQA's merged
// paragraphs (about 80k tokens).
func TestOkraCostsAFractionOfLongcite(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.TextLibrary(t, "doc0.txt", almanacOf(1300))
	sc := &script{analysis: analysisJSON("multi-bridge", "exact", "no"), steps: []string{
		"### Evidence: The Lost Valley stars Raquel Welch. ### Next-Query: What is the nationality of Raquel Welch? ### Answer: None",
	}, cite: []string{"Raquel Welch"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	q := "The Lost Valley is a western film starring an actress of what nationality?"
	ok, _, err := ask(t, env, false, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := engine.New(longcite.Name, env)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := engine.Run(t.Context(), env, lc, engine.Request{Question: q}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if 5*ok.Usage.PromptTokens > whole.Usage.PromptTokens {
		t.Errorf("okra sent %d prompt tokens, longcite %d: more than a fifth", ok.Usage.PromptTokens, whole.Usage.PromptTokens)
	}
	t.Logf("prompt tokens: okra %d (%d calls), longcite %d", ok.Usage.PromptTokens, ok.Usage.LLMCalls, whole.Usage.PromptTokens)
}

// TestLeanFinalPrompt: okra's final answer is asked with Figure 10's
// instructions once and no worked example (generate.Lean), so the
// prompt is mostly the retrieved segments; format=one-shot brings the
// example back.
func TestLeanFinalPrompt(t *testing.T) {
	t.Parallel()
	lib, _ := almanacLibrary(t)
	sc := &script{analysis: analysisJSON("extractive", "exact", "yes"), cite: []string{"born in Chicago"}}
	srv := llmtest.New(t, llmtest.WithResponder(sc.respond))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	if _, _, err := ask(t, env, false, "Where was Raquel Welch born?", nil); err != nil {
		t.Fatal(err)
	}
	gen := sc.requests(kindGenerate)
	if len(gen) != 1 {
		t.Fatalf("%d generations", len(gen))
	}
	lean := gen[0].Last()
	if strings.Contains(lean, "Here is an example") || strings.Contains(lean, "[Remind]") || strings.Count(lean, "Please answer the user's question") != 1 {
		t.Errorf("the final prompt is not lean:\n%.400s", lean)
	}
	if _, _, err := ask(t, env, false, "Where was Raquel Welch born?", engine.Settings("format", "one-shot")); err != nil {
		t.Fatal(err)
	}
	gen = sc.requests(kindGenerate)
	if full := gen[len(gen)-1].Last(); !strings.Contains(full, "Here is an example") || len(full) < len(lean)+2000 {
		t.Errorf("format=one-shot: %d bytes against lean's %d", len(full), len(lean))
	}
}
