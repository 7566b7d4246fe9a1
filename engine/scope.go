package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
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
	return humanize.Plural(len(docs), "document", "documents") + ", " + humanize.Plural(sentences, "sentence", "sentences")
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
