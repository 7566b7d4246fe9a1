package okra

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
)

func TestOrganize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		qt, it       string
		evidence     bool
		workflow     string
		windows, tok int
		lex, dense   float64
		op           string
	}{
		{Extractive, Exact, true, WorkflowDirect, 5, 150, 3, 2, ""},
		{Extractive, Semantic, false, WorkflowDirect, 5, 256, 2, 3, ""},
		{Abstractive, Same, true, WorkflowDirect, 8, 150, 1, 1, ""},
		{Abstractive, Semantic, false, WorkflowDirect, 8, 400, 2, 3, ""},
		{Arithmetic, Exact, false, WorkflowExtension, 5, 256, 3, 2, OpExtend},
		{MultiSource, Exact, true, WorkflowSplit, 5, 150, 3, 2, OpSplitter},
		{MultiBridge, Same, false, WorkflowStepwise, 5, 256, 1, 1, OpReasoner},
	} {
		p := organize(Analysis{QuestionType: c.qt, InformationType: c.it, EvidenceContained: c.evidence, Source: SourceModel}, true, "")
		if p.Workflow != c.workflow || p.Windows != c.windows || p.Granularity != c.tok ||
			p.Weights.Lexical != c.lex || p.Weights.Dense != c.dense || !p.Weights.DenseAvailable || p.Cutoff != 0.1 {
			t.Errorf("%s/%s/%v: %+v", c.qt, c.it, c.evidence, p)
		}
		if c.op != "" && !slices.Contains(p.Operators, c.op) {
			t.Errorf("%s: operators %q lack %q", c.qt, p.Operators, c.op)
		}
		if p.Operators[len(p.Operators)-1] != OpGeneration || !slices.Contains(p.Operators, OpMerge) || !slices.Contains(p.Operators, OpTables) {
			t.Errorf("%s: operators %q", c.qt, p.Operators)
		}
		if len(p.Reasons) < 3 || !strings.HasPrefix(p.Summary, c.qt+", "+c.it+" information") {
			t.Errorf("%s: reasons %q, summary %q", c.qt, p.Reasons, p.Summary)
		}
	}
	p := organize(Analysis{QuestionType: MultiBridge, InformationType: Exact, EvidenceContained: true, Source: "rules (model reply unusable: no dictionary in \"x\")"}, false, "no embedding model configured")
	want := "multi-bridge, exact information, evidence found (rules) → step-wise reasoner, 5 × 150-token segments, BM25 alone (no dense scores for the paper's 3:2)"
	if p.Summary != want {
		t.Errorf("summary\n%s\nwant\n%s", p.Summary, want)
	}
	if p.Weights.DenseAvailable || p.Weights.Note != "no embedding model configured" {
		t.Errorf("weights %+v", p.Weights)
	}
}

func TestPlanJSON(t *testing.T) {
	t.Parallel()
	p := organize(Analysis{QuestionType: MultiSource, InformationType: Exact, Source: SourceModel, Model: "m"}, false, "no embedding model configured")
	p.SubQueries = []string{"a?", "b?"}
	b, err := json.Marshal(p.clone())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"summary", "analysis", "workflow", "granularity", "segments", "weights", "cutoff", "operators", "reasons", "sub_queries"} {
		if _, ok := m[k]; !ok {
			t.Errorf("plan JSON lacks %q: %s", k, b)
		}
	}
	a := m["analysis"].(map[string]any)
	if a["question_type"] != "multi-source" || a["information_type"] != "exact" || a["evidence_contained"] != false || a["source"] != "model" {
		t.Errorf("analysis %v", a)
	}
	w := m["weights"].(map[string]any)
	if w["lexical"] != 3.0 || w["dense"] != 2.0 || w["dense_available"] != false {
		t.Errorf("weights %v", w)
	}
	// The summary comes first, so a one-line rendering shows it.
	if !strings.HasPrefix(string(b), `{"summary":`) {
		t.Errorf("plan JSON starts %.30s", b)
	}
}

func TestPlanCloneIsIndependent(t *testing.T) {
	t.Parallel()
	p := organize(Analysis{QuestionType: MultiBridge, InformationType: Exact, Source: SourceModel}, true, "")
	p.Steps = []Step{{Query: "q"}}
	c := p.clone()
	p.Steps[0].Query = "changed"
	p.Reasons[0] = "changed"
	p.Operators[0] = "changed"
	if c.Steps[0].Query != "q" || c.Reasons[0] == "changed" || c.Operators[0] == "changed" {
		t.Error("the clone shares slices with the plan")
	}
}

// doc builds a document of the given sentences, separated by spaces (or
// by the newline a sentence ends with).
func doc(sentences ...string) *docstore.Document {
	d := &docstore.Document{DocInfo: docstore.DocInfo{ID: "d"}}
	var b strings.Builder
	for _, s := range sentences {
		start := b.Len()
		b.WriteString(s)
		d.Sentences = append(d.Sentences, docstore.Sentence{Start: int32(start), End: int32(b.Len()), Page: 1})
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte(' ')
		}
	}
	d.Text = b.String()
	return d
}

func TestMerge(t *testing.T) {
	t.Parallel()
	in := []span{{0, 10, 12, 3}, {0, 1, 2, 0}, {0, 4, 5, 1}, {1, 0, 1, 2}, {0, 13, 13, 4}, {0, 30, 31, 5}}
	got := merge(in, 2)
	want := []span{{0, 1, 5, 0}, {0, 10, 13, 3}, {0, 30, 31, 5}, {1, 0, 1, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("merge: %v, want %v", got, want)
	}
	if len(merge(nil, 2)) != 0 {
		t.Error("merge of nothing")
	}
	if in[0] != (span{0, 10, 12, 3}) {
		t.Error("merge changed its input")
	}
}

func TestExtend(t *testing.T) {
	t.Parallel()
	d := doc("One two three four.", "Five six seven eight.", "Nine ten eleven twelve.", "Thirteen fourteen.", "Fifteen sixteen.")
	// Each sentence is about 5 or 6 tokens: a budget of 6 takes one
	// neighbour a side.
	got := extend([]*docstore.Document{d}, []span{{0, 2, 2, 0}}, 6)
	if got[0].first != 1 || got[0].last != 3 {
		t.Errorf("extend: %+v", got[0])
	}
	got = extend([]*docstore.Document{d}, []span{{0, 0, 4, 0}}, 100)
	if got[0].first != 0 || got[0].last != 4 {
		t.Errorf("extend past the ends: %+v", got[0])
	}
}

func TestTableLike(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Year  Revenue  Costs\n2019  410  380\n2020  395  390\n": true,
		"| a | b |\n|---|---|\n| 1 | 2 |":                        true,
		"2019\t410\t380\n2020\t395\t390":                         true,
		"2019 410 380 30\n2020 395 390 5":                        true,
		"Revenue rose to 410 in 2019 from 395.":                  false,
		"The budget table of the harbour authority follows.":     false,
		"": false,
	} {
		if got := tableLike(s); got != want {
			t.Errorf("tableLike(%q) = %v", s, got)
		}
	}
}

func TestRecoverTables(t *testing.T) {
	t.Parallel()
	d := doc("Budget.", "The table follows:\n",
		"Year  Revenue  Costs\n1980  400  350\n", "1981  403  352\n1982  406  354\n", "1983  409  356\n1984  412  358\n",
		"The surplus went to the fund.", "Other text.")
	docs := []*docstore.Document{d}
	// A span on the middle rows grows to the whole table and the line
	// introducing it, and no further.
	got := recoverTables(docs, []span{{0, 3, 3, 0}})
	if got[0].first != 1 || got[0].last != 4 {
		t.Errorf("recoverTables: %+v", got[0])
	}
	// A span ending on the table's first rows grows forward only.
	got = recoverTables(docs, []span{{0, 0, 2, 0}})
	if got[0].first != 0 || got[0].last != 4 {
		t.Errorf("recoverTables forward: %+v", got[0])
	}
	// Prose is left alone.
	got = recoverTables(docs, []span{{0, 5, 6, 0}})
	if got[0].first != 5 || got[0].last != 6 {
		t.Errorf("recoverTables on prose: %+v", got[0])
	}
}

func TestGathered(t *testing.T) {
	t.Parallel()
	d := doc("A one.", "B two.", "C three.", "D four.", "E five ### six.")
	g := newGathered([]*docstore.Document{d})
	ps := passages(d, [][2]int{{3, 4}, {0, 0}, {9, 9}})
	if n := g.add(ps); n != 2 {
		t.Errorf("add: %d new, want 2 (one is out of range)", n)
	}
	if n := g.add(passages(d, [][2]int{{0, 0}, {1, 1}})); n != 1 || g.windows != 3 {
		t.Errorf("add again: %d new, %d in all", n, g.windows)
	}
	// Merged in document order (gap 0 between 1 and 3 is filled), with
	// "###" defused.
	if got := g.text(); got != "A one. B two. C three. D four. E five ## six." {
		t.Errorf("text %q", got)
	}
	refs := ranked(g.spans)
	if len(refs) != 4 || refs[0].Sentence != 3 || refs[1].Sentence != 4 || refs[2].Sentence != 0 {
		t.Errorf("ranked %+v", refs)
	}
}

func TestInsufficient(t *testing.T) {
	t.Parallel()
	cite := []citations.Span{{First: 1, Last: 1}}
	for _, c := range []struct {
		sts  []citations.Statement
		text string
		want bool
	}{
		{[]citations.Statement{{Text: "Unanswerable."}}, "", true},
		{[]citations.Statement{{Text: "The context does not contain the answer.", Citations: cite}}, "", true},
		{[]citations.Statement{{Text: "It cannot be determined from the document."}}, "", true},
		{[]citations.Statement{{Text: "There is no information about the crew."}}, "", true},
		{[]citations.Statement{{Text: "The crew is not mentioned in the text."}}, "", true},
		{[]citations.Statement{{Text: "I don't know."}}, "", true},
		// An uncited answer is not a lack of evidence (generate.Settle
		// falls back for it); a negative statement about the world is an
		// answer: the paper rereads only on "unanswerable".
		{[]citations.Statement{{Text: "Raquel Welch was American."}}, "", false},
		{[]citations.Statement{{Text: "The fund does not have a reserve."}}, "", false},
		{[]citations.Statement{{Text: "No data were kept after 1990."}}, "", false},
		{nil, "", true},
		{nil, "The document doesn't say.", true},
		{[]citations.Statement{{Text: "Raquel Welch was American.", Citations: cite}}, "", false},
		{[]citations.Statement{{Text: "The answer is yes."}, {Text: "Both were American.", Citations: cite}}, "", false},
	} {
		got, why := insufficient(c.sts, c.text)
		if got != c.want || (got && why == "") {
			t.Errorf("%+v %q: %v %q", c.sts, c.text, got, why)
		}
	}
}
