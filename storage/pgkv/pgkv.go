// Package pgkv is the storage seam over PostgreSQL, for a team's library
// on a server: buckets and keys are rows of two tables (see schema.go), a
// read transaction is a REPEATABLE READ, READ ONLY transaction (one
// snapshot for its life), and a write transaction a READ COMMITTED one
// that first takes an advisory lock, so writers run one at a time as in
// bbolt and a reader never waits for one.
//
// A round trip to the server costs far more than a read, so the backend
// spends as few as it can: a transaction begins in one (BEGIN, the
// store's version and the top-level buckets, pipelined), a nested
// bucket's id is looked up once per transaction, Get and GetMany are one
// query each, a cursor reads a page of rows at a time (pages that grow
// as it keeps going), and Put and Delete are not sent one by one: they
// wait, up to a few thousand, for the next statement that reads, or for
// the commit, and go with it. A write is still refused at once when it
// would meet a nested bucket: the transaction knows the names of the
// nested buckets of a bucket it writes to (one query, where there are
// any; a bucket of more than maxChildren sends its writes one by one
// instead). Buckets' counters go with the commit too. Every statement is
// prepared once per connection (pgx's statement cache).
//
// Reads that the seam gives no error to return (Get, a cursor's move,
// KeyCount…) may still fail here, when the connection or the server
// does, and so may writes that were waiting, after their Put returned:
// the transaction then keeps the failure, answers nil to every further
// read and the failure to every write, and View or Update returns it,
// with nothing committed.
package pgkv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options adjust a DB.
type Options struct {
	// Waiting, when set, is called when an Update must wait for another
	// writer to finish (the writer lock was not free at once), before it
	// waits, on the Update's goroutine: a front end can say so.
	Waiting func()
	// Existing opens only a store that is there: where the database
	// holds no citelens tables, Open makes none and returns ErrNoStore.
	// A command that only reads asks for it, so that reading a library
	// not made yet changes nothing, and a role that may only read can.
	Existing bool
}

// DB is a store in a PostgreSQL database, a pool of connections to it.
// It is safe for concurrent use.
type DB struct {
	pool  *pgxpool.Pool
	where string // the server and database, for errors: never the password
	place string // the same as HOST/DB, for the messages that say where the library is
	user  string // the role, for messages about its rights
	opts  Options
	watch watching      // notify.go
	self  writerSession // writers.go
}

var _ storage.DB = (*DB)(nil)

// Open connects to the database connString names and makes the store's
// tables there when they are missing. connString is any libpq connection
// string, a URL (postgres://user@host/db?sslmode=require,
// postgres:///db?host=/run/postgresql) or key=value pairs (host=/dir
// dbname=lib); the password may come from it, PGPASSWORD or ~/.pgpass,
// as libpq's do. Errors name the server and database, never the
// password.
func Open(ctx context.Context, connString string) (*DB, error) {
	return OpenOptions(ctx, connString, Options{})
}

// OpenOptions is Open with options.
func OpenOptions(ctx context.Context, connString string, opts Options) (*DB, error) {
	cfg, err := parseConfig(connString)
	if err != nil {
		return nil, err
	}
	return openConfig(ctx, cfg, opts)
}

// defaultConnectTimeout bounds making a connection when the connection
// string sets no connect_timeout (nor PGCONNECT_TIMEOUT): libpq's
// default is to wait as long as the network does, which leaves a
// command hanging on a server that is down or a firewall that drops.
const defaultConnectTimeout = 30 * time.Second

// parseConfig reads connString as libpq would, with
// defaultConnectTimeout where it sets none.
func parseConfig(connString string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		// pgx's message shows the string with its password masked.
		return nil, fmt.Errorf("pgkv: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	return cfg, nil
}

// openConfig is OpenOptions from a parsed configuration.
func openConfig(ctx context.Context, cfg *pgxpool.Config, opts Options) (*DB, error) {
	where := describe(cfg.ConnConfig)
	db := &DB{where: where, place: place(cfg.ConnConfig), user: cfg.ConnConfig.User, opts: opts}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgkv: %s: %w", where, err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, connectError(cfg.ConnConfig, where, err)
	}
	if opts.Existing {
		exists, err := storeExists(ctx, conn.Conn())
		if err == nil && !exists {
			err = fmt.Errorf("pgkv: %w at %s", ErrNoStore, db.place)
		}
		if err != nil {
			conn.Release()
			pool.Close()
			return nil, err
		}
	}
	// A store of this version needs nothing done: its Open does not
	// queue behind a writer for ensureSchema's lock, so a reader opens
	// while another process adds.
	if current, cerr := upToDate(ctx, conn.Conn()); cerr != nil || !current {
		err = ensureSchema(ctx, conn.Conn(), where)
	}
	conn.Release()
	if err != nil {
		pool.Close()
		if rerr := rightsError(db, err); rerr != nil {
			// Making the tables needs rights a reader's role lacks.
			return nil, fix.With(fmt.Errorf("%w (there is no library there yet, and making one needs the right to create tables)", rerr),
				"Ask the database's owner to make the library: run 'citelens --db ADDRESS ls' once as a role that may\n"+
					"create tables (or GRANT CREATE ON SCHEMA public TO %s), then grant this role its rights.", db.user)
		}
		return nil, err
	}
	db.pool = pool
	return db, nil
}

// errEnded is what a transaction answers once View or Update has
// returned.
var errEnded = errors.New("pgkv: the transaction has ended")

// describe names the server and database of cfg, for errors.
func describe(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("database %q on %s port %d as %q", cfg.Database, cfg.Host, cfg.Port, cfg.User)
}

// View runs fn in a read-only transaction over one snapshot.
func (db *DB) View(fn func(storage.Tx) error) error { return db.run(false, fn) }

// Update runs fn in a read-write transaction, after any other writer's.
func (db *DB) Update(fn func(storage.Tx) error) error { return db.run(true, fn) }

// Close closes the pool once the transactions in progress have given
// their connections back.
func (db *DB) Close() error {
	db.watch.close()
	db.self.close()
	db.pool.Close()
	return nil
}

// run is View and Update: fn in a transaction on a connection of the
// pool, rolled back unless fn and the transaction's reads succeeded and
// it is a write to commit. A panic in fn rolls back too.
func (db *DB) run(writable bool, fn func(storage.Tx) error) (err error) {
	ctx := context.Background()
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return connectError(db.pool.Config().ConnConfig, db.where, err)
	}
	// A connection given back inside a transaction (rollback failed: the
	// connection broke) is closed by the pool, not reused.
	defer conn.Release()
	t := newTx(ctx, db, conn.Conn(), writable)
	committed := false
	defer func() {
		// A read ends here too: what fn read stands whether or not the
		// ending reaches the server.
		if !committed {
			t.rollback()
		}
		// The connection goes back to the pool: a Tx, Bucket or Cursor
		// kept past fn must not reach it.
		t.err = errEnded
	}()
	if err := t.begin(); err != nil {
		return err
	}
	ferr := fn(t)
	if t.err != nil {
		// fn's own error may be a consequence (a read that failed looked
		// like an absent key): both are told.
		return errors.Join(t.err, ferr)
	}
	if ferr != nil || !writable {
		return ferr
	}
	if err := t.commit(); err != nil {
		return err
	}
	committed = true
	return nil
}
