package pgtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestNew connects to two fresh databases, by key=value string and by
// URL, and finds each empty and apart from the other.
func TestNew(t *testing.T) {
	ctx := context.Background()
	a, b := New(t), New(t)
	if a.Name == b.Name {
		t.Fatalf("two databases named %s", a.Name)
	}
	ca, err := pgx.Connect(ctx, a.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE x (y int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var db, usr string
	var tables int
	if err := cb.QueryRow(ctx, "SELECT current_database(), current_user, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&db, &usr, &tables); err != nil {
		t.Fatal(err)
	}
	if db != b.Name || usr != User || tables != 0 {
		t.Errorf("connected to %s as %s with %d tables, want %s as %s with none", db, usr, tables, b.Name, User)
	}
}

// TestFindIn names what to install when no folder holds PostgreSQL.
func TestFindIn(t *testing.T) {
	empty := t.TempDir()
	if dir, skip := findIn([]string{empty}); dir != "" || !strings.Contains(skip, "PostgreSQL not found: install postgresql") {
		t.Errorf("findIn(empty) = %q, %q", dir, skip)
	}
	fake := t.TempDir()
	for _, name := range []string{"initdb", "postgres"} {
		if err := os.WriteFile(filepath.Join(fake, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if dir, skip := findIn([]string{empty, fake}); dir != fake || skip != "" {
		t.Errorf("findIn(empty, fake) = %q, %q; want %q", dir, skip, fake)
	}
}

// TestLongTempDir runs TestNew in a child whose TMPDIR is too long a
// path for a socket: the socket must go to a short folder, and the child's
// cluster must be gone afterwards.
func TestLongTempDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second cluster")
	}
	if _, skip := findBinaries(); skip != "" {
		t.Skip(skip)
	}
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 100-len(t.TempDir())))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNew$", "-test.v")
	cmd.Env = append(os.Environ(), "TMPDIR="+long)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNew") {
		t.Fatalf("child with TMPDIR of %d bytes: %v\n%s", len(long), err, out)
	}
	if left, _ := os.ReadDir(long); len(left) != 0 {
		t.Errorf("the child left %d entries in its TMPDIR", len(left))
	}
}
