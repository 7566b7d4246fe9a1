package reanchor

import "strings"

// OpKind says whether a word of a difference is kept, struck or added.
type OpKind byte

// The kinds of a difference's runs.
const (
	Same   OpKind = '='
	Delete OpKind = '-'
	Insert OpKind = '+'
)

// Op is a run of words of a difference: Text is the words as they stand
// in their version, joined by single spaces.
type Op struct {
	Kind OpKind `json:"op"`
	Text string `json:"text"`
}

// maxDiffCells bounds the table of one difference: longer texts are
// shown as struck whole and added whole.
const maxDiffCells = 1 << 20

// Diff returns the word-level difference from old to new, as a reader of
// a redline sees it: words split at white space, compared exactly, runs of
// kept, struck and added words in order.
func Diff(old, new string) []Op {
	a, b := strings.Fields(old), strings.Fields(new)
	var ops []Op
	add := func(k OpKind, w string) {
		if n := len(ops); n > 0 && ops[n-1].Kind == k {
			ops[n-1].Text += " " + w
			return
		}
		ops = append(ops, Op{k, w})
	}
	if len(a)*len(b) > maxDiffCells {
		if old != "" {
			ops = append(ops, Op{Delete, strings.Join(a, " ")})
		}
		if new != "" {
			ops = append(ops, Op{Insert, strings.Join(b, " ")})
		}
		return ops
	}
	n, m := len(a), len(b)
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				t[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			add(Same, a[i])
			i++
			j++
		case at(i+1, j) >= at(i, j+1):
			add(Delete, a[i])
			i++
		default:
			add(Insert, b[j])
			j++
		}
	}
	for ; i < n; i++ {
		add(Delete, a[i])
	}
	for ; j < m; j++ {
		add(Insert, b[j])
	}
	return ops
}
