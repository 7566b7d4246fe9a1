package docstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/citelens/citelens/storage"
)

// The original files' bytes, kept in the library beside their documents
// so that whoever shares the library (a team's, on a server) can draw a
// PDF's pages and reindex it without the file on their own disk. They
// are stored by content: a file's bytes once under their SHA-256, in
// pieces of filePiece bytes (a store's values stay moderate: a server
// sends each in one message), with a reference from each document that
// was added from them. FORMAT.md lays out the keys.

var (
	// bucketFiles: SHA-256 (32 bytes) u32 piece → up to filePiece bytes.
	bucketFiles = []byte("files")
	// bucketFileRefs: SHA-256 (32 bytes) DocID → empty: the documents
	// added from the file, so the bytes go with the last of them.
	bucketFileRefs = []byte("filerefs")
)

// filePiece is the size of a stored file's pieces but the last.
const filePiece = 1 << 20

// FileInfo is what a document's metadata says of its stored original.
type FileInfo struct {
	// SHA256 is the file's digest, lowercase hex: its key in the files
	// bucket.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Pieces is how many pieces hold it.
	Pieces int `json:"pieces"`
}

// Files is the library's stored original files.
type Files Library

// Files returns the library's stored original files.
func (l *Library) Files() *Files { return (*Files)(l) }

// Keeps reports whether documents added to the library should bring
// their original file's bytes (Options.Files).
func (l *Files) Keeps() bool { return l.keepFiles }

// FilePolicy says whether a library keeps its documents' original files.
type FilePolicy int

// The policies. FilesDefault keeps them in a store opened by OpenStore
// (a server's, shared by people whose disks do not hold each other's
// files) and not in a library file, which is one person's, on the disk
// that holds the files already: there the bytes would double the
// library's size (docs/SCHEMA-POSTGRES.md has the measure) for a page
// view that the file on disk serves.
const (
	FilesDefault FilePolicy = iota
	FilesKeep
	FilesSkip
)

// putOriginal stores d.Original, when it has one, and references it from
// d, in tx: the document and its file are written in one transaction.
// It sets d's FileInfo, written with its metadata after.
func putOriginal(tx storage.Tx, d *Document) error {
	if d.Original == nil {
		return nil
	}
	sum := sha256.Sum256(d.Original)
	files, err := tx.CreateBucketIfNotExists(bucketFiles)
	if err != nil {
		return err
	}
	refs, err := tx.CreateBucketIfNotExists(bucketFileRefs)
	if err != nil {
		return err
	}
	n := (len(d.Original) + filePiece - 1) / filePiece
	if n == 0 {
		n = 1 // an empty file is one empty piece
	}
	if files.Get(filePieceKey(sum[:], 0)) == nil {
		for i := range n {
			piece := d.Original[i*filePiece : min((i+1)*filePiece, len(d.Original))]
			if err := files.Put(filePieceKey(sum[:], uint32(i)), piece); err != nil {
				return err
			}
		}
	}
	if err := refs.Put(append(sum[:], d.ID...), nil); err != nil {
		return err
	}
	d.File = &FileInfo{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(d.Original)), Pieces: n}
	return nil
}

// filePieceKey is the key of piece i of the file whose digest is sum.
func filePieceKey(sum []byte, i uint32) []byte {
	return binary.BigEndian.AppendUint32(bytes.Clone(sum), i)
}

// dropOriginal removes document id's reference to its file, in tx, and
// the file's bytes when no other document refers to them.
func dropOriginal(tx storage.Tx, info DocInfo) error {
	if info.File == nil {
		return nil
	}
	sum, err := hex.DecodeString(info.File.SHA256)
	refs := tx.Bucket(bucketFileRefs)
	if err != nil || len(sum) != sha256.Size || refs == nil {
		return nil // nothing this library stored
	}
	if err := refs.Delete(append(sum, info.ID...)); err != nil {
		return err
	}
	if k, _ := refs.Cursor().Seek(sum); k != nil && bytes.HasPrefix(k, sum) {
		return nil // another document has the same bytes
	}
	files := tx.Bucket(bucketFiles)
	if files == nil {
		return nil
	}
	c := files.Cursor()
	for k, _ := c.Seek(sum); k != nil && bytes.HasPrefix(k, sum); k, _ = c.Seek(sum) {
		if err := files.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Original returns the stored bytes of the file document id was added
// from; ok is false when the library did not keep them. The bytes are
// checked against their digest: a damaged piece is ErrCorrupt.
func (l *Files) Original(id DocID) (content []byte, ok bool, err error) {
	err = l.store.View(func(tx storage.Tx) error {
		info, found, err := readInfo(tx, id)
		if err != nil {
			return err
		}
		if !found {
			return errorf(ErrNotFound, "no document %s in the library", id)
		}
		files := tx.Bucket(bucketFiles)
		if info.File == nil || files == nil {
			return nil
		}
		sum, err := hex.DecodeString(info.File.SHA256)
		if err != nil || len(sum) != sha256.Size || info.File.Size < 0 || info.File.Pieces < 1 {
			return damaged("document %s's file record is not one", id)
		}
		keys := make([][]byte, info.File.Pieces)
		for i := range keys {
			keys[i] = filePieceKey(sum, uint32(i))
		}
		buf := make([]byte, 0, info.File.Size)
		// A batch of pieces at a time: one round trip to a server for
		// a few of them, and never the whole file twice in memory.
		const batch = 8
		for i := 0; i < len(keys); i += batch {
			for j, v := range files.GetMany(keys[i:min(i+batch, len(keys))]) {
				if v == nil {
					if i+j == 0 {
						return nil // not stored (removed with a file policy change): none
					}
					return damaged("document %s's stored file lacks piece %d", id, i+j)
				}
				buf = append(buf, v...)
			}
		}
		if got := sha256.Sum256(buf); int64(len(buf)) != info.File.Size || !bytes.Equal(got[:], sum) {
			return damaged("document %s's stored file does not match its digest", id)
		}
		content, ok = buf, true
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("reading the stored file: %w", err)
	}
	return content, ok, nil
}

// Original is the Files part's Original, for the page view (which reads
// the library through its Geometry): the file's bytes as stored, to draw
// pages from when the file is not on this disk.
func (l *Geometry) Original(id DocID) ([]byte, bool, error) {
	return (*Files)(l).Original(id)
}
