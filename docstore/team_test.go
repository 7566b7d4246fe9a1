package docstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/jackc/pgx/v5"
)

// storeBackends are the backends whose libraries are opened by
// OpenStore, which keep files by default.
func storeBackends(t *testing.T, test func(t *testing.T, bk backend)) {
	for _, b := range backends(t) {
		if b.name != "file" {
			t.Run(b.name, func(t *testing.T) { test(t, b) })
		}
	}
}

// withOriginal is the fixture of text carrying original as its file's
// bytes.
func withOriginal(name, text string, original []byte) *Document {
	d := fixture(name, text)
	d.Original = original
	return d
}

// countKeys counts the keys of the top-level bucket name.
func countKeys(t *testing.T, l *Library, name []byte) int {
	t.Helper()
	n := 0
	if err := l.store.View(func(tx storage.Tx) error {
		if b := tx.Bucket(name); b != nil {
			n = b.KeyCount()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOriginals: a document's file is kept in 1 MiB pieces, read back
// whole and checked; two documents of the same bytes share them; the
// bytes go with the last document that refers to them.
func TestOriginals(t *testing.T) {
	t.Parallel()
	storeBackends(t, testOriginals)
}

func testOriginals(t *testing.T, bk backend) {
	l := bk.library(t)
	if !l.Files().Keeps() {
		t.Fatal("a library opened by OpenStore does not keep files by default")
	}
	file := make([]byte, 2*filePiece+12345)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range file {
		file[i] = byte(r.Uint32())
	}
	a, _, err := writeDoc(l, withOriginal("a.txt", "The harbour is deep. Ships wait at the quay.", file), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same bytes under another document (as a reindex of an older
	// version would leave them): stored once.
	b, _, err := writeDoc(l, withOriginal("b.txt", "Tides rise twice a day. The pilot knows them.", file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.File == nil || a.File.Size != int64(len(file)) || a.File.Pieces != 3 || len(a.File.SHA256) != 64 {
		t.Fatalf("the document's file record: %+v", a.File)
	}
	if info, err := l.Info(a.ID); err != nil || info.File == nil || *info.File != *a.File {
		t.Fatalf("the stored metadata's file record: %+v %v", info.File, err)
	}
	if n := countKeys(t, l, bucketFiles); n != 3 {
		t.Errorf("the files bucket holds %d pieces, want 3 (shared)", n)
	}
	got, ok, err := l.Files().Original(b.ID)
	if err != nil || !ok || !bytes.Equal(got, file) {
		t.Fatalf("Original: %d bytes, %v, %v", len(got), ok, err)
	}
	if err := l.Remove(a.ID); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := l.Geometry().Original(b.ID); err != nil || !ok || !bytes.Equal(got, file) {
		t.Fatalf("Original after the other document's removal: %d bytes, %v, %v", len(got), ok, err)
	}
	if err := l.Remove(b.ID); err != nil {
		t.Fatal(err)
	}
	if n, m := countKeys(t, l, bucketFiles), countKeys(t, l, bucketFileRefs); n != 0 || m != 0 {
		t.Errorf("after both documents' removal: %d pieces, %d references left", n, m)
	}
	// A document without a file has none, and says so.
	c := addText(t, l, "c.txt", "A short text about lighthouses.")
	if _, ok, err := l.Files().Original(c.ID); ok || err != nil {
		t.Errorf("Original of a document without a file: %v %v", ok, err)
	}
	// A damaged piece is found by the digest.
	d, _, err := writeDoc(l, withOriginal("d.txt", "Buoys mark the channel.", []byte("%PDF-1.4 tiny")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.store.Update(func(tx storage.Tx) error {
		return tx.Bucket(bucketFiles).ForEach(func(k, v []byte) error { return tx.Bucket(bucketFiles).Put(k, []byte("%PDF-1.4 tinY")) })
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Files().Original(d.ID); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Original of a damaged file: %v", err)
	}
}

// TestFilePolicy: a library file keeps no files unless asked to.
func TestFilePolicy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lib.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Files().Keeps() {
		t.Error("a library file keeps files by default")
	}
	l.Close()
	l, err = Open(path, &Options{Files: FilesKeep})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Files().Keeps() {
		t.Error("FilesKeep did not keep files")
	}
}

// TestAuthors: a saved answer and an added document record who wrote
// them: the OS user, and the database role on a server; an answer saved
// again keeps its author; a record that has one keeps its own.
func TestAuthors(t *testing.T) {
	t.Parallel()
	forBackends(t, testAuthors)
}

func testAuthors(t *testing.T, bk backend) {
	l := bk.library(t)
	want := Author{User: osUser()}
	if bk.name == "postgres" {
		want.Role = pgtest.User
	}
	if got := l.Answers().Author(); got != want {
		t.Fatalf("Author() = %+v, want %+v", got, want)
	}
	d := addText(t, l, "a.txt", "The harbour is deep.")
	if d.AddedBy == nil || *d.AddedBy != want {
		t.Errorf("the document's AddedBy: %+v", d.AddedBy)
	}
	rec := `{"answer_id":"a1","question":"Why?","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`
	if err := l.Answers().Save("a1", []byte(rec)); err != nil {
		t.Fatal(err)
	}
	list, err := l.Answers().List()
	if err != nil || len(list) != 1 || list[0].Author == nil || *list[0].Author != want {
		t.Fatalf("List: %+v %v", list, err)
	}
	_, got, err := l.Answers().Get("a1")
	if err != nil || !strings.HasPrefix(string(got), rec[:len(rec)-1]+`,"author":{`) || !strings.HasSuffix(string(got), `}}`) {
		t.Errorf("the saved record: %s %v", got, err)
	}
	// Saved again without an author (a front end that rewrote it): the
	// first author stays.
	if err := l.store.Update(func(tx storage.Tx) error {
		return tx.Bucket(bucketAnswers).Put([]byte("a1"), []byte(`{"answer_id":"a1","author":{"user":"first"}}`))
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.Answers().Save("a1", []byte(rec)); err != nil {
		t.Fatal(err)
	}
	if list, _ := l.Answers().List(); len(list) != 1 || list[0].Author == nil || list[0].Author.User != "first" {
		t.Errorf("an answer saved again lost its author: %+v", list)
	}
	if err := l.Answers().Save("a2", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, got, _ := l.Answers().Get("a2"); !strings.HasPrefix(string(got), `{"author":{`) || !strings.HasSuffix(string(got), `}}`) || json.Valid(got) == false {
		t.Errorf("an empty record with its author: %s", got)
	}
	if err := l.Answers().Save("a3", []byte(`[1]`)); err == nil {
		t.Error("a record that is not an object was saved")
	}
}

// TestAuthorString: the role, with the OS user in brackets when it is
// another name.
func TestAuthorString(t *testing.T) {
	for a, want := range map[Author]string{
		{User: "maria"}:                     "maria",
		{Role: "analysts", User: "maria"}:   "analysts (maria)",
		{Role: "maria", User: "maria"}:      "maria",
		{Role: "analysts"}:                  "analysts",
		{Role: "analysts", User: "analyst"}: "analysts (analyst)",
	} {
		if got := a.String(); got != want {
			t.Errorf("%+v: %q, want %q", a, got, want)
		}
	}
}

// TestCollections: collections in every backend (the bucket's on a file,
// the server's tables on PostgreSQL) do the same for one user: made,
// added to, taken from, listed, deleted; a name made twice, a name that
// is not there and a bad name are errors; InLibrary skips documents
// removed since.
func TestCollections(t *testing.T) {
	t.Parallel()
	forBackends(t, testCollections)
}

func testCollections(t *testing.T, bk backend) {
	l := bk.library(t)
	a := addText(t, l, "a.txt", "The harbour is deep.")
	b := addText(t, l, "b.txt", "Tides rise twice a day.")
	c := addText(t, l, "c.txt", "The pilot knows them.")
	cs := l.Collections()
	if err := cs.Create("port", false, []string{string(b.ID), string(a.ID)}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Create("port", true, nil); !errors.Is(err, storage.ErrCollectionExists) {
		t.Errorf("a second Create: %v", err)
	}
	if err := cs.Create("mine", true, []string{string(c.ID)}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", " ", "a\x1bb", strings.Repeat("x", 201)} {
		if err := cs.Create(bad, false, nil); err == nil {
			t.Errorf("Create(%q) made a collection", bad)
		}
	}
	if err := cs.Add("port", []string{string(c.ID), string(a.ID)}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Remove("port", []string{string(b.ID), "nothere"}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.Get("port")
	want := []string{string(a.ID), string(c.ID)}
	slices.Sort(want)
	owner := l.Answers().Author().String() // a file's: the OS user
	if bk.name == "postgres" {
		owner = pgtest.User // the server's: the role, which its policies compare
	}
	if err != nil || !slices.Equal(got.Docs, want) || got.Private || got.Owner != owner || got.Created.IsZero() {
		t.Fatalf("Get: %+v %v", got, err)
	}
	list, err := cs.List()
	if err != nil || len(list) != 2 || list[0].Name != "mine" || !list[0].Private || list[1].Name != "port" {
		t.Fatalf("List: %+v %v", list, err)
	}
	if err := l.Remove(c.ID); err != nil {
		t.Fatal(err)
	}
	docs, gone, err := l.Collections().InLibrary("port")
	if err != nil || !slices.Equal(docs, []DocID{a.ID}) || gone != 1 {
		t.Errorf("InLibrary after a removal: %v, %d gone, %v", docs, gone, err)
	}
	for what, err := range map[string]error{
		"Get": func() error { _, err := cs.Get("nope"); return err }(), "Add": cs.Add("nope", nil),
		"Remove": cs.Remove("nope", nil), "Delete": cs.Delete("nope"),
	} {
		if !errors.Is(err, storage.ErrCollectionNotFound) {
			t.Errorf("%s of a missing collection: %v", what, err)
		}
	}
	if err := cs.Delete("port"); err != nil {
		t.Fatal(err)
	}
	if list, err := cs.List(); err != nil || len(list) != 1 {
		t.Errorf("List after Delete: %+v %v", list, err)
	}
}

// TestReadableViews: on PostgreSQL the library's records are views a
// database administrator reads — documents with their author, files and
// their pieces, answers — every column commented.
func TestReadableViews(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	db, err := pgkv.Open(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenStore(db, "postgres", nil)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	defer l.Close()
	file := []byte("%PDF-1.4 the file's bytes")
	info, _, err := writeDoc(l, withOriginal("a.pdf", "The harbour is deep. Ships wait.", file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Answers().Save("a1", []byte(`{"answer_id":"a1","question":"Why deep?","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`)); err != nil {
		t.Fatal(err)
	}
	sql, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer sql.Close(context.Background())
	ctx := context.Background()
	var id, name, kind, by, osUserCol, sha string
	var pages int
	if err := sql.QueryRow(ctx, "SELECT id, name, kind, pages, added_by, added_by_os_user, file_sha256 FROM citelens_documents").Scan(&id, &name, &kind, &pages, &by, &osUserCol, &sha); err != nil {
		t.Fatal(err)
	}
	if id != string(info.ID) || name != "a.pdf" || kind != "text" || pages != 1 || by != pgtest.User || osUserCol != osUser() || sha != info.File.SHA256 {
		t.Errorf("citelens_documents: %s %s %s %d %s %s %s", id, name, kind, pages, by, osUserCol, sha)
	}
	var bytesOf []byte
	var size int64
	if err := sql.QueryRow(ctx, `SELECT f.size, (SELECT string_agg(p.bytes, '' ORDER BY p.piece) FROM citelens_file_pieces p WHERE p.sha256 = f.sha256)
		FROM citelens_files f WHERE f.document = $1`, id).Scan(&size, &bytesOf); err != nil {
		t.Fatal(err)
	}
	if size != int64(len(file)) || !bytes.Equal(bytesOf, file) {
		t.Errorf("citelens_files and its pieces: %d, %q", size, bytesOf)
	}
	var q, author string
	var created int64
	if err := sql.QueryRow(ctx, "SELECT question, author, extract(epoch FROM created)::bigint FROM citelens_answers WHERE id = 'a1'").Scan(&q, &author, &created); err != nil {
		t.Fatal(err)
	}
	if q != "Why deep?" || author != pgtest.User || created != fixtureAdded.Unix() {
		t.Errorf("citelens_answers: %q %q %d", q, author, created)
	}
	// Every column of every view and table of ours has a comment.
	rows, err := sql.Query(ctx, `SELECT c.relname || '.' || a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE c.relname LIKE 'citelens\_%' AND c.relkind IN ('r', 'v') AND a.attnum > 0 AND NOT a.attisdropped
		AND col_description(c.oid, a.attnum) IS NULL
		UNION ALL SELECT relname FROM pg_class WHERE relname LIKE 'citelens\_%' AND relkind IN ('r', 'v') AND obj_description(oid) IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(bare) > 0 {
		t.Errorf("without a comment: %v %v", bare, err)
	}
}

// TestFilesSkip: a store opened by OpenStore keeps no files when told
// not to.
func TestFilesSkip(t *testing.T) {
	t.Parallel()
	db, err := boltkv.Open(filepath.Join(t.TempDir(), "l.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenStore(db, "l.db", &Options{Files: FilesSkip})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Files().Keeps() {
		t.Error("FilesSkip kept files")
	}
}

// TestSalvageKeepsFiles: a salvaged copy keeps a document's kept file.
func TestSalvageKeepsFiles(t *testing.T) {
	t.Parallel()
	db, err := boltkv.Open(filepath.Join(t.TempDir(), "src.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := OpenStore(db, "src.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	file := []byte("%PDF-1.4 kept")
	info, _, err := writeDoc(src, withOriginal("a.txt", "The harbour is deep. Ships wait.", file), nil)
	if err != nil {
		t.Fatal(err)
	}
	dst := openTestLibrary(t)
	if _, err := src.Salvage(context.Background(), dst, fixtureSplit, nil); err != nil {
		t.Fatal(err)
	}
	got, ok, err := dst.Files().Original(info.ID)
	if err != nil || !ok || !bytes.Equal(got, file) {
		t.Errorf("the salvaged copy's kept file: %q %v %v", got, ok, err)
	}
}
