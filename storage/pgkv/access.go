package pgkv

// This file turns what the server refuses into errors a person can act
// on: no such database, a wrong password, TLS the server does not
// offer, a role that may only read. Each names the server and the
// database (never the password) and carries its fix (internal/fix).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/citelens/citelens/internal/fix"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	// ErrNoDatabase means the server has no database of the name given:
	// citelens makes its tables in a database, not the database itself.
	ErrNoDatabase = errors.New("no such database")
	// ErrNoStore means the database holds no citelens tables, and Open
	// was asked (Options.Existing) not to make them.
	ErrNoStore = errors.New("no citelens library in the database")
	// ErrReadOnly means the role may read the store but not write it: the
	// server refused a write for want of rights (SQLSTATE 42501).
	ErrReadOnly = errors.New("read-only access to the library")
)

// SQLSTATEs the server refuses with.
const (
	codeNoDatabase       = "3D000" // invalid_catalog_name
	codeNoRights         = "42501" // insufficient_privilege
	codeBadPassword      = "28P01" // invalid_password
	codeBadAuthorization = "28000" // invalid_authorization_specification
)

// place is the server and database of cfg as a person names them,
// HOST/DB (the socket's folder for a Unix socket), for the messages
// that say where the library is.
func place(cfg *pgx.ConnConfig) string {
	host := cfg.Host
	if cfg.Port != 0 && cfg.Port != 5432 {
		host = fmt.Sprintf("%s:%d", host, cfg.Port)
	}
	return host + "/" + cfg.Database
}

// connectError explains a failure to connect to cfg's server, with its
// fix where the server's answer says what is wrong.
func connectError(cfg *pgx.ConnConfig, where string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case codeNoDatabase:
			return fix.With(fmt.Errorf("pgkv: %w: the server %s has no database %q", ErrNoDatabase, hostOf(cfg), cfg.Database),
				"Create it (as a role that may): createdb %s%s\nor ask the server's administrator to; citelens makes its tables in it.", createdbFlags(cfg), cfg.Database)
		case codeBadPassword, codeBadAuthorization:
			return fix.With(fmt.Errorf("pgkv: connecting to %s: the server refused role %q: %s", where, cfg.User, pgErr.Message),
				"Give the role's password in PGPASSWORD, in ~/.pgpass (or the file PGPASSFILE names) or a service file (PGSERVICEFILE),\n"+
					"or check the role's name (user= or the URL's user@).")
		}
	}
	if strings.Contains(err.Error(), "refused TLS") {
		return fix.With(fmt.Errorf("pgkv: connecting to %s: the server offers no TLS, and the address asks for it (sslmode): %w", where, err),
			"Ask the server's administrator to turn on ssl, or, on a network you trust, connect with sslmode=prefer or sslmode=disable.")
	}
	return fmt.Errorf("pgkv: connecting to %s: %w", where, err)
}

// hostOf is the server of cfg: its host (or socket folder) and port.
func hostOf(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s port %d", cfg.Host, cfg.Port)
}

// createdbFlags are createdb's flags that reach cfg's server, when its
// defaults would not.
func createdbFlags(cfg *pgx.ConnConfig) string {
	var b strings.Builder
	if cfg.Host != "" && cfg.Host != "/var/run/postgresql" && cfg.Host != "/run/postgresql" && cfg.Host != "/tmp" {
		fmt.Fprintf(&b, "-h %s ", shellQuote(cfg.Host))
	}
	if cfg.Port != 0 && cfg.Port != 5432 {
		fmt.Fprintf(&b, "-p %d ", cfg.Port)
	}
	return b.String()
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// rightsError is the error of a write the server refused for want of
// rights, or nil when err is not one: a read-only role's add or rm.
func rightsError(db *DB, err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != codeNoRights {
		return nil
	}
	return fix.With(fmt.Errorf("%w at %s: role %q may read it but not write it (%s)", ErrReadOnly, db.place, db.user, pgErr.Message),
		"Reading still works: ls, show, search, answers, export and ask --no-save.\n"+
			"To add, remove or save answers, ask the database's owner for write rights:\n"+
			"  GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %s;\n"+
			"  GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO %s;", db.user, db.user)
}

// upToDate reports whether the database holds citelens's tables at
// this citelens's schema version, read without the writer lock.
func upToDate(ctx context.Context, conn *pgx.Conn) (bool, error) {
	if exists, err := storeExists(ctx, conn); err != nil || !exists {
		return false, err
	}
	var v int
	if err := conn.QueryRow(ctx, "SELECT schema_version FROM citelens_meta").Scan(&v); err != nil {
		return false, err
	}
	return v == schemaVersion, nil
}

// storeExists reports whether the database holds citelens's tables,
// without waiting for a writer or making anything.
func storeExists(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var exists bool
	err := conn.QueryRow(ctx, "SELECT to_regclass('citelens_meta') IS NOT NULL").Scan(&exists)
	return exists, err
}
