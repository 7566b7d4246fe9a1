package generate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/llm"
)

// makeDoc builds a document from paragraphs of sentences: sentences joined
// by a space, paragraphs by a blank line, as a text file would hold them.
func makeDoc(id string, paras ...[]string) *docstore.Document {
	d := &docstore.Document{DocInfo: docstore.DocInfo{ID: docstore.DocID(id), Name: id + ".txt"}, PageStarts: []int32{0}}
	var b strings.Builder
	for p, sents := range paras {
		if p > 0 {
			b.WriteString("\n\n")
		}
		for i, s := range sents {
			if i > 0 {
				b.WriteString(" ")
			}
			start := b.Len()
			b.WriteString(s)
			d.Sentences = append(d.Sentences, docstore.Sentence{Start: int32(start), End: int32(b.Len()), Page: 1})
		}
	}
	d.Text = b.String()
	return d
}

func mustNumber(t testing.TB, parts ...citations.Part) *citations.Numbering {
	t.Helper()
	n, err := citations.NewSentenceNumbering(parts...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func prompt(t testing.TB, req Request) string {
	t.Helper()
	msgs, err := Messages(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != llm.RoleUser {
		t.Fatalf("messages %+v: want one user message, as LongCite sends", msgs)
	}
	return msgs[0].Content
}

func TestOneShotLayout(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"The sky is blue.", "Grass is green."}, []string{"Snow is white."})
	got := prompt(t, Request{Question: "What colour is snow?", Numbering: mustNumber(t, citations.Part{Doc: d}), Format: OneShot})
	want := lacInstructions + "\n\nHere is an example:\n\n" + lacExample +
		"\n\nNow get ready to handle the following test case.\n\n" +
		"[Document Start]\n<C0>The sky is blue. <C1>Grass is green.\n\n<C2>Snow is white.\n[Document End]\n\n" +
		"[Question]\nWhat colour is snow?\n\n[Remind]\n" + lacInstructions + "\n\n[Answer with Citations]\n"
	if got != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
	}
}

func TestLongCiteModelLayout(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"The sky is blue.", "Grass is green."}, []string{"Snow is white."})
	got := prompt(t, Request{Question: "What colour is snow?", Numbering: mustNumber(t, citations.Part{Doc: d}), Format: LongCiteModel})
	// THUDM/LongCite vllm_inference.py, get_prompt.
	want := "Please answer the user's question based on the following document. When a sentence S in your response uses information from some chunks in the document (i.e., <C{s1}>-<C_{e1}>, <C{s2}>-<C{e2}>, ...), please append these chunk numbers to S in the format \"<statement>{S}<cite>[{s1}-{e1}][{s2}-{e2}]...</cite></statement>\". You must answer in the same language as the user's question.\n\n" +
		"[Document Start]\n<C0>The sky is blue. <C1>Grass is green.\n\n<C2>Snow is white.\n[Document End]\n\nWhat colour is snow?"
	if got != want {
		t.Errorf("prompt:\n%q\nwant:\n%q", got, want)
	}
}

func TestDefaultFormat(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]Format{
		"THUDM/LongCite-glm4-9b": LongCiteModel, "longcite-llama3.1-8b": LongCiteModel,
		"gpt-4o-mini": OneShot, "": OneShot, "Qwen2.5-7B-Instruct": OneShot,
	} {
		if got := DefaultFormat(model); got != want {
			t.Errorf("DefaultFormat(%q) = %s, want %s", model, got, want)
		}
	}
	if _, err := ParseFormat("few-shot"); err == nil {
		t.Error("ParseFormat accepted an unknown format")
	}
}

func TestSparseAndMultiDocumentContext(t *testing.T) {
	t.Parallel()
	a := makeDoc("a", []string{"A0.", "A1.", "A2.", "A3."})
	b := makeDoc("b", []string{"B0.", "B1."}, []string{"B2."})
	n := mustNumber(t, citations.Part{Doc: a, Sentences: []int{3, 1, 2}}, citations.Part{Doc: b, Sentences: []int{0, 2}})
	var sb strings.Builder
	WriteContext(&sb, n)
	// Real indices across the concatenation: b's sentences start at 4.
	want := "Document 1: a.txt\n<C1>A1. <C2>A2. <C3>A3.\n\nDocument 2: b.txt\n<C4>B0.\n\n<C6>B2."
	if sb.String() != want {
		t.Errorf("context %q, want %q", sb.String(), want)
	}
}

func TestChunkContext(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"One.", "Two."}, []string{"Three.", "Four."})
	n, err := citations.NewChunkNumbering(citations.ChunkPart{Doc: d, First: 0, Last: 1}, citations.ChunkPart{Doc: d, First: 2, Last: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := prompt(t, Request{Question: "Q?", Numbering: n})
	if !strings.Contains(got, "[Contexts Start]\nSnippet [1]\nOne. Two.\n\nSnippet [2]\nThree. Four.\n[Context End]\n\n[Question]\nQ?") {
		t.Errorf("chunk prompt lacks the snippet layout:\n%s", got)
	}
	if !strings.HasPrefix(got, racInstructions) {
		t.Error("chunk prompt does not start with the snippet instructions")
	}
	if _, err := Messages(Request{Question: "Q?", Numbering: n, Format: LongCiteModel}); err == nil {
		t.Error("the LongCite model format accepted chunks")
	}
}

// TestExamplesAreConsistent checks the one-shot examples against their own
// documents: every citation parses and points at the sentences (or
// paragraphs) that hold the facts cited.
func TestExamplesAreConsistent(t *testing.T) {
	t.Parallel()
	var sents []string
	for _, s := range exampleSentences {
		if s != "" {
			sents = append(sents, s)
		}
	}
	facts := map[string][]string{ // statement fragment -> words its citations must contain
		"membrane filtration": {"48 million", "2026", "60 million"},
		"62 million":          {"62 million", "delayed"},
		"31% of capacity":     {"31%", "ban", "14%"},
	}
	check := func(answer string, cited func(citations.Ref) string) {
		raws := citations.Parse(answer)
		if len(raws) != 5 {
			t.Fatalf("example answer has %d statements, want 5", len(raws))
		}
		for _, r := range raws {
			var text strings.Builder
			for _, ref := range r.Refs {
				text.WriteString(cited(ref))
			}
			for frag, words := range facts {
				if !strings.Contains(r.Text, frag) {
					continue
				}
				for _, w := range words {
					if !strings.Contains(text.String(), w) {
						t.Errorf("statement %q: its citations lack %q", r.Text, w)
					}
				}
			}
			if len(r.Garbled) > 0 {
				t.Errorf("statement %q has garbled citations %q", r.Text, r.Garbled)
			}
		}
	}
	check(lacExampleAnswer, func(r citations.Ref) string { return strings.Join(sents[r.First:r.Last+1], " ") })
	paras := strings.Split(strings.Join(exampleSentences, "\x00"), "\x00\x00")
	check(racExampleAnswer, func(r citations.Ref) string { return paras[r.First-1] })
	if !strings.Contains(lacExample, "<C9>Construction has been delayed once") || !strings.Contains(lacExample, "wells.\n\n<C3>In the summer") {
		t.Errorf("the example document is not numbered as expected:\n%s", lacExample)
	}
	if !strings.Contains(racExample, "Snippet [3]\nA new membrane") {
		t.Errorf("the chunk example is not laid out as expected:\n%s", racExample)
	}
}

// TestTokenBound checks the promise FitScope relies on: the estimate of a
// whole prompt never exceeds Overhead plus the units' SentenceTokens.
func TestTokenBound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "reservoir", "fell", "<C12>", "31%", "水库", "naïve", "[Question]", "x", "ab\ncd", "déjà"}
	for trial := range 200 {
		var docs []*docstore.Document
		var parts []citations.Part
		for k := range 1 + rng.IntN(3) {
			var paras [][]string
			for range 1 + rng.IntN(4) {
				var sents []string
				for range 1 + rng.IntN(5) {
					var w []string
					for range 1 + rng.IntN(12) {
						w = append(w, words[rng.IntN(len(words))])
					}
					sents = append(sents, strings.Join(w, " ")+".")
				}
				paras = append(paras, sents)
			}
			d := makeDoc(fmt.Sprintf("d%d-%d", trial, k), paras...)
			docs = append(docs, d)
			var shown []int
			for i := range d.Sentences {
				if rng.IntN(3) > 0 {
					shown = append(shown, i)
				}
			}
			parts = append(parts, citations.Part{Doc: d, Sentences: shown})
		}
		n := mustNumber(t, parts...)
		for _, f := range []Format{OneShot, LongCiteModel} {
			q := "What happened to the reservoir?"
			bound := Overhead(f, citations.SentenceMode, q, docs)
			n.Each(func(u citations.Unit) bool {
				bound += SentenceTokens(u.Num, u.Doc.SentenceText(u.First))
				return true
			})
			msgs, err := Messages(Request{Question: q, Numbering: n, Format: f})
			if err != nil {
				t.Fatal(err)
			}
			if got := llm.EstimatePromptTokens(msgs); got > bound {
				t.Fatalf("trial %d %s: prompt estimates %d tokens, above the bound %d", trial, f, got, bound)
			}
		}
	}
}
