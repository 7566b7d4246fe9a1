package docstore

import (
	"bytes"
	"path/filepath"

	"github.com/citelens/citelens/storage"
)

// A document's versions are documents of their own (each its content's
// ID, its text, its index), linked by DocInfo.Previous: the next version
// names the one before. Older versions stay readable and citable as they
// were; nothing is rewritten when a new one comes, so adding a version
// costs what adding the document costs.

// Lineage returns the versions of the document id belongs to, oldest
// first, from the documents in infos (a library's List): back along
// Previous, and forward to the document naming it (the latest added when
// two do). A link to a document not in infos (a removed version) ends
// the line there. nil when id is not in infos.
func Lineage(infos []DocInfo, id DocID) []DocInfo {
	byID := make(map[DocID]int, len(infos))
	next := map[DocID]int{}
	for k, d := range infos {
		byID[d.ID] = k
		if d.Previous != "" {
			// List is in the order of adding: a later one wins.
			next[d.Previous] = k
		}
	}
	k, ok := byID[id]
	if !ok {
		return nil
	}
	// Back to the first version; a loop (a damaged record) stops at the
	// first document seen twice.
	seen := map[DocID]bool{id: true}
	for {
		p, ok := byID[infos[k].Previous]
		if !ok || seen[infos[p].ID] {
			break
		}
		seen[infos[p].ID] = true
		k = p
	}
	out := []DocInfo{infos[k]}
	seen = map[DocID]bool{infos[k].ID: true}
	for {
		n, ok := next[infos[k].ID]
		if !ok || seen[infos[n].ID] {
			break
		}
		seen[infos[n].ID] = true
		out = append(out, infos[n])
		k = n
	}
	return out
}

// Superseded reports, of the documents in infos, those a later version
// has replaced: ls shows the others, each the latest of its line.
func Superseded(infos []DocInfo) map[DocID]bool {
	live := make(map[DocID]bool, len(infos))
	for _, d := range infos {
		live[d.ID] = true
	}
	out := map[DocID]bool{}
	for _, d := range infos {
		if d.Previous != "" && live[d.Previous] && d.Previous != d.ID {
			out[d.Previous] = true
		}
	}
	return out
}

// Versions is the library's versions of documents: which documents are
// versions of one, and which were added from a path.
type Versions Library

// Versions returns the library's versions of documents.
func (l *Library) Versions() *Versions { return (*Versions)(l) }

// library is the library l is a part of.
func (l *Versions) library() *Library { return (*Library)(l) }

// Of returns the versions of document id, oldest first (see Lineage). It
// reads every document's metadata, as List does.
func (l *Versions) Of(id DocID) ([]DocInfo, error) {
	infos, err := l.library().List()
	if err != nil {
		return nil, err
	}
	out := Lineage(infos, id)
	if out == nil {
		return nil, ErrNotFound
	}
	return out, nil
}

// Links returns every document as the listing has it (DocInfo's listing
// fields and Previous), in the order they were added: what Lineage and
// Superseded need, in one scan of the compact listing rather than a read
// of every metadata record (a library written before the listing kept
// Previous reads the metadata of its older entries, as List does).
func (l *Versions) Links() ([]DocInfo, error) {
	entries, _, err := l.library().Listing(0, 0)
	if err != nil {
		return nil, err
	}
	out := make([]DocInfo, len(entries))
	for i, e := range entries {
		out[i] = e.Info()
	}
	return out, nil
}

// Scope is the scope a question over the whole library means: the
// latest version of every document. It is nil when no document has a
// newer version, so that a caller can keep reading the whole library
// through the index rather than name every document; it scans the
// listing (Links).
func (l *Versions) Scope() ([]DocID, error) {
	infos, err := l.Links()
	if err != nil {
		return nil, err
	}
	old := Superseded(infos)
	if len(old) == 0 {
		return nil, nil
	}
	out := make([]DocID, 0, len(infos)-len(old))
	for _, in := range infos {
		if !old[in.ID] {
			out = append(out, in.ID)
		}
	}
	return out, nil
}

// SamePath returns the documents added from path (an absolute path, as
// DocInfo.Path keeps it), in the order they were added: an add of a
// file from a path the library knows makes the next version of the last
// of them. It reads the names index, so it costs what the documents of
// that file name cost, not what the library holds.
func (l *Versions) SamePath(path string) ([]DocInfo, error) {
	var out []DocInfo
	err := l.store.View(func(tx storage.Tx) error {
		p := append([]byte(filepath.Base(path)), 0)
		c := tx.Bucket(bucketNames).Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			if len(k) < len(p)+4 {
				continue
			}
			e, err := decodeListEntry(0, tx.Bucket(bucketListing).Get(k[len(k)-4:]))
			if err != nil {
				continue // a stale name entry, as Resolve skips it
			}
			info, ok, err := readInfo(tx, e.ID)
			if err != nil {
				return err
			}
			if ok && info.Path == path {
				out = append(out, info)
			}
		}
		return nil
	})
	return out, err
}

// latestVersion returns the latest of set when set is versions of one
// document, each after the one before, as a name or path matches them
// all: the name then means the document, whose latest version stands
// for it. ok is false for documents of their own.
func latestVersion(set []DocInfo) (DocInfo, bool) {
	line := Lineage(set, set[0].ID)
	if len(line) != len(set) {
		return DocInfo{}, false
	}
	return line[len(line)-1], true
}
