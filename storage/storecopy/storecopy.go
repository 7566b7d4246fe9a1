// Package storecopy copies a whole store from one storage.DB to another,
// whatever their backends: every top-level bucket, nested bucket, key,
// value and bucket counter, read from one snapshot of the source.
//
// The copy is written in batches (Options.BatchKeys, BatchBytes), each
// its own transaction, so a library of a gigabyte does not sit in one
// transaction's memory on a server. It becomes usable only when it is
// whole: the top-level buckets named in Options.Last (a library's meta,
// which says a library is there) are written in the last transaction,
// after everything else. Should the copy fail part-way, Copy removes
// what it wrote, and says so when it cannot.
package storecopy

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/citelens/citelens/storage"
)

// ErrNotEmpty means the destination holds buckets already, and Options
// said nothing about replacing them.
var ErrNotEmpty = errors.New("the destination is not empty")

// Options adjust a Copy.
type Options struct {
	// Replace removes what the destination holds first, in one
	// transaction; without it a destination that holds any bucket is
	// refused with ErrNotEmpty.
	Replace bool
	// Last are top-level buckets written after all the others, in the
	// final transaction (whatever their size, so keep them small): until
	// it commits, the destination does not hold them.
	Last [][]byte
	// BatchKeys and BatchBytes bound one transaction of the copy: it
	// commits once it has written this many keys, or keys and values of
	// this many bytes. Zero: 20,000 keys, 8 MB.
	BatchKeys  int
	BatchBytes int
	// Progress, when set, is told after each transaction what has been
	// copied so far.
	Progress func(Stats)
}

// Stats is what a copy has written.
type Stats struct {
	Buckets int64 `json:"buckets"` // top-level and nested
	Keys    int64 `json:"keys"`    // keys holding values
	Bytes   int64 `json:"bytes"`   // of their keys and values
	Batches int64 `json:"transactions"`
}

// op is one write of the copy: make the bucket path (value nil and not
// a sequence), put key in it, or set its counter.
type op struct {
	path  [][]byte // the bucket written to: top-level name first
	key   []byte   // nil: make the bucket path itself
	value []byte
	seq   uint64
	isSeq bool
}

// copier is one Copy's state.
type copier struct {
	ctx     context.Context
	dst     storage.DB
	opt     Options
	batch   []op
	held    []op // the Last buckets', for the final transaction
	size    int
	stats   Stats
	written [][]byte // the top-level buckets made so far, to remove on failure
}

// Copy copies everything src holds into dst, and returns what it
// copied. ctx stops it between keys.
func Copy(ctx context.Context, dst, src storage.DB, opt Options) (Stats, error) {
	if opt.BatchKeys <= 0 {
		opt.BatchKeys = 20000
	}
	if opt.BatchBytes <= 0 {
		opt.BatchBytes = 8 << 20
	}
	c := &copier{ctx: ctx, dst: dst, opt: opt}
	if err := c.clear(); err != nil {
		return Stats{}, err
	}
	err := src.View(func(tx storage.Tx) error {
		var names [][]byte
		if err := tx.ForEachBucket(func(name []byte) error {
			names = append(names, bytes.Clone(name))
			return nil
		}); err != nil {
			return err
		}
		for _, name := range names {
			last := c.isLast(name)
			if !last {
				c.written = append(c.written, name)
			}
			if err := c.walk(tx.Bucket(name), [][]byte{name}, last); err != nil {
				return err
			}
		}
		if err := c.flush(); err != nil {
			return err
		}
		// The last transaction: what says the copy is there.
		if len(c.held) > 0 {
			c.batch, c.held = c.held, nil
			return c.flush()
		}
		return nil
	})
	if err != nil {
		if cerr := c.undo(); cerr != nil {
			return c.stats, fmt.Errorf("storecopy: %w; and removing the part copied failed too (%v): the destination holds an incomplete copy, which does not open as a library; copy again with Replace", err, cerr)
		}
		return c.stats, fmt.Errorf("storecopy: %w (the part copied has been removed)", err)
	}
	return c.stats, nil
}

// clear refuses a destination that holds anything, or with Replace
// empties it.
func (c *copier) clear() error {
	return c.dst.Update(func(tx storage.Tx) error {
		var names [][]byte
		if err := tx.ForEachBucket(func(name []byte) error {
			names = append(names, bytes.Clone(name))
			return nil
		}); err != nil {
			return err
		}
		if len(names) == 0 {
			return nil
		}
		if !c.opt.Replace {
			return fmt.Errorf("%w: it holds %d top-level buckets", ErrNotEmpty, len(names))
		}
		// What says a library is there goes first, in the same
		// transaction as the rest: no one sees half of it.
		for _, name := range names {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// undo removes the top-level buckets the copy made, after a failure.
func (c *copier) undo() error {
	if len(c.written) == 0 {
		return nil
	}
	return c.dst.Update(func(tx storage.Tx) error {
		for _, name := range c.written {
			if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, storage.ErrBucketNotFound) {
				return err
			}
		}
		return nil
	})
}

// isLast reports whether the top-level bucket name is one of
// Options.Last.
func (c *copier) isLast(name []byte) bool {
	for _, l := range c.opt.Last {
		if bytes.Equal(l, name) {
			return true
		}
	}
	return false
}

// walk copies bucket b, at path, and every bucket under it. Values
// are the source transaction's, valid while it lasts, which covers every
// flush made from inside it.
func (c *copier) walk(b storage.Bucket, path [][]byte, last bool) error {
	c.add(op{path: path}, last)
	cur := b.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if v == nil {
			child := append(append([][]byte{}, path...), k)
			if err := c.walk(b.Bucket(k), child, last); err != nil {
				return err
			}
			continue
		}
		c.add(op{path: path, key: k, value: v}, last)
		if !last && (len(c.batch) >= c.opt.BatchKeys || c.size >= c.opt.BatchBytes) {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	if seq := b.Sequence(); seq != 0 {
		c.add(op{path: path, seq: seq, isSeq: true}, last)
	}
	return nil
}

// add queues o for the current batch, or, for a Last bucket, for the
// final transaction.
func (c *copier) add(o op, last bool) {
	if last {
		c.held = append(c.held, o)
		return
	}
	c.batch = append(c.batch, o)
	c.size += len(o.key) + len(o.value)
}

// flush writes the queued batch in one transaction of the destination.
func (c *copier) flush() error {
	if len(c.batch) == 0 {
		return nil
	}
	var st Stats
	err := c.dst.Update(func(tx storage.Tx) error {
		st = Stats{}
		var at [][]byte
		var b storage.Bucket
		for _, o := range c.batch {
			if b == nil || !samePath(at, o.path) {
				var err error
				if b, err = bucketAt(tx, o.path, o.key == nil && !o.isSeq); err != nil {
					return err
				}
				at = o.path
			}
			switch {
			case o.isSeq:
				if err := b.SetSequence(o.seq); err != nil {
					return err
				}
			case o.key == nil:
				st.Buckets++
			default:
				if err := b.Put(o.key, o.value); err != nil {
					return err
				}
				st.Keys++
				st.Bytes += int64(len(o.key) + len(o.value))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.stats.Buckets += st.Buckets
	c.stats.Keys += st.Keys
	c.stats.Bytes += st.Bytes
	c.stats.Batches++
	c.batch, c.size = c.batch[:0], 0
	if c.opt.Progress != nil {
		c.opt.Progress(c.stats)
	}
	return nil
}

// bucketAt finds the bucket at path in tx, making the last of it when
// make is set (its parents are made by earlier writes).
func bucketAt(tx storage.Tx, path [][]byte, make bool) (storage.Bucket, error) {
	if len(path) == 1 {
		if make {
			return tx.CreateBucket(path[0])
		}
		if b := tx.Bucket(path[0]); b != nil {
			return b, nil
		}
		return nil, fmt.Errorf("%w: %q", storage.ErrBucketNotFound, path[0])
	}
	parent, err := bucketAt(tx, path[:len(path)-1], false)
	if err != nil {
		return nil, err
	}
	name := path[len(path)-1]
	if make {
		return parent.CreateBucket(name)
	}
	if b := parent.Bucket(name); b != nil {
		return b, nil
	}
	return nil, fmt.Errorf("%w: %q", storage.ErrBucketNotFound, name)
}

// samePath reports whether a and b name the same bucket.
func samePath(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
