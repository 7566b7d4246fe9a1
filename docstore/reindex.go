package docstore

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// ReindexProgress reports Reindex's progress: documents done of total, and
// the one being rebuilt.
type ReindexProgress struct {
	Done, Total int
	Name        string
}

// ReindexReport says how Reindex rebuilt the documents.
type ReindexReport struct {
	Documents int
	// FromFile counts documents read again from their original file
	// (unchanged, at the path they were added from), so a PDF's headings
	// and tables come from its layout; the rest were rebuilt from their
	// stored text.
	FromFile int
}

// Reindex rebuilds every document's sentences, structure and index with
// this build's analysis, then records the current schema version. A
// document whose original file is still where it was added from, with the
// same content, is read again from it; any other is rebuilt from its
// stored text, whose bytes (and so every saved citation) stay as they
// are. Each document's new version replaces the old in one transaction,
// so a reader sees one or the other. Embeddings and derived documents of a
// document whose sentences or chunks changed no longer match its layout
// and are computed again when next needed. Interrupted, it can simply be
// run again.
//
// A library of an older schema (opened with Options.Upgrade) is carried
// forward: its documents are written in this schema's records and the old
// records dropped.
func (l *Library) Reindex(ctx context.Context, progress func(ReindexProgress)) (ReindexReport, error) {
	var rep ReindexReport
	var infos []DocInfo
	var err error
	legacy := l.schema < 4 // schemas 1 to 3 kept one index per document
	if legacy {
		infos, err = l.legacyList()
	} else {
		infos, err = l.List()
	}
	if err != nil {
		return rep, err
	}
	for i, info := range infos {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if progress != nil {
			progress(ReindexProgress{Done: i, Total: len(infos), Name: info.Name})
		}
		fromFile, err := l.reindexOne(ctx, info, legacy)
		if err != nil {
			return rep, fmt.Errorf("reindexing %s: %w", info.Name, err)
		}
		rep.Documents++
		if fromFile {
			rep.FromFile++
		}
	}
	if progress != nil {
		progress(ReindexProgress{Done: len(infos), Total: len(infos)})
	}
	err = l.db.Update(func(tx *bolt.Tx) error {
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
	return rep, err
}

// legacyList lists the documents of a library of schema 1 or 2, oldest
// first, which have only their metadata records to list them by.
func (l *Library) legacyList() ([]DocInfo, error) {
	var out []DocInfo
	err := l.db.View(func(tx *bolt.Tx) error {
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
		return cmpString(a.Name, b.Name)
	})
	return out, err
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reindexOne rebuilds one document, from its file when unchanged, and
// replaces its version with the new one.
func (l *Library) reindexOne(ctx context.Context, info DocInfo, legacy bool) (fromFile bool, err error) {
	var d *Document
	if content, err := os.ReadFile(info.Path); err == nil && IDFor(content) == info.ID {
		if d, err = Load(ctx, info.Path, content, l.loadOptions(nil)); err == nil {
			fromFile = true
		}
	}
	if d == nil {
		if d, err = l.storedForReindex(info, legacy); err != nil {
			return false, err
		}
	}
	// What the user knows the document by stays.
	d.ID, d.Name, d.Path, d.Added = info.ID, info.Name, info.Path, info.Added
	if info.Title != "" {
		d.Title = info.Title
	}
	ix := buildIndex(d).compile([numFields]uint32{})
	err = l.db.Update(func(tx *bolt.Tx) error {
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
		w.textChanged = fromFile // rebuilt from its stored text, it keeps its geometry
		pb := &postingBatch{}
		if err := w.writeContent(tx, d, ix, pb); err != nil {
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
	l.mu.Lock()
	delete(l.docs, d.ID)
	delete(l.views, d.ID)
	l.mu.Unlock()
	return fromFile, err
}

// dropLegacy deletes a document's records of schema 1 or 2.
func dropLegacy(tx *bolt.Tx, id DocID) error {
	for _, name := range [][]byte{bucketTextV2, bucketLayoutV2, bucketLengthsV2, bucketPostingsV2} {
		b := tx.Bucket(name)
		if b == nil {
			continue
		}
		if b.Bucket([]byte(id)) != nil {
			if err := b.DeleteBucket([]byte(id)); err != nil {
				return err
			}
		} else if err := b.Delete([]byte(id)); err != nil {
			return err
		}
	}
	return nil
}

// storedForReindex rebuilds a document from its stored text and page
// starts: a legacy library's text record and the page starts of its layout
// record (the first table of every layout version), or this schema's.
func (l *Library) storedForReindex(info DocInfo, legacy bool) (*Document, error) {
	d := &Document{DocInfo: info}
	err := l.db.View(func(tx *bolt.Tx) error {
		if legacy {
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
	segmentDocument(d, structureInput(d))
	if len(d.Sentences) == 0 {
		return nil, fmt.Errorf("%w to index", ErrEmpty)
	}
	d.NumSents, d.NumChunks, d.Bytes = len(d.Sentences), len(d.Chunks), len(d.Text)
	return d, nil
}
