package docstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SchemaVersion is the layout version this build writes. Opening a library
// with a higher version fails with ErrNewerSchema rather than misreading it;
// one with a lower version holding documents fails with ErrOlderSchema
// until Reindex rebuilds it (Options.Upgrade opens it for that).
//
// Version 2 stores each sentence's section, table and flags, the
// documents' headings, tables and compound words, and indexes headings and
// table contexts as fields of their own. Version 3 folds index terms to
// their base letters ("Zürich" is indexed as "zurich").
const SchemaVersion = 3

// Bucket names. Per-document data lives in a sub-bucket (or key) named by
// the DocID in each of the per-document buckets, so removing a document is
// one delete per bucket.
var (
	bucketMeta     = []byte("meta")
	bucketDocs     = []byte("docs")     // DocID -> DocInfo JSON
	bucketText     = []byte("text")     // DocID -> stored text
	bucketLayout   = []byte("layout")   // DocID -> pages, sentences, chunks
	bucketLengths  = []byte("lengths")  // DocID/{s,c} -> term counts per unit
	bucketPostings = []byte("postings") // DocID/{s,c}/term -> postings
	bucketAnswers  = []byte("answers")  // answer ID -> answer record JSON
	// bucketVectors holds embeddings: DocID/… as vectors.go lays out.
	bucketVectors = []byte("vectors")
	// bucketDerived holds model-derived documents (RAIDD summaries and
	// questions): DocID/… as derived.go lays out.
	bucketDerived = []byte("derived")

	keySchema = []byte("schema")
	// keyEpoch counts the changes that make what a process has cached of
	// a document stale (a removal, a reindex): another process holding
	// the library drops its cache when it sees the count move.
	keyEpoch = []byte("epoch")
)

// perDocBuckets lists every bucket holding data keyed by DocID. Remove
// deletes the document from each; a bucket added for derived data (RAIDD
// summaries, vectors) must be listed here so removal stays complete.
var perDocBuckets = [][]byte{bucketDocs, bucketText, bucketLayout, bucketLengths, bucketPostings, bucketVectors, bucketDerived, bucketGeometry}

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
	// Upgrade opens a library of an older schema so Reindex can rebuild
	// it; nothing else may be done with it until then.
	Upgrade bool
	// ReadDamaged opens a damaged library read-only, for Inspect and
	// Salvage: a file cut short is opened rather than refused. Reads of
	// what is damaged still fail with ErrCorrupt.
	ReadDamaged bool
	// MaxFileSize is the largest file Add reads (default
	// DefaultMaxFileSize); a larger one is refused before it is read.
	MaxFileSize int64
}

// DefaultLockTimeout is how long a library waits for another process's
// transaction before it gives up with ErrLocked.
const DefaultLockTimeout = 10 * time.Second

// Library is a library file. It is safe for concurrent use, and shares
// the file with other processes: it holds the file open (and locked)
// only for its transactions and a moment after (see handle.go), so
// while one process adds a document or waits for a model, the others
// read and write it too.
type Library struct {
	db      *handle // opens the file per transaction, containing a damaged file's panics
	path    string
	maxFile int64  // Options.MaxFileSize
	epoch   string // keyEpoch as last seen

	// schema is the library's schema version as opened.
	schema int

	mu   sync.Mutex
	docs map[DocID]*Document // decoded documents, loaded on first use
	idx  map[DocID]*docIndex // per-document index statistics
	load LoadOptions         // how Add reads files (SetLoadOptions)
}

// Open opens (creating if needed) the library at path. The file and its
// directory are private to the user (0600, 0700).
func Open(path string, opt *Options) (*Library, error) {
	if opt == nil {
		opt = &Options{}
	}
	timeout := opt.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	readOnly := opt.ReadOnly || opt.ReadDamaged
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("cannot create the library folder: %w", err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, errorf(ErrNotFound, "no library at %s", path)
	}
	if !opt.ReadDamaged {
		if err := checkBoltFile(path); err != nil {
			return nil, err
		}
	}
	l := &Library{path: path, maxFile: opt.MaxFileSize, docs: map[DocID]*Document{}, idx: map[DocID]*docIndex{}}
	if l.maxFile <= 0 {
		l.maxFile = DefaultMaxFileSize
	}
	l.db = newHandle(path, readOnly, timeout, bolt.Options{})
	l.db.waiting.Store(&opt.Waiting)
	l.db.opened = l.opened
	if err := l.checkSchema(readOnly, opt.Upgrade || opt.ReadDamaged); err != nil && !(opt.ReadDamaged && errors.Is(err, ErrCorrupt)) {
		l.db.Close()
		return nil, err // a damaged schema record is for Inspect to report
	}
	// bbolt only sets the mode when it creates the file; a library copied in
	// with looser permissions is tightened too (to the user's bits: one
	// made read-only on purpose stays so).
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&^0o600 != 0 && !opt.ReadOnly {
		_ = os.Chmod(path, fi.Mode().Perm()&0o600)
	}
	return l, nil
}

// opened is told of each fresh open of the file: when another process
// removed or reindexed documents since the last, what is cached of them
// may be stale, and is dropped.
func (l *Library) opened(tx *bolt.Tx) error {
	var epoch string
	if meta := tx.Bucket(bucketMeta); meta != nil {
		epoch = string(meta.Get(keyEpoch))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if epoch != l.epoch {
		l.epoch = epoch
		clear(l.docs)
		clear(l.idx)
	}
	return nil
}

// bumpEpoch records, in tx, a change that makes cached documents stale.
func bumpEpoch(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	n, _ := strconv.Atoi(string(meta.Get(keyEpoch)))
	return meta.Put(keyEpoch, []byte(strconv.Itoa(n+1)))
}

func (l *Library) checkSchema(readOnly, upgrade bool) error {
	check := func(tx *bolt.Tx) error {
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
			if docs := tx.Bucket(bucketDocs); docs != nil && docs.Stats().KeyN > 0 {
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
	if fi, err := os.Stat(l.path); !readOnly && (err != nil || fi.Size() == 0) {
		// a new library: bbolt creates the file on its first write
	} else if err := l.db.View(func(tx *bolt.Tx) error {
		if err := check(tx); err != nil {
			return err
		}
		settled = l.schema == SchemaVersion || upgrade
		for _, name := range append([][]byte{bucketMeta, bucketAnswers}, perDocBuckets...) {
			settled = settled && tx.Bucket(name) != nil
		}
		return nil
	}); err != nil || readOnly || settled {
		return err
	}
	return l.db.Update(func(tx *bolt.Tx) error {
		if err := check(tx); err != nil {
			return err
		}
		for _, name := range append([][]byte{bucketMeta, bucketAnswers}, perDocBuckets...) {
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

// SetWaiting replaces Options.Waiting: fn is told when a transaction
// waits for another process's (nil: nobody is told). A front end that
// takes over the terminal sets its own.
func (l *Library) SetWaiting(fn func(write bool)) { l.db.waiting.Store(&fn) }

// Path returns the library file's path.
func (l *Library) Path() string { return l.path }

// Close waits for the transactions in progress and releases the file;
// the library cannot be used after.
func (l *Library) Close() error { return l.db.Close() }

// List returns every document's metadata, oldest first.
func (l *Library) List() ([]DocInfo, error) {
	var out []DocInfo
	err := l.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocs)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var info DocInfo
			if err := json.Unmarshal(v, &info); err != nil {
				return damaged("document %s's metadata record does not decode", k)
			}
			out = append(out, info)
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Added.Equal(out[j].Added) {
			return out[i].Added.Before(out[j].Added)
		}
		return out[i].Name < out[j].Name
	})
	return out, err
}

// Info returns one document's metadata.
func (l *Library) Info(id DocID) (DocInfo, error) {
	var info DocInfo
	err := l.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocs)
		var v []byte
		if b != nil {
			v = b.Get([]byte(id))
		}
		if v == nil {
			return errorf(ErrNotFound, "no document %s in the library", id)
		}
		if err := json.Unmarshal(v, &info); err != nil {
			return damaged("document %s's metadata record does not decode", id)
		}
		return nil
	})
	return info, err
}

// Resolve finds the document a user means by ref: its full ID, a unique
// prefix of it, the file name it was added from, its path, or (failing
// those) a unique prefix of the file name.
func (l *Library) Resolve(ref string) (DocInfo, error) {
	docs, err := l.List()
	if err != nil {
		return DocInfo{}, err
	}
	abs, _ := filepath.Abs(ref)
	var byPrefix, byName, byNamePrefix []DocInfo
	for _, d := range docs {
		switch {
		case string(d.ID) == ref:
			return d, nil
		case d.Path == ref || d.Path == abs:
			byName = append(byName, d)
		case strings.HasPrefix(string(d.ID), ref) && ref != "":
			byPrefix = append(byPrefix, d)
		case d.Name == ref:
			byName = append(byName, d)
		case ref != "" && strings.HasPrefix(d.Name, ref):
			byNamePrefix = append(byNamePrefix, d)
		}
	}
	for _, set := range [][]DocInfo{byName, byPrefix, byNamePrefix} {
		switch len(set) {
		case 0:
			continue
		case 1:
			return set[0], nil
		default:
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
	err := l.db.View(func(tx *bolt.Tx) error {
		key := []byte(id)
		v := tx.Bucket(bucketDocs).Get(key)
		if v == nil {
			return errorf(ErrNotFound, "no document %s in the library", id)
		}
		var err error
		d, err = decodeDocument(id, v, tx.Bucket(bucketText).Get(key), tx.Bucket(bucketLayout).Get(key))
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
// index, derived documents, vectors) in one transaction. Saved answers are
// kept: they quote the cited text and stay exportable.
func (l *Library) Remove(ids ...DocID) error {
	err := l.db.Update(func(tx *bolt.Tx) error {
		if err := bumpEpoch(tx); err != nil {
			return err
		}
		for _, id := range ids {
			if tx.Bucket(bucketDocs).Get([]byte(id)) == nil {
				return errorf(ErrNotFound, "no document %s in the library", id)
			}
			for _, name := range perDocBuckets {
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
		}
		return nil
	})
	l.mu.Lock()
	for _, id := range ids {
		delete(l.docs, id)
		delete(l.idx, id)
	}
	l.mu.Unlock()
	return err
}
