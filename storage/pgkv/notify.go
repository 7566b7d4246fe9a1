package pgkv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
)

// Every committed write transaction tells the store's watchers, with
// PostgreSQL's NOTIFY: the commit's batch holds a pg_notify, which the
// server delivers only if the transaction commits (a rolled-back write
// tells nobody), to every session listening on the channel, on any
// machine. A watcher holds a connection of its own that LISTENs; the
// pool's connections never do, as a listening session keeps the
// notifications of every commit until it reads them.

// chanExpr is the channel of the store's notifications: one per schema
// the store's tables are in (the first of the search path), for
// notifications are per database and a database may hold several
// libraries, one per schema. A channel name is at most 63 bytes: a long
// schema name goes by its digest. The same expression names the channel
// at commit and at LISTEN, so the two cannot disagree.
const chanExpr = `(CASE WHEN octet_length(coalesce(current_schema(), '')) <= 54
	THEN 'citelens_' || coalesce(current_schema(), '')
	ELSE 'citelens_' || md5(current_schema()) END)`

// qNotify tells the store's watchers of the commit of the version $1; it
// goes in the commit's batch.
const qNotify = `SELECT pg_notify(` + chanExpr + `, $1::text)`

// Reconnecting after a lost listening connection waits firstRetry, then
// twice as long each time, up to maxRetry, so a server that is down is
// not asked in a tight loop.
const (
	firstRetry = 50 * time.Millisecond
	maxRetry   = 5 * time.Second
)

// A listening connection that has heard nothing for idleCheck is asked
// whether it still reaches the server (a ping, answered within
// pingTimeout): a connection cut on the way (a network gone, a machine
// asleep) tells its reader nothing, and the system's TCP keepalives take
// hours to. So a cut is noticed within a minute, and the watcher
// reconnects.
const (
	idleCheck   = 30 * time.Second
	pingTimeout = 10 * time.Second
)

var _ storage.Watcher = (*DB)(nil)

// watching is what a DB knows of its watchers, so that Close stops them.
// The zero value is ready.
type watching struct {
	once sync.Once
	done chan struct{} // closed by Close
	mu   sync.Mutex
	stop bool
	wg   sync.WaitGroup // the listening goroutines
	// pid is the server process of the last listening connection made,
	// for tests that cut it.
	pid atomic.Uint32
	// idle, when set (by tests), replaces idleCheck.
	idle time.Duration
}

// doneCh is the channel Close closes.
func (w *watching) doneCh() chan struct{} {
	w.once.Do(func() { w.done = make(chan struct{}) })
	return w.done
}

// start counts a listening goroutine in, unless the store is closed.
func (w *watching) start() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop {
		return false
	}
	w.wg.Add(1)
	return true
}

// close stops every watcher and waits for their connections to close.
func (w *watching) close() {
	w.mu.Lock()
	already := w.stop
	w.stop = true
	w.mu.Unlock()
	if !already {
		close(w.doneCh())
	}
	w.wg.Wait()
}

// queueNotify adds the commit's notification to its batch: the one call
// commit makes into this file.
func (t *tx) queueNotify(b *pgx.Batch) {
	b.Queue(qNotify, strconv.FormatUint(t.id, 10))
}

// Watch calls changed after commits by any process, its own included,
// until ctx is done or the store is closed. It returns once its
// connection listens (commits from then on are told), or with the reason
// it cannot listen. Commits that come while changed runs are told by one
// call after it. A lost connection is made again, after a wait that grows
// while the server cannot be reached; commits meanwhile cannot be known,
// so changed is called once the connection is back: a caller that reads
// the store again on each call has missed nothing.
func (db *DB) Watch(ctx context.Context, changed func()) error {
	if !db.watch.start() {
		return fmt.Errorf("pgkv: watching %s: the store is closed", db.where)
	}
	conn, err := db.listen(ctx)
	if err != nil {
		db.watch.wg.Done()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := db.watch.doneCh()
	// kick holds one call to make: notifications while changed runs
	// fold into it.
	kick := make(chan struct{}, 1)
	tell := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
				changed()
			}
		}
	}()
	go func() {
		defer db.watch.wg.Done()
		defer cancel()
		go func() {
			select {
			case <-done:
				cancel()
			case <-ctx.Done():
			}
		}()
		for {
			conn = db.listenLoop(ctx, conn, tell)
			if conn == nil {
				return
			}
			tell() // the connection was lost and is back: commits meanwhile are unknown
		}
	}()
	return nil
}

// listenLoop reads conn's notifications, telling each, until ctx ends
// (nil) or the connection is lost: then it connects again, waiting longer
// between tries while it cannot, and returns the new connection.
func (db *DB) listenLoop(ctx context.Context, conn *pgx.Conn, tell func()) *pgx.Conn {
	idle := idleCheck
	if db.watch.idle > 0 {
		idle = db.watch.idle
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, idle)
		_, err := conn.WaitForNotification(wctx)
		quiet := wctx.Err() != nil
		cancel()
		if err == nil {
			tell()
			continue
		}
		if quiet && ctx.Err() == nil && !conn.IsClosed() {
			// Nothing heard for a while (a wait's timeout leaves the
			// connection usable): is the server still there?
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			err = conn.Ping(pctx)
			cancel()
			if err == nil {
				continue
			}
		}
		closeQuietly(conn)
		break
	}
	wait := firstRetry
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		conn, err := db.listen(ctx)
		if err == nil {
			return conn
		}
		wait = min(2*wait, maxRetry)
	}
}

// listen opens a connection of its own (the pool's configuration: the
// same server, user, password and TLS) that listens on the store's
// channel.
func (db *DB) listen(ctx context.Context) (*pgx.Conn, error) {
	cfg := db.pool.Config().ConnConfig
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgkv: watching %s: %w", db.where, err)
	}
	var channel string
	err = conn.QueryRow(ctx, `SELECT `+chanExpr).Scan(&channel)
	if err == nil {
		_, err = conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize())
	}
	if err != nil {
		closeQuietly(conn)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("pgkv: listening for changes to %s: %w", db.where, err)
	}
	db.watch.pid.Store(conn.PgConn().PID())
	return conn, nil
}

// closeQuietly closes conn, waiting a moment at most: a connection that
// is being dropped has nothing left to say.
func closeQuietly(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
