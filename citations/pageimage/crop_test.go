package pageimage_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
)

// TestCropKeepsLinesWhole: the crop of every sentence of the R-intro
// sample shows each line it reaches into whole, so no neighbouring word
// is cut ("zerc", "ited."), and still holds the sentence's lines.
func TestCropKeepsLinesWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r-intro.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := docstore.Open(filepath.Join(dir, "library.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	info, _, err := ingest.New(lib, nil).Add(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := lib.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := pageimage.New(lib.Geometry(), nil) // no drawing: only the crop
	const eps = 1e-6
	cut, crops := 0, 0
	for i, sent := range doc.Sentences {
		pages, rects, err := s.Marks(doc.ID, int(sent.Start), int(sent.End))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			crop := s.Crop(doc.ID, p, rects[p])
			crops++
			if b := pagerender.Bounds(rects[p]); b.Intersect(crop) != b {
				t.Errorf("sentence %d: crop %v does not hold its lines %v", i, crop, b)
			}
			lines, err := lib.Geometry().PageLines(doc.ID, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				r := pagerender.Rect{X0: float64(l.X0), Y0: float64(l.Y0), X1: float64(l.X1), Y1: float64(l.Y1)}
				in := r.Intersect(crop)
				if in.Empty() || (in.Width() >= r.Width()-eps && in.Height() >= r.Height()-eps) {
					continue
				}
				if cut < 5 {
					t.Errorf("sentence %d (%q): crop %v cuts the line %q at %v", i, doc.SentenceText(i), crop, doc.Text[l.Start:l.End], r)
				}
				cut++
			}
		}
	}
	if cut > 0 {
		t.Errorf("%d lines cut in %d crops", cut, crops)
	}
}

// TestWholeLines: a short cited line between two longer ones takes them
// in whole; a column beside, out of reach, is left out and the paper
// stops short of it.
func TestWholeLines(t *testing.T) {
	t.Parallel()
	lines := []pagerender.Rect{
		{X0: 0.1, Y0: 0.30, X1: 0.45, Y1: 0.32}, // above: longer than the cited part
		{X0: 0.1, Y0: 0.33, X1: 0.45, Y1: 0.35}, // the cited line
		{X0: 0.1, Y0: 0.36, X1: 0.45, Y1: 0.38}, // below
		{X0: 0.1, Y0: 0.60, X1: 0.45, Y1: 0.62}, // far below: out
		{X0: 0.47, Y0: 0.33, X1: 0.9, Y1: 0.35}, // the next column, close by
	}
	got := pageimage.WholeLines(pagerender.Rect{X0: 0.2, Y0: 0.33, X1: 0.3, Y1: 0.35}, lines)
	for i, l := range lines[:3] {
		if l.Intersect(got) != l {
			t.Errorf("line %d %v is not whole in %v", i, l, got)
		}
	}
	for i, l := range lines[3:] {
		if !l.Intersect(got).Empty() {
			t.Errorf("line %d %v, out of reach, is in %v", i+3, l, got)
		}
	}
}

// TestAnswerPictures: the pictures drawn ahead for an answer are the
// ones drawn on demand, for each citation (a repeated one too), and a
// citation not in the answer is still drawn when asked.
func TestAnswerPictures(t *testing.T) {
	t.Parallel()
	s, doc, _ := library(t)
	ctx := context.Background()
	cite := func(text string) citations.Span {
		sent := sentence(t, doc, text)
		return citations.Span{Doc: doc.ID, DocName: doc.DisplayName(), Start: int(sent.Start), End: int(sent.End), Page: int(sent.Page)}
	}
	a, b, c := cite("environment"), cite("integrated suite"), cite("prompt")
	ans := &citations.Answer{Statements: []citations.Statement{
		{Text: "one", Citations: []citations.Span{a, b}},
		{Text: "two", Citations: []citations.Span{a}},
	}}
	docs := func(id docstore.DocID) (*docstore.Document, error) { return doc, nil }
	ahead := s.AnswerPictures(ctx, ans, docs)
	now := s.HTMLPictures(ctx, docs)
	for _, sp := range []citations.Span{b, a, a, c} {
		got, err := ahead(sp)
		if err != nil {
			t.Fatal(err)
		}
		want, err := now(sp)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || len(got) != len(want) {
			t.Fatalf("%d pictures drawn ahead, %d on demand", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].PNG, want[i].PNG) || got[i].Page != want[i].Page || got[i].Width != want[i].Width {
				t.Errorf("picture %d of %d–%d differs drawn ahead", i, sp.Start, sp.End)
			}
		}
	}
}
