package pdftext

import (
	"sort"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// PageLabel is one range of a PDF's page labels (/PageLabels in the
// catalog, PDF 32000-1 §12.4.2): from page First (1-based) until the next
// range, pages are labelled Prefix followed by a number in Style counting
// up from Start. Style is "D" (decimal), "R" or "r" (roman), "A" or "a"
// (letters), or "" for the prefix alone.
type PageLabel struct {
	First  int
	Style  string
	Prefix string
	Start  int
}

// Limits on a hostile label tree.
const (
	maxLabelNodes  = 4096
	maxLabelDepth  = 32
	maxLabelPrefix = 32 // runes
)

// pageLabels reads the catalog's /PageLabels number tree: the ranges that
// start within the document's pages, in page order. A missing or damaged
// tree gives none (pages are then named by their number).
func pageLabels(tree pdf.Value, pages int) []PageLabel {
	if tree.Kind() != pdf.Dict {
		return nil
	}
	var out []PageLabel
	nodes := 0
	seen := pdffile.Seen{}
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if nodes++; nodes > maxLabelNodes || depth > maxLabelDepth || v.Kind() != pdf.Dict {
			return
		}
		if nums := v.Key("Nums"); nums.Kind() == pdf.Array {
			for i := 0; i+1 < nums.Len() && len(out) < pages; i += 2 {
				k := nums.Index(i)
				if k.Kind() != pdf.Integer {
					continue
				}
				idx := int(k.Int64())
				if idx < 0 || idx >= pages {
					continue
				}
				out = append(out, labelRange(idx+1, nums.Index(i+1)))
			}
		}
		if kids := v.Key("Kids"); kids.Kind() == pdf.Array {
			refs := pdffile.ArrayRefs(kids)
			for i := 0; i < kids.Len() && nodes <= maxLabelNodes; i++ {
				if seen.First(refs, i) {
					walk(kids.Index(i), depth+1)
				}
			}
		}
	}
	walk(tree, 0)
	sort.SliceStable(out, func(i, j int) bool { return out[i].First < out[j].First })
	// One range per start page: the last given wins, as a reader would
	// overwrite it.
	dedup := out[:0]
	for _, r := range out {
		if n := len(dedup); n > 0 && dedup[n-1].First == r.First {
			dedup[n-1] = r
			continue
		}
		dedup = append(dedup, r)
	}
	if trivial(dedup) {
		return nil
	}
	return dedup
}

// labelRange reads one label dictionary.
func labelRange(first int, d pdf.Value) PageLabel {
	r := PageLabel{First: first, Start: 1}
	if d.Kind() != pdf.Dict {
		return r
	}
	switch s := d.Key("S").Name(); s {
	case "D", "R", "r", "A", "a":
		r.Style = s
	}
	if p := d.Key("P"); p.Kind() == pdf.String {
		r.Prefix = cleanPrefix(p.Text())
	}
	if st := d.Key("St"); st.Kind() == pdf.Integer && st.Int64() >= 1 && st.Int64() < 1<<20 {
		r.Start = int(st.Int64())
	}
	return r
}

// cleanPrefix makes a label prefix printable and short.
func cleanPrefix(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.ToValidUTF8(s, "") {
		if n == maxLabelPrefix {
			break
		}
		c := cleanRune(r)
		if c == "" {
			continue
		}
		b.WriteString(c)
		n++
	}
	return strings.TrimSpace(b.String())
}

// trivial reports whether labels say nothing page numbers do not: one
// decimal range from the first page counting from 1, or none.
func trivial(ls []PageLabel) bool {
	return len(ls) == 0 || len(ls) == 1 && ls[0] == PageLabel{First: 1, Style: "D", Start: 1}
}
