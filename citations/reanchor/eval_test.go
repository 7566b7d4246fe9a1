package reanchor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// label is one hand-labelled cited sentence of testdata/reanchor.
type label struct {
	Pair  string `json:"pair"`
	Old   string `json:"old"`   // how the old sentence begins (white space folded)
	Class Class  `json:"class"` // its true class
	New   string `json:"new"`   // changed: how its new text begins
}

// evalDir holds the redline pairs and their labels.
const evalDir = "../../testdata/reanchor"

var evalSources = map[string]string{
	"mime":        "../manuals-qa/docs/shared-mime-info-spec.txt",
	"declaration": "../declaration.txt",
}

func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// pageVersion splits text into sentences, its pages cut at form feeds.
func pageVersion(text string) *Version {
	v := version(text)
	for i := range v.Sentences {
		v.Sentences[i].Page = 1 + strings.Count(text[:v.Sentences[i].Start], "\f")
	}
	return v
}

// locate returns the one byte range of text whose words are those of
// want, white space aside; n is how many there are.
func locate(text, want string) (start, end, n int) {
	w := strings.Fields(want)
	if len(w) == 0 {
		return 0, 0, 0
	}
	for i := 0; i < len(text); {
		k := strings.Index(text[i:], w[0])
		if k < 0 {
			break
		}
		at := i + k
		p, ok := at, true
		for x, word := range w {
			if x > 0 {
				q := p
				for q < len(text) && strings.ContainsRune(" \t\n\r\f\v\u00a0", rune(text[q])) {
					q++
				}
				if q == p {
					ok = false
					break
				}
				p = q
			}
			if !strings.HasPrefix(text[p:], word) {
				ok = false
				break
			}
			p += len(word)
		}
		if ok {
			start, end, n = at, p, n+1
		}
		i = at + 1
	}
	return start, end, n
}

// TestEvaluation re-anchors the hand-labelled citations of the redline
// pairs in testdata/reanchor and holds the figures of its README as
// floors: precision and recall of changed and gone, and the share of
// unchanged (and moved) citations whose new bytes are exactly right.
func TestEvaluation(t *testing.T) {
	f, err := os.Open(filepath.Join(evalDir, "labels.jsonl"))
	if err != nil {
		t.Skipf("testdata/reanchor is missing: %v", err)
	}
	defer f.Close()
	type pair struct {
		old, new *Version
		a        *Alignment
	}
	pairs := map[string]*pair{}
	load := func(name string) *pair {
		if p := pairs[name]; p != nil {
			return p
		}
		oldPath, newPath := evalSources[name], name+".new.txt"
		if pg, ok := strings.CutPrefix(name, "pg:"); ok {
			// Two real releases of PostgreSQL's manual (README).
			oldPath, newPath = "postgresql/"+pg+".15.18.txt", "postgresql/"+pg+".15.20.txt"
		}
		ob, err := os.ReadFile(filepath.Join(evalDir, oldPath))
		if err != nil {
			t.Fatal(err)
		}
		nb, err := os.ReadFile(filepath.Join(evalDir, newPath))
		if err != nil {
			t.Fatal(err)
		}
		p := &pair{old: pageVersion(string(ob)), new: pageVersion(string(nb))}
		p.a = Align(p.old, p.new)
		pairs[name] = p
		return p
	}
	predicted, truth, correct := map[Class]int{}, map[Class]int{}, map[Class]int{}
	exact, sameTotal := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l label
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("labels.jsonl: %v", err)
		}
		p := load(l.Pair)
		old := -1
		for i := range p.old.Sentences {
			if strings.HasPrefix(fold(p.old.text(i)), fold(l.Old)) {
				if old >= 0 {
					t.Fatalf("%q begins two sentences", l.Old)
				}
				old = i
			}
		}
		if old < 0 {
			t.Fatalf("%s: no sentence begins %q", l.Pair, l.Old)
		}
		r := p.a.Citation(old, old)
		truth[l.Class]++
		predicted[r.Class]++
		ok := r.Class == l.Class
		switch l.Class {
		case Unchanged, Moved:
			sameTotal++
			s, e, n := locate(p.new.Text, p.old.text(old))
			if n != 1 {
				t.Fatalf("%q: its text is %d times in the new version, want once", l.Old, n)
			}
			if ok && r.Start == s && r.End == e {
				exact++
			} else {
				ok = false
			}
		case Changed:
			ok = ok && strings.HasPrefix(fold(p.new.Text[r.Start:r.End]), fold(l.New))
		}
		if ok {
			correct[l.Class]++
		} else {
			got := ""
			if r.First >= 0 {
				got = p.new.Text[r.Start:r.End]
			}
			t.Logf("%s %q: %s %q (similarity %.2f), labelled %s", l.Pair, l.Old, r.Class, got, r.Similarity, l.Class)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| class | labelled | predicted | precision | recall |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range []Class{Unchanged, Moved, Changed, Gone} {
		fmt.Fprintf(&table, "| %s | %d | %d | %.2f | %.2f |\n", c, truth[c], predicted[c], ratio(correct[c], predicted[c]), ratio(correct[c], truth[c]))
	}
	fmt.Fprintf(&table, "unchanged and moved at exactly the right bytes: %d of %d\n", exact, sameTotal)
	t.Logf("\n%s", table.String())
	// The floors: today's figures (testdata/reanchor/README.md).
	for _, c := range []Class{Changed, Gone} {
		if p := ratio(correct[c], predicted[c]); p < 1 {
			t.Errorf("precision of %s %.2f, below its floor 1.00", c, p)
		}
		if r := ratio(correct[c], truth[c]); r < 1 {
			t.Errorf("recall of %s %.2f, below its floor 1.00", c, r)
		}
	}
	if exact != sameTotal {
		t.Errorf("%d of %d unchanged and moved citations at exactly the right bytes, want all", exact, sameTotal)
	}
}
