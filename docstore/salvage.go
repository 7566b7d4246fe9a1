package docstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/citelens/citelens/storage"
)

// SalvageReport is what Salvage did.
type SalvageReport struct {
	Copied []DocInfo `json:"copied"` // documents copied whole
	// Resegmented are documents whose text was readable but whose layout
	// was not: their sentences were split again from the text, and their
	// page numbers may be lost.
	Resegmented []DocInfo `json:"resegmented"`
	Lost        []Problem `json:"lost"` // documents that could not be read
	Answers     int       `json:"answers"`
	LostAnswers int       `json:"lost_answers"`
	// AnswersUnreadable is set when the saved answers could not be
	// listed at all (LostAnswers then counts only those seen).
	AnswersUnreadable bool `json:"answers_unreadable,omitempty"`
}

// A Splitter fills a document's Sentences, Chunks, Sections and Tables
// from its Text, PageStarts and Kind, as the add pipeline does
// (ingest.Split): the library stores the layout it is given and splits no
// text itself.
type Splitter func(d *Document)

// Salvage copies every readable document of l into dst (a new library),
// indexing each again, and every saved answer that decodes. A document
// whose text is readable but whose layout is damaged is split again from
// its text by split. A document's page geometry is copied when all of it
// reads and fits the text, and its kept file when it reads whole. Derived documents and vectors are not copied:
// derive and embed build them again. progress, if not nil, gets the
// documents done. l is typically opened with Options.ReadDamaged. What
// bbolt must not read (a loop of pages, a record running past its page)
// is gone around: the documents with a record there are lost.
func (l *Library) Salvage(ctx context.Context, dst *Library, split Splitter, progress func(done, total int)) (*SalvageReport, error) {
	rep := &SalvageReport{}
	// What of a library file bbolt must not read is gone around; a store
	// that is not a file has no pages of the library's to go around.
	var unsafe *pageDamage
	if l.file != nil {
		unsafe = l.file.salvagePages()
	}
	ids, err := l.recordIDs(unsafe, func([]byte, error) {})
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		d, reseg, err := l.readForSalvage(id, unsafe, split)
		switch {
		case err != nil:
			rep.Lost = append(rep.Lost, Problem{Doc: id, What: trimDamaged(err.Error())})
		case d == nil: // records of no document: nothing to copy
		default:
			if d.File != nil {
				// The kept file comes along when it reads whole and
				// matches its digest; else the copy has none.
				d.File = nil
				if b, ok, err := l.Files().Original(id); err == nil && ok {
					d.Original = b
				}
			}
			if err := dst.put(d); err != nil {
				return rep, fmt.Errorf("writing document %s to %s: %w", id, dst.path, err)
			}
			if reseg {
				rep.Resegmented = append(rep.Resegmented, d.DocInfo)
			} else {
				rep.Copied = append(rep.Copied, d.DocInfo)
			}
		}
		if progress != nil {
			progress(i+1, len(ids))
		}
	}
	answers := map[string][]byte{}
	if err := l.viewAround(func(tx storage.Tx) error {
		b, err := bucketAround(tx, unsafe, bucketAnswers)
		if b == nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			if unsafe.recordOK(k, bucketAnswers) && answerReadable(v) {
				answers[string(k)] = slices.Clone(v)
			} else {
				rep.LostAnswers++
			}
			return nil
		})
	}); err != nil {
		rep.AnswersUnreadable = true
	}
	for id, v := range answers {
		if err := dst.Answers().Save(id, v); err != nil {
			return rep, err
		}
		rep.Answers++
	}
	return rep, l.salvageThreadNames(dst, unsafe)
}

// salvageThreadNames copies the names given to threads (threads.go) that
// read, quietly: a name lost leaves its thread the first question's.
func (l *Library) salvageThreadNames(dst *Library, unsafe *pageDamage) error {
	names := map[string][]byte{}
	_ = l.viewAround(func(tx storage.Tx) error {
		b, err := bucketAround(tx, unsafe, bucketThreads)
		if b == nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			var rec threadRecord
			if unsafe.recordOK(k, bucketThreads) && json.Unmarshal(v, &rec) == nil {
				names[string(k)] = slices.Clone(v)
			}
			return nil
		})
	})
	if len(names) == 0 {
		return nil
	}
	return dst.store.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketThreads)
		if err != nil {
			return err
		}
		for k, v := range names {
			if err := b.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// readForSalvage reads document id as well as its records allow: whole
// (reseg false), or its text split again by split when its layout is
// damaged (reseg true). d is nil, with no error, for an ID with no text record
// (index or derived records left of a removed document). Records where
// bbolt must not read (unsafe) are taken as damaged: the text, a loss;
// the metadata or layout, rebuilt.
func (l *Library) readForSalvage(id DocID, unsafe *pageDamage, split Splitter) (d *Document, reseg bool, err error) {
	var info []byte
	var text string
	var pageStarts []int32
	var geom [][]byte
	// old is set for a document of a library of schema 1 to 3, whose
	// layout is derived again from its text as a rebuild does: copied
	// whole, not re-segmented, when its metadata and layout read.
	var old bool
	defer func() {
		// The page geometry indexes the text's bytes, not its sentences:
		// it comes along whenever every page of it reads and fits the
		// text copied, so that the copy keeps its page view.
		if d != nil && CheckGeometry(geom, d.Pages, len(d.Text)) == nil {
			d.geometry = geom
		}
	}()
	err = l.viewAround(func(tx storage.Tx) error {
		key := []byte(id)
		geom = geometryAround(tx, unsafe, key)
		recs, err := recordsAround(tx, unsafe, key, bucketRecords)
		if err != nil {
			return err
		}
		if recs[0] == nil {
			// No index record, so no number to find its text by: a
			// library of an older schema, which keeps its text by ID; a
			// damaged library's leftovers; or a document without text.
			if r, err := recordsAround(tx, unsafe, key, bucketDocs); err == nil {
				info = slices.Clone(r[0])
			}
			text, pageStarts, old = legacyText(tx, unsafe, key)
			return nil
		}
		rec, err := decodeDocRecord(recs[0])
		if err != nil {
			return fmt.Errorf("its index record is damaged")
		}
		num := numKey(rec.num)
		if !unsafe.prefixOK(num, bucketText) {
			return fmt.Errorf("its %s records are in a damaged part of the file", bucketText)
		}
		docsOK, listOK := unsafe.recordOK(key, bucketDocs), unsafe.recordOK(num, bucketListing)
		layoutOK := unsafe.prefixOK(num, bucketLayout)
		if docsOK && listOK && layoutOK {
			if d, err = readDocument(tx, id); err == nil {
				return nil
			}
			d = nil
		}
		if docsOK {
			info = slices.Clone(tx.Bucket(bucketDocs).Get(key))
		}
		size := 0
		if listOK {
			if e, err := decodeListEntry(rec.num, tx.Bucket(bucketListing).Get(num)); err == nil {
				size = e.Bytes
			}
		}
		text, _ = readText(tx, rec.num, size)
		if layoutOK {
			if h, err := decodeHeader(tx.Bucket(bucketLayout).Get(pieceKey(rec.num, tagHeader, 0))); err == nil {
				pageStarts = h.pageStarts
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, false, err
	case d != nil:
		return d, false, nil
	case text == "" && info == nil:
		return nil, false, nil
	case text == "":
		return nil, false, fmt.Errorf("its text record is missing")
	}
	// Rebuild what can be rebuilt from the text.
	if !utf8.ValidString(text) {
		return nil, false, fmt.Errorf("document %s's text record is damaged", id)
	}
	d = &Document{}
	whole := old
	if json.Unmarshal(info, &d.DocInfo) != nil || d.ID != id {
		d.DocInfo = DocInfo{ID: id, Name: string(id) + ".txt", Kind: "text"}
		whole = false
	}
	d.Text = text
	if !validPageStarts(pageStarts, len(text)) {
		pageStarts = []int32{0}
		whole = false
	}
	d.PageStarts = pageStarts
	d.Pages = max(d.Pages, len(d.PageStarts))
	split(d)
	d.Bytes, d.NumSents, d.NumChunks = len(d.Text), len(d.Sentences), len(d.Chunks)
	if whole {
		return d, false, nil
	}
	d.Warnings = append(d.Warnings, "salvaged from a damaged library: its sentences were split again from its text")
	return d, true, nil
}

// geometryAround returns a document's page geometry records, pages 1 to
// n in order, or nil when it has none or any of it is in a damaged part
// of the file or missing.
func geometryAround(tx storage.Tx, unsafe *pageDamage, key []byte) [][]byte {
	root := tx.Bucket(bucketGeometry)
	if root == nil || !unsafe.intact(bucketGeometry, key) {
		return nil
	}
	g := root.Bucket(key)
	if g == nil {
		return nil
	}
	var geom [][]byte
	c := g.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if !bytes.Equal(k, pageKey(len(geom)+1)) || v == nil {
			return nil
		}
		geom = append(geom, slices.Clone(v))
	}
	return geom
}

// validPageStarts reports whether ps are page starts of a text of n bytes.
func validPageStarts(ps []int32, n int) bool {
	for i, p := range ps {
		if p < 0 || int(p) > n || (i > 0 && p < ps[i-1]) || (i == 0 && p != 0) {
			return false
		}
	}
	return len(ps) > 0
}
