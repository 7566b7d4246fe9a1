package pgkv

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/testload"
	"github.com/citelens/citelens/storage"
)

// watcher is a Watch's calls, as a channel a test reads.
type watcher struct {
	calls chan time.Time
	n     atomic.Int32
}

// watch starts watching db until the test ends.
func watch(t *testing.T, db *DB) *watcher {
	t.Helper()
	w := &watcher{calls: make(chan time.Time, 1000)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := db.Watch(ctx, func() { w.n.Add(1); w.calls <- time.Now() }); err != nil {
		t.Fatal(err)
	}
	return w
}

// within waits for a call, failing t after d.
func (w *watcher) within(t *testing.T, d time.Duration, what string) time.Time {
	t.Helper()
	select {
	case at := <-w.calls:
		return at
	case <-time.After(testload.Scaled(d)):
		t.Fatalf("no change told within %v of %s", d, what)
		return time.Time{}
	}
}

// quiet fails t if a call comes within d.
func (w *watcher) quiet(t *testing.T, d time.Duration, what string) {
	t.Helper()
	select {
	case <-w.calls:
		t.Fatalf("a change was told after %s", what)
	case <-time.After(d):
	}
}

// put commits one write to db.
func put(t *testing.T, db storage.DB, v string) {
	t.Helper()
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte(v))
	})
}

// openAgain opens a second handle on d's database, as another process
// (or machine) would.
func openAgain(t *testing.T, connString string) *DB {
	t.Helper()
	db, err := Open(context.Background(), connString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestWatchSeesOtherCommits: a commit from another handle reaches the
// watcher within a second; a rolled-back write and a read tell nothing;
// the median latency over 50 commits is logged.
func TestWatchSeesOtherCommits(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	other := openAgain(t, d.ConnString())
	w := watch(t, db)

	put(t, other, "first")
	w.within(t, time.Second, "another handle's commit")

	err := other.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("k"), []byte("never")); err != nil {
			return err
		}
		return errors.New("changed my mind")
	})
	if err == nil {
		t.Fatal("an Update whose fn failed returned nil")
	}
	view(t, other, func(storage.Tx) error { return nil })
	w.quiet(t, 300*time.Millisecond, "a rolled-back write and a read")

	// Latency: from the Update's start (its whole time included), and
	// from its return (the commit acknowledged; a notification may come
	// before, counted as 0).
	var whole, after []time.Duration
	for i := range 50 {
		start := time.Now()
		put(t, other, string(rune('a'+i%26)))
		committed := time.Now()
		at := w.within(t, time.Second, "another handle's commit")
		whole = append(whole, at.Sub(start))
		after = append(after, max(at.Sub(committed), 0))
	}
	for _, l := range []struct {
		what string
		d    []time.Duration
	}{{"from the Update's start", whole}, {"from its return", after}} {
		slices.Sort(l.d)
		t.Logf("another handle's commit told, %s, over %d commits: median %v, p90 %v, max %v",
			l.what, len(l.d), l.d[len(l.d)/2], l.d[len(l.d)*9/10], l.d[len(l.d)-1])
	}
}

// TestWatchCoalesces: a burst of commits while changed runs is told by
// one call after it, not one per commit.
func TestWatchCoalesces(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	release := make(chan struct{})
	var n atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	entered := make(chan struct{}, 100)
	if err := db.Watch(ctx, func() {
		n.Add(1)
		entered <- struct{}{}
		<-release
	}); err != nil {
		t.Fatal(err)
	}
	put(t, db, "0")
	<-entered // changed is busy
	for i := range 20 {
		put(t, db, string(rune('a'+i)))
	}
	time.Sleep(200 * time.Millisecond) // the burst's notifications arrive
	close(release)
	select {
	case <-entered: // the one call for the whole burst
	case <-time.After(testload.Scaled(time.Second)):
		t.Fatal("commits while changed ran were not told after it")
	}
	time.Sleep(200 * time.Millisecond)
	if got := n.Load(); got != 2 {
		t.Errorf("changed was called %d times for a commit and a burst of 20 while it ran, want 2", got)
	}
}

// TestWatchRecovers: the listening session killed on the server
// (pg_terminate_backend, as an administrator or a cut connection would),
// the watcher connects again, says so with a call (commits meanwhile are
// unknown), and tells later commits.
func TestWatchRecovers(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	other := openAgain(t, d.ConnString())
	w := watch(t, db)
	pid := db.watch.pid.Load()
	var ok bool
	if err := other.pool.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", int64(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminating the listening session %d: %v %v", pid, ok, err)
	}
	w.within(t, 2*time.Second, "the listening session was killed")
	if db.watch.pid.Load() == pid {
		t.Fatal("the watcher told a change without a new connection")
	}
	put(t, other, "after")
	w.within(t, time.Second, "a commit after the watcher came back")
}

// TestWatchIdle: a watcher that hears nothing for a while asks its
// connection whether it still stands, which neither breaks it nor is
// told as a change.
func TestWatchIdle(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	db.watch.idle = 20 * time.Millisecond
	other := openAgain(t, d.ConnString())
	w := watch(t, db)
	pid := db.watch.pid.Load()
	w.quiet(t, 300*time.Millisecond, "a quiet while (the connection pinged)")
	put(t, other, "after a quiet while")
	w.within(t, time.Second, "a commit after a quiet while")
	if db.watch.pid.Load() != pid {
		t.Error("the watcher connected again after a quiet while")
	}
}

// TestWatchStops: no call after ctx is cancelled or the store closed,
// and Watch on a closed store fails.
func TestWatchStops(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	other := openAgain(t, d.ConnString())
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan struct{}, 100)
	if err := db.Watch(ctx, func() { calls <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	w := watch(t, db) // stopped by Close below
	cancel()
	time.Sleep(100 * time.Millisecond)
	put(t, other, "x")
	w.within(t, time.Second, "a commit")
	select {
	case <-calls:
		t.Error("a watch told a change after its context was cancelled")
	case <-time.After(200 * time.Millisecond):
	}
	db.Close() // waits for the watch's connection to close
	put(t, other, "y")
	w.quiet(t, 300*time.Millisecond, "the store was closed")
	if err := db.Watch(context.Background(), func() {}); err == nil {
		t.Error("Watch on a closed store succeeded")
	}
}

// TestWriterIdentity: a handle's writer identity is alive for any other
// handle while the handle is open, and dead once it is closed or its
// session is killed, after which it takes a new one.
func TestWriterIdentity(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	other := openAgain(t, d.ConnString())
	id, err := db.WriterID()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := db.WriterID(); err != nil || again != id {
		t.Fatalf("a second WriterID gave %q (%v), the first %q", again, err, id)
	}
	oid, err := other.WriterID()
	if err != nil || oid == id {
		t.Fatalf("two handles' identities: %q and %q (%v)", id, oid, err)
	}
	alive := func(id string) bool {
		t.Helper()
		ok, err := other.WriterAlive(id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !alive(id) {
		t.Fatalf("an open handle's writer %s is taken for dead", id)
	}
	pid, _, _ := parseWriter(id)
	if _, err := other.pool.Exec(context.Background(), "SELECT pg_terminate_backend($1)", int64(pid)); err != nil {
		t.Fatal(err)
	}
	// The server ends a session a moment after it is told to.
	dies := func(id, how string) {
		t.Helper()
		deadline := time.Now().Add(testload.Scaled(2 * time.Second))
		for alive(id) {
			if time.Now().After(deadline) {
				t.Fatalf("a writer whose %s is still alive", how)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	dies(id, "session was killed")
	id2, err := db.WriterID()
	if err != nil || id2 == id || !alive(id2) {
		t.Fatalf("after its session was killed, the writer's new identity is %q (alive %v, %v), the old %q", id2, err == nil && alive(id2), err, id)
	}
	db.Close()
	dies(id2, "handle was closed")
	if _, err := other.WriterAlive("12345"); err == nil {
		t.Error("an identity that is not a PostgreSQL writer's was judged")
	}
	if _, err := db.WriterID(); err == nil {
		t.Error("a closed store gave a writer identity")
	}
}
