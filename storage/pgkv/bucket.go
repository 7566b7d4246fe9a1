package pgkv

import (
	"errors"

	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
)

// bucket is a handle on a bucket in its transaction.
type bucket struct {
	tx *tx
	st *bucketState
}

var _ storage.Bucket = (*bucket)(nil)

// checkKey is the seam's rule for a key that is written.
func checkKey(key []byte) error {
	switch {
	case len(key) == 0:
		return storage.ErrKeyRequired
	case len(key) > storage.MaxKeySize:
		return storage.ErrKeyTooLarge
	}
	return nil
}

// lookup is what name holds in b: from what the transaction knows, else
// one query, remembered.
func (b *bucket) lookup(name []byte) slot {
	t := b.tx
	k := nameKey{b.st.id, string(name)}
	if s, ok := t.names[k]; ok || b.st.id == rootID {
		// The root's keys were all read at begin.
		return s
	}
	if !t.flush() {
		return slot{}
	}
	var child, seq *int64
	var kids bool
	err := t.conn.QueryRow(t.ctx, qLookup, b.st.id, name).Scan(&child, &seq, &kids)
	var s slot
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		t.fail("looking up a bucket", err)
		return slot{}
	case child == nil:
		s.value = true
	default:
		s.st = &bucketState{id: *child, seq: uint64(*seq)}
		if !kids {
			s.st.children = map[string]bool{}
		}
	}
	t.names[k] = s
	return s
}

// Get returns key's value in one query, nil when it is absent or a
// bucket.
func (b *bucket) Get(key []byte) []byte {
	t := b.tx
	if len(key) == 0 || len(key) > storage.MaxKeySize || !t.flush() {
		return nil
	}
	if v, ok := b.getAhead(key); ok {
		return v
	}
	var v []byte
	err := t.conn.QueryRow(t.ctx, qGet, b.st.id, key).Scan(&v)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.fail("reading a key", err)
		return nil
	}
	// pgx's scan into []byte copies: v is the transaction's.
	b.sawValue(v)
	return v
}

// GetMany returns the values of keys in one query.
func (b *bucket) GetMany(keys [][]byte) [][]byte {
	t := b.tx
	out := make([][]byte, len(keys))
	ask := make([][]byte, 0, len(keys))
	for _, k := range keys {
		if len(k) > 0 && len(k) <= storage.MaxKeySize {
			ask = append(ask, k)
		}
	}
	if len(ask) == 0 || !t.flush() {
		return out
	}
	rows, err := t.conn.Query(t.ctx, qGetMany, b.st.id, ask)
	if err != nil {
		t.fail("reading keys", err)
		return out
	}
	found := map[string][]byte{}
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			t.fail("reading keys", err)
			return out
		}
		found[string(k)] = v
	}
	if err := rows.Err(); err != nil {
		t.fail("reading keys", err)
		return out
	}
	for i, k := range keys {
		out[i] = found[string(k)]
	}
	return out
}

// knowChildren makes sure the transaction knows whether key names a
// nested bucket of b without asking the server each time: it reads the
// names of b's nested buckets once, unless there are too many to keep.
// It reports whether key names one, and whether b must ask instead.
func (b *bucket) knowChildren(key []byte) (isBucket, asking bool) {
	t, st := b.tx, b.st
	if st.children == nil && !st.asking && t.flush() {
		rows, err := t.conn.Query(t.ctx, qChildren, st.id, maxChildren+1)
		if err != nil {
			t.fail("reading a bucket's nested buckets", err)
			return false, true
		}
		kids := map[string]bool{}
		for rows.Next() {
			var name []byte
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				t.fail("reading a bucket's nested buckets", err)
				return false, true
			}
			kids[string(name)] = true
		}
		if err := rows.Err(); err != nil {
			t.fail("reading a bucket's nested buckets", err)
			return false, true
		}
		if len(kids) > maxChildren {
			st.asking = true
		} else {
			st.children = kids
		}
	}
	return st.children[string(key)], st.asking
}

// Put sets key's value, refused when key names a bucket. Sent with the
// writes after it (see tx.pending), unless b holds too many nested
// buckets to know them all: then in a statement of its own.
func (b *bucket) Put(key, value []byte) error {
	t := b.tx
	if !t.writable {
		return storage.ErrTxNotWritable
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	k := nameKey{b.st.id, string(key)}
	if s := t.names[k]; s.st != nil {
		return storage.ErrIncompatibleValue
	}
	isBucket, asking := b.knowChildren(key)
	switch {
	case t.err != nil:
		return t.err
	case isBucket:
		return storage.ErrIncompatibleValue
	case asking:
		if !t.flush() {
			return t.err
		}
		tag, err := t.conn.Exec(t.ctx, qPutAsking, b.st.id, key, nonNil(value))
		if err != nil {
			return t.fail("writing a key", err)
		}
		if tag.RowsAffected() == 0 {
			return storage.ErrIncompatibleValue
		}
	default:
		t.queue(b.st.id, key, value, true)
	}
	if _, known := t.names[k]; known {
		t.names[k] = slot{value: true}
	}
	t.touch(b.st.id)
	return nil
}

// nonNil is v, or an empty value for nil: pgx sends nil as SQL's NULL,
// a bucket's mark.
func nonNil(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

// Delete removes key's value; ErrIncompatibleValue when key names a
// bucket. Sent as Put is.
func (b *bucket) Delete(key []byte) error {
	t := b.tx
	if !t.writable {
		return storage.ErrTxNotWritable
	}
	if len(key) == 0 || len(key) > storage.MaxKeySize {
		return nil // never stored
	}
	if t.err != nil {
		return t.err
	}
	isBucket, asking := b.knowChildren(key)
	switch {
	case t.err != nil:
		return t.err
	case isBucket:
		return storage.ErrIncompatibleValue
	case asking:
		if !t.flush() {
			return t.err
		}
		if err := t.conn.QueryRow(t.ctx, qDeleteAsking, b.st.id, key).Scan(&isBucket); err != nil {
			return t.fail("deleting a key", err)
		}
		if isBucket {
			return storage.ErrIncompatibleValue
		}
	default:
		t.queue(b.st.id, key, nil, false)
	}
	k := nameKey{b.st.id, string(key)}
	if _, known := t.names[k]; known {
		t.names[k] = slot{}
	}
	t.touch(b.st.id)
	return nil
}

// Cursor returns a cursor over b's keys.
func (b *bucket) Cursor() storage.Cursor { return b.cursor() }

func (b *bucket) cursor() *cursor { return &cursor{b: b, limit: firstPage} }

// ForEach calls fn with every key and value in order, read a page at a
// time; fn may read (other buckets, nested ones) between keys.
func (b *bucket) ForEach(fn func(k, v []byte) error) error {
	c := b.cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.tx.err
}

// Bucket returns the nested bucket name, or nil.
func (b *bucket) Bucket(name []byte) storage.Bucket {
	if len(name) == 0 || len(name) > storage.MaxKeySize {
		return nil
	}
	if s := b.lookup(name); s.st != nil {
		return &bucket{tx: b.tx, st: s.st}
	}
	return nil
}

// CreateBucket makes the nested bucket name.
func (b *bucket) CreateBucket(name []byte) (storage.Bucket, error) {
	nb, existed, err := b.create(name)
	if err != nil {
		return nil, err
	}
	if existed {
		return nil, storage.ErrBucketExists
	}
	return nb, nil
}

// CreateBucketIfNotExists returns the nested bucket name, made if
// missing.
func (b *bucket) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	nb, _, err := b.create(name)
	if err != nil {
		return nil, err
	}
	return nb, nil
}

// create makes the nested bucket name unless it is there, in one
// statement (none when the transaction knows it is there), and returns
// it and whether it was there.
func (b *bucket) create(name []byte) (nb *bucket, existed bool, err error) {
	t := b.tx
	if !t.writable {
		return nil, false, storage.ErrTxNotWritable
	}
	if err := checkKey(name); err != nil {
		return nil, false, err
	}
	if t.err != nil {
		return nil, false, t.err
	}
	k := nameKey{b.st.id, string(name)}
	if s, ok := t.names[k]; ok && s.st != nil {
		return &bucket{tx: t, st: s.st}, true, nil
	} else if ok && s.value {
		return nil, false, storage.ErrIncompatibleValue
	}
	if !t.flush() {
		return nil, false, t.err
	}
	var newID, child, seq *int64
	var there bool
	if err := t.conn.QueryRow(t.ctx, qCreate, b.st.id, name).Scan(&newID, &there, &child, &seq); err != nil {
		return nil, false, t.fail("creating a bucket", err)
	}
	switch {
	case there && child == nil:
		t.names[k] = slot{value: true}
		return nil, false, storage.ErrIncompatibleValue
	case there:
		st := &bucketState{id: *child, seq: uint64(*seq)}
		t.names[k] = slot{st: st}
		return &bucket{tx: t, st: st}, true, nil
	}
	st := &bucketState{id: *newID, children: map[string]bool{}}
	t.names[k] = slot{st: st}
	if b.st.children != nil {
		b.st.children[string(name)] = true
	}
	t.touch(b.st.id)
	return &bucket{tx: t, st: st}, false, nil
}

// DeleteBucket removes the nested bucket name and all it holds, in one
// statement.
func (b *bucket) DeleteBucket(name []byte) error {
	t := b.tx
	if !t.writable {
		return storage.ErrTxNotWritable
	}
	if len(name) == 0 || len(name) > storage.MaxKeySize {
		return storage.ErrBucketNotFound
	}
	if t.err != nil {
		return t.err
	}
	k := nameKey{b.st.id, string(name)}
	if s, ok := t.names[k]; ok && s.st == nil {
		if s.value {
			return storage.ErrIncompatibleValue
		}
		return storage.ErrBucketNotFound
	}
	if !t.flush() {
		return t.err
	}
	var there, isBucket bool
	if err := t.conn.QueryRow(t.ctx, qDeleteBucket, b.st.id, name).Scan(&there, &isBucket); err != nil {
		return t.fail("deleting a bucket", err)
	}
	switch {
	case !there:
		t.names[k] = slot{}
		return storage.ErrBucketNotFound
	case !isBucket:
		t.names[k] = slot{value: true}
		return storage.ErrIncompatibleValue
	}
	if s := t.names[k]; s.st != nil {
		s.st.deleted = true
	}
	t.names[k] = slot{}
	delete(b.st.children, string(name))
	t.touch(b.st.id)
	return nil
}

// Sequence is the bucket's counter, read with the bucket.
func (b *bucket) Sequence() uint64 { return b.st.seq }

// NextSequence adds one to the counter, written at commit: writers run
// one at a time, so no other can change it meanwhile.
func (b *bucket) NextSequence() (uint64, error) {
	if err := b.setSeq(b.st.seq + 1); err != nil {
		return 0, err
	}
	return b.st.seq, nil
}

// SetSequence sets the counter, written at commit.
func (b *bucket) SetSequence(v uint64) error { return b.setSeq(v) }

func (b *bucket) setSeq(v uint64) error {
	t := b.tx
	if !t.writable {
		return storage.ErrTxNotWritable
	}
	if t.err != nil {
		return t.err
	}
	if !b.st.seqDirty {
		b.st.seqDirty = true
		t.seqs = append(t.seqs, b.st)
	}
	b.st.seq = v
	return nil
}

// KeyCount counts b's keys in one query.
func (b *bucket) KeyCount() int {
	t := b.tx
	if !t.flush() {
		return 0
	}
	var n int
	if err := t.conn.QueryRow(t.ctx, qCount, b.st.id).Scan(&n); err != nil {
		t.fail("counting keys", err)
		return 0
	}
	return n
}

// SetAppendOnly is a hint a table has no use for: PostgreSQL fills its
// pages as it does.
func (b *bucket) SetAppendOnly() {}
