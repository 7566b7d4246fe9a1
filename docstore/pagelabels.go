package docstore

import (
	"sort"
	"strconv"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// PageLabelRange is one range of a document's page labels, as a PDF's
// /PageLabels gives them: from page First (1-based) until the next range,
// pages are labelled Prefix followed by a number in Style counting up
// from Start. Style is "D" (1, 2, 3), "R" (I, II), "r" (i, ii), "A" (A…Z,
// AA…), "a", or "" for the prefix alone.
type PageLabelRange struct {
	First  int    `json:"first"`
	Style  string `json:"style,omitempty"`
	Prefix string `json:"prefix,omitempty"`
	Start  int    `json:"start,omitempty"`
}

// PageLabel returns page's label as the document prints it ("xii",
// "316"), or "" when the document has no labels or the page none.
func (i DocInfo) PageLabel(page int) string {
	ls := i.PageLabels
	k := sort.Search(len(ls), func(j int) bool { return ls[j].First > page }) - 1
	if k < 0 || page < 1 {
		return ""
	}
	r := ls[k]
	r.Prefix = textproc.OneLine(r.Prefix) // a damaged record may hold anything
	n := max(r.Start, 1) + page - r.First
	switch r.Style {
	case "D":
		return r.Prefix + strconv.Itoa(n)
	case "R":
		return r.Prefix + roman(n)
	case "r":
		return r.Prefix + strings.ToLower(roman(n))
	case "A":
		return r.Prefix + letters(n)
	case "a":
		return r.Prefix + strings.ToLower(letters(n))
	}
	return r.Prefix
}

// PrintedPage returns page's label when it differs from the page's
// number (so it is worth showing beside it), else "".
func (i DocInfo) PrintedPage(page int) string {
	if l := i.PageLabel(page); l != strconv.Itoa(page) {
		return l
	}
	return ""
}

// PageName names a page for people: "p. 316 (PDF p. 347)" when the
// document prints another label on it, else "p. 347".
func (i DocInfo) PageName(page int) string {
	if l := i.PrintedPage(page); l != "" {
		return "p. " + l + " (PDF p. " + strconv.Itoa(page) + ")"
	}
	return "p. " + strconv.Itoa(page)
}

// roman writes n (1…3999; beyond, in decimal) in capital roman numerals.
func roman(n int) string {
	if n < 1 || n > 3999 {
		return strconv.Itoa(n)
	}
	vals := [...]int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := [...]string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var b strings.Builder
	for k, v := range vals {
		for n >= v {
			b.WriteString(syms[k])
			n -= v
		}
	}
	return b.String()
}

// letters writes n as PDF's letter labels do: A…Z, then AA…ZZ, AAA…,
// the letter repeated (§12.4.2).
func letters(n int) string {
	if n < 1 || n > 26*64 {
		return strconv.Itoa(n)
	}
	return strings.Repeat(string(rune('A'+(n-1)%26)), (n-1)/26+1)
}
