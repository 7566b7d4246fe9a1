package pagegeom

import (
	"errors"
	"math"
	"testing"
)

// samplePage has a line across the page, one written right to left and
// one running up it, as a turned page or a vertical label has.
func samplePage() Page {
	return Page{Width: 612, Height: 792, Lines: []Line{
		{Start: 100, End: 117, Dir: LeftToRight, Box: Rect{0.1, 0.2, 0.5, 0.22}, Words: []Word{
			{Start: 100, End: 105, From: 0.1, To: 0.2}, {Start: 106, End: 110, From: 0.21, To: 0.3}, {Start: 111, End: 117, From: 0.31, To: 0.5}}},
		{Start: 119, End: 128, Dir: RightToLeft, Box: Rect{0.4, 0.3, 0.9, 0.32}, Words: []Word{
			{Start: 119, End: 123, From: 0.7, To: 0.9}, {Start: 124, End: 128, From: 0.4, To: 0.6}}},
		{Start: 130, End: 140, Dir: BottomToTop, Box: Rect{0.05, 0.3, 0.07, 0.8}, Words: []Word{
			{Start: 130, End: 134, From: 0.6, To: 0.8}, {Start: 135, End: 140, From: 0.3, To: 0.55}}},
	}}
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) <= 1.0/q }

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	p := samplePage()
	b := Append(nil, &p)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Width != p.Width || got.Height != p.Height || len(got.Lines) != len(p.Lines) {
		t.Fatalf("decoded %+v", got)
	}
	for i, l := range p.Lines {
		g := got.Lines[i]
		if g.Start != l.Start || g.End != l.End || g.Dir != l.Dir || len(g.Words) != len(l.Words) ||
			!near(g.Box.X0, l.Box.X0) || !near(g.Box.Y0, l.Box.Y0) || !near(g.Box.X1, l.Box.X1) || !near(g.Box.Y1, l.Box.Y1) {
			t.Fatalf("line %d: %+v, want %+v", i, g, l)
		}
		for k, w := range l.Words {
			gw := g.Words[k]
			if gw.Start != w.Start || gw.End != w.End || !near(gw.From, w.From) || !near(gw.To, w.To) {
				t.Errorf("line %d word %d: %+v, want %+v", i, k, gw, w)
			}
		}
	}
	if w, h, err := Size(b); err != nil || w != 612 || h != 792 {
		t.Errorf("Size: %g %g %v", w, h, err)
	}
	t.Logf("%d bytes for %d words", len(b), 7)
}

func TestRects(t *testing.T) {
	t.Parallel()
	p := samplePage()
	for _, c := range []struct {
		name       string
		start, end int32
		want       []Rect
	}{
		{"whole first line", 100, 117, []Rect{{0.1, 0.2, 0.5, 0.22}}},
		{"its middle word", 107, 108, []Rect{{0.21, 0.2, 0.3, 0.22}}},
		{"from its second word into the next line's first", 106, 121, []Rect{{0.21, 0.2, 0.5, 0.22}, {0.7, 0.3, 0.9, 0.32}}},
		{"the separator between two lines only", 117, 119, nil},
		{"the last word of the vertical line", 136, 140, []Rect{{0.05, 0.3, 0.07, 0.55}}},
		{"nothing", 50, 60, nil},
		{"empty", 105, 105, nil},
	} {
		got := p.Rects(c.start, c.end)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			g, w := got[i], c.want[i]
			ok = near(g.X0, w.X0) && near(g.Y0, w.Y0) && near(g.X1, w.X1) && near(g.Y1, w.Y1)
		}
		if !ok {
			t.Errorf("%s [%d,%d): %v, want %v", c.name, c.start, c.end, got, c.want)
		}
	}
}

func TestRemap(t *testing.T) {
	t.Parallel()
	p := samplePage()
	b, err := Remap(Append(nil, &p), func(off int32) int32 { return off*2 + 1 })
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if l := got.Lines[1]; l.Start != 239 || l.End != 257 || l.Words[1].Start != 249 {
		t.Errorf("remapped line %+v", l)
	}
}

func TestDecodeDamaged(t *testing.T) {
	t.Parallel()
	p := samplePage()
	b := Append(nil, &p)
	for n := range len(b) {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
	}
	if _, err := Decode(append(b, 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a byte too many: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	p := samplePage()
	f.Add(Append(nil, &p))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		// what decodes encodes to the same page
		again, err := Decode(Append(nil, &p))
		if err != nil || len(again.Lines) != len(p.Lines) {
			t.Fatalf("re-encoded: %v", err)
		}
		p.Rects(0, math.MaxInt32)
	})
}
