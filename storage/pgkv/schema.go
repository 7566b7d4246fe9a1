package pgkv

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// schemaVersion is the version of the tables below. A store of a higher
// version was made by a newer citelens, whose tables this one could
// misread: Open refuses it. A store of a lower one is carried forward
// by the migrations, in place.
//
// Version 1: the key-value tables (citelens_meta, citelens_buckets,
// citelens_entries). Version 2: the version table citelens_schema, the
// collections with row-level security, and the record sets' views
// (citelens_record_sets; see tabulate.go).
const schemaVersion = 2

// writerLock is the advisory lock an Update holds for its whole
// transaction, so that writers run one at a time, as in bbolt: the ASCII
// of "citelens" as a bigint. The schema's creation takes it too.
const writerLock int64 = 0x636974656c656e73

// rootID is the bucket that holds the top-level buckets.
const rootID int64 = 0

// schemaV1 creates the tables of version 1, in one transaction with the
// row that says their version; migrations carry them forward. (A new
// store is made by the same path as an old one is carried, so the two
// cannot differ.) Readable for a database administrator: a bucket is a
// row of citelens_buckets; its keys are rows of citelens_entries, each
// with a value or, for a nested bucket, the child bucket's id.
var schemaV1 = []string{
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

// migration carries a store from version To-1 to To: statements run in
// one transaction with the version's row, so a store is at one version
// or the next, never between.
type migration struct {
	To   int
	What string // the version's line in citelens_schema
	SQL  []string
}

// migrations are every step from version 1, in order; the last one's To
// is schemaVersion.
var migrations = []migration{{
	To:   2,
	What: "readable tables: the version table, collections with row-level security, views over the library's records",
	SQL:  schemaV2,
}}

// ensureSchema creates the tables where there are none, carries an older
// store forward and refuses a store of a newer version. It holds the
// writer lock, so two first Opens do not both create or migrate them,
// and a migration waits for writers of the older version to finish.
func ensureSchema(ctx context.Context, conn *pgx.Conn, where string) error {
	v, err := storedVersion(ctx, conn, where)
	if err != nil {
		return err
	}
	if v > schemaVersion {
		return newerError(where, v)
	}
	if v == schemaVersion {
		return nil // no write, no lock: a reader's open
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgkv: %s: %w", where, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", writerLock); err != nil {
		return fmt.Errorf("pgkv: %s: %w", where, err)
	}
	// Under the lock, again: another process may have done it meanwhile.
	if v, err = storedVersion(ctx, tx.Conn(), where); err != nil {
		return err
	}
	if v > schemaVersion {
		return newerError(where, v)
	}
	if v == 0 {
		for _, stmt := range schemaV1 {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("pgkv: %s: creating the storage tables (a database administrator can run Open once as a user who may create tables): %w", where, err)
			}
		}
		if _, err := tx.Exec(ctx, "INSERT INTO citelens_meta (schema_version, version) VALUES (1, 0)"); err != nil {
			return fmt.Errorf("pgkv: %s: %w", where, err)
		}
		v = 1
	}
	for _, m := range migrations {
		if m.To <= v {
			continue
		}
		for _, stmt := range m.SQL {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("pgkv: %s: carrying the storage tables from version %d to %d (a database administrator can run Open once as the tables' owner): %w", where, m.To-1, m.To, err)
			}
		}
		if _, err := tx.Exec(ctx, "INSERT INTO citelens_schema (version, description) VALUES ($1, $2)", m.To, m.What); err != nil {
			return fmt.Errorf("pgkv: %s: %w", where, err)
		}
		// citelens_meta keeps the version too: it is where version 1
		// looks, so an older citelens refuses the store.
		if _, err := tx.Exec(ctx, "UPDATE citelens_meta SET schema_version = $1", m.To); err != nil {
			return fmt.Errorf("pgkv: %s: %w", where, err)
		}
		v = m.To
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgkv: %s: creating the storage tables: %w", where, err)
	}
	return nil
}

// storedVersion is the store's schema version, 0 where there are no
// tables yet.
func storedVersion(ctx context.Context, conn *pgx.Conn, where string) (int, error) {
	// pg_class read by a query, not to_regclass: to_regclass answers from
	// the session's catalog cache, where a first look leaves "no such
	// table", and waiting on an advisory lock does not refresh it — a
	// process that waited while another made the tables would not see
	// them. current_schema() is where CREATE TABLE puts them.
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relname = 'citelens_meta' AND n.nspname = current_schema())`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("pgkv: %s: %w", where, err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := conn.QueryRow(ctx, "SELECT schema_version FROM citelens_meta").Scan(&v); err != nil {
		return 0, fmt.Errorf("pgkv: %s: reading the storage schema's version: %w", where, err)
	}
	return v, nil
}

// newerError is the refusal of a store of version v, made by a newer
// citelens.
func newerError(where string, v int) error {
	return fmt.Errorf("pgkv: %s holds a library of storage schema version %d, made by a newer citelens; this one knows version %d at most: upgrade citelens to open it", where, v, schemaVersion)
}

// schemaV2 is version 2: the version table, the collections, and the
// table of record sets (the views themselves are made by Tabulate, from
// the library's description of its records).
var schemaV2 = []string{
	`CREATE TABLE citelens_schema (
		version integer PRIMARY KEY,
		applied timestamptz NOT NULL DEFAULT now(),
		description text NOT NULL
	)`,
	`COMMENT ON TABLE citelens_schema IS 'citelens: the versions of these tables, one row for each version the store has been carried to; a citelens that knows an older version at most refuses the store'`,
	`COMMENT ON COLUMN citelens_schema.version IS 'the schema version (citelens_meta.schema_version is the latest)'`,
	`COMMENT ON COLUMN citelens_schema.applied IS 'when the store was made or carried to this version'`,
	`COMMENT ON COLUMN citelens_schema.description IS 'what the version added'`,
	`INSERT INTO citelens_schema (version, applied, description) VALUES (1, now(), 'the key-value tables: citelens_meta, citelens_buckets, citelens_entries')`,
	`COMMENT ON COLUMN citelens_meta.schema_version IS 'the tables'' version, as in citelens_schema'`,
	`COMMENT ON COLUMN citelens_meta.version IS 'the store''s version: one more with every committed write transaction'`,
	`COMMENT ON COLUMN citelens_meta.only_row IS 'always true: the table has one row'`,
	`COMMENT ON COLUMN citelens_buckets.id IS 'the bucket''s number; 0 is the root, whose keys are the top-level buckets'`,
	`COMMENT ON COLUMN citelens_buckets.parent IS 'the bucket this one is nested in (null for bucket 0, the root)'`,
	`COMMENT ON COLUMN citelens_buckets.seq IS 'the bucket''s counter (a sequence citelens keeps per bucket)'`,
	`COMMENT ON COLUMN citelens_entries.bucket IS 'the bucket the key is in'`,
	`COMMENT ON COLUMN citelens_entries.key IS 'the key: bytes, ordered bytewise within a bucket'`,
	`COMMENT ON COLUMN citelens_entries.value IS 'the value, or null when the key names a nested bucket'`,
	`COMMENT ON COLUMN citelens_entries.child IS 'the nested bucket the key names, or null when it holds a value'`,

	`CREATE TABLE citelens_record_sets (
		name text PRIMARY KEY,
		definition text NOT NULL
	)`,
	`COMMENT ON TABLE citelens_record_sets IS 'citelens: the views that decode the library''s records (citelens_documents, citelens_answers…), each with the description it was made from; citelens remakes a view when its description changes'`,
	`COMMENT ON COLUMN citelens_record_sets.name IS 'the view''s name'`,
	`COMMENT ON COLUMN citelens_record_sets.definition IS 'the record set it decodes, as JSON: the bucket, the key''s parts, the value''s columns'`,

	`CREATE TABLE citelens_collections (
		id bigserial PRIMARY KEY,
		name text NOT NULL CONSTRAINT citelens_collections_name_length CHECK (length(name) BETWEEN 1 AND 200),
		owner name NOT NULL DEFAULT current_user,
		private boolean NOT NULL DEFAULT false,
		created timestamptz NOT NULL DEFAULT now(),
		CONSTRAINT citelens_collections_owner_name UNIQUE (owner, name)
	)`,
	`COMMENT ON TABLE citelens_collections IS 'citelens: collections, named subsets of the library''s documents; a private one is seen and changed by its owner only (row-level security), a shared one seen by all and deleted by its owner'`,
	`COMMENT ON COLUMN citelens_collections.id IS 'the collection''s number, for citelens_collection_documents'`,
	`COMMENT ON COLUMN citelens_collections.name IS 'the name citelens commands take (collection ls, ask --collection)'`,
	`COMMENT ON COLUMN citelens_collections.owner IS 'the database role that made it (current_user)'`,
	`COMMENT ON COLUMN citelens_collections.private IS 'true: only the owner sees it; false: shared with every role'`,
	`COMMENT ON COLUMN citelens_collections.created IS 'when it was made'`,
	`CREATE TABLE citelens_collection_documents (
		collection bigint NOT NULL REFERENCES citelens_collections ON DELETE CASCADE,
		document text NOT NULL,
		PRIMARY KEY (collection, document)
	)`,
	`COMMENT ON TABLE citelens_collection_documents IS 'citelens: the documents of each collection, seen and changed by whoever sees the collection'`,
	`COMMENT ON COLUMN citelens_collection_documents.collection IS 'the collection (citelens_collections.id)'`,
	`COMMENT ON COLUMN citelens_collection_documents.document IS 'the document''s ID (citelens_documents.id); a removed document''s ID stays until the collection is changed'`,

	`ALTER TABLE citelens_collections ENABLE ROW LEVEL SECURITY`,
	`ALTER TABLE citelens_collections FORCE ROW LEVEL SECURITY`,
	`CREATE POLICY citelens_collections_see ON citelens_collections FOR SELECT USING (NOT private OR owner = current_user)`,
	`COMMENT ON POLICY citelens_collections_see ON citelens_collections IS 'a role sees the shared collections and its own'`,
	`CREATE POLICY citelens_collections_create ON citelens_collections FOR INSERT WITH CHECK (owner = current_user)`,
	`COMMENT ON POLICY citelens_collections_create ON citelens_collections IS 'a role makes collections in its own name only'`,
	`CREATE POLICY citelens_collections_change ON citelens_collections FOR UPDATE USING (owner = current_user) WITH CHECK (owner = current_user)`,
	`COMMENT ON POLICY citelens_collections_change ON citelens_collections IS 'only the owner renames a collection or makes it private or shared'`,
	`CREATE POLICY citelens_collections_delete ON citelens_collections FOR DELETE USING (owner = current_user)`,
	`COMMENT ON POLICY citelens_collections_delete ON citelens_collections IS 'only the owner deletes a collection'`,
	`ALTER TABLE citelens_collection_documents ENABLE ROW LEVEL SECURITY`,
	`ALTER TABLE citelens_collection_documents FORCE ROW LEVEL SECURITY`,
	// The subquery reads citelens_collections under its own policies:
	// a member row is there for whoever sees its collection.
	`CREATE POLICY citelens_collection_documents_see ON citelens_collection_documents FOR ALL
		USING (EXISTS (SELECT FROM citelens_collections c WHERE c.id = collection))
		WITH CHECK (EXISTS (SELECT FROM citelens_collections c WHERE c.id = collection))`,
	`COMMENT ON POLICY citelens_collection_documents_see ON citelens_collection_documents IS 'a collection''s documents are seen and changed by whoever sees the collection: everyone for a shared one, the owner for a private one'`,
}
