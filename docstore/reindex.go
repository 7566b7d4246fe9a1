package docstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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
// this build's analysis, one transaction per document, then records the
// current schema version. A document whose original file is still where it
// was added from, with the same content, is read again from it; any other
// is rebuilt from its stored text, whose bytes (and so every saved
// citation) stay as they are. Embeddings and derived documents of a
// document whose sentences or chunks changed no longer match its layout
// and are computed again when next needed. Interrupted, it can simply be
// run again.
func (l *Library) Reindex(ctx context.Context, progress func(ReindexProgress)) (ReindexReport, error) {
	var rep ReindexReport
	infos, err := l.List()
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
		fromFile, err := l.reindexOne(ctx, info)
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
		return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
	})
	if err == nil {
		l.schema = SchemaVersion
	}
	return rep, err
}

// reindexOne rebuilds one document, from its file when unchanged.
func (l *Library) reindexOne(ctx context.Context, info DocInfo) (fromFile bool, err error) {
	var d *Document
	if content, err := os.ReadFile(info.Path); err == nil && IDFor(content) == info.ID {
		if d, err = Load(ctx, info.Path, content, l.loadOptions(nil)); err == nil {
			fromFile = true
		}
	}
	if d == nil {
		if d, err = l.storedForReindex(info); err != nil {
			return false, err
		}
	}
	// What the user knows the document by stays.
	d.ID, d.Name, d.Path, d.Added = info.ID, info.Name, info.Path, info.Added
	if info.Title != "" {
		d.Title = info.Title
	}
	bi := buildIndex(d)
	meta, err := json.Marshal(d.DocInfo)
	if err != nil {
		return false, err
	}
	err = l.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(d.ID)) == nil {
			return nil // removed meanwhile
		}
		if err := bumpEpoch(tx); err != nil {
			return err
		}
		return writeDocument(tx, d, bi, meta)
	})
	l.mu.Lock()
	delete(l.docs, d.ID)
	delete(l.idx, d.ID)
	l.mu.Unlock()
	return fromFile, err
}

// storedForReindex rebuilds a document from its stored text and the page
// starts of its stored layout (the first table of every layout version).
func (l *Library) storedForReindex(info DocInfo) (*Document, error) {
	d := &Document{DocInfo: info}
	err := l.db.View(func(tx *bolt.Tx) error {
		d.Text = string(tx.Bucket(bucketText).Get([]byte(info.ID)))
		d.PageStarts = layoutPageStarts(tx.Bucket(bucketLayout).Get([]byte(info.ID)), len(d.Text))
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
