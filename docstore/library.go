package docstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/storage"
)

// SchemaVersion is the layout version this build writes. Opening a library
// with a higher version fails with ErrNewerSchema rather than misreading it;
// one with a lower version holding documents fails with ErrOlderSchema
// until a Rebuild rebuilds it (Options.Upgrade opens it for that).
//
// Version 2 stores each sentence's section, table and flags, the
// documents' headings, tables and compound words, and indexes headings and
// table contexts as fields of their own. Version 3 folds index terms to
// their base letters ("Zürich" is indexed as "zurich"). Version 4
// (records.go) stores one index for the whole library, term by term, a
// document's records in pieces keyed by its number, and a compact
// listing.
const SchemaVersion = 4

// Bucket names. Data about a document lives under its DocID in each of
// the per-document buckets, so removing a document is one delete per
// bucket; its content (text, layout, postings) is keyed by its number, as
// records.go lays out.
var (
	bucketMeta    = []byte("meta")
	bucketDocs    = []byte("docs")         // DocID -> DocInfo JSON
	bucketText    = []byte("textpieces")   // DocNum piece -> stored text
	bucketLayout  = []byte("layoutpieces") // DocNum tag … -> pages, sentences, chunks…
	bucketAnswers = []byte("answers")      // answer ID -> answer record JSON
	// bucketVectors holds embeddings: DocID/… as vectors.go lays out.
	bucketVectors = []byte("vectors")
	// bucketDerived holds model-derived documents (RAIDD summaries and
	// questions): DocID/… as derived.go lays out.
	bucketDerived = []byte("derived")

	// Buckets of schema versions 1 and 2, which a Rebuild reads and drops:
	// text and layout by DocID, and an index per document.
	bucketTextV2     = []byte("text")     // DocID -> stored text
	bucketLayoutV2   = []byte("layout")   // DocID -> pages, sentences, chunks…
	bucketLengthsV2  = []byte("lengths")  // DocID/{s,c,h,t} -> term counts per unit
	bucketPostingsV2 = []byte("postings") // DocID/{s,c,h,t}/term -> postings

	keySchema = []byte("schema")
	// keyEpoch counts the changes that make what a process has cached of
	// a document stale (a removal, a reindex): another process holding
	// the library drops its cache when it sees the count move.
	keyEpoch = []byte("epoch")
)

// perDocBuckets lists every bucket holding data keyed by DocID. Remove
// deletes the document from each; a bucket added for derived data (RAIDD
// summaries, vectors) must be listed here so removal stays complete.
var perDocBuckets = [][]byte{bucketDocs, bucketRecords, bucketVectors, bucketDerived, bucketGeometry}

// contentBuckets hold documents' content by DocNum (records.go).
var contentBuckets = [][]byte{bucketText, bucketLayout, bucketListing, bucketNames, bucketIndex, bucketSegments, bucketPending}

// Options tune Open.
type Options struct {
	// ReadOnly opens the library with a shared lock, so several readers can
	// work at once; writes fail. The file must exist.
	ReadOnly bool
	// LockTimeout bounds the wait for another process's transaction
	// (default DefaultLockTimeout). The library holds the file only
	// while it reads or writes it, so the wait is for another process's
	// write, which is short.
	LockTimeout time.Duration
	// Waiting, if set, is told when a read (write false) or a write
	// finds the file in use by another process and waits for it, after
	// half a second, so a front end can say so. (A process that waits
	// touches a marker named by the file's identity, beside the file or
	// in the user's runtime directory, so that one holding the file
	// without pause lets it in; a wait that times out is a *LockedError
	// naming the citelens processes that hold the file.)
	Waiting func(write bool)
	// Upgrade opens a library of an older schema so a Rebuild can rebuild
	// it; nothing else may be done with it until then.
	Upgrade bool
	// Files says whether documents added bring their original file's
	// bytes into the library (files.go): by default a store opened by
	// OpenStore keeps them and a library file does not.
	Files FilePolicy
	// ReadDamaged opens a damaged library read-only, for Inspect and
	// Salvage: a file cut short is opened rather than refused. Reads of
	// what is damaged still fail with ErrCorrupt.
	ReadDamaged bool
}

// DefaultLockTimeout is how long a library waits for another process's
// transaction before it gives up with ErrLocked.
const DefaultLockTimeout = 10 * time.Second

// Library is a library: its documents, their index and what is kept
// beside them, in a store (storage.DB). It is safe for concurrent use.
// Open opens a library file, which it shares with other processes: it
// holds the file open (and locked) only for its transactions and a
// moment after (see handle.go), so while one process adds a document or
// waits for a model, the others read and write it too; OpenStore opens a
// library in any other store. Its methods are about documents and the
// store; what it keeps beside the documents is reached through its parts
// (parts.go): Answers, Geometry, Vectors, Derived and Index.
type Library struct {
	// store is where every record is read and written: the bbolt file
	// (file) or the store OpenStore was given (storeDB).
	store storage.DB
	// file is the library's bbolt file, which opens per transaction and
	// contains a damaged file's panics; nil when the library is in
	// another store, which has none of the file's checks.
	file  *handle
	path  string // the file's path, or the store's name
	epoch string // keyEpoch as last seen

	// schema is the library's schema version as opened.
	schema int
	// keepFiles: documents added bring their original files' bytes
	// (Options.Files, files.go).
	keepFiles bool
	// role is the store's database role (authors.go), asked once.
	roleOnce sync.Once
	role     string

	mu    sync.Mutex
	docs  map[DocID]*Document // decoded documents, loaded on first use
	views map[DocID]*viewBase // what Views of large documents share
}

// newLibrary is a library over store, named path, not yet checked.
func newLibrary(store storage.DB, path string) *Library {
	return &Library{store: store, path: path, docs: map[DocID]*Document{}, views: map[DocID]*viewBase{}}
}

// OpenStore opens (creating if needed) the library kept in db, a store
// other than a library file (Open opens those): a bbolt file opened by
// storage/boltkv, a server's database. name is what messages and Path
// call it: its address, which should not hold a password (one in a URL
// or a "password=" setting is masked anyway). The library takes db over:
// Close closes it; when OpenStore fails, db is the caller's to close.
//
// What the store is given is only the library's records: the sharing
// between processes, the wait markers and the page checks of a library
// file are the file's, and a store has its own (options LockTimeout
// and Waiting are ignored). ReadOnly and ReadDamaged open the library for
// reading only, Upgrade as for Open.
func OpenStore(db storage.DB, name string, opt *Options) (*Library, error) {
	if opt == nil {
		opt = &Options{}
	}
	name = maskSecret(name)
	readOnly := opt.ReadOnly || opt.ReadDamaged
	l := newLibrary(nil, name)
	s := &storeDB{DB: db, name: name, readOnly: readOnly, opened: l.opened}
	l.store = s
	l.keepFiles = opt.Files != FilesSkip
	if err := l.open(readOnly, opt); err != nil {
		return nil, err
	}
	if !readOnly {
		if err := tabulate(db); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// open readies a library just made by Open or OpenStore: it checks the
// schema, creating the buckets of a new library.
func (l *Library) open(readOnly bool, opt *Options) error {
	err := l.checkSchema(readOnly, opt.Upgrade || opt.ReadDamaged)
	if err != nil && !(opt.ReadDamaged && errors.Is(err, ErrCorrupt)) {
		return err // a damaged schema record is for Inspect to report
	}
	return nil
}

// opened is told of each fresh open of the file: when another process
// removed or reindexed documents since the last, what is cached of them
// may be stale, and is dropped.
func (l *Library) opened(tx storage.Tx) error {
	var epoch string
	if meta := tx.Bucket(bucketMeta); meta != nil {
		epoch = string(meta.Get(keyEpoch))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if epoch != l.epoch {
		l.epoch = epoch
		clear(l.docs)
		clear(l.views)
	}
	return nil
}

// bumpEpoch records, in tx, a change that makes cached documents stale.
func bumpEpoch(tx storage.Tx) error {
	meta := tx.Bucket(bucketMeta)
	n, _ := strconv.Atoi(string(meta.Get(keyEpoch)))
	return meta.Put(keyEpoch, []byte(strconv.Itoa(n+1)))
}

func (l *Library) checkSchema(readOnly, upgrade bool) error {
	check := func(tx storage.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return nil
		}
		v := meta.Get(keySchema)
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return damaged("%s has a bad schema version %q", l.path, v)
		}
		l.schema = n
		if n > SchemaVersion {
			return fmt.Errorf("%w: %s has schema version %d, this citelens reads up to %d; upgrade citelens",
				ErrNewerSchema, l.path, n, SchemaVersion)
		}
		if n < SchemaVersion && !upgrade {
			// Any key at all: a document (its nested buckets, in
			// schema 1, are under a key of this bucket too).
			if docs := tx.Bucket(bucketDocs); docs != nil && hasKeys(docs) {
				return fmt.Errorf("%w: %s has index version %d and this citelens needs %d; run 'citelens reindex' to rebuild it (your documents and saved answers are kept)",
					ErrOlderSchema, l.path, n, SchemaVersion)
			}
		}
		return nil
	}
	// A library that has every bucket and the current schema needs no
	// write to open: a write (even of nothing, which bbolt commits as a
	// new transaction) is made only to create or upgrade it.
	settled := false
	if !readOnly && l.file != nil && l.file.isNew() {
		// a new library: bbolt creates the file on its first write
	} else if err := l.store.View(func(tx storage.Tx) error {
		if err := check(tx); err != nil {
			return err
		}
		if readOnly && l.file == nil && tx.Bucket(bucketMeta) == nil {
			// A library file must exist to be opened for reading
			// (Open); a store is there, but may hold no library.
			return errorf(ErrNotFound, "no library in %s", l.path)
		}
		settled = l.schema == SchemaVersion || upgrade
		for _, name := range append([][]byte{bucketMeta, bucketAnswers}, perDocBuckets...) {
			settled = settled && tx.Bucket(name) != nil
		}
		return nil
	}); err != nil || readOnly || settled {
		return err
	}
	return l.store.Update(func(tx storage.Tx) error {
		if err := check(tx); err != nil {
			return err
		}
		for _, name := range slices.Concat([][]byte{bucketMeta, bucketAnswers}, perDocBuckets, contentBuckets) {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		if meta.Get(keySchema) == nil || (!upgrade && l.schema < SchemaVersion) {
			// New, or older but empty: nothing to rebuild.
			l.schema = SchemaVersion
			return meta.Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
		}
		return nil
	})
}

// hasKeys reports whether b holds any key.
func hasKeys(b storage.Bucket) bool {
	k, _ := b.Cursor().First()
	return k != nil
}

// SetWaiting replaces Options.Waiting: fn is told when a transaction
// waits for another process's (nil: nobody is told). A front end that
// takes over the terminal sets its own. A library in a store other
// than a file (OpenStore) tells nobody: the store does its own waiting.
func (l *Library) SetWaiting(fn func(write bool)) {
	if l.file != nil {
		l.file.waiting.Store(&fn)
	}
}

// Path returns the library file's path, or for a library in another
// store (OpenStore) the name it was opened with, without a password.
func (l *Library) Path() string { return l.path }

// Close waits for the transactions in progress and releases the file
// (or closes the store); the library cannot be used after.
func (l *Library) Close() error { return l.store.Close() }

// List returns every document's metadata, in the order they were added.
// It reads every document's metadata record: Listing pages through the
// compact listing instead.
func (l *Library) List() ([]DocInfo, error) {
	var out []DocInfo
	err := l.store.View(func(tx storage.Tx) error {
		// The listing's IDs, up to a record that does not decode, and
		// their metadata records in one read: the first damage in the
		// listing's order is the error.
		var ids [][]byte
		listErr := tx.Bucket(bucketListing).ForEach(func(k, v []byte) error {
			e, err := decodeListEntry(0, v)
			if err != nil {
				return damaged("the listing record %x does not decode", k)
			}
			ids = append(ids, []byte(e.ID))
			return nil
		})
		for i, v := range tx.Bucket(bucketDocs).GetMany(ids) {
			if v == nil {
				return damaged("the listing names document %s, which has no metadata record", ids[i])
			}
			var info DocInfo
			if err := json.Unmarshal(v, &info); err != nil {
				return damaged("document %s's metadata record does not decode", ids[i])
			}
			out = append(out, info)
		}
		return listErr
	})
	return out, err
}

// Listing returns up to n entries of the listing (every entry when n is
// 0 or less) from the offset-th on (0-based), in the order documents were
// added, with the number of documents in the library. It reads the compact
// listing only: a page of a 100,000-document library costs what the page
// holds.
func (l *Library) Listing(offset, n int) (entries []ListEntry, total int, err error) {
	err = l.store.View(func(tx storage.Tx) error {
		total = readLive(tx).count()
		c := tx.Bucket(bucketListing).Cursor()
		k, v := c.First()
		for i := 0; i < offset && k != nil; i++ {
			k, v = c.Next()
		}
		for ; k != nil && (n <= 0 || len(entries) < n); k, v = c.Next() {
			if len(k) != 4 {
				return damaged("the listing has a malformed key %x", k)
			}
			e, err := decodeListEntry(DocNum(binary.BigEndian.Uint32(k)), v)
			if err != nil {
				return damaged("the listing record %x does not decode", k)
			}
			entries = append(entries, e)
		}
		return fillPrevious(tx, entries)
	})
	return entries, total, err
}

// fillPrevious sets Previous of the entries whose listing record was
// written before the listing kept it, from their metadata records, in
// one read: a library written by an older citelens lists its versions
// as a newer one does, at the old cost.
func fillPrevious(tx storage.Tx, entries []ListEntry) error {
	var at []int
	var ids [][]byte
	for i := range entries {
		if !entries[i].linked {
			at = append(at, i)
			ids = append(ids, []byte(entries[i].ID))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	for k, v := range tx.Bucket(bucketDocs).GetMany(ids) {
		if v == nil {
			return damaged("the listing names document %s, which has no metadata record", ids[k])
		}
		var link struct {
			Previous DocID `json:"previous"`
		}
		if err := json.Unmarshal(v, &link); err != nil {
			return damaged("document %s's metadata record does not decode", ids[k])
		}
		entries[at[k]].Previous, entries[at[k]].linked = link.Previous, true
	}
	return nil
}

// IDs returns the IDs of every document, in the order they were added,
// from the compact listing.
func (l *Library) IDs() ([]DocID, error) {
	var out []DocID
	err := l.store.View(func(tx storage.Tx) error {
		return tx.Bucket(bucketListing).ForEach(func(k, v []byte) error {
			id, ok := listEntryID(v)
			if !ok {
				return damaged("the listing record %x does not decode", k)
			}
			out = append(out, id)
			return nil
		})
	})
	return out, err
}

// Count returns the number of documents in the library.
func (l *Library) Count() (int, error) {
	n := 0
	err := l.store.View(func(tx storage.Tx) error {
		n = readLive(tx).count()
		return nil
	})
	return n, err
}

// Info returns one document's metadata.
func (l *Library) Info(id DocID) (DocInfo, error) {
	var info DocInfo
	err := l.store.View(func(tx storage.Tx) error {
		var ok bool
		var err error
		info, ok, err = readInfo(tx, id)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "no document %s in the library", id)
		}
		return err
	})
	return info, err
}

// Resolve finds the document a user means by ref: its full ID, a unique
// prefix of it, the file name it was added from, its path, or (failing
// those) a unique prefix of the file name. It looks ref up in the
// library's indexes (IDs and names) rather than reading every document.
func (l *Library) Resolve(ref string) (DocInfo, error) {
	abs, _ := filepath.Abs(ref)
	var byPrefix, byName, byNamePrefix []DocInfo
	err := l.store.View(func(tx storage.Tx) error {
		if info, ok, err := readInfo(tx, DocID(ref)); ok || err != nil {
			byName = []DocInfo{info} // the full ID: nothing else matters
			return err
		}
		// By name, or by path (a path's base name is a name).
		byNames := func(name string, prefix bool, fn func(DocInfo)) error {
			if name == "" {
				return nil
			}
			p := []byte(name)
			if !prefix {
				p = append(p, 0)
			}
			c := tx.Bucket(bucketNames).Cursor()
			for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
				if len(k) < 5 {
					continue
				}
				e, err := decodeListEntry(0, tx.Bucket(bucketListing).Get(k[len(k)-4:]))
				if err != nil {
					continue // a stale name entry
				}
				info, ok, err := readInfo(tx, e.ID)
				if err != nil {
					return err
				}
				if ok {
					fn(info)
				}
			}
			return nil
		}
		err := byNames(filepath.Base(ref), false, func(d DocInfo) {
			if d.Path == ref || d.Path == abs || d.Name == ref {
				byName = append(byName, d)
			}
		})
		if err != nil || ref == "" {
			return err
		}
		c := tx.Bucket(bucketDocs).Cursor()
		for k, v := c.Seek([]byte(ref)); k != nil && bytes.HasPrefix(k, []byte(ref)); k, v = c.Next() {
			var info DocInfo
			if err := json.Unmarshal(v, &info); err != nil {
				return damaged("document %s's metadata record does not decode", k)
			}
			byPrefix = append(byPrefix, info)
		}
		return byNames(ref, true, func(d DocInfo) {
			if d.Name != ref {
				byNamePrefix = append(byNamePrefix, d)
			}
		})
	})
	if err != nil {
		return DocInfo{}, err
	}
	for _, set := range [][]DocInfo{byName, byPrefix, byNamePrefix} {
		switch len(set) {
		case 0:
			continue
		case 1:
			return set[0], nil
		default:
			if latest, ok := latestVersion(set); ok {
				return latest, nil // versions of one document: the latest
			}
			ids := make([]string, len(set))
			for i, d := range set {
				ids[i] = fmt.Sprintf("%s (%s)", d.ID, d.Name)
			}
			return DocInfo{}, errorf(ErrAmbiguous, "%q is ambiguous: it matches %s; give more of the ID", ref, strings.Join(ids, ", "))
		}
	}
	return DocInfo{}, errorf(ErrNotFound, "no document %q in the library", ref)
}

// ResolveAll resolves each of refs (as Resolve does) to its document's ID,
// in order, failing on the first that names none or several.
func (l *Library) ResolveAll(refs []string) ([]DocID, error) {
	ids := make([]DocID, 0, len(refs))
	for _, ref := range refs {
		info, err := l.Resolve(ref)
		if err != nil {
			return nil, err
		}
		ids = append(ids, info.ID)
	}
	return ids, nil
}

// Document returns a document with its text and tables. Documents are
// decoded once and then shared: callers must not modify them.
func (l *Library) Document(id DocID) (*Document, error) {
	l.mu.Lock()
	d, ok := l.docs[id]
	l.mu.Unlock()
	if ok {
		return d, nil
	}
	err := l.store.View(func(tx storage.Tx) error {
		var err error
		d, err = readDocument(tx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.docs[id] = d
	l.mu.Unlock()
	return d, nil
}

// Remove deletes documents and everything stored for them (text, tables,
// index, derived documents, vectors). They leave the library in one
// transaction; their records are deleted in that one too when they are
// small, and after it, in turns, when they are large (pending.go). Saved
// answers are kept: they quote the cited text and stay exportable.
func (l *Library) Remove(ids ...DocID) error {
	err := l.store.Update(func(tx storage.Tx) error {
		if err := bumpEpoch(tx); err != nil {
			return err
		}
		t, err := readTotals(tx)
		if err != nil {
			return err
		}
		live := readLive(tx)
		for _, id := range ids {
			info, ok, err := readInfo(tx, id)
			if err != nil {
				return err
			}
			if !ok {
				return errorf(ErrNotFound, "no document %s in the library", id)
			}
			if err := dropOriginal(tx, info); err != nil {
				return err
			}
			rec, ok, err := readRecord(tx, id)
			if err != nil {
				return err
			}
			if ok {
				live = live.without(rec.num)
				t.sub(&rec)
				if err := markRemoving(tx, rec.num, id); err != nil {
					return err
				}
				if err := markDead(tx, rec.num); err != nil {
					return err
				}
			}
			if err := unlist(tx, id, rec); err != nil {
				return err
			}
			for _, name := range perDocBuckets {
				b := tx.Bucket(name)
				if b == nil {
					continue
				}
				if err := deleteEntry(b, []byte(id)); err != nil {
					return err
				}
			}
		}
		if err := tx.Bucket(bucketMeta).Put(keyLive, live); err != nil {
			return err
		}
		if err := writeTotals(tx, t); err != nil {
			return err
		}
		// What fits in this transaction goes now.
		_, err = collectSome(tx, collectBudget, liveness{now: time.Now()}) // a store's writers are judged by collect, below
		return err
	})
	l.mu.Lock()
	for _, id := range ids {
		delete(l.docs, id)
		delete(l.views, id)
	}
	l.mu.Unlock()
	if err != nil {
		return err
	}
	// The documents are gone once that transaction commits; what follows
	// tidies the index, and its failure (damage found in an index block,
	// say) must not read as if the removal had not happened.
	if err := l.collect(); err != nil {
		return tidyError(len(ids), err)
	}
	if err := l.merge(); err != nil {
		return tidyError(len(ids), err)
	}
	return nil
}

// tidyError is the failure of the index's tidying after n documents were
// removed: the removal stands, and err (still matched by errors.Is) says
// why the rest stopped.
func tidyError(n int, err error) error {
	return fmt.Errorf("removed %s, but tidying the index afterwards stopped: %w", humanize.Plural(n, "document", "documents"), err)
}

// deleteEntry deletes key from b, whether it names a nested bucket or a
// value (documents of older schemas kept either under their ID).
func deleteEntry(b storage.Bucket, key []byte) error {
	if b.Bucket(key) != nil {
		return b.DeleteBucket(key)
	}
	return b.Delete(key)
}
