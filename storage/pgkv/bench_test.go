package pgkv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// roundTrips counts the statements and batches a store's connections
// send: a round trip each (a statement's first use on a connection adds
// one, to prepare it).
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// openCounting opens a store in a fresh database whose round trips rt
// counts.
func openCounting(t testing.TB) (*DB, *roundTrips) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.New(t).ConnString())
	if err != nil {
		t.Fatal(err)
	}
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	db, err := openConfig(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, rt
}

// TestRoundTrips holds the backend to its count of round trips: a
// transaction's begin and end, a Get, a GetMany, a nested bucket's
// lookup (once), a scan's pages, writes and counters sent with the
// commit.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	db, rt := openCounting(t)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		n, err := b.CreateBucket([]byte("n"))
		if err != nil {
			return err
		}
		for i := range 1000 {
			if err := n.Put(fmt.Appendf(nil, "%04d", i), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	})
	count := func(what string, want int64, fn func(storage.Tx) error, writable bool) {
		t.Helper()
		run := db.View
		if writable {
			run = db.Update
		}
		// Once to prepare the statements on the connection, once to count.
		for i := range 2 {
			before := rt.n.Load()
			if err := run(fn); err != nil {
				t.Fatal(err)
			}
			if got := rt.n.Load() - before; i == 1 && got != want {
				t.Errorf("%s: %d round trips, want %d", what, got, want)
			}
		}
	}
	count("an empty View (begin, end)", 2, func(storage.Tx) error { return nil }, false)
	count("an empty Update (begin, commit)", 2, func(storage.Tx) error { return nil }, true)
	count("a Get in a top-level bucket", 3, func(tx storage.Tx) error {
		tx.Bucket([]byte("b")).Get([]byte("x"))
		return nil
	}, false)
	count("two Gets in a nested bucket looked up twice", 5, func(tx storage.Tx) error {
		tx.Bucket([]byte("b")).Bucket([]byte("n")).Get([]byte("0001"))
		tx.Bucket([]byte("b")).Bucket([]byte("n")).Get([]byte("0002"))
		return nil
	}, false)
	count("a GetMany of 100 keys", 4, func(tx storage.Tx) error {
		keys := make([][]byte, 100)
		for i := range keys {
			keys[i] = fmt.Appendf(nil, "%04d", i*7)
		}
		tx.Bucket([]byte("b")).Bucket([]byte("n")).GetMany(keys)
		return nil
	}, false)
	// Pages of 32, 64, 128, 256, 512 and 1024 rows: six reads for 1000
	// keys (the sixth short, so the end needs no seventh).
	count("a ForEach over 1000 keys", 3+6, func(tx storage.Tx) error {
		return tx.Bucket([]byte("b")).Bucket([]byte("n")).ForEach(func(k, v []byte) error { return nil })
	}, false)
	count("a lookup and 1000 Puts and a Delete in a bucket of no nested buckets (sent with the commit)", 3, func(tx storage.Tx) error {
		n := tx.Bucket([]byte("b")).Bucket([]byte("n")) // a lookup…
		tx.Bucket([]byte("b")).Bucket([]byte("n"))      // …once
		for i := range 1000 {
			if err := n.Put(fmt.Appendf(nil, "%04d", i), []byte("w")); err != nil {
				return err
			}
		}
		return n.Delete([]byte("0000"))
	}, true)
	count("a Put in a bucket of nested buckets (their names read), a Get (the Put sent first)", 5, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if err := b.Put([]byte("v"), []byte("1")); err != nil {
			return err
		}
		if err := b.Put([]byte("n"), []byte("1")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("Put over a bucket: %v", err)
		}
		if v := b.Get([]byte("v")); string(v) != "1" {
			t.Errorf("Get after Put = %q", v)
		}
		return nil
	}, true)
	count("NextSequence three times (written with the commit)", 2, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		for range 3 {
			if _, err := b.NextSequence(); err != nil {
				return err
			}
		}
		return nil
	}, true)
}

// benchStore is a store with a bucket of n keys of 100-byte values.
func benchStore(b *testing.B, n int) *DB {
	db, _ := open(b)
	update(b, db, func(tx storage.Tx) error {
		bk, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		val := make([]byte, 100)
		for i := range n {
			if err := bk.Put(benchKey(i), val); err != nil {
				return err
			}
		}
		return nil
	})
	return db
}

func benchKey(i int) []byte { return fmt.Appendf(nil, "key%08d", i) }

// BenchmarkGet is a Get of a present key in a transaction already
// begun: one round trip.
func BenchmarkGet(b *testing.B) {
	const n = 10000
	db := benchStore(b, n)
	view(b, db, func(tx storage.Tx) error {
		bk := tx.Bucket([]byte("b"))
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if bk.Get(benchKey(rand.IntN(n))) == nil {
				b.Fatal("missing key")
			}
		}
		return nil
	})
}

// BenchmarkViewGet is a whole View with one Get: begin, Get, end.
func BenchmarkViewGet(b *testing.B) {
	const n = 10000
	db := benchStore(b, n)
	for b.Loop() {
		view(b, db, func(tx storage.Tx) error {
			if tx.Bucket([]byte("b")).Get(benchKey(rand.IntN(n))) == nil {
				b.Fatal("missing key")
			}
			return nil
		})
	}
}

// BenchmarkGetMany is a GetMany of 100 present keys; ns/key is its cost
// per key.
func BenchmarkGetMany(b *testing.B) {
	const n = 10000
	db := benchStore(b, n)
	keys := make([][]byte, 100)
	view(b, db, func(tx storage.Tx) error {
		bk := tx.Bucket([]byte("b"))
		for b.Loop() {
			for i := range keys {
				keys[i] = benchKey(rand.IntN(n))
			}
			bk.GetMany(keys)
		}
		return nil
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
}

// BenchmarkCursorScan walks a bucket of 10,000 keys (100-byte values)
// with a cursor from First to the end; ns/key is the cost of a Next.
func BenchmarkCursorScan(b *testing.B) {
	const n = 10000
	db := benchStore(b, n)
	view(b, db, func(tx storage.Tx) error {
		bk := tx.Bucket([]byte("b"))
		for b.Loop() {
			c := bk.Cursor()
			got := 0
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				got++
			}
			if got != n {
				b.Fatalf("scanned %d keys of %d", got, n)
			}
		}
		return nil
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
}

// BenchmarkSeekNext is a Seek to a random key and ten Nexts: a short
// range read, as a term's postings are read.
func BenchmarkSeekNext(b *testing.B) {
	const n = 10000
	db := benchStore(b, n)
	view(b, db, func(tx storage.Tx) error {
		bk := tx.Bucket([]byte("b"))
		for b.Loop() {
			c := bk.Cursor()
			k, _ := c.Seek(benchKey(rand.IntN(n - 20)))
			for range 10 {
				k, _ = c.Next()
			}
			if k == nil {
				b.Fatal("ran out of keys")
			}
		}
		return nil
	})
}

// BenchmarkPut is a Put of a new key in a write transaction already
// begun: one round trip.
func BenchmarkPut(b *testing.B) {
	db := benchStore(b, 0)
	val := make([]byte, 100)
	update(b, db, func(tx storage.Tx) error {
		bk := tx.Bucket([]byte("b"))
		for i := 0; b.Loop(); i++ {
			if err := bk.Put(benchKey(i), val); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkRoundTrip is the floor the others stand on: one prepared
// SELECT 1 on the same connection kind, no store.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.New(b).ConnString())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var one int
	for b.Loop() {
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
	}
}
