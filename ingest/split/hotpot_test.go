package split

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// hotpotDir is the HotpotQA evaluation set (testdata/hotpotqa53, docs/EVAL.md);
// CITELENS_HOTPOTQA overrides where it is looked for.
func hotpotDir(t testing.TB) string {
	dir := os.Getenv("CITELENS_HOTPOTQA")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "hotpotqa53")
	}
	if _, err := os.Stat(filepath.Join(dir, "questions.jsonl")); err != nil {
		t.Skipf("HotpotQA data not found (%v); set CITELENS_HOTPOTQA to its folder", err)
	}
	return dir
}

type goldSpan struct {
	Doc        string `json:"doc"`
	Start, End int
	Text       string `json:"text"`
}

// TestHotpotQAEvidence splits the merged HotpotQA document and measures
// how many gold supporting-fact sentences come out as exactly one sentence
// (exact) or lie inside one sentence (contained). HotpotQA's own splitter
// is not perfect (it ends a sentence inside a quoted album title, "…and
// More!\" album."), so 100% is neither possible nor the aim; the floors
// guard against regressions.
func TestHotpotQAEvidence(t *testing.T) {
	t.Parallel()
	dir := hotpotDir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "docs", "hotpotqa53.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	sents := Sentences(text)
	checkInvariants(t, text, sents)

	f, err := os.Open(filepath.Join(dir, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var gold []goldSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q struct{ Evidence []goldSpan }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		gold = append(gold, q.Evidence...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(gold) < 100 {
		t.Fatalf("only %d evidence spans read", len(gold))
	}

	exact, contained := 0, 0
	for _, g := range gold {
		if g.End > len(text) || text[g.Start:g.End] != g.Text {
			t.Fatalf("evidence %q does not match the document bytes", g.Text)
		}
		gs, ge := g.Start, g.End
		gs = skipSpace(text, gs, ge)
		ge = trimSpaceEnd(text, gs, ge)
		i := sort.Search(len(sents), func(i int) bool { return sents[i].End > gs })
		switch {
		case i < len(sents) && sents[i].Start == gs && sents[i].End == ge:
			exact++
			contained++
		case i < len(sents) && sents[i].Start <= gs && ge <= sents[i].End:
			contained++
			t.Logf("contained, not exact:\n  gold %q\n  seg  %q", text[gs:ge], text[sents[i].Start:sents[i].End])
		default:
			var segs []string
			for j := i; j < len(sents) && sents[j].Start < ge; j++ {
				segs = append(segs, text[sents[j].Start:sents[j].End])
			}
			t.Logf("split:\n  gold %q\n  segs %q", text[gs:ge], segs)
		}
	}
	fe := float64(exact) / float64(len(gold))
	fc := float64(contained) / float64(len(gold))
	t.Logf("HotpotQA evidence: %d spans, %d sentences; exact %.1f%%, contained %.1f%%",
		len(gold), len(sents), 100*fe, 100*fc)
	if fe < 0.98 || fc < 0.99 {
		t.Errorf("exact %.3f (floor 0.98), contained %.3f (floor 0.99)", fe, fc)
	}
}
