package library

import "github.com/citelens/citelens/docstore"

// linkVersions marks the documents a newer version replaced, by the
// links to previous versions the listing carries (docstore.ListEntry
// keeps each document's previous version).
func (m *Model) linkVersions() {
	m.older = map[docstore.DocID]int{}
	for id := range docstore.Superseded(m.docs) {
		m.older[id] = len(docstore.Lineage(m.docs, id))
	}
}
