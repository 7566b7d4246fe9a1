package bboxref

import (
	"math"
	"strings"
	"testing"
)

const sample = `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title></title></head><body><doc>
<page width="100.000000" height="200.000000"><flow><block xMin="10" yMin="20" xMax="90" yMax="40">
<line xMin="10" yMin="20" xMax="90" yMax="30"><word xMin="10" yMin="20" xMax="30" yMax="30">The</word><word xMin="40" yMin="20" xMax="90" yMax="30">ﬁrst&amp;</word></line>
<line xMin="10" yMin="30" xMax="50" yMax="40"><word xMin="10" yMin="30" xMax="50" yMax="40">line` + "\x08" + `s.</word></line>
</block></flow></page>
<page width="100.000000" height="100.000000"><flow><block><line><word xMin="0" yMin="0" xMax="50" yMax="10">next</word></line></block></flow></page>
</doc></body></html>`

func TestParseAndLocate(t *testing.T) {
	t.Parallel()
	d, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages() != 2 || len(d.Words) != 4 || d.Words[1].Text != "ﬁrst&" {
		t.Fatalf("parsed %d pages, words %+v", d.Pages(), d.Words)
	}
	// "first lines" matches the second word of line 1 and line 2: one box
	// per line
	boxes, ok := d.Locate(1, 1, 0, "First", "lines")
	want := []Box{{1, 0.4, 0.1, 0.9, 0.15}, {1, 0.1, 0.15, 0.5, 0.2}}
	if !ok || len(boxes) != 2 || boxes[0] != want[0] || boxes[1] != want[1] {
		t.Errorf("Locate: %v %v, want %v", boxes, ok, want)
	}
	if _, ok := d.Locate(1, 1, 0, "missing"); ok {
		t.Error("found text that is not there")
	}
	if boxes, ok := d.Locate(1, 2, 0, "lines next"); !ok || len(boxes) != 2 || boxes[1].Page != 2 {
		t.Errorf("across pages: %v %v", boxes, ok)
	}
}

func TestIoU(t *testing.T) {
	t.Parallel()
	a := []Box{{1, 0, 0, 0.5, 0.1}}
	for _, c := range []struct {
		b    []Box
		want float64
	}{
		{a, 1},
		{[]Box{{1, 0.25, 0, 0.75, 0.1}}, 1.0 / 3},
		{[]Box{{2, 0, 0, 0.5, 0.1}}, 0},
		{[]Box{{1, 0, 0, 0.25, 0.1}, {1, 0.25, 0, 0.5, 0.1}}, 1},
		{nil, 0},
	} {
		if got := IoU(a, c.b); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("IoU(%v, %v) = %g, want %g", a, c.b, got, c.want)
		}
	}
}
