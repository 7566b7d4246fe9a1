package pgkv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/jackc/pgx/v5"
)

// superuser runs stmts in d as the cluster's superuser.
func superuser(t *testing.T, d pgtest.Database, stmts ...string) {
	t.Helper()
	d.Role = ""
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestNoDatabase: a database the server does not have is named, with
// the createdb that makes it, and nothing of the SQLSTATE.
func TestNoDatabase(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	d.Name = "team_missing"
	_, err := Open(context.Background(), d.ConnString())
	if !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("Open of a missing database: %v", err)
	}
	msg, how := err.Error(), fix.Of(err)
	if !strings.Contains(msg, `"team_missing"`) || !strings.Contains(msg, d.Host) || !strings.Contains(how, "createdb") || !strings.Contains(how, "team_missing") {
		t.Errorf("the error does not say which database is missing where and how to make it: %s / %s", msg, how)
	}
	if strings.Contains(msg, "SQLSTATE") {
		t.Errorf("the error shows a raw SQLSTATE: %s", msg)
	}
}

// TestExisting: with Options.Existing, an empty database is ErrNoStore
// and stays empty; once the tables are there it opens.
func TestExisting(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	if _, err := OpenOptions(context.Background(), d.ConnString(), Options{Existing: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("Open(Existing) of an empty database: %v", err)
	}
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if exists, err := storeExists(context.Background(), conn); err != nil || exists {
		t.Fatalf("Open(Existing) made the tables (%v)", err)
	}
	db, err := Open(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = OpenOptions(context.Background(), d.ConnString(), Options{Existing: true})
	if err != nil {
		t.Fatalf("Open(Existing) of a store: %v", err)
	}
	db.Close()
}

// TestReadOnlyRole: a role that may only SELECT reads the store and gets
// ErrReadOnly, naming the library and with its fix, for a write; it
// cannot make a store in an empty database either.
func TestReadOnlyRole(t *testing.T) {
	t.Parallel()
	owner, d := open(t)
	update(t, owner, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("docs"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	})
	reader := d.NewRole(t, "")
	superuser(t, d, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+reader.Role)
	db, err := Open(context.Background(), reader.ConnString())
	if err != nil {
		t.Fatalf("a read-only role cannot open the store: %v", err)
	}
	defer db.Close()
	view(t, db, func(tx storage.Tx) error {
		if v := tx.Bucket([]byte("docs")).Get([]byte("k")); string(v) != "v" {
			t.Errorf("the reader reads %q", v)
		}
		return nil
	})
	for name, fn := range map[string]func(tx storage.Tx) error{
		"put":    func(tx storage.Tx) error { return tx.Bucket([]byte("docs")).Put([]byte("k2"), []byte("v")) },
		"delete": func(tx storage.Tx) error { return tx.Bucket([]byte("docs")).Delete([]byte("k")) },
		"bucket": func(tx storage.Tx) error { _, err := tx.CreateBucket([]byte("more")); return err },
	} {
		err := db.Update(fn)
		if !errors.Is(err, ErrReadOnly) {
			t.Fatalf("%s as a reader: %v", name, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "read-only access to the library at "+d.Host+"/"+d.Name) || strings.Contains(msg, "SQLSTATE") {
			t.Errorf("%s as a reader: %s", name, msg)
		}
		if !strings.Contains(fix.Of(err), "write rights") {
			t.Errorf("%s as a reader: no fix: %q", name, fix.Of(err))
		}
	}
	view(t, owner, func(tx storage.Tx) error {
		if n := tx.Bucket([]byte("docs")).KeyCount(); n != 1 {
			t.Errorf("the reader's writes changed the store: %d keys", n)
		}
		return nil
	})

	// In an empty database the reader may not make the tables: a clear
	// refusal, and with Existing, ErrNoStore as for anyone.
	empty := pgtest.New(t).NewRole(t, "")
	if _, err := Open(context.Background(), empty.ConnString()); !errors.Is(err, ErrReadOnly) || !strings.Contains(fix.Of(err), "make the library") {
		t.Errorf("a reader opening an empty database: %v (%q)", err, fix.Of(err))
	}
	if _, err := OpenOptions(context.Background(), empty.ConnString(), Options{Existing: true}); !errors.Is(err, ErrNoStore) {
		t.Errorf("a reader opening an empty database, Existing: %v", err)
	}
}

// TestPasswords: a role that must give its password gives it in the
// URL, PGPASSWORD, a .pgpass file or a service file, as with libpq; a
// wrong one is refused with a fix, and no error shows it. (t.Setenv:
// not parallel.)
func TestPasswords(t *testing.T) {
	const pw = "Tr0ub4dor-s3cret"
	d := pgtest.New(t)
	r := d.NewRole(t, pw)
	superuser(t, d, "GRANT CREATE ON SCHEMA public TO "+r.Role)
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("PGSERVICEFILE", filepath.Join(t.TempDir(), "none"))
	openAs := func(what, cs string) error {
		t.Helper()
		db, err := Open(context.Background(), cs)
		if err != nil {
			if strings.Contains(err.Error(), pw) || strings.Contains(fix.Of(err), pw) {
				t.Errorf("%s: the error shows the password: %v", what, err)
			}
			return err
		}
		db.Close()
		return nil
	}
	if err := openAs("no password", r.ConnString()); err == nil || !strings.Contains(fix.Of(err), "PGPASSWORD") {
		t.Fatalf("without its password the role got in, or no fix: %v", err)
	}
	if err := openAs("a wrong password", r.ConnString()+" password=wrong"); err == nil {
		t.Fatal("a wrong password let the role in")
	}
	url := strings.Replace(r.URL(), r.Role+"@", r.Role+":"+pw+"@", 1)
	if err := openAs("the URL's password", url); err != nil {
		t.Errorf("the URL's password: %v", err)
	}
	if err := openAs("password=", r.ConnString()+" password="+pw); err != nil {
		t.Errorf("password= in the string: %v", err)
	}

	t.Setenv("PGPASSWORD", pw)
	if err := openAs("PGPASSWORD", r.ConnString()); err != nil {
		t.Errorf("PGPASSWORD: %v", err)
	}
	t.Setenv("PGPASSWORD", "")

	// libpq's .pgpass matches a Unix socket as host localhost.
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, fmt.Appendf(nil, "localhost:%d:%s:%s:%s\n", pgtest.Port, d.Name, r.Role, pw), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", pass)
	if err := openAs("PGPASSFILE", r.ConnString()); err != nil {
		t.Errorf("a .pgpass file: %v", err)
	}
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))

	services := filepath.Join(t.TempDir(), "pg_service.conf")
	if err := os.WriteFile(services, fmt.Appendf(nil, "[team]\nhost=%s\nport=%d\ndbname=%s\nuser=%s\npassword=%s\nsslmode=disable\n", d.Host, pgtest.Port, d.Name, r.Role, pw), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGSERVICEFILE", services)
	if err := openAs("a service file", "service=team"); err != nil {
		t.Errorf("a service file: %v", err)
	}
}

// TestSSLModeRequire: sslmode reaches the driver. The test cluster
// speaks no TLS and listens on a Unix socket, where libpq (and pgx)
// ignore sslmode; over TCP, through a relay to that socket, sslmode=
// require is refused with a fix, where sslmode=disable connects.
func TestSSLModeRequire(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP to relay through: %v", err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", filepath.Join(d.Host, fmt.Sprintf(".s.PGSQL.%d", pgtest.Port)))
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	addr := func(mode string) string {
		return fmt.Sprintf("postgres://%s@%s:%s/%s?sslmode=%s&connect_timeout=10", pgtest.User, host, port, d.Name, mode)
	}
	db, err := Open(context.Background(), addr("disable"))
	if err != nil {
		t.Fatalf("over the relay without TLS: %v", err)
	}
	db.Close()
	_, err = Open(context.Background(), addr("require"))
	if err == nil {
		t.Fatal("sslmode=require connected to a server without TLS")
	}
	if !strings.Contains(err.Error(), "no TLS") || !strings.Contains(fix.Of(err), "sslmode") || !strings.Contains(err.Error(), d.Name) {
		t.Errorf("sslmode=require against a server without TLS: %v (%q)", err, fix.Of(err))
	}
}

// TestOpenDoesNotWaitForWriter: opening a store of this version, to
// read it, does not queue behind a writer that holds the writer lock.
func TestOpenDoesNotWaitForWriter(t *testing.T) {
	t.Parallel()
	_, d := open(t)
	holder, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	if _, err := holder.Exec(context.Background(), "SELECT pg_advisory_lock($1)", writerLock); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := OpenOptions(ctx, d.ConnString(), Options{Existing: true})
	if err != nil {
		t.Fatalf("Open while a writer holds the lock: %v", err)
	}
	db.Close()
}

// TestConnectTimeout: a connection string without connect_timeout gets
// a bound; one with it keeps its own.
func TestConnectTimeout(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "")
	cfg, err := parseConfig("host=/nowhere dbname=x")
	if err != nil || cfg.ConnConfig.ConnectTimeout != defaultConnectTimeout {
		t.Errorf("no connect_timeout: %v, %v", cfg.ConnConfig.ConnectTimeout, err)
	}
	cfg, err = parseConfig("postgres:///x?connect_timeout=3")
	if err != nil || cfg.ConnConfig.ConnectTimeout != 3*time.Second {
		t.Errorf("connect_timeout=3: %v, %v", cfg.ConnConfig.ConnectTimeout, err)
	}
}
