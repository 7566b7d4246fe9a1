package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/citelens/citelens/citations"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
)

// scope is a request's documents, read as the strategy needs them: the
// IDs named (nil for every document of the library), their list and their
// documents loaded only when asked for. A strategy that reads the library
// through its index (extractive) never loads what it does not cite.
type scope struct {
	lib   *docstore.Library
	named []docstore.DocID // deduplicated, in the request's order; nil: the library

	listOnce sync.Once
	ids      []docstore.DocID
	index    map[docstore.DocID]int
	listErr  error

	docsOnce sync.Once
	docs     []*docstore.Document
	docsErr  error
}

// newScope checks a request's documents: each named one must be in the
// library, and a library-wide scope must have documents.
func newScope(lib *docstore.Library, ids []docstore.DocID) (*scope, error) {
	s := &scope{lib: lib}
	if len(ids) == 0 {
		n, err := lib.Count()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, ErrEmptyScope
		}
		return s, nil
	}
	seen := make(map[docstore.DocID]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, err := lib.Info(id); err != nil {
			return nil, err
		}
		s.named = append(s.named, id)
	}
	return s, nil
}

// list returns the scope's IDs and their positions.
func (s *scope) list() ([]docstore.DocID, map[docstore.DocID]int, error) {
	s.listOnce.Do(func() {
		s.ids = s.named
		if s.ids == nil {
			s.ids, s.listErr = s.lib.IDs()
		}
		s.index = make(map[docstore.DocID]int, len(s.ids))
		for i, id := range s.ids {
			s.index[id] = i
		}
	})
	return s.ids, s.index, s.listErr
}

// load returns the scope's documents, loaded whole.
func (s *scope) load() ([]*docstore.Document, error) {
	s.docsOnce.Do(func() {
		ids, _, err := s.list()
		if err != nil {
			s.docsErr = err
			return
		}
		s.docs = make([]*docstore.Document, 0, len(ids))
		for _, id := range ids {
			d, err := s.lib.Document(id)
			if err != nil {
				s.docsErr = err
				return
			}
			s.docs = append(s.docs, d)
		}
	})
	return s.docs, s.docsErr
}

// refs names the scope's documents for the answer: each of them, or,
// for a library-wide scope of more than maxScopeRefs documents, none,
// with their number.
func (s *scope) refs() ([]citations.DocRef, int) {
	if s.named == nil {
		entries, total, err := s.lib.Listing(0, maxScopeRefs+1)
		if err != nil || total > maxScopeRefs {
			return nil, total
		}
		refs := make([]citations.DocRef, len(entries))
		for i, e := range entries {
			refs[i] = citations.DocRef{ID: e.ID, Name: e.Name}
		}
		return refs, 0
	}
	refs := make([]citations.DocRef, 0, len(s.named))
	for _, id := range s.named {
		name := ""
		if info, err := s.lib.Info(id); err == nil {
			name = info.Name
		}
		refs = append(refs, citations.DocRef{ID: id, Name: name})
	}
	return refs, 0
}

// maxScopeRefs is the most documents of a library-wide scope an answer
// names: an answer over a larger library records their number instead,
// so that neither its record nor its cost grows with the library.
const maxScopeRefs = 100

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
