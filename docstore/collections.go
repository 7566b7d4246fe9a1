package docstore

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/storage"
)

// Collections: named subsets of the library's documents, behind one
// interface (storage.Collections) with two implementations. A store that
// keeps them itself (storage.CollectionStore: PostgreSQL, whose
// row-level security hides a private collection from other roles) is
// used as it is; any other keeps them here, in the collections bucket:
// a library file is one person's, so a private collection has no one to
// be hidden from, and its owner is recorded all the same.

// bucketCollections: collection name → collectionRecord JSON.
var bucketCollections = []byte("collections")

// maxCollectionName is the longest name a collection takes, in bytes (as
// the server's table checks).
const maxCollectionName = 200

// Collections is the library's collections: the store's
// (storage.Collections) or the bucket's, with the names checked alike.
type Collections struct {
	storage.Collections
	l *Library
}

// Collections returns the library's collections.
func (l *Library) Collections() *Collections {
	if s, ok := l.store.(*storeDB); ok {
		if cs, ok := s.DB.(storage.CollectionStore); ok {
			return &Collections{cs.Collections(), l}
		}
	}
	return &Collections{bucketCollectionsOf{l}, l}
}

// InLibrary returns the documents of the collection name that are in the
// library, in the order they were added (as ls lists them), and how many
// of its documents are not (removed since they were put in it).
func (cs *Collections) InLibrary(name string) (docs []DocID, gone int, err error) {
	l := cs.l
	c, err := cs.Get(name)
	if err != nil {
		return nil, 0, err
	}
	var infos []DocInfo
	err = l.store.View(func(tx storage.Tx) error {
		for _, id := range c.Docs {
			info, ok, err := readInfo(tx, DocID(id))
			if err != nil {
				return err
			}
			if ok {
				infos = append(infos, info)
			} else {
				gone++
			}
		}
		return nil
	})
	slices.SortStableFunc(infos, func(a, b DocInfo) int { return a.Added.Compare(b.Added) })
	for _, info := range infos {
		docs = append(docs, info.ID)
	}
	return docs, gone, err
}

func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("a collection needs a name")
	case len(name) > maxCollectionName:
		return fmt.Errorf("a collection's name is at most %d bytes; %q… is longer", maxCollectionName, strings.ToValidUTF8(name[:40], ""))
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("a collection's name cannot hold control characters: %q", name)
	}
	return nil
}

// Create makes the collection name, owned by the caller, holding docs,
// after checking the name here, so both stores refuse the same names
// with the same words.
func (c *Collections) Create(name string, private bool, docs []string) error {
	if err := checkName(name); err != nil {
		return err
	}
	return c.Collections.Create(name, private, docs)
}

// bucketCollectionsOf is the collections of a library kept in its
// collections bucket.
type bucketCollectionsOf struct{ l *Library }

func (c bucketCollectionsOf) read(tx storage.Tx, name string) (storage.Collection, error) {
	var col storage.Collection
	b := tx.Bucket(bucketCollections)
	var v []byte
	if b != nil && name != "" {
		v = b.Get([]byte(name))
	}
	if v == nil {
		return col, fmt.Errorf("%w: %q", storage.ErrCollectionNotFound, name)
	}
	if err := json.Unmarshal(v, &col); err != nil {
		return col, damaged("collection %q does not decode", name)
	}
	return col, nil
}

func (c bucketCollectionsOf) write(tx storage.Tx, col storage.Collection) error {
	b, err := tx.CreateBucketIfNotExists(bucketCollections)
	if err != nil {
		return err
	}
	slices.Sort(col.Docs)
	col.Docs = slices.Compact(col.Docs)
	if col.Docs == nil {
		col.Docs = []string{}
	}
	v, err := json.Marshal(col)
	if err != nil {
		return err
	}
	return b.Put([]byte(col.Name), v)
}

func (c bucketCollectionsOf) Create(name string, private bool, docs []string) error {
	owner := c.l.author().String()
	return c.l.store.Update(func(tx storage.Tx) error {
		if _, err := c.read(tx, name); err == nil {
			return fmt.Errorf("%w: %q", storage.ErrCollectionExists, name)
		}
		return c.write(tx, storage.Collection{Name: name, Owner: owner, Private: private, Created: time.Now().UTC(), Docs: slices.Clone(docs)})
	})
}

func (c bucketCollectionsOf) change(name string, fn func(*storage.Collection)) error {
	return c.l.store.Update(func(tx storage.Tx) error {
		col, err := c.read(tx, name)
		if err != nil {
			return err
		}
		fn(&col)
		return c.write(tx, col)
	})
}

func (c bucketCollectionsOf) Add(name string, docs []string) error {
	return c.change(name, func(col *storage.Collection) { col.Docs = append(col.Docs, docs...) })
}

func (c bucketCollectionsOf) Remove(name string, docs []string) error {
	return c.change(name, func(col *storage.Collection) {
		col.Docs = slices.DeleteFunc(col.Docs, func(d string) bool { return slices.Contains(docs, d) })
	})
}

func (c bucketCollectionsOf) Get(name string) (col storage.Collection, err error) {
	err = c.l.store.View(func(tx storage.Tx) error {
		col, err = c.read(tx, name)
		return err
	})
	return col, err
}

func (c bucketCollectionsOf) List() ([]storage.Collection, error) {
	var out []storage.Collection
	err := c.l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketCollections)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var col storage.Collection
			if err := json.Unmarshal(v, &col); err != nil {
				return damaged("collection %q does not decode", k)
			}
			out = append(out, col)
			return nil
		})
	})
	return out, err
}

// Delete removes the collection: on a library file, whoever opens the
// file may (one person's library: the owner recorded is the only user).
func (c bucketCollectionsOf) Delete(name string) error {
	return c.l.store.Update(func(tx storage.Tx) error {
		if _, err := c.read(tx, name); err != nil {
			return err
		}
		return tx.Bucket(bucketCollections).Delete([]byte(name))
	})
}
