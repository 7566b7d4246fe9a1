package pgkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
)

// tx is a transaction on one connection of the pool.
type tx struct {
	ctx      context.Context
	db       *DB
	conn     *pgx.Conn
	writable bool
	id       uint64
	// err is the first failure of the server or the connection: the
	// transaction is lost, and View or Update returns it.
	err error
	// names is what the transaction knows of keys that were asked for as
	// buckets: a bucket's id is looked up once. The root's keys are all
	// here from the start.
	names map[nameKey]slot
	root  *bucketState
	// gens counts the writes to each bucket, so a cursor knows when the
	// page it holds is no longer what the bucket holds.
	gens map[int64]uint64
	// seqs are the buckets whose counter changed, written at commit.
	seqs []*bucketState
	// pending are writes not sent yet (Put and Delete of keys known to
	// name no bucket), in order, pendingBytes their size: they go in one
	// round trip before the next statement that reads, or with the
	// commit.
	pending      []write
	pendingBytes int
	// ahead are the buckets' runs of ascending Gets (readahead.go).
	ahead map[int64]*readAhead
}

// write is a Put (value not nil) or a Delete waiting to be sent.
type write struct {
	bucket     int64
	key, value []byte
}

// Writes wait to be sent until this many are pending, or this many
// bytes of keys and values: a round trip per few thousand writes, and a
// bounded batch.
const (
	maxPending      = 4096
	maxPendingBytes = 4 << 20
)

// nameKey is a key of the bucket parent.
type nameKey struct {
	parent int64
	name   string
}

// slot is what a key holds: a bucket (st), a value, or nothing.
type slot struct {
	st    *bucketState
	value bool
}

// bucketState is a bucket as its transaction knows it; every handle of
// the bucket shares it.
type bucketState struct {
	id       int64
	seq      uint64
	seqDirty bool
	deleted  bool
	// children are the names of the bucket's nested buckets, once a
	// writer knows them all (nil before): a Put or Delete of any other
	// key cannot meet a bucket, so it can wait to be sent with others,
	// and still be refused at once when it would. asking: the bucket
	// holds too many to keep, and its writes are sent one by one.
	children map[string]bool
	asking   bool
}

// maxChildren is the most nested buckets a transaction keeps the names
// of, for a bucket it writes to.
const maxChildren = 1000

var _ storage.Tx = (*tx)(nil)

func newTx(ctx context.Context, db *DB, conn *pgx.Conn, writable bool) *tx {
	return &tx{
		ctx: ctx, db: db, conn: conn, writable: writable,
		names: map[nameKey]slot{},
		root:  &bucketState{id: rootID},
		gens:  map[int64]uint64{},
	}
}

// fail keeps the first failure of the server or connection as the
// transaction's, saying what was being done, and returns it.
func (t *tx) fail(what string, err error) error {
	if t.err == nil {
		t.err = rightsError(t.db, err)
	}
	if t.err == nil {
		t.err = fmt.Errorf("pgkv: %s (%s): %w", what, t.db.where, err)
	}
	return t.err
}

// begin starts the transaction in one round trip: BEGIN, the version and
// the top-level buckets pipelined. A writer takes the writer lock
// first; when another holds it, it says so (Options.Waiting) and waits
// in a second round trip.
func (t *tx) begin() error {
	b := &pgx.Batch{}
	top := qTop
	if !t.writable {
		b.Queue(qBeginRead)
		b.Queue(qVersion)
	} else {
		b.Queue(qBeginWrite)
		b.Queue(qTryBump, writerLock)
		top = qTopWrite
	}
	b.Queue(top)
	br := t.conn.SendBatch(t.ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return t.fail("beginning a transaction", err)
	}
	locked := true
	if err := br.QueryRow().Scan(&t.id); errors.Is(err, pgx.ErrNoRows) && t.writable {
		locked = false
	} else if err != nil {
		br.Close()
		return t.fail("beginning a transaction", err)
	}
	err := t.readTop(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return t.fail("beginning a transaction", err)
	}
	if locked {
		return nil
	}
	if t.db.opts.Waiting != nil {
		t.db.opts.Waiting()
	}
	// What was read before the lock may be changing: read it again.
	clear(t.names)
	b = &pgx.Batch{}
	b.Queue(qLock, writerLock)
	b.Queue(qBump)
	b.Queue(top)
	br = t.conn.SendBatch(t.ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return t.fail("waiting for the writer before", err)
	}
	if err := br.QueryRow().Scan(&t.id); err != nil {
		return t.fail("beginning a transaction", err)
	}
	if err := t.readTop(br); err != nil {
		return t.fail("beginning a transaction", err)
	}
	return nil
}

// readTop reads qTop's answer into names.
func (t *tx) readTop(br pgx.BatchResults) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name []byte
		var id, seq int64
		kids := true
		dest := []any{&name, &id, &seq}
		if t.writable {
			dest = append(dest, &kids)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		st := &bucketState{id: id, seq: uint64(seq)}
		if !kids {
			st.children = map[string]bool{}
		}
		t.names[nameKey{rootID, string(name)}] = slot{st: st}
	}
	return rows.Err()
}

// queue keeps a write to send later, flushing when enough wait. key
// and value are copied: the caller may reuse them once Put returns.
func (t *tx) queue(bucket int64, key, value []byte, put bool) {
	w := write{bucket: bucket, key: bytes.Clone(key)}
	if put {
		w.value = append([]byte{}, value...) // not nil, also when empty
	}
	t.pending = append(t.pending, w)
	t.pendingBytes += len(key) + len(value)
	if len(t.pending) >= maxPending || t.pendingBytes >= maxPendingBytes {
		t.flush()
	}
}

// queueWrites adds the pending writes to b, as few statements as keep
// their order: a run of Puts to one bucket is one INSERT of arrays (the
// last value of a key written twice), a run of Deletes one DELETE.
// Statement by statement, the server spends twice as long a row.
func (t *tx) queueWrites(b *pgx.Batch) {
	for i := 0; i < len(t.pending); {
		first := t.pending[i]
		put := first.value != nil
		j := i + 1
		for j < len(t.pending) && t.pending[j].bucket == first.bucket && (t.pending[j].value != nil) == put {
			j++
		}
		run := t.pending[i:j]
		keys := make([][]byte, 0, len(run))
		if put {
			values := make([][]byte, 0, len(run))
			at := map[string]int{}
			for _, w := range run {
				if k, seen := at[string(w.key)]; seen {
					values[k] = w.value // one INSERT may not change a row twice
					continue
				}
				at[string(w.key)] = len(keys)
				keys = append(keys, w.key)
				values = append(values, w.value)
			}
			b.Queue(qPutMany, first.bucket, keys, values)
		} else {
			for _, w := range run {
				keys = append(keys, w.key)
			}
			b.Queue(qDeleteMany, first.bucket, keys)
		}
		i = j
	}
	t.pending, t.pendingBytes = nil, 0
}

// flush sends the pending writes, in one round trip, before a statement
// that must see them. It reports false when the transaction has failed.
func (t *tx) flush() bool {
	if t.err != nil {
		return false
	}
	if len(t.pending) == 0 {
		return true
	}
	b := &pgx.Batch{}
	t.queueWrites(b)
	if err := t.conn.SendBatch(t.ctx, b).Close(); err != nil {
		t.fail("writing keys", err)
		return false
	}
	return true
}

// commit sends the pending writes and the changed counters and commits,
// in one round trip: should a write fail, the server skips the COMMIT.
func (t *tx) commit() error {
	b := &pgx.Batch{}
	t.queueWrites(b)
	for _, st := range t.seqs {
		if !st.deleted {
			b.Queue(qSetSeq, st.id, int64(st.seq))
		}
	}
	t.queueNotify(b)
	b.Queue("COMMIT")
	if err := t.conn.SendBatch(t.ctx, b).Close(); err != nil {
		return t.fail("committing", err)
	}
	return nil
}

// rollback ends the transaction, keeping nothing. Its failure is no
// one's concern: the pool closes a connection left in a transaction.
func (t *tx) rollback() {
	_, _ = t.conn.Exec(t.ctx, "ROLLBACK")
}

// touch records a write to the bucket id.
func (t *tx) touch(id int64) { t.gens[id]++ }

// Bucket returns the top-level bucket name, known since begin.
func (t *tx) Bucket(name []byte) storage.Bucket {
	return t.rootBucket().Bucket(name)
}

// CreateBucket makes the top-level bucket name.
func (t *tx) CreateBucket(name []byte) (storage.Bucket, error) {
	return t.rootBucket().CreateBucket(name)
}

// CreateBucketIfNotExists returns the top-level bucket name, made if
// missing.
func (t *tx) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	return t.rootBucket().CreateBucketIfNotExists(name)
}

// DeleteBucket removes the top-level bucket name and all it holds.
func (t *tx) DeleteBucket(name []byte) error {
	return t.rootBucket().DeleteBucket(name)
}

// ForEachBucket calls fn with every top-level bucket's name, in order,
// from what begin read and the transaction changed since.
func (t *tx) ForEachBucket(fn func(name []byte) error) error {
	var names []string
	for k, s := range t.names {
		if k.parent == rootID && s.st != nil {
			names = append(names, k.name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := fn([]byte(n)); err != nil {
			return err
		}
	}
	return nil
}

// Writable reports whether this is a write transaction.
func (t *tx) Writable() bool { return t.writable }

// ID is the store's version: the last committed write's, or for a write
// transaction the one it will commit.
func (t *tx) ID() uint64 { return t.id }

// rootBucket is the bucket holding the top-level buckets.
func (t *tx) rootBucket() *bucket { return &bucket{tx: t, st: t.root} }
