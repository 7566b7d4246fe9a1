package docstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/storage"
)

// Problem is one piece of damage Inspect found: in one document (Doc set)
// or in the file as a whole.
type Problem struct {
	Doc  DocID  `json:"doc,omitempty"`
	Name string `json:"name,omitempty"` // the document's file name, when its metadata is readable
	What string `json:"problem"`        // one sentence, naming the document if there is one
}

func (p Problem) String() string { return p.What }

// Inspection is what Inspect found.
type Inspection struct {
	Path       string    `json:"path"`
	Documents  int       `json:"documents"` // documents with any record
	Readable   int       `json:"readable"`  // of which every record decodes and checks out
	Answers    int       `json:"answers"`
	BadAnswers int       `json:"damaged_answers"`
	Problems   []Problem `json:"problems"`
	// Skipped are the checks that did not apply to this library, each
	// with the reason: the page checks of a library file, for a library
	// in another store.
	Skipped []string `json:"skipped,omitempty"`
	// Older is set for a library an older citelens made (a schema before
	// SchemaVersion), whose documents are checked in their old records:
	// a sentence saying so and what carries it forward. Such a library
	// with no problems is healthy.
	Older string `json:"older,omitempty"`
}

// OK reports whether Inspect found no damage.
func (in *Inspection) OK() bool { return len(in.Problems) == 0 }

// Inspect checks the whole library and reports every problem it finds
// rather than stopping at the first: of a library file, the file's length
// against its pages and bbolt's page checks; of any library, every
// document's records (metadata, text, layout, index) decoded and
// validated, records left without their document, and the saved answers
// (a library in another store lists the file's checks under Skipped).
// Each part is read in its own guarded transaction, so damage in one does
// not hide the rest. It reads everything: use it to diagnose, not on
// every open. A library opened with Options.ReadDamaged can be inspected
// even when Open would refuse it.
func (l *Library) Inspect(ctx context.Context) (*Inspection, error) {
	in := &Inspection{Path: l.path}
	if l.schema > 0 && l.schema < SchemaVersion {
		in.Older = fmt.Sprintf("the library was made by an older citelens (schema %d); its documents are checked in their old records, and citelens reindex carries it forward to schema %d", l.schema, SchemaVersion)
	}
	add := func(doc DocID, what string, args ...any) {
		in.Problems = append(in.Problems, Problem{Doc: doc, What: fmt.Sprintf(what, args...)})
	}
	// A library file's pages are checked first (checkFile): what bbolt
	// must not read (unsafe: loops, records running past their page),
	// which every read below then goes around. A store that is not a file
	// has no pages of the library's to check, only records.
	var unsafe *pageDamage
	sound := false
	if l.file != nil {
		var readable bool
		unsafe, sound, readable = l.file.checkFile(func(what string) { add("", "%s", what) })
		if !readable {
			return in, nil
		}
	} else {
		in.Skipped = append(in.Skipped, fmt.Sprintf("the page checks of a library file: %s is not one", l.path))
	}
	if err := l.viewAround(func(tx storage.Tx) error { return walkAll(tx, unsafe) }); err != nil {
		add("", "reading every record stopped: a page is missing or damaged (%s)", trimDamaged(err.Error()))
	} else if sound {
		// bbolt's own check (key order, besides the page accounting the
		// page walk made) runs only once the guarded walk has read every
		// page it will visit (checkTree).
		l.file.checkTree(func(what string) { add("", "%s", what) })
	}

	// A file cut short usually loses the pages every bucket starts from:
	// one problem, naming the buckets, rather than one per bucket.
	var failedLists []string
	var failedWhy []string
	ids, err := l.recordIDs(unsafe, func(name []byte, err error) {
		why := trimDamaged(err.Error())
		if i := slices.Index(failedWhy, why); i >= 0 {
			failedLists[i] += ", " + string(name)
			return
		}
		failedLists, failedWhy = append(failedLists, string(name)), append(failedWhy, why)
	})
	if err != nil {
		return nil, err
	}
	for i, names := range failedLists {
		add("", "the %s records cannot be listed: a page is missing or damaged (%s)", names, failedWhy[i])
	}
	in.Documents = len(ids)
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name, err := l.inspectDocument(id, unsafe)
		if err != nil {
			in.Problems = append(in.Problems, Problem{Doc: id, Name: name, What: trimDamaged(err.Error())})
			continue
		}
		in.Readable++
	}
	// The index is the library's, not a document's: damage in it is one
	// problem, and searches, not the documents, are what it spoils.
	for _, b := range indexBuckets {
		if !unsafe.intact(b) {
			add("", "the search index's %s records are in a damaged part of the file", b)
		}
	}

	if err := l.viewAround(func(tx storage.Tx) error {
		b, err := bucketAround(tx, unsafe, bucketAnswers)
		if b == nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			in.Answers++
			if !unsafe.recordOK(k, bucketAnswers) || !answerReadable(v) {
				in.BadAnswers++
				add("", "saved answer %s does not decode", k)
			}
			return nil
		})
	}); err != nil {
		add("", "the saved answers cannot be read: a page is missing or damaged (%s)", trimDamaged(err.Error()))
	}
	return in, nil
}

// Check verifies the library's consistency with Inspect and returns its
// first problem as an ErrCorrupt error (nil when there is none). Tests call
// it after simulated crashes.
func (l *Library) Check() error {
	in, err := l.Inspect(context.Background())
	if err != nil {
		return err
	}
	switch len(in.Problems) {
	case 0:
		return nil
	case 1:
		return damaged("%s", trimDamaged(in.Problems[0].String()))
	}
	return damaged("%s (and %d more problems)", trimDamaged(in.Problems[0].String()), len(in.Problems)-1)
}

// trimDamaged drops "the library is damaged: " from a problem that quotes
// a damage error, so messages do not say it twice.
func trimDamaged(s string) string {
	return strings.Replace(s, "the library is damaged: ", "", 1)
}

// walkAll reads every key and value of every bucket but those bbolt
// must not read (unsafe), so that a damaged page shows up as an error of
// the (guarded) transaction.
func walkAll(tx storage.Tx, unsafe *pageDamage) error {
	if !unsafe.bucketOK() {
		return nil
	}
	return tx.ForEachBucket(func(k []byte) error {
		if !unsafe.bucketOK(k) {
			return nil
		}
		if b := tx.Bucket(k); b != nil {
			return walkBucket(b, unsafe, [][]byte{bytes.Clone(k)})
		}
		return nil
	})
}

func walkBucket(b storage.Bucket, unsafe *pageDamage, path [][]byte) error {
	var sum byte
	return b.ForEach(func(k, v []byte) error {
		if !unsafe.recordOK(k, path...) {
			return nil
		}
		if v == nil {
			inner := append(slices.Clip(path), bytes.Clone(k))
			if !unsafe.bucketOK(inner...) {
				return nil
			}
			if nb := b.Bucket(k); nb != nil {
				return walkBucket(nb, unsafe, inner)
			}
			return nil
		}
		if len(v) > 0 {
			sum += v[0] + v[len(v)-1] // touches the value's first and last page
		}
		return nil
	})
}

// bucketAround returns the top-level bucket name of tx, nil if there is
// none, or an error if its tree is one bbolt must not read (unsafe).
func bucketAround(tx storage.Tx, unsafe *pageDamage, name []byte) (storage.Bucket, error) {
	if !unsafe.bucketOK(name) {
		return nil, fmt.Errorf("%w (its %s records are in a damaged part of the file)", unsafe.err, name)
	}
	return tx.Bucket(name), nil
}

// recordIDs lists every ID that has a record in a per-document bucket,
// sorted, going around what bbolt must not read (unsafe). Each bucket is
// listed in its own transaction; one whose listing fails is reported
// through failed, with the IDs found before the failure kept.
func (l *Library) recordIDs(unsafe *pageDamage, failed func(bucket []byte, err error)) ([]DocID, error) {
	seen := map[DocID]bool{}
	// A library of schema 1 to 3 keeps its text and layout by DocID:
	// a document whose metadata is lost is still found by its text.
	for _, name := range slices.Concat(perDocBuckets, [][]byte{bucketTextV2, bucketLayoutV2}) {
		err := l.viewAround(func(tx storage.Tx) error {
			b, err := bucketAround(tx, unsafe, name)
			if b == nil {
				return err
			}
			return b.ForEach(func(k, _ []byte) error {
				seen[DocID(k)] = true // string(k) copies out of the mmap
				return nil
			})
		})
		if err != nil {
			failed(name, err)
		}
	}
	ids := make([]DocID, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// inspectDocument checks one document's records, going around what
// bbolt must not read (unsafe); name is its file name when its metadata
// decodes.
func (l *Library) inspectDocument(id DocID, unsafe *pageDamage) (name string, err error) {
	err = l.viewAround(func(tx storage.Tx) error {
		key := []byte(id)
		recs, err := recordsAround(tx, unsafe, key, bucketDocs, bucketRecords)
		if err != nil {
			return fmt.Errorf("document %s: %w", id, err)
		}
		info := recs[0]
		if info == nil {
			return fmt.Errorf("document %s has records but no metadata record", id)
		}
		var di DocInfo
		if json.Unmarshal(info, &di) == nil {
			name = di.Name
		}
		if recs[1] == nil {
			if text, ps, ok := legacyText(tx, unsafe, key); ok {
				return inspectLegacy(id, info, text, ps)
			}
			return damaged("document %s has no index record", id)
		}
		rec, err := decodeDocRecord(recs[1])
		if err != nil {
			return damaged("document %s's index record does not decode", id)
		}
		// Its content is keyed by its number (records.go): its listing
		// entry, and the pieces of its text and layout.
		if _, err := recordsAround(tx, unsafe, numKey(rec.num), bucketListing); err != nil {
			return fmt.Errorf("document %s: %w", id, err)
		}
		for _, b := range [][]byte{bucketText, bucketLayout} {
			if !unsafe.prefixOK(numKey(rec.num), b) {
				return fmt.Errorf("document %s: its %s records are in a damaged part of the file", id, b)
			}
		}
		_, err = readDocument(tx, id)
		return err
	})
	return name, err
}

// recordsAround returns the records key of the top-level buckets names,
// nil where a bucket has none, or an error naming the first that lies
// where bbolt must not read (unsafe). The records are the store's: valid in
// tx only.
func recordsAround(tx storage.Tx, unsafe *pageDamage, key []byte, names ...[]byte) ([][]byte, error) {
	recs := make([][]byte, len(names))
	for i, name := range names {
		if !unsafe.recordOK(key, name) {
			return nil, fmt.Errorf("its %s record is in a damaged part of the file", name)
		}
		if b := tx.Bucket(name); b != nil {
			recs[i] = b.Get(key)
		}
	}
	return recs, nil
}

// legacyText returns the text and page starts of document key as a
// library of schema 1 to 3 kept them (text and layout whole by DocID),
// false when it has no such text record or that record lies where bbolt
// must not read (unsafe). The page starts are nil when the layout record
// is missing, damaged or unreadable.
func legacyText(tx storage.Tx, unsafe *pageDamage, key []byte) (text string, pageStarts []int32, ok bool) {
	tb := tx.Bucket(bucketTextV2)
	if tb == nil || !unsafe.recordOK(key, bucketTextV2) {
		return "", nil, false
	}
	v := tb.Get(key)
	if v == nil {
		return "", nil, false
	}
	text = string(v)
	if lb := tx.Bucket(bucketLayoutV2); lb != nil && unsafe.recordOK(key, bucketLayoutV2) {
		pageStarts = layoutPageStarts(lb.Get(key), len(text))
	}
	return text, pageStarts, true
}

// inspectLegacy checks a document of a library of schema 1 to 3 in its
// old records, as much as a rebuild (which reads its metadata, text and
// page starts, and derives the rest again) relies on.
func inspectLegacy(id DocID, info []byte, text string, pageStarts []int32) error {
	var di DocInfo
	switch {
	case json.Unmarshal(info, &di) != nil || di.ID != id:
		return damaged("document %s's metadata record does not decode", id)
	case !utf8.ValidString(text):
		return damaged("document %s's text record is damaged", id)
	case pageStarts == nil:
		return damaged("document %s's layout record is missing or damaged", id)
	}
	return nil
}

// indexBuckets are the buckets that hold the library's search index, one
// for the whole library (records.go): damage in them is the library's,
// not one document's.
var indexBuckets = [][]byte{bucketIndex, bucketSegments}

// checkDocumentKeys checks that the library's document buckets, whose
// keys (by top-level bucket) the page walk of the file at path listed,
// agree: every record keyed by a document's ID has the document's
// metadata, every document its index record and listing entry, and every
// listed document number its layout header. It is the part of Inspect a
// walk of the pages can afford, and finds a flipped bit in a key, which
// leaves the pages sound. What it cannot see from keys — a record's value
// naming the wrong number, a piece missing in the middle of a text — is
// Inspect's to find.
func checkDocumentKeys(keys map[string][]string, path string) error {
	docs := map[string]bool{}
	for _, k := range keys[string(bucketDocs)] {
		docs[k] = true
	}
	for _, name := range perDocBuckets[1:] {
		for _, k := range keys[string(name)] {
			if !docs[k] {
				return damaged("%s: document %s has records but no metadata record", path, k)
			}
		}
	}
	if _, ok := keys[string(bucketRecords)]; !ok {
		return nil // a library of an older schema, which a Rebuild rewrites
	}
	// docs and records change together (publish, unlist), and each
	// document has one listing entry: equal counts with every records
	// key in docs means every document has both.
	n := len(keys[string(bucketDocs)])
	if r := len(keys[string(bucketRecords)]); r != n {
		return damaged("%s: %d documents have metadata but %d an index record", path, n, r)
	}
	listing := keys[string(bucketListing)]
	if len(listing) != n {
		return damaged("%s: %d documents have metadata but %d a listing entry", path, n, len(listing))
	}
	layout := map[string]bool{}
	for _, k := range keys[string(bucketLayout)] {
		if len(k) == 9 && k[4] == tagHeader {
			layout[k[:4]] = true
		}
	}
	for _, k := range listing {
		if len(k) != 4 || !layout[k] {
			return damaged("%s: listed document number %x has no layout record", path, k)
		}
	}
	return nil
}

// answerReadable reports whether a saved answer record decodes.
func answerReadable(v []byte) bool {
	var m AnswerMeta
	return json.Valid(v) && json.Unmarshal(v, &m) == nil
}
