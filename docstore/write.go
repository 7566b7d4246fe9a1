package docstore

import (
	"fmt"

	"github.com/citelens/citelens/storage"
)

// The write path. The library stores documents it is given whole: their
// text, pages, sentences, chunks, sections, tables and page geometry,
// made by the add pipeline (ingest), which reads files. Prepare indexes a
// document where it was made, on as many goroutines as the caller likes;
// Write stores several prepared documents in one transaction, so that a
// crash leaves each either whole or absent and a folder of small files
// is not a transaction (and a sync to disk) a file. A text too large to
// hold whole is written a piece at a time instead (PieceWriter,
// piecewrite.go), and every document rebuilt in place by a Rebuild
// (rebuild.go).

// Prepared is a document indexed and checked, ready for Write.
type Prepared struct {
	doc *Document
	ix  *indexed
}

// Prepare checks d and indexes it for Write: the costly part of storing
// a document, done on the caller's goroutine. d must be whole — its
// metadata's counts (Bytes, NumSents, NumChunks) its text's and tables',
// every offset inside its text — and must not change after; Prepare sets
// its Compounds, which the index finds. geometry is each page's
// geometry, pagegeom-encoded with offsets into d.Text, one record a
// page, or nil for a document without fixed pages.
func Prepare(d *Document, geometry [][]byte) (*Prepared, error) {
	if err := validateLayout(d); err != nil {
		return nil, fmt.Errorf("cannot store document %s: it %w", d.ID, err)
	}
	if err := validateCounts(d); err != nil {
		return nil, fmt.Errorf("cannot store document %s: it %w", d.ID, err)
	}
	if err := CheckGeometry(geometry, len(d.PageStarts), len(d.Text)); err != nil {
		return nil, fmt.Errorf("cannot store document %s: %w", d.ID, err)
	}
	d.geometry = geometry
	if d.Aliases == nil {
		d.Aliases = MineAliases(d)
	}
	return &Prepared{doc: d, ix: buildIndex(d).compile([numFields]uint32{})}, nil
}

// Written is what Write did with one document.
type Written struct {
	// Info is the document's metadata: the one written, or, when
	// Existed, the library's document with the same content.
	Info DocInfo
	// Existed reports that the library had the content already (added
	// meanwhile by another process, or earlier in the same Write), and
	// nothing was written.
	Existed bool
}

// Write stores documents in one transaction, each with its index, and
// says what became of each, in order. Merging the index's segments and
// deleting what removed documents left behind are left to Tidy, so that
// a run of writes does them once, at its end.
func (l *Library) Write(docs ...*Prepared) ([]Written, error) {
	out := make([]Written, len(docs))
	by := l.author()
	for _, p := range docs {
		p.doc.AddedBy = by
	}
	err := l.store.Update(func(tx storage.Tx) error {
		pb := &postingBatch{}
		var nums []DocNum
		for i, p := range docs {
			out[i] = Written{Info: p.doc.DocInfo}
			if info, ok, err := readInfo(tx, p.doc.ID); ok || err != nil {
				out[i] = Written{Info: info, Existed: true}
				if err != nil {
					return err
				}
				continue
			}
			num, err := writeWhole(tx, p.doc, p.ix, pb)
			if err != nil {
				return err
			}
			out[i].Info = p.doc.DocInfo // with its file record
			nums = append(nums, num)
		}
		if len(nums) == 0 {
			return nil
		}
		s, err := newSegment(tx, segActive)
		if err != nil {
			return err
		}
		return writeBatchSegment(tx, s, pb, nums, segActive)
	})
	return out, err
}

// Tidy deletes the records of removed documents and of writes a process
// left unfinished when it died, and merges the index's segments as they
// need, a transaction at a time. A library with nothing to tidy is not
// written.
func (l *Library) Tidy() error {
	if err := l.collect(); err != nil {
		return err
	}
	return l.merge()
}

// Damage returns the damage this Library has found in its file, which
// makes it refuse every write, or nil: a writer asks before work whose
// result could not be stored. A library in another store (OpenStore)
// does not turn read-only: a damaged record there endangers no other, and
// each read of one fails with ErrCorrupt.
func (l *Library) Damage() error {
	if l.file == nil {
		return nil
	}
	return l.file.refusal()
}

// writeWhole writes a loaded document and its index (through pb, which
// the caller writes in the same transaction) and publishes it.
func writeWhole(tx storage.Tx, d *Document, ix *indexed, pb *postingBatch) (DocNum, error) {
	num, err := nextDocNum(tx)
	if err != nil {
		return 0, err
	}
	w := newDocWrite(d.ID, num)
	if err := w.writeContent(tx, d, ix, pb); err != nil {
		return 0, err
	}
	return num, w.publish(tx, d)
}

// writeContent writes d's text, sentences, chunks, compounds, aliases and
// index.
func (w *docWrite) writeContent(tx storage.Tx, d *Document, ix *indexed, pb *postingBatch) error {
	if err := putOriginal(tx, d); err != nil {
		return err
	}
	if err := w.addText(tx, d.Text); err != nil {
		return err
	}
	if err := w.addSentences(tx, d.Sentences); err != nil {
		return err
	}
	if err := w.addChunks(tx, d.Chunks); err != nil {
		return err
	}
	if err := w.addCompounds(tx, d.Compounds); err != nil {
		return err
	}
	if err := w.addAliases(tx, d.Aliases); err != nil {
		return err
	}
	w.addIndex(ix, pb)
	return nil
}

// put writes a document (with its geometry as loaded) unless the library
// has its content already, and merges the index.
func (l *Library) put(d *Document) error {
	p, err := Prepare(d, d.geometry)
	if err != nil {
		return err
	}
	if _, err := l.Write(p); err != nil {
		return err
	}
	return l.merge()
}
