package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// labelledPDF is n one-line pages with the catalog's /PageLabels set to
// labels (a PDF dictionary body, "" for none).
func labelledPDF(n int, labels string) []byte {
	p := &testPDF{}
	cat := "<< /Type /Catalog /Pages 2 0 R"
	if labels != "" {
		cat += " /PageLabels " + labels
	}
	p.add(cat + " >>")
	p.add("")
	var kids string
	for i := range n {
		words := []string{"Apples grow on trees in the orchard.", "Boats sail across the quiet harbour.", "Clocks tick in the old tower.", "Dogs bark at the passing cart.", "Eels swim in the muddy river."}
		cs := p.add(stream("", textLines("F1", 72, 400+40*float64(i), words[i%len(words)])))
		pg := p.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font %s >> /Contents %d 0 R >>", testFonts(), cs))
		kids += fmt.Sprintf("%d 0 R ", pg)
	}
	p.objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, n)
	return p.bytes()
}

func TestPageLabels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, tree string
		want       string
	}{
		{"none", "", "[]"},
		{"roman front matter", "<< /Nums [0 << /S /r >> 2 << /S /D >>] >>", "[{1 r  1} {3 D  1}]"},
		{"prefix and start", "<< /Nums [0 << /S /D /P (A-) /St 7 >>] >>", "[{1 D A- 7}]"},
		{"the page numbers", "<< /Nums [0 << /S /D >>] >>", "[]"},
		{"kids, out of order", "<< /Kids [<< /Nums [3 << /S /a >>] >> << /Nums [0 << /S /R >>] >>] >>", "[{1 R  1} {4 a  1}]"},
		{"past the last page", "<< /Nums [0 << /S /r >> 99 << /S /D >>] >>", "[{1 r  1}]"},
		{"hostile prefix", "<< /Nums [0 << /S /D /P (\033[31mx\n) >>] >>", "[{1 D ˙[31mx 1}]"}, // ESC is a breve in PDFDocEncoding
		{"not a tree", "(labels)", "[]"},
		{"bad entries", "<< /Nums [(x) << /S /D >> 1 (y) -4 << /S /r >>] >>", "[{2   1}]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := extractBytes(t, labelledPDF(5, c.tree))
			got := fmt.Sprint(res.PageLabels)
			if got != c.want {
				t.Errorf("labels %s, want %s", got, c.want)
			}
			if strings.ContainsRune(got, '\033') {
				t.Error("a control character reached the labels")
			}
		})
	}
}

// TestPageLabelsDeepTree: a label tree nested past any sense is cut off,
// not followed.
func TestPageLabelsDeepTree(t *testing.T) {
	t.Parallel()
	tree := "<< /Nums [0 << /S /r >>] >>"
	for range 100 {
		tree = "<< /Kids [" + tree + "] >>"
	}
	res := extractBytes(t, labelledPDF(2, tree))
	if len(res.PageLabels) != 0 {
		t.Errorf("labels %v from a tree 100 deep", res.PageLabels)
	}
}
