// Command geomiou measures the page geometry citelens stores against an
// independent extractor: it adds each PDF to a fresh library, samples
// sentences, and compares the rectangles Library.SpanRects gives each
// with where pdftotext -bbox-layout places the same text. It reports, per
// file and overall, the share of sentences whose IoU is at least 0.5.
//
// usage: geomiou [-n 200] [-seed 1] [-v] FILE.pdf...
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/pagegeom/bboxref"
)

func main() {
	n := flag.Int("n", 200, "sentences to sample over all the files")
	seed := flag.Uint64("seed", 1, "sampling seed")
	verbose := flag.Bool("v", false, "print every sentence below the threshold")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "usage: geomiou [-n 200] [-seed 1] [-v] FILE.pdf...")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "geomiou-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	lib, err := docstore.Open(filepath.Join(dir, "lib.db"), nil)
	if err != nil {
		fail(err)
	}
	defer lib.Close()
	var total tally
	for i, f := range files {
		k := *n / len(files)
		if i < *n%len(files) {
			k++
		}
		t, err := measure(lib, f, k, rand.New(rand.NewPCG(*seed, uint64(i))), *verbose)
		if err != nil {
			fail(err)
		}
		t.print(filepath.Base(f))
		total.add(t)
	}
	total.print("all")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "geomiou:", err)
	os.Exit(1)
}

// tally counts sentences by outcome.
type tally struct {
	sampled, found, good int
	sum                  float64
}

func (t *tally) add(o tally) {
	t.sampled += o.sampled
	t.found += o.found
	t.good += o.good
	t.sum += o.sum
}

func (t tally) print(name string) {
	fmt.Printf("%-16s sampled %4d  found by pdftotext %4d  IoU≥0.5 %4d (%.1f%% of found, %.1f%% of sampled)  mean IoU %.3f\n",
		name, t.sampled, t.found, t.good, pct(t.good, t.found), pct(t.good, t.sampled), t.sum/float64(max(t.found, 1)))
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// measure adds a PDF and scores k of its sentences, sampled among those
// with at least 20 letters and digits.
func measure(lib *docstore.Library, path string, k int, rng *rand.Rand, verbose bool) (tally, error) {
	ctx := context.Background()
	info, _, err := lib.Add(ctx, path, nil)
	if err != nil {
		return tally{}, err
	}
	d, err := lib.Document(info.ID)
	if err != nil {
		return tally{}, err
	}
	ref, err := bboxref.Run(ctx, path)
	if err != nil {
		return tally{}, err
	}
	var eligible []int
	for i := range d.Sentences {
		if len(bboxref.Folded(d.SentenceText(i))) >= 20 {
			eligible = append(eligible, i)
		}
	}
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })
	eligible = eligible[:min(k, len(eligible))]
	slices.Sort(eligible)
	var t tally
	for _, i := range eligible {
		s := d.Sentences[i]
		iou, found, err := score(lib, d, ref, int(s.Start), int(s.End))
		if err != nil {
			return t, err
		}
		t.sampled++
		if !found {
			if verbose {
				fmt.Printf("  not found by pdftotext, page %d: %q\n", s.Page, clip(d.SentenceText(i)))
			}
			continue
		}
		t.found++
		t.sum += iou
		if iou >= 0.5 {
			t.good++
		} else if verbose {
			fmt.Printf("  IoU %.2f page %d: %q\n", iou, s.Page, clip(d.SentenceText(i)))
		}
	}
	return t, nil
}

// score compares the rectangles of bytes [start, end) with pdftotext's
// placement of the same text.
func score(lib *docstore.Library, d *docstore.Document, ref *bboxref.Doc, start, end int) (float64, bool, error) {
	rects, err := lib.SpanRects(d.ID, start, end)
	if err != nil {
		return 0, false, err
	}
	first, last := d.PageOf(start), d.PageOf(end-1)
	var parts []string
	for p := first; p <= last; p++ {
		lines, err := lib.PageLines(d.ID, p)
		if err != nil {
			return 0, false, err
		}
		for _, l := range lines {
			if a, b := max(l.Start, start), min(l.End, end); a < b {
				parts = append(parts, d.Text[a:b])
			}
		}
	}
	ours := make([]bboxref.Box, len(rects))
	for i, r := range rects {
		ours[i] = bboxref.Box{Page: r.Page, X0: r.X0, Y0: r.Y0, X1: r.X1, Y1: r.Y1}
	}
	iou, found := ref.Score(first, last, parts, ours)
	return iou, found, nil
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
