package pgtest

import (
	"context"
	"fmt"
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

// TestConnStringQuoting: a socket folder with a space, a quote, a
// backslash or an ampersand reads back whole from either form.
func TestConnStringQuoting(t *testing.T) {
	d := Database{Host: `/tmp/a b'c\d&e=f`, Name: "t1"}
	for _, cs := range []string{d.ConnString(), d.URL()} {
		cfg, err := pgx.ParseConfig(cs)
		if err != nil {
			t.Fatalf("%s: %v", cs, err)
		}
		if cfg.Host != d.Host || cfg.Database != d.Name || cfg.User != User || cfg.Port != Port {
			t.Errorf("%s reads back host %q database %q user %q port %d", cs, cfg.Host, cfg.Database, cfg.User, cfg.Port)
		}
	}
}

// TestSweep removes the folder of a cluster whose test binary is dead,
// and keeps those of a live one and of one being made.
func TestSweep(t *testing.T) {
	parent := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	for name, owner := range map[string]string{
		"dead":  fmt.Sprintf("%d\n\n", dead.Process.Pid),
		"alive": fmt.Sprintf("%d\n\n", os.Getpid()),
		"new":   "",
	} {
		dir := filepath.Join(parent, basePrefix+name)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	sweep(parent)
	for name, want := range map[string]bool{"dead": false, "alive": true, "new": true} {
		if _, err := os.Stat(filepath.Join(parent, basePrefix+name)); (err == nil) != want {
			t.Errorf("%s's folder there: %v, want %v", name, err == nil, want)
		}
	}
}

// TestTCPConnString checks the connection strings of a cluster that
// listens on TCP too (MainOptions): both name the cluster's port, which
// is also the socket's, and only such a cluster has a TCP string.
func TestTCPConnString(t *testing.T) {
	sock := Database{Host: "/tmp/x", Name: "t1"}
	if got := sock.TCPConnString(); got != "" {
		t.Errorf("a socket-only database's TCPConnString = %q, want none", got)
	}
	if got := sock.ConnString(); !strings.Contains(got, "port=5432 ") {
		t.Errorf("ConnString = %q, want port 5432", got)
	}
	tcp := Database{Host: "/tmp/x", Name: "t1", TCPPort: 40123}
	for _, got := range []string{tcp.ConnString(), tcp.URL(), tcp.TCPConnString()} {
		if !strings.Contains(got, "port=40123") {
			t.Errorf("%q does not name port 40123", got)
		}
	}
	if got := tcp.TCPConnString(); !strings.Contains(got, "host=127.0.0.1 ") || strings.Contains(got, "/tmp/x") {
		t.Errorf("TCPConnString = %q, want host 127.0.0.1 and no socket folder", got)
	}
}
