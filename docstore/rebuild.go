package docstore

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/citelens/citelens/storage"
)

// Rebuild replaces every document of the library with a new version the
// add pipeline derives again (ingest's Reindex: from the original file
// when it is unchanged, else from the stored text), each in one
// transaction, so a reader sees one version or the other; Finish then
// records the current schema version. A library of an older schema
// (opened with Options.Upgrade) is carried forward: its documents are
// written in this schema's records and the old records dropped.
// Interrupted, a rebuild can simply be run again.
type Rebuild struct {
	l      *Library
	legacy bool // schemas 1 to 3 kept one index per document
	docs   []DocInfo
}

// Rebuild starts a rebuild of every document.
func (l *Library) Rebuild() (*Rebuild, error) {
	r := &Rebuild{l: l, legacy: l.schema < 4}
	var err error
	if r.legacy {
		r.docs, err = l.legacyList()
	} else {
		r.docs, err = l.List()
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Documents lists the documents to rebuild, in the order they were added.
func (r *Rebuild) Documents() []DocInfo { return r.docs }

// Stored returns the document of info as stored, for a version rebuilt
// from its text: its metadata, text and page starts (a legacy library's
// text record and the page starts of its layout record, the first table
// of every layout version), but none of its layout.
func (r *Rebuild) Stored(info DocInfo) (*Document, error) {
	d := &Document{DocInfo: info}
	err := r.l.store.View(func(tx storage.Tx) error {
		if r.legacy {
			d.Text = string(tx.Bucket(bucketTextV2).Get([]byte(info.ID)))
			d.PageStarts = layoutPageStarts(tx.Bucket(bucketLayoutV2).Get([]byte(info.ID)), len(d.Text))
			return nil
		}
		cur, err := readDocument(tx, info.ID)
		if err != nil {
			return err
		}
		d.Text, d.PageStarts = cur.Text, cur.PageStarts
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.PageStarts) == 0 {
		d.PageStarts = []int32{0}
	}
	return d, nil
}

// Replace writes p's document as the new version of the library's
// document with its ID, in place of the old, in one transaction; one
// removed meanwhile stays removed. sameText says the new version's text
// is the stored text (rebuilt from it), whose stored page geometry is then
// kept when p has none.
func (r *Rebuild) Replace(p *Prepared, sameText bool) error {
	d := p.doc
	err := r.l.store.Update(func(tx storage.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(d.ID)) == nil {
			return nil // removed meanwhile
		}
		if err := bumpEpoch(tx); err != nil {
			return err
		}
		old, hasOld, err := readRecord(tx, d.ID)
		if err != nil {
			return err
		}
		num, err := nextDocNum(tx)
		if err != nil {
			return err
		}
		w := newDocWrite(d.ID, num)
		w.textChanged = !sameText
		pb := &postingBatch{}
		if err := w.writeContent(tx, d, p.ix, pb); err != nil {
			return err
		}
		seg, err := newSegment(tx, segActive)
		if err != nil {
			return err
		}
		if err := writeBatchSegment(tx, seg, pb, []DocNum{num}, segActive); err != nil {
			return err
		}
		if !hasOld {
			if err := dropLegacy(tx, d.ID); err != nil {
				return err
			}
			return w.publishOver(tx, d, nil)
		}
		return w.publishOver(tx, d, &old)
	})
	r.l.mu.Lock()
	delete(r.l.docs, d.ID)
	delete(r.l.views, d.ID)
	r.l.mu.Unlock()
	return err
}

// Finish drops a legacy library's old records, records the current
// schema version, and tidies the index.
func (r *Rebuild) Finish() error {
	l := r.l
	err := l.store.Update(func(tx storage.Tx) error {
		for _, name := range [][]byte{bucketTextV2, bucketLayoutV2, bucketLengthsV2, bucketPostingsV2} {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
	})
	if err == nil {
		l.schema = SchemaVersion
	}
	if err == nil {
		err = l.collect()
	}
	if err == nil {
		err = l.merge()
	}
	return err
}

// legacyList lists the documents of a library of schema 1 or 2, oldest
// first, which have only their metadata records to list them by.
func (l *Library) legacyList() ([]DocInfo, error) {
	var out []DocInfo
	err := l.store.View(func(tx storage.Tx) error {
		return tx.Bucket(bucketDocs).ForEach(func(k, _ []byte) error {
			if tx.Bucket(bucketRecords).Get(k) != nil {
				return nil // carried forward by an interrupted run
			}
			info, _, err := readInfo(tx, DocID(k))
			out = append(out, info)
			return err
		})
	})
	slices.SortStableFunc(out, func(a, b DocInfo) int {
		if c := a.Added.Compare(b.Added); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out, err
}

// dropLegacy deletes a document's records of schema 1 or 2.
func dropLegacy(tx storage.Tx, id DocID) error {
	for _, name := range [][]byte{bucketTextV2, bucketLayoutV2, bucketLengthsV2, bucketPostingsV2} {
		b := tx.Bucket(name)
		if b == nil {
			continue
		}
		if err := deleteEntry(b, []byte(id)); err != nil {
			return err
		}
	}
	return nil
}
