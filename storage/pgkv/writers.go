package pgkv

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
)

// A writer's identity is a session of the server: a connection of its
// own that holds a session-level advisory lock on a random key for as
// long as the handle is open. The server drops the lock when the session
// ends, however it ends — the process closes the store, is killed (kill
// -9), or its connection is cut — so a writer is alive exactly while its
// lock is in pg_locks, which any session of the database can read, on
// any machine. The identity is "pg:" with the session's backend process
// ID and the key, both in pg_locks: the process ID tells a database
// administrator which session it is.

var _ storage.Writers = (*DB)(nil)

// writerSession is a DB's hold on its writer identity, made on first use.
// The zero value is ready.
type writerSession struct {
	mu     sync.Mutex
	conn   *pgx.Conn
	id     string
	closed bool
}

// close ends the session: the identity dies with it.
func (s *writerSession) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn != nil {
		closeQuietly(s.conn)
		s.conn = nil
	}
}

// qHold takes the session lock on the key $1 if no session holds it
// (a random key: another's is a near impossibility, and then another key
// is drawn), and says which server process holds it.
const qHold = `SELECT pg_try_advisory_lock($1), pg_backend_pid()`

// qWriterAlive says whether the server process $3 holds the session
// lock on the key whose halves are $1 and $2, in this database.
const qWriterAlive = `SELECT EXISTS (SELECT FROM pg_locks
	WHERE locktype = 'advisory' AND granted
	AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1 AND pid = $3)`

// WriterID is the identity of this handle's writer session, made on
// first use; when the session's connection was lost, a new session with
// a new identity. Each call asks the server (a ping) whether the session
// still stands: a writer asks at each piece it writes, a round trip
// beside the piece's many.
func (db *DB) WriterID() (string, error) {
	s := &db.self
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", fmt.Errorf("pgkv: %s: the store is closed", db.where)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.conn != nil {
		if err := s.conn.Ping(ctx); err == nil {
			return s.id, nil
		}
		closeQuietly(s.conn) // the session is gone, and its lock with it
		s.conn = nil
	}
	cfg := db.pool.Config().ConnConfig
	// The server notices a client gone without a word (a machine off
	// the network) by its TCP keepalives, by default after two hours:
	// this session's, after a minute and a half, so a writer cut off is
	// soon taken for dead. (A Unix socket has none, and needs none.)
	for k, v := range map[string]string{"tcp_keepalives_idle": "60", "tcp_keepalives_interval": "10", "tcp_keepalives_count": "3"} {
		if _, set := cfg.RuntimeParams[k]; !set {
			cfg.RuntimeParams[k] = v
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("pgkv: connecting to %s: %w", db.where, err)
	}
	for range 5 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		key := int64(binary.BigEndian.Uint64(b[:]) &^ (1 << 63))
		if key == writerLock {
			continue
		}
		var got bool
		var pid uint32
		if err := conn.QueryRow(ctx, qHold, key).Scan(&got, &pid); err != nil {
			closeQuietly(conn)
			return "", fmt.Errorf("pgkv: taking a writer's session lock on %s: %w", db.where, err)
		}
		if got {
			s.conn, s.id = conn, fmt.Sprintf("pg:%d:%x", pid, key)
			return s.id, nil
		}
	}
	closeQuietly(conn)
	return "", fmt.Errorf("pgkv: %s: no free writer's session lock after 5 random keys: another program may hold advisory locks by the thousand", db.where)
}

// parseWriter reads an identity WriterID made.
func parseWriter(id string) (pid uint32, key uint64, ok bool) {
	rest, found := strings.CutPrefix(id, "pg:")
	if !found {
		return 0, 0, false
	}
	p, k, found := strings.Cut(rest, ":")
	if !found {
		return 0, 0, false
	}
	p64, err1 := strconv.ParseUint(p, 10, 32)
	key, err2 := strconv.ParseUint(k, 16, 64)
	return uint32(p64), key, err1 == nil && err2 == nil
}

// WriterAlive reports whether the writer id still holds its session
// lock: whether its session is still open.
func (db *DB) WriterAlive(id string) (bool, error) {
	pid, key, ok := parseWriter(id)
	if !ok {
		return false, fmt.Errorf("pgkv: %q is not a writer's identity of a PostgreSQL store", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var alive bool
	err := db.pool.QueryRow(ctx, qWriterAlive, int64(key>>32), int64(key&0xffffffff), int64(pid)).Scan(&alive)
	if err != nil {
		return false, fmt.Errorf("pgkv: asking %s whether a writer is alive: %w", db.where, err)
	}
	return alive, nil
}
