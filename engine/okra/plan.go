package okra

import (
	"fmt"
	"slices"
	"strings"
)

// The organizer's settings, from the paper's Appendix B.3. The units it
// retrieves are windows of whole sentences cut when asked for
// (retrieve.Windowing): OkraLong calls these segments, and the plan's
// JSON and stages keep the paper's word, but in citelens a segment is
// the index's.
const (
	// PrimaryWindows and PrimaryTokens are the analyzer's primary
	// retrieval: three windows of about 150 tokens.
	PrimaryWindows = 3
	PrimaryTokens  = 150
	// FactoidWindows and ContextualWindows are how many windows the
	// plan retrieves: five for factoid tasks, eight for contextual
	// (abstractive) ones.
	FactoidWindows    = 5
	ContextualWindows = 8
	// When the analysis finds no evidence in the primary windows, the
	// granularity grows to 256 tokens for factoid tasks and 400 for
	// contextual ones; with evidence it stays at PrimaryTokens.
	FactoidRescaleTokens    = 256
	ContextualRescaleTokens = 400
	// FusionTop is how many windows each retriever's list holds, its
	// scores min-max normalised over the list before they are added;
	// Cutoff drops windows scoring under this share of the best.
	FusionTop = 20
	Cutoff    = 0.1
	// DefaultSteps bounds the step-wise reasoner's rounds.
	DefaultSteps = 3
)

// The workflows the organizer chooses from (section 3.4).
const (
	WorkflowDirect    = "retrieve-generate" // extractive, abstractive
	WorkflowExtension = "context-extension" // arithmetic
	WorkflowSplit     = "split-aggregate"   // multi-source
	WorkflowStepwise  = "step-wise"         // multi-bridge
)

// The executor's operators, as a plan names them.
const (
	OpRetriever  = "assembled retriever"
	OpMerge      = "context processor: merge neighbouring segments"
	OpTables     = "context processor: recover tables"
	OpExtend     = "context processor: extend context"
	OpSplitter   = "query splitter"
	OpReasoner   = "step-wise reasoner"
	OpGeneration = "generation with sentence-level citations"
	OpWhole      = "whole-context generation (LAC-S)"
)

// Weights are the assembled retriever's fusion weights for BM25 (lexical)
// and dense scores.
type Weights struct {
	Lexical float64 `json:"lexical"`
	Dense   float64 `json:"dense"`
	// DenseAvailable is false when no embedding model is configured (or
	// the library has no vectors): the windows are then ranked by BM25
	// alone, whatever the weights say.
	DenseAvailable bool `json:"dense_available"`
	// Note says why dense scores are missing.
	Note string `json:"note,omitempty"`
}

// Step is one round of the step-wise reasoner.
type Step struct {
	Query     string `json:"query"`
	Windows   int    `json:"segments"` // new windows this round retrieved
	Evidence  string `json:"evidence,omitempty"`
	NextQuery string `json:"next_query,omitempty"`
	Answer    string `json:"answer,omitempty"`
}

// Precise records okra-precise's check of the answer.
type Precise struct {
	// Reread reports that the answer said the context was insufficient
	// and the whole documents were read (LAC-S).
	Reread bool   `json:"reread"`
	Reason string `json:"reason,omitempty"`
}

// Plan is the organizer's plan and what the executor did with it: emitted
// as an engine.Event{Plan} when made and again when the executor adds
// to it, and saved with the answer (Answer.Plan, `plan` in ask --json).
type Plan struct {
	// Summary is the plan in one line, as the "plan: …" stage shows it.
	Summary  string   `json:"summary"`
	Analysis Analysis `json:"analysis"`
	Workflow string   `json:"workflow"`
	// Granularity is the windows' size in tokens; Windows how many are
	// retrieved per query.
	Granularity int     `json:"granularity"`
	Windows     int     `json:"segments"`
	Weights     Weights `json:"weights"`
	Cutoff      float64 `json:"cutoff"`
	// Reranker is the rerank model that reorders the retrieved windows,
	// when one is configured.
	Reranker  string   `json:"reranker,omitempty"`
	Operators []string `json:"operators"`
	// Reasons say why each choice was made.
	Reasons []string `json:"reasons"`

	// Filled in by the executor.
	SubQueries []string `json:"sub_queries,omitempty"`
	Steps      []Step   `json:"steps,omitempty"`
	// Context is what the final generation read: windows kept, sentences
	// shown.
	Context *ContextSize `json:"context,omitempty"`
	Precise *Precise     `json:"precise,omitempty"`
}

// ContextSize is what the final generation read: the distinct windows
// retrieved, the passages they made once processed and merged, the
// sentences shown, and the final prompt's estimated tokens (instructions
// and example included).
type ContextSize struct {
	Windows   int `json:"segments"`
	Passages  int `json:"passages"`
	Sentences int `json:"sentences"`
	Tokens    int `json:"tokens"`
}

// organize turns an analysis into a plan (section 3.4 and Appendix B.3).
// dense says whether dense scores are available, and if not, why.
func organize(a Analysis, denseOK bool, denseNote string) Plan {
	p := Plan{Analysis: a, Cutoff: Cutoff, Granularity: PrimaryTokens}
	contextual := a.QuestionType == Abstractive
	if contextual {
		p.Windows = ContextualWindows
		p.Reasons = append(p.Reasons, fmt.Sprintf("%s is a contextual task: %d segments", a.QuestionType, p.Windows))
	} else {
		p.Windows = FactoidWindows
		p.Reasons = append(p.Reasons, fmt.Sprintf("%s is a factoid task: %d segments", a.QuestionType, p.Windows))
	}
	switch {
	case a.EvidenceContained:
		p.Reasons = append(p.Reasons, fmt.Sprintf("the primary segments hold the evidence: granularity stays %d tokens", p.Granularity))
	case contextual:
		p.Granularity = ContextualRescaleTokens
		p.Reasons = append(p.Reasons, fmt.Sprintf("no evidence in the primary segments: granularity grows to %d tokens", p.Granularity))
	default:
		p.Granularity = FactoidRescaleTokens
		p.Reasons = append(p.Reasons, fmt.Sprintf("no evidence in the primary segments: granularity grows to %d tokens", p.Granularity))
	}
	switch a.InformationType {
	case Exact:
		p.Weights = Weights{Lexical: 3, Dense: 2}
		p.Reasons = append(p.Reasons, "exact information: BM25 weighs 3 to dense 2")
	case Semantic:
		p.Weights = Weights{Lexical: 2, Dense: 3}
		p.Reasons = append(p.Reasons, "semantic information: dense weighs 3 to BM25 2")
	default:
		p.Weights = Weights{Lexical: 1, Dense: 1}
		p.Reasons = append(p.Reasons, "exact and semantic alike: BM25 and dense weigh 1 to 1")
	}
	p.Weights.DenseAvailable = denseOK
	if !denseOK {
		p.Weights.Note = denseNote
		p.Reasons = append(p.Reasons, "dense scores unavailable ("+denseNote+"): segments ranked by BM25 alone")
	}
	p.Operators = []string{OpRetriever}
	switch a.QuestionType {
	case MultiBridge:
		p.Workflow = WorkflowStepwise
		p.Operators = append(p.Operators, OpReasoner)
		p.Reasons = append(p.Reasons, "multi-bridge: the step-wise reasoner retrieves for each bridging step")
	case MultiSource:
		p.Workflow = WorkflowSplit
		p.Operators = []string{OpSplitter, OpRetriever}
		p.Reasons = append(p.Reasons, "multi-source: the query splitter retrieves for each source apart")
	case Arithmetic:
		p.Workflow = WorkflowExtension
		p.Operators = append(p.Operators, OpExtend)
		p.Reasons = append(p.Reasons, "arithmetic: the context around each segment is extended")
	default:
		p.Workflow = WorkflowDirect
	}
	p.Operators = append(p.Operators, OpTables, OpMerge, OpGeneration)
	p.Summary = p.summary()
	return p
}

// Line is the plan's summary.
func (p Plan) Line() string { return p.Summary }

// summary is the plan in one line: "multi-bridge → step-wise reasoner, 5 ×
// 150-token windows, BM25 alone (no dense scores for the paper's 3:2)".
func (p Plan) summary() string {
	var how string
	switch p.Workflow {
	case WorkflowStepwise:
		how = "step-wise reasoner"
	case WorkflowSplit:
		how = "query splitter"
	case WorkflowExtension:
		how = "context extension"
	default:
		how = "retrieve and generate"
	}
	ev := "evidence found"
	if !p.Analysis.EvidenceContained {
		ev = "no evidence found"
	}
	// What actually ranked: the paper's weights only when dense scores
	// exist; a reranker, when set, picks the segments after B.3.
	w := fmt.Sprintf("BM25:dense %s:%s", num(p.Weights.Lexical), num(p.Weights.Dense))
	if !p.Weights.DenseAvailable {
		w = fmt.Sprintf("BM25 alone (no dense scores for the paper's %s:%s)", num(p.Weights.Lexical), num(p.Weights.Dense))
	}
	if p.Reranker != "" {
		w += ", then reordered by " + p.Reranker
	}
	src := p.Analysis.Source
	if i := strings.IndexByte(src, ' '); i > 0 {
		src = src[:i] // "rules (model reply unusable: …)" → "rules"
	}
	return fmt.Sprintf("%s, %s information, %s (%s) → %s, %d × %d-token segments, %s",
		p.Analysis.QuestionType, p.Analysis.InformationType, ev, src, how, p.Windows, p.Granularity, w)
}

func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", f), ".0") }

// clone copies p deeply enough that the copy can be handed to another
// goroutine while p keeps changing.
func (p Plan) clone() *Plan {
	c := p
	c.Analysis.Reasons = slices.Clone(p.Analysis.Reasons)
	c.Operators = slices.Clone(p.Operators)
	c.Reasons = slices.Clone(p.Reasons)
	c.SubQueries = slices.Clone(p.SubQueries)
	c.Steps = slices.Clone(p.Steps)
	if p.Context != nil {
		x := *p.Context
		c.Context = &x
	}
	if p.Precise != nil {
		x := *p.Precise
		c.Precise = &x
	}
	return &c
}
