package reanchor

import (
	"sync"

	"github.com/citelens/citelens/docstore"
)

// Documents reads a library's documents: what carrying citations to the
// latest versions in a library needs (*docstore.Library has it).
type Documents interface {
	Document(id docstore.DocID) (*docstore.Document, error)
}

// Aligner aligns versions of a library's documents and keeps the
// alignments it made, so the command line, the terminal UI and repeated
// checks align a pair once. Versions are content-addressed: an alignment
// of two never goes out of date. An Aligner is safe for concurrent use;
// the zero value keeps nothing.
type Aligner struct {
	mu    sync.Mutex
	max   int
	pairs map[[2]docstore.DocID]*Alignment
}

// NewAligner returns an Aligner keeping up to max alignments; past that
// it starts over (an alignment of two large manuals holds megabytes).
func NewAligner(max int) *Aligner {
	return &Aligner{max: max, pairs: map[[2]docstore.DocID]*Alignment{}}
}

// Align returns the alignment of version from with version to, read from
// docs when it was not made before.
func (a *Aligner) Align(docs Documents, from, to docstore.DocID) (*Alignment, error) {
	k := [2]docstore.DocID{from, to}
	a.mu.Lock()
	al, ok := a.pairs[k]
	a.mu.Unlock()
	if ok {
		return al, nil
	}
	od, err := docs.Document(from)
	if err != nil {
		return nil, err
	}
	nd, err := docs.Document(to)
	if err != nil {
		return nil, err
	}
	al = Align(FromDocument(od), FromDocument(nd))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.max > 0 {
		if len(a.pairs) >= a.max {
			a.pairs = map[[2]docstore.DocID]*Alignment{}
		}
		a.pairs[k] = al
	}
	return al, nil
}

// LatestVersions maps each document of infos that a later version
// replaced to the latest of its line (the links to previous versions
// followed forwards, a later add winning), in one pass over the list.
func LatestVersions(infos []docstore.DocInfo) map[docstore.DocID]docstore.DocID {
	known := make(map[docstore.DocID]bool, len(infos))
	next := map[docstore.DocID]docstore.DocID{}
	for _, d := range infos {
		known[d.ID] = true
	}
	for _, d := range infos {
		if d.Previous != "" && d.Previous != d.ID && known[d.Previous] {
			next[d.Previous] = d.ID
		}
	}
	out := make(map[docstore.DocID]docstore.DocID, len(next))
	for id := range next {
		seen := map[docstore.DocID]bool{id: true}
		to := id
		for {
			n, ok := next[to]
			if !ok || seen[n] {
				break // a loop (a damaged record) stops at a document seen
			}
			seen[n] = true
			to = n
		}
		out[id] = to
	}
	return out
}

// InLibrary is the Newer that Answer takes over a library whose versions
// are infos (docstore's listing, with each document's previous version):
// a document's latest version, aligned with it by aligner.
func InLibrary(docs Documents, infos []docstore.DocInfo, aligner *Aligner) Newer {
	latest := LatestVersions(infos)
	return func(doc docstore.DocID) (Pair, bool, error) {
		to, ok := latest[doc]
		if !ok || to == doc {
			return Pair{}, false, nil
		}
		al, err := aligner.Align(docs, doc, to)
		if err != nil {
			return Pair{}, false, err
		}
		return Pair{To: to, Alignment: al}, true, nil
	}
}
