package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// loadScope loads a request's documents in order, each once; an empty
// scope means every document of the library.
func loadScope(lib *docstore.Library, ids []docstore.DocID) ([]*docstore.Document, error) {
	if len(ids) == 0 {
		infos, err := lib.List()
		if err != nil {
			return nil, err
		}
		for _, in := range infos {
			ids = append(ids, in.ID)
		}
	}
	if len(ids) == 0 {
		return nil, ErrEmptyScope
	}
	seen := make(map[docstore.DocID]bool, len(ids))
	docs := make([]*docstore.Document, 0, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		d, err := lib.Document(id)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// DescribeScope says how much of the scope a prompt shows, for stages:
// "1 document, 3,412 sentences".
func DescribeScope(docs []*docstore.Document, sentences int) string {
	return Plural(len(docs), "document", "documents") + ", " + Plural(sentences, "sentence", "sentences")
}

// Thousands writes n with thousands separators: "9,870"
// (textproc.Thousands).
func Thousands(n int) string { return textproc.Thousands(n) }

// ApproxTokens writes a token count roughly: "850", "12k", "1.4M".
func ApproxTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// Kilo writes a token count briefly: "950", "12k".
func Kilo(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return strconv.Itoa((n+500)/1000) + "k"
}

// Plural writes n (with thousands separators) and the noun that agrees
// with it: Plural(1, "chunk", "chunks") is "1 chunk", Plural(1204,
// "summary", "summaries") is "1,204 summaries".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Ranges writes numbers (pages, chunks) sorted, as ranges: "1-3, 7".
func Ranges(xs []int) string {
	xs = slices.Compact(slices.Sorted(slices.Values(xs)))
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, fmt.Sprint(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
