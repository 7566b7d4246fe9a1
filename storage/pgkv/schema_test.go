package pgkv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/jackc/pgx/v5"
)

// connect is a plain connection to d, closed when t ends.
func connect(t *testing.T, d pgtest.Database) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// exec runs statements on conn, failing t on the first error.
func exec(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestMigrateV1: a store made by version 1's statements, with a bucket
// and a key in it, is carried to the current version in place by Open:
// its data kept, citelens_schema listing every version, the collections'
// tables there with row-level security forced.
func TestMigrateV1(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	admin := connect(t, d)
	exec(t, admin, schemaV1...)
	exec(t, admin, "INSERT INTO citelens_meta (schema_version, version) VALUES (1, 0)")
	// What version 1 wrote: a top-level bucket "kept" with one key.
	exec(t, admin,
		`INSERT INTO citelens_buckets (id, parent) VALUES (7, 0)`,
		`INSERT INTO citelens_entries (bucket, key, child) VALUES (0, 'kept'::bytea, 7)`,
		`INSERT INTO citelens_entries (bucket, key, value) VALUES (7, 'k'::bytea, 'v'::bytea)`,
		`SELECT setval('citelens_buckets_id_seq', 7)`)

	db, err := Open(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	view(t, db, func(tx storage.Tx) error {
		if b := tx.Bucket([]byte("kept")); b == nil || string(b.Get([]byte("k"))) != "v" {
			t.Error("the migration lost version 1's data")
		}
		return nil
	})
	var versions []int32
	if err := admin.QueryRow(context.Background(), "SELECT array_agg(version ORDER BY version) FROM citelens_schema").Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(versions, []int32{1, 2}) {
		t.Errorf("citelens_schema holds versions %v, want [1 2]", versions)
	}
	var meta int
	var forced bool
	if err := admin.QueryRow(context.Background(), `SELECT (SELECT schema_version FROM citelens_meta),
		(SELECT relrowsecurity AND relforcerowsecurity FROM pg_class WHERE relname = 'citelens_collections')`).Scan(&meta, &forced); err != nil {
		t.Fatal(err)
	}
	if meta != schemaVersion || !forced {
		t.Errorf("after the migration: citelens_meta says version %d (want %d), row-level security forced: %v", meta, schemaVersion, forced)
	}
	// Writes work on the migrated store, and a second Open changes
	// nothing.
	update(t, db, func(tx storage.Tx) error { return tx.Bucket([]byte("kept")).Put([]byte("k2"), []byte("v2")) })
	db2, err := Open(context.Background(), d.URL())
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
	var n int
	if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM citelens_schema").Scan(&n); err != nil || n != 2 {
		t.Errorf("after a second Open, citelens_schema has %d rows (%v), want 2", n, err)
	}
}

// TestNewerRefused: a store of a version this citelens does not know is
// refused, the message naming both versions and the fix, and nothing in
// it is changed.
func TestNewerRefused(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	db.Close()
	admin := connect(t, d)
	exec(t, admin, fmt.Sprintf("UPDATE citelens_meta SET schema_version = %d", schemaVersion+1))
	_, err := Open(context.Background(), d.ConnString())
	want := []string{fmt.Sprintf("version %d,", schemaVersion+1), fmt.Sprintf("knows version %d at most", schemaVersion), "upgrade citelens", d.Name}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("Open of a newer schema: %v; want it to say %q", err, w)
		}
	}
	var v int
	if err := admin.QueryRow(context.Background(), "SELECT schema_version FROM citelens_meta").Scan(&v); err != nil || v != schemaVersion+1 {
		t.Errorf("the refused store's version is now %d (%v)", v, err)
	}
}

// TestTabulate: record sets become views that decode keys and JSON
// values, with comments; an unchanged description writes nothing; a
// removed one drops its view.
func TestTabulate(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("docs"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("abc"), []byte(`{"name":"a.pdf","pages":3,"added":"2026-01-02T03:04:05Z","file":{"sha256":"ff"}}`)); err != nil {
			return err
		}
		if err := b.Put([]byte("def"), []byte(`{"name":"b.txt","pages":1,"added":"2026-01-02T03:04:05Z"}`)); err != nil {
			return err
		}
		if _, err := b.CreateBucket([]byte("nested")); err != nil {
			return err
		}
		p, err := tx.CreateBucket([]byte("pieces"))
		if err != nil {
			return err
		}
		return p.Put([]byte("\xff\x00\x00\x00\x00\x00\x01"), []byte("bytes"))
	})
	sets := []storage.RecordSet{{
		Name: "docs_test", Comment: "documents", Bucket: "docs", JSON: true,
		KeyParts: []storage.KeyPart{{Name: "id", Comment: "the id", Kind: storage.KeyText}},
		Columns: []storage.Column{
			{Name: "name", Comment: "its name", Path: "name", Type: storage.ColText},
			{Name: "pages", Comment: "pages", Path: "pages", Type: storage.ColInteger},
			{Name: "added", Comment: "when", Path: "added", Type: storage.ColTime},
			{Name: "sha", Comment: "digest", Path: "file.sha256", Type: storage.ColText},
		},
	}, {
		Name: "pieces_test", Comment: "pieces", Bucket: "pieces",
		KeyParts: []storage.KeyPart{{Name: "sha", Comment: "digest", Kind: storage.KeyHex, Len: 3}, {Name: "piece", Comment: "n", Kind: storage.KeyUint32, Len: 4}},
		Columns:  []storage.Column{{Name: "bytes", Comment: "the bytes", Type: storage.ColBytes}},
	}}
	if err := db.Tabulate(sets); err != nil {
		t.Fatal(err)
	}
	admin := connect(t, d)
	var got []string
	rows, _ := admin.Query(context.Background(), "SELECT id || ' ' || name || ' ' || pages || ' ' || extract(epoch from added) || ' ' || coalesce(sha, '-') FROM citelens_docs_test ORDER BY id")
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"abc a.pdf 3 1767323045.000000 ff", "def b.txt 1 1767323045.000000 -"}; !slices.Equal(got, want) {
		t.Errorf("citelens_docs_test: %q, want %q", got, want)
	}
	var sha string
	var piece int64
	var b []byte
	if err := admin.QueryRow(context.Background(), "SELECT sha, piece, bytes FROM citelens_pieces_test").Scan(&sha, &piece, &b); err != nil || sha != "ff0000" || piece != 1 || string(b) != "bytes" {
		t.Errorf("citelens_pieces_test: %q %d %q %v", sha, piece, b, err)
	}
	var comment string
	if err := admin.QueryRow(context.Background(), "SELECT col_description('citelens_docs_test'::regclass, 2)").Scan(&comment); err != nil || comment != "its name" {
		t.Errorf("the name column's comment: %q %v", comment, err)
	}
	// Unchanged: nothing is made again (the view's oid stays).
	var oid1, oid2 uint32
	admin.QueryRow(context.Background(), "SELECT 'citelens_docs_test'::regclass::oid").Scan(&oid1)
	if err := db.Tabulate(sets); err != nil {
		t.Fatal(err)
	}
	admin.QueryRow(context.Background(), "SELECT 'citelens_docs_test'::regclass::oid").Scan(&oid2)
	if oid1 == 0 || oid1 != oid2 {
		t.Errorf("an unchanged record set remade its view: oid %d then %d", oid1, oid2)
	}
	if err := db.Tabulate(sets[:1]); err != nil {
		t.Fatal(err)
	}
	var exists bool
	admin.QueryRow(context.Background(), "SELECT to_regclass('citelens_pieces_test') IS NOT NULL").Scan(&exists)
	if exists {
		t.Error("a record set no longer described kept its view")
	}
}

// TestCollectionsRLS: two roles without the superuser's rights share one
// library. A private collection of one is invisible to the other, in
// citelens's calls and in plain SQL alike, and cannot be changed or
// deleted by it; a shared one is seen and added to by both, deleted by
// its owner only.
func TestCollectionsRLS(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	db.Close()
	admin := connect(t, d)
	// Roles of the cluster's own, without the superuser's rights (a
	// superuser bypasses row-level security).
	aliceDB, bobDB := d.NewRole(t, ""), d.NewRole(t, "")
	alice, bob := aliceDB.Role, bobDB.Role
	for _, r := range []string{alice, bob} {
		exec(t, admin, "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "+r,
			"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "+r)
	}
	as := func(rd pgtest.Database) storage.Collections {
		db, err := Open(context.Background(), rd.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if r, err := db.Role(); err != nil || r != rd.Role {
			t.Fatalf("Role: %q %v, want %q", r, err, rd.Role)
		}
		return db.Collections()
	}
	a, b := as(aliceDB), as(bobDB)
	if err := a.Create("mine", true, []string{"d2", "d1"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Create("team", false, []string{"d1"}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get("mine")
	if err != nil || got.Owner != alice || !got.Private || !slices.Equal(got.Docs, []string{"d1", "d2"}) {
		t.Fatalf("alice's private collection: %+v %v", got, err)
	}
	// Bob sees the shared one only.
	list, err := b.List()
	if err != nil || len(list) != 1 || list[0].Name != "team" {
		t.Fatalf("bob's list: %+v %v", list, err)
	}
	if _, err := b.Get("mine"); !errors.Is(err, storage.ErrCollectionNotFound) {
		t.Errorf("bob's Get of alice's private collection: %v", err)
	}
	if err := b.Add("mine", []string{"d9"}); !errors.Is(err, storage.ErrCollectionNotFound) {
		t.Errorf("bob's Add to alice's private collection: %v", err)
	}
	if err := b.Delete("mine"); !errors.Is(err, storage.ErrCollectionNotFound) {
		t.Errorf("bob's Delete of alice's private collection: %v", err)
	}
	// The server refuses, not only citelens: bob's plain SQL sees no row
	// of it, and his writes to it change nothing or are refused.
	bobSQL := connect(t, bobDB)
	var n int
	if err := bobSQL.QueryRow(context.Background(), "SELECT count(*) FROM citelens_collections WHERE name = 'mine'").Scan(&n); err != nil || n != 0 {
		t.Errorf("bob's SELECT sees %d rows of alice's private collection (%v)", n, err)
	}
	if err := bobSQL.QueryRow(context.Background(), "SELECT count(*) FROM citelens_collection_documents").Scan(&n); err != nil || n != 1 {
		t.Errorf("bob's SELECT sees %d collection documents (%v), want the shared one's 1", n, err)
	}
	tag, err := bobSQL.Exec(context.Background(), "DELETE FROM citelens_collections WHERE name = 'mine'")
	if err != nil || tag.RowsAffected() != 0 {
		t.Errorf("bob's DELETE of alice's private collection: %v, %d rows", err, tag.RowsAffected())
	}
	var mineID int64
	if err := admin.QueryRow(context.Background(), "SELECT id FROM citelens_collections WHERE name = 'mine'").Scan(&mineID); err != nil {
		t.Fatal(err)
	}
	if _, err := bobSQL.Exec(context.Background(), "INSERT INTO citelens_collection_documents VALUES ($1, 'd9')", mineID); err == nil {
		t.Error("bob's INSERT into alice's private collection was let through")
	}
	if _, err := bobSQL.Exec(context.Background(), "INSERT INTO citelens_collections (name, owner, private) VALUES ('forged', $1, true)", alice); err == nil {
		t.Error("bob made a collection in alice's name")
	}
	// The shared one: both add, only alice deletes.
	if err := b.Add("team", []string{"d3"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete("team"); !errors.Is(err, storage.ErrNotOwner) {
		t.Errorf("bob's Delete of alice's shared collection: %v", err)
	}
	if err := b.Create("team", false, nil); !errors.Is(err, storage.ErrCollectionExists) {
		t.Errorf("bob's Create of a name he sees shared: %v", err)
	}
	// A private collection of the same name as alice's is bob's own.
	if err := b.Create("mine", true, []string{"d5"}); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get("mine"); err != nil || got.Owner != bob || !slices.Equal(got.Docs, []string{"d5"}) {
		t.Errorf("bob's own private collection: %+v %v", got, err)
	}
	if got, err := a.Get("team"); err != nil || !slices.Equal(got.Docs, []string{"d1", "d3"}) {
		t.Errorf("the shared collection as alice sees it: %+v %v", got, err)
	}
	if err := a.Remove("team", []string{"d1"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete("team"); err != nil {
		t.Fatal(err)
	}
	if list, err := b.List(); err != nil || len(list) != 1 || list[0].Owner != bob {
		t.Errorf("bob's list at the end: %+v %v", list, err)
	}
}

// TestFirstOpensAtOnce: processes that open a new database at the same
// moment make its tables once between them, and every open succeeds. The
// first look for the tables leaves a "no such table" in the server's
// cache, which waiting on the advisory lock does not clear: the look
// under the lock must read the catalog itself.
func TestFirstOpensAtOnce(t *testing.T) {
	t.Parallel()
	for round := range 3 {
		d := pgtest.New(t)
		const n = 4
		errs := make(chan error, n)
		start := make(chan struct{})
		for range n {
			go func() {
				<-start
				db, err := Open(t.Context(), d.ConnString())
				if err == nil {
					err = db.Close()
				}
				errs <- err
			}()
		}
		close(start)
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
