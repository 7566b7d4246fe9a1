package pgkv

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// schemaVersion is the version of the tables below. A store of a higher
// version was made by a newer citelens, whose tables this one could
// misread: Open refuses it.
const schemaVersion = 1

// writerLock is the advisory lock an Update holds for its whole
// transaction, so that writers run one at a time, as in bbolt: the ASCII
// of "citelens" as a bigint. The schema's creation takes it too.
const writerLock int64 = 0x636974656c656e73

// rootID is the bucket that holds the top-level buckets.
const rootID int64 = 0

// schema creates the tables, in one transaction with the row that says
// their version. Readable for a database administrator: a bucket is a
// row of citelens_buckets; its keys are rows of citelens_entries, each
// with a value or, for a nested bucket, the child bucket's id.
var schema = []string{
	`CREATE TABLE citelens_meta (
		only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
		schema_version integer NOT NULL,
		version bigint NOT NULL
	)`,
	`COMMENT ON TABLE citelens_meta IS 'citelens storage: the tables'' version, and the store''s, which every committed write transaction adds one to'`,
	`CREATE TABLE citelens_buckets (
		id bigserial PRIMARY KEY,
		parent bigint REFERENCES citelens_buckets ON DELETE CASCADE,
		seq bigint NOT NULL DEFAULT 0,
		CONSTRAINT citelens_buckets_one_root CHECK ((parent IS NULL) = (id = 0))
	)`,
	`COMMENT ON TABLE citelens_buckets IS 'citelens storage: buckets of keys; bucket 0 holds the top-level ones; a bucket''s name is its key in its parent, in citelens_entries; seq is its counter'`,
	`CREATE INDEX citelens_buckets_parent ON citelens_buckets (parent)`,
	`INSERT INTO citelens_buckets (id, parent) VALUES (0, NULL)`,
	`CREATE TABLE citelens_entries (
		bucket bigint NOT NULL REFERENCES citelens_buckets ON DELETE CASCADE,
		key bytea NOT NULL CONSTRAINT citelens_entries_key_length CHECK (length(key) BETWEEN 1 AND 32768),
		value bytea,
		child bigint UNIQUE REFERENCES citelens_buckets ON DELETE CASCADE,
		CONSTRAINT citelens_entries_value_or_bucket CHECK ((value IS NULL) <> (child IS NULL))
	)`,
	`COMMENT ON TABLE citelens_entries IS 'citelens storage: the keys of every bucket, in byte order, each with a value or the id of the nested bucket it names'`,
	`CREATE UNIQUE INDEX citelens_entries_key ON citelens_entries (bucket, substr(key, 1, 1024), sha256(key))`,
	`COMMENT ON INDEX citelens_entries_key IS 'keys go up to 32 kB, btree entries to about 2.7 kB: ordered by the first kilobyte, told apart by the digest'`,
}

// ensureSchema creates the tables where there are none and refuses a
// store of a newer version. It holds the writer lock, so two first
// Opens do not both create them.
func ensureSchema(ctx context.Context, conn *pgx.Conn, where string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgkv: %s: %w", where, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", writerLock); err != nil {
		return fmt.Errorf("pgkv: %s: %w", where, err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass('citelens_meta') IS NOT NULL").Scan(&exists); err != nil {
		return fmt.Errorf("pgkv: %s: %w", where, err)
	}
	if exists {
		var v int
		if err := tx.QueryRow(ctx, "SELECT schema_version FROM citelens_meta").Scan(&v); err != nil {
			return fmt.Errorf("pgkv: %s: reading the storage schema's version: %w", where, err)
		}
		if v > schemaVersion {
			return fmt.Errorf("pgkv: %s holds a library of storage schema version %d, made by a newer citelens; this one knows version %d at most: upgrade citelens", where, v, schemaVersion)
		}
		return nil
	}
	for _, stmt := range schema {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("pgkv: %s: creating the storage tables (a database administrator can run Open once as a user who may create tables): %w", where, err)
		}
	}
	if _, err := tx.Exec(ctx, "INSERT INTO citelens_meta (schema_version, version) VALUES ($1, 0)", schemaVersion); err != nil {
		return fmt.Errorf("pgkv: %s: %w", where, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgkv: %s: creating the storage tables: %w", where, err)
	}
	return nil
}
