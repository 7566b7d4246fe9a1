package library

import "github.com/citelens/citelens/docstore"

// SetVersions gives the pane the versions of its documents, from every
// document's metadata (docstore.Library.List: infos): the compact listing
// SetDocs takes has no links between versions, so without this the pane
// could neither mark an older version nor leave it out of a
// whole-library scope. The links are kept for the lists that follow.
func (m *Model) SetVersions(infos []docstore.DocInfo) {
	m.previous = map[docstore.DocID]docstore.DocID{}
	for _, d := range infos {
		if d.Previous != "" {
			m.previous[d.ID] = d.Previous
		}
	}
	m.linkVersions()
}

// linkVersions fills in the documents' links to their previous versions
// from those known, and marks those a newer version replaced.
func (m *Model) linkVersions() {
	for i := range m.docs {
		if p, ok := m.previous[m.docs[i].ID]; ok && m.docs[i].Previous == "" {
			m.docs[i].Previous = p
		}
	}
	m.older = map[docstore.DocID]int{}
	for id := range docstore.Superseded(m.docs) {
		m.older[id] = len(docstore.Lineage(m.docs, id))
	}
}
