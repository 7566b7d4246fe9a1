package main

import (
	"errors"
	"fmt"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// versionUsage is the help of ask's, search's and show's --version: a
// document's name means its latest version, and --version N names an
// older one explicitly (issue 35: "search and answers use the latest
// version unless told otherwise").
const versionUsage = "use version `N` of the documents named (1 is the first added; 'citelens show ID --versions' lists them); without it a name or path means the latest version, and the whole library its latest versions"

// atVersion returns, for each of ids, version n of its document (1 the
// oldest), keeping the order and dropping repeats; n 0 returns ids as
// they are. A version needs a document to be named: over the whole
// library it would mean a different document's version each time.
func atVersion(l *docstore.Library, ids []docstore.DocID, n int) ([]docstore.DocID, error) {
	switch {
	case n == 0:
		return ids, nil
	case n < 0:
		return nil, fix.With(fmt.Errorf("--version %d: versions are numbered from 1", n), "Give a version 'citelens show ID --versions' lists.")
	case len(ids) == 0:
		return nil, fix.With(errors.New("--version needs a document: the whole library reads the latest version of each"), "Name the document with --doc ID (or, for show, as its argument).")
	}
	infos, err := l.Versions().Links()
	if err != nil {
		return nil, err
	}
	out := make([]docstore.DocID, 0, len(ids))
	seen := map[docstore.DocID]bool{}
	for _, id := range ids {
		vs := docstore.Lineage(infos, id)
		if vs == nil {
			return nil, fmt.Errorf("document %s: %w", id, docstore.ErrNotFound)
		}
		if n > len(vs) {
			what := fmt.Sprintf("%d versions", len(vs))
			if len(vs) == 1 {
				what = "one version"
			}
			return nil, fix.With(fmt.Errorf("--version %d: %s has %s", n, textproc.OneLine(vs[len(vs)-1].DisplayName()), what),
				"Give a version from 1 to %d ('citelens show %s --versions' lists them).", len(vs), shortID(id))
		}
		if v := vs[n-1].ID; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}
