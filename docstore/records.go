package docstore

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/citelens/citelens/storage"
)

// Schema 4 (FORMAT.md has every record of it) stores a document in records that can be read a piece at a
// time, so that nothing — a question, a listing, a 500 MB text — needs a
// document whole unless it asks for it whole. A document's content is
// keyed by its number (DocNum), not its ID, so two versions of one
// document (while it is reindexed) or two processes adding the same file
// never share a record:
//
//	docs     DocID → DocInfo (JSON): what the document is, and that it is
//	records  DocID → docRecord: its number, its units and lengths per
//	         index field
//	listing  DocNum → ListEntry: the compact line `ls` prints, in the
//	         order documents were added
//	names    file name 0x00 DocNum → nothing: Resolve by name
//	text     DocNum piece(u32) → textPiece bytes of the stored text
//	layout   DocNum h → pages, sections, tables and counts (header)
//	         DocNum s piece → sentPiece sentences (24 bytes each)
//	         DocNum c piece → chunkPiece chunks (12 bytes each)
//	         DocNum w word → a compound word's parts
//	segments SegID → segRecord: the index's segments (segments.go)
//	index    SegID/ field/ term 0x00 DocNum unit → a block of postings
//	         (blocks.go)
//	pending  DocNum → a document being written in pieces, or removed
//	meta     nextdoc, nextseg (the next numbers), live (a bitmap of the
//	         documents that are in the library), totals (units and
//	         lengths per field over the library)
//
// A document is in the library when its docs record exists and its bit
// is set in live; both change in one transaction, the one that adds (or
// removes) it. Everything else of a document may be written before, in
// transactions of their own (a large text, in pieces, into segments that
// stay building until then), and removed after: readers see nothing of
// it until then, because they read active segments only, skip documents
// whose bit is not set, and reach everything else from docs.
var (
	bucketRecords  = []byte("records")
	bucketListing  = []byte("listing")
	bucketNames    = []byte("names")
	bucketIndex    = []byte("index")
	bucketSegments = []byte("segments")
	bucketPending  = []byte("pending")

	keyNextDoc = []byte("nextdoc")
	keyNextSeg = []byte("nextseg")
	keyLive    = []byte("live")
	keyTotals  = []byte("totals")
)

// Piece sizes: a read of one sentence reads at most two text pieces and
// one sentence piece.
const (
	textPiece  = 32 << 10
	sentPiece  = 2048
	chunkPiece = 4096
)

// Layout record tags.
const (
	tagHeader    = 'h'
	tagSentences = 's'
	tagChunks    = 'c'
	tagCompound  = 'w'
	tagAlias     = 'a'
)

// numKey is a document number as a key, and the prefix of its text and
// layout keys.
func numKey(n DocNum) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// pieceKey is the key of piece i of document n's records with tag (0 for
// text).
func pieceKey(n DocNum, tag byte, i uint32) []byte {
	k := numKey(n)
	if tag != 0 {
		k = append(k, tag)
	}
	return binary.BigEndian.AppendUint32(k, i)
}

// compoundKey is the key of a compound word's parts.
func compoundKey(n DocNum, word string) []byte {
	return append(append(numKey(n), tagCompound), word...)
}

// docRecord is what the library keeps of a document beyond its DocInfo:
// its number and what its index holds.
type docRecord struct {
	num DocNum
	// units and length are the units of each index field and their total
	// length in index terms: the document's share of the library's
	// statistics.
	units, length [numFields]uint64
}

func (r *docRecord) encode() []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(r.num))
	for f := range numFields {
		b = binary.AppendUvarint(b, r.units[f])
		b = binary.AppendUvarint(b, r.length[f])
	}
	return b
}

func decodeDocRecord(v []byte) (docRecord, error) {
	var r docRecord
	if len(v) < 4 {
		return r, ErrCorrupt
	}
	r.num = DocNum(binary.BigEndian.Uint32(v))
	v = v[4:]
	for f := range numFields {
		u, ok1 := uvarint(&v)
		l, ok2 := uvarint(&v)
		if !ok1 || !ok2 {
			return r, ErrCorrupt
		}
		r.units[f], r.length[f] = u, l
	}
	return r, nil
}

// readRecord reads id's record; ok is false when there is none.
func readRecord(tx storage.Tx, id DocID) (docRecord, bool, error) {
	v := tx.Bucket(bucketRecords).Get([]byte(id))
	if v == nil {
		return docRecord{}, false, nil
	}
	r, err := decodeDocRecord(v)
	if err != nil {
		return r, true, damaged("document %s's index record is malformed", id)
	}
	return r, true, nil
}

// ListEntry is a document's line in the library's listing: what `ls`
// shows, read without its metadata record (Library.Listing).
type ListEntry struct {
	// Num is the document's number: the listing's order, the order in
	// which documents were added.
	Num       DocNum
	ID        DocID
	Name      string
	Title     string
	Kind      string
	Pages     int
	Sentences int
	Chunks    int
	Bytes     int
	Added     time.Time
	// Previous is the version before this one (DocInfo.Previous), so
	// that a library's versions are one scan of the listing, not a read
	// of every metadata record. Entries written before the listing kept
	// it lack it; Library.Listing fills it in from their metadata.
	Previous DocID
	// linked is set when the record holds Previous (even empty).
	linked bool
}

func listEntryOf(num DocNum, info *DocInfo) ListEntry {
	return ListEntry{Num: num, ID: info.ID, Name: info.Name, Title: info.Title, Kind: info.Kind, Pages: info.Pages,
		Sentences: info.NumSents, Chunks: info.NumChunks, Bytes: info.Bytes, Added: info.Added, Previous: info.Previous, linked: true}
}

func (e *ListEntry) encode() []byte {
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(string(e.ID))
	str(e.Name)
	str(e.Title)
	str(e.Kind)
	for _, n := range []int{e.Pages, e.Sentences, e.Chunks, e.Bytes} {
		b = binary.AppendUvarint(b, uint64(max(n, 0)))
	}
	b = binary.AppendVarint(b, e.Added.Unix())
	// Added after the format's first listing records: a reader that
	// knows no more stops before it, and one that does tells an old
	// record (nothing here) from one without a previous version (an
	// empty ID).
	str(string(e.Previous))
	return b
}

// listEntryID reads only the ID a listing entry starts with (see
// ListEntry.encode): what a reader of IDs needs, without the rest.
func listEntryID(v []byte) (DocID, bool) {
	size, k := binary.Uvarint(v)
	if k <= 0 || size > uint64(len(v)-k) {
		return "", false
	}
	return DocID(v[k : k+int(size)]), true
}

func decodeListEntry(num DocNum, v []byte) (ListEntry, error) {
	e := ListEntry{Num: num}
	bad := false
	str := func() string {
		n, ok := uvarint(&v)
		if !ok || n > uint64(len(v)) {
			bad = true
			return ""
		}
		s := string(v[:n])
		v = v[n:]
		return s
	}
	count := func() int {
		n, ok := uvarint(&v)
		bad = bad || !ok || n > 1<<40
		return int(n)
	}
	e.ID, e.Name, e.Title, e.Kind = DocID(str()), str(), str(), str()
	e.Pages, e.Sentences, e.Chunks, e.Bytes = count(), count(), count(), count()
	t, k := binary.Varint(v)
	if bad || k <= 0 {
		return e, ErrCorrupt
	}
	e.Added = time.Unix(t, 0).UTC()
	if v = v[k:]; len(v) > 0 {
		// What may follow is a later format's: not read here.
		e.Previous, e.linked = DocID(str()), true
		if bad {
			return e, ErrCorrupt
		}
	}
	return e, nil
}

// Info is the entry as a DocInfo: the listing's fields, without the
// path, warnings, OCR pages and page labels (Library.Info has them).
func (e ListEntry) Info() DocInfo {
	return DocInfo{ID: e.ID, Name: e.Name, Title: e.Title, Kind: e.Kind, Pages: e.Pages,
		NumSents: e.Sentences, NumChunks: e.Chunks, Bytes: e.Bytes, Added: e.Added, Previous: e.Previous}
}

// nameKey is the key of a document's entry in the names index.
func nameKey(name string, n DocNum) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(name), 0), uint32(n))
}

// liveSet is the bitmap of the documents in the library, by number.
type liveSet []byte

func (s liveSet) has(n DocNum) bool {
	i := int(n >> 3)
	return i < len(s) && s[i]&(1<<(n&7)) != 0
}

func (s liveSet) with(n DocNum) liveSet {
	i := int(n >> 3)
	if i >= len(s) {
		s = append(s, make([]byte, i+1-len(s))...)
	}
	s[i] |= 1 << (n & 7)
	return s
}

func (s liveSet) without(n DocNum) liveSet {
	if i := int(n >> 3); i < len(s) {
		s[i] &^= 1 << (n & 7)
	}
	return s
}

func (s liveSet) count() int {
	n := 0
	for _, b := range s {
		n += bits.OnesCount8(b)
	}
	return n
}

// readLive reads the bitmap of live documents (a copy).
func readLive(tx storage.Tx) liveSet {
	return liveSet(slices.Clone(tx.Bucket(bucketMeta).Get(keyLive)))
}

// totals are the library's statistics: units and their total length per
// field, over the live documents.
type totals struct {
	units, length [numFields]uint64
}

func readTotals(tx storage.Tx) (totals, error) {
	var t totals
	v := tx.Bucket(bucketMeta).Get(keyTotals)
	if v == nil {
		return t, nil
	}
	for f := range numFields {
		u, ok1 := uvarint(&v)
		l, ok2 := uvarint(&v)
		if !ok1 || !ok2 {
			return t, damaged("the library's index statistics are malformed")
		}
		t.units[f], t.length[f] = u, l
	}
	return t, nil
}

func writeTotals(tx storage.Tx, t totals) error {
	var b []byte
	for f := range numFields {
		b = binary.AppendUvarint(b, t.units[f])
		b = binary.AppendUvarint(b, t.length[f])
	}
	return tx.Bucket(bucketMeta).Put(keyTotals, b)
}

// nextDocNum allocates a document number.
func nextDocNum(tx storage.Tx) (DocNum, error) {
	meta := tx.Bucket(bucketMeta)
	n := uint32(1)
	if v := meta.Get(keyNextDoc); len(v) == 4 {
		n = binary.BigEndian.Uint32(v)
	}
	if n == 1<<32-1 {
		return 0, fmt.Errorf("the library has numbered 4 billion documents; run 'citelens reindex'")
	}
	return DocNum(n), meta.Put(keyNextDoc, binary.BigEndian.AppendUint32(nil, n+1))
}
