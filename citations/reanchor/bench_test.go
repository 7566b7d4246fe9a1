package reanchor

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// manual builds a manual of about 2,000 pages (6 MB) from the manuals of
// testdata/manuals-qa, each repeated with its letters shifted so the
// copies do not share sentences, and its next version: a sentence in 53
// with a word changed, one in 97 struck, one in 211 followed by a new
// one, and a run of 40 moved from a third of the way to two thirds.
func manual(tb testing.TB) (old, nv *Version) {
	files, _ := filepath.Glob("../../testdata/manuals-qa/docs/*.txt")
	if len(files) == 0 {
		tb.Skip("testdata/manuals-qa/docs is missing")
	}
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		src.Write(b)
	}
	var text strings.Builder
	for k := 0; text.Len() < 6<<20; k++ {
		text.WriteString(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return 'a' + (r-'a'+rune(k))%26
			}
			return r
		}, src.String()))
		text.WriteString("\n\n")
	}
	old = version(text.String())
	n := len(old.Sentences)
	var sents []string
	for i := range old.Sentences {
		sents = append(sents, old.text(i))
	}
	moveFrom, moveTo := n/3, 2*n/3
	block := slices40(sents, moveFrom)
	var b strings.Builder
	for i, s := range sents {
		if i >= moveFrom && i < moveFrom+40 {
			continue
		}
		switch {
		case i%97 == 0:
			continue
		case i%53 == 0:
			f := strings.Fields(s)
			for k := len(f) - 1; k >= 0; k-- {
				if len(f[k]) > 3 && unicode.IsLetter(rune(f[k][0])) {
					f[k] = "revised"
					break
				}
			}
			s = strings.Join(f, " ")
		}
		b.WriteString(s)
		b.WriteString("\n\n")
		if i%211 == 0 {
			b.WriteString("This sentence is new in the second release of the manual.\n\n")
		}
		if i == moveTo {
			for _, m := range block {
				b.WriteString(m)
				b.WriteString("\n\n")
			}
		}
	}
	nv = version(b.String())
	for _, v := range []*Version{old, nv} {
		for i := range v.Sentences {
			v.Sentences[i].Page = v.Sentences[i].Start/3000 + 1
		}
	}
	return old, nv
}

func slices40(s []string, from int) []string { return s[from:min(from+40, len(s))] }

// BenchmarkReanchorLibrary re-anchors 1,000 saved answers of five
// citations each (one to three sentences) against the new version of a
// 2,000-page manual: one alignment, then the look-ups.
//
// On the 2-core development machine (2026-12): 62,707 sentences, 1.56 s
// an op, of which the alignment (BenchmarkAlign) 0.37 s; 130 MB resident.
// Under other processes' load the wall time ran to 7-9 s for 2.8 s of
// CPU over three ops.
func BenchmarkReanchorLibrary(b *testing.B) {
	old, nv := manual(b)
	rng := rand.New(rand.NewPCG(1, 2))
	type cite struct{ first, last int }
	var cites []cite
	for range 5000 {
		f := rng.IntN(len(old.Sentences) - 3)
		cites = append(cites, cite{f, f + rng.IntN(3)})
	}
	b.ReportMetric(float64(len(old.Sentences)), "sentences")
	b.ResetTimer()
	for b.Loop() {
		a := Align(old, nv)
		for _, c := range cites {
			a.Citation(c.first, c.last)
		}
	}
}

// BenchmarkAlign is the alignment alone.
func BenchmarkAlign(b *testing.B) {
	old, nv := manual(b)
	for b.Loop() {
		Align(old, nv)
	}
}

// TestManualClasses checks the benchmark's edits come out as they were
// made: the struck sentences gone or changed ranges, the moved run moved,
// the rest unchanged at exactly its new bytes.
func TestManualClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 6 MB manual")
	}
	old, nv := manual(t)
	a := Align(old, nv)
	counts := map[Class]int{}
	n := len(old.Sentences)
	for i := 0; i < n; i += 7 {
		r := a.Citation(i, i)
		counts[r.Class]++
		moved := i >= n/3 && i < n/3+40
		switch {
		case i%97 == 0 && !moved:
			if r.Class != Gone {
				t.Errorf("struck sentence %d: %s %q", i, r.Class, nv.Text[r.Start:r.End])
			}
		case moved:
			if r.Class != Moved && (i%53 != 0) {
				t.Errorf("moved sentence %d: %s", i, r.Class)
			}
		case i%53 == 0 && len(tokens(old.text(i))) >= 6:
			if r.Class != Changed {
				t.Errorf("reworded sentence %d %q: %s", i, old.text(i), r.Class)
			}
		case r.Class == Unchanged:
			if !sameText(nv.Text[r.Start:r.End], old.text(i)) {
				t.Errorf("unchanged %d at the wrong bytes", i)
			}
		}
	}
	t.Logf("%d sentences: %v", n, counts)
}
