// Command geomiou measures the page geometry citelens stores against an
// independent extractor: it adds each PDF to a fresh library, samples
// sentences, and compares the rectangles Geometry.SpanRects gives each
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
	docs := make([]*sample, len(files))
	for i, f := range files {
		if docs[i], err = load(lib, f, rand.New(rand.NewPCG(*seed, uint64(i)))); err != nil {
			fail(err)
		}
	}
	// n sentences in all, an equal share from each file, a file's unused
	// share going to the others
	for left := *n; left > 0; {
		given := 0
		for _, d := range docs {
			if len(d.picked) < len(d.eligible) && left > 0 {
				d.picked = append(d.picked, d.eligible[len(d.picked)])
				left--
				given++
			}
		}
		if given == 0 {
			break
		}
	}
	var total tally
	for i, d := range docs {
		t, err := d.measure(lib, *verbose)
		if err != nil {
			fail(err)
		}
		t.print(filepath.Base(files[i]))
		total.add(t)
		if size, pages, err := lib.Geometry().Size(d.doc.ID); err == nil {
			fmt.Printf("%-16s geometry %d bytes for %d pages: %.0f bytes a page, %.2f bytes per byte of text\n",
				"", size, pages, float64(size)/float64(max(pages, 1)), float64(size)/float64(max(len(d.doc.Text), 1)))
		}
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

// sample is a document with its sentences to measure.
type sample struct {
	doc      *docstore.Document
	ref      *bboxref.Doc
	eligible []int // sentences of at least 20 letters and digits, shuffled
	picked   []int
}

// load adds a PDF, reads it with pdftotext, and lists its sentences of at
// least 20 letters and digits in a random order.
func load(lib *docstore.Library, path string, rng *rand.Rand) (*sample, error) {
	ctx := context.Background()
	info, _, err := lib.Add(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	d, err := lib.Document(info.ID)
	if err != nil {
		return nil, err
	}
	ref, err := bboxref.Run(ctx, path)
	if err != nil {
		return nil, err
	}
	s := &sample{doc: d, ref: ref}
	for i := range d.Sentences {
		if len(bboxref.Folded(d.SentenceText(i))) >= 20 {
			s.eligible = append(s.eligible, i)
		}
	}
	rng.Shuffle(len(s.eligible), func(i, j int) { s.eligible[i], s.eligible[j] = s.eligible[j], s.eligible[i] })
	return s, nil
}

// measure scores the picked sentences.
func (s *sample) measure(lib *docstore.Library, verbose bool) (tally, error) {
	d := s.doc
	picked := slices.Sorted(slices.Values(s.picked))
	var t tally
	for _, i := range picked {
		x := d.Sentences[i]
		iou, found, err := score(lib, d, s.ref, int(x.Start), int(x.End))
		if err != nil {
			return t, err
		}
		t.sampled++
		if !found {
			if verbose {
				fmt.Printf("  not found by pdftotext, page %d: %q\n", x.Page, clip(d.SentenceText(i)))
			}
			continue
		}
		t.found++
		t.sum += iou
		if iou >= 0.5 {
			t.good++
		} else if verbose {
			fmt.Printf("  IoU %.2f page %d: %q\n", iou, x.Page, clip(d.SentenceText(i)))
		}
	}
	return t, nil
}

// score compares the rectangles of bytes [start, end) with pdftotext's
// placement of the same text.
func score(lib *docstore.Library, d *docstore.Document, ref *bboxref.Doc, start, end int) (float64, bool, error) {
	lines, err := lib.Geometry().SpanLines(d.ID, start, end)
	if err != nil {
		return 0, false, err
	}
	parts := make([]bboxref.Part, len(lines))
	for i, l := range lines {
		parts[i] = bboxref.Part{Text: d.Text[l.Start:l.End], Box: bboxref.Box{Page: l.Page, X0: l.X0, Y0: l.Y0, X1: l.X1, Y1: l.Y1}}
	}
	first := d.PageOf(start)
	nth := bboxref.Occurrences(d.Text[d.PageStarts[first-1]:start], d.Text[start:end])
	iou, found := ref.Score(first, d.PageOf(end-1), nth, parts)
	return iou, found, nil
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}
