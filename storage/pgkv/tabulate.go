package pgkv

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// What a database administrator reads: views over the library's records,
// made from the library's own description of them (storage.RecordSet),
// so this package names none of the library's buckets and a change of
// the library's records changes the views with it. Each view is a
// citelens_<name>, listed in citelens_record_sets with the description
// it was made from.

var (
	_ storage.Tabulator       = (*DB)(nil)
	_ storage.Identity        = (*DB)(nil)
	_ storage.CollectionStore = (*DB)(nil)
)

// viewPrefix begins every view's name.
const viewPrefix = "citelens_"

// tabulateLock is the advisory lock held while views are made, so two
// opens do not make them at once; not the writer lock, which a long add
// holds.
const tabulateLock int64 = 0x636974656c766965

// Tabulate makes or remakes the views of sets whose description is not
// the one they were made from, and drops views of sets no longer
// described. When nothing changed it reads one table and writes nothing,
// so a role without the right to make views opens the library all the
// same; a change it may not make is passed over (the views stay as they
// were until a role that may opens the store).
func (db *DB) Tabulate(sets []storage.RecordSet) error {
	ctx := context.Background()
	want := map[string]string{}
	for _, s := range sets {
		if s.Name == "" || s.Bucket == "" {
			return fmt.Errorf("pgkv: a record set needs a name and a bucket: %+v", s)
		}
		def, err := json.Marshal(s)
		if err != nil {
			return err
		}
		want[viewPrefix+s.Name] = string(def)
	}
	have, err := db.recordSets(ctx)
	if err == nil && !equalSets(have, want) {
		err = db.tabulate(ctx, sets, want)
	}
	if IsPermissionError(err) {
		// A role that may not read the list of views, or not make them:
		// the views stay as they are until a role that may opens the
		// store.
		return nil
	}
	return err
}

// tabulate makes the views that changed, in one transaction.
func (db *DB) tabulate(ctx context.Context, sets []storage.RecordSet, want map[string]string) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", tabulateLock); err != nil {
			return err
		}
		have, err := readSets(ctx, tx)
		if err != nil {
			return err
		}
		for name := range have {
			if _, ok := want[name]; !ok {
				if _, err := tx.Exec(ctx, "DROP VIEW IF EXISTS "+ident(name)); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "DELETE FROM citelens_record_sets WHERE name = $1", name); err != nil {
					return err
				}
			}
		}
		for _, s := range sets {
			name := viewPrefix + s.Name
			if have[name] == want[name] {
				continue
			}
			stmts, err := viewSQL(name, s)
			if err != nil {
				return err
			}
			for _, stmt := range stmts {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("making the view %s: %w", name, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO citelens_record_sets (name, definition) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET definition = excluded.definition`, name, want[name]); err != nil {
				return err
			}
		}
		return nil
	})
}

// IsPermissionError reports whether err is the server's refusal of
// something the connected role has no right to do (SQLSTATE 42501).
func IsPermissionError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}

// recordSets reads citelens_record_sets.
func (db *DB) recordSets(ctx context.Context) (map[string]string, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgkv: connecting to %s: %w", db.where, err)
	}
	defer conn.Release()
	return readSets(ctx, conn.Conn())
}

// querier is a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func readSets(ctx context.Context, q querier) (map[string]string, error) {
	rows, err := q.Query(ctx, "SELECT name, definition FROM citelens_record_sets")
	if err != nil {
		return nil, err
	}
	have := map[string]string{}
	var name, def string
	_, err = pgx.ForEachRow(rows, []any{&name, &def}, func() error {
		have[name] = def
		return nil
	})
	return have, err
}

func equalSets(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// viewSQL is the statements that make the view name over s: the view,
// replaced whole (its columns may have changed), and a comment on it and
// on each of its columns.
func viewSQL(name string, s storage.RecordSet) ([]string, error) {
	var cols []string
	var comments []string
	off := 1 // substr counts from 1
	minLen := 0
	for i, p := range s.KeyParts {
		if p.Len == 0 && i != len(s.KeyParts)-1 {
			return nil, fmt.Errorf("pgkv: record set %s: only the last key part may take the rest of the key", s.Name)
		}
		part := fmt.Sprintf("substr(e.key, %d)", off)
		if p.Len > 0 {
			part = fmt.Sprintf("substr(e.key, %d, %d)", off, p.Len)
		}
		var expr string
		switch p.Kind {
		case storage.KeyText:
			expr = fmt.Sprintf("convert_from(%s, 'UTF8')", part)
		case storage.KeyHex:
			expr = fmt.Sprintf("encode(%s, 'hex')", part)
		case storage.KeyUint32:
			if p.Len != 4 {
				return nil, fmt.Errorf("pgkv: record set %s: a uint32 key part is 4 bytes", s.Name)
			}
			expr = fmt.Sprintf("('x' || encode(%s, 'hex'))::bit(32)::bigint", part)
		default:
			return nil, fmt.Errorf("pgkv: record set %s: unknown key part kind %d", s.Name, p.Kind)
		}
		cols = append(cols, expr+" AS "+ident(p.Name))
		comments = append(comments, commentOn("COLUMN "+ident(name)+"."+ident(p.Name), p.Comment))
		off += p.Len
		minLen += p.Len
	}
	for _, c := range s.Columns {
		var expr string
		if !s.JSON {
			if c.Type != storage.ColBytes || c.Path != "" {
				return nil, fmt.Errorf("pgkv: record set %s: a raw value is one bytes column", s.Name)
			}
			expr = "e.value"
		} else {
			path := "'{" + strings.ReplaceAll(c.Path, ".", ",") + "}'"
			text := "v.j #>> " + path
			switch c.Type {
			case storage.ColText:
				expr = text
			case storage.ColInteger:
				expr = "(" + text + ")::bigint"
			case storage.ColTime:
				expr = "(" + text + ")::timestamptz"
			case storage.ColBool:
				expr = "(" + text + ")::boolean"
			case storage.ColJSON:
				expr = "v.j #> " + path
				if c.Path == "" {
					expr = "v.j"
				}
			default:
				return nil, fmt.Errorf("pgkv: record set %s: column %s: unknown type %d", s.Name, c.Name, c.Type)
			}
		}
		cols = append(cols, expr+" AS "+ident(c.Name))
		comments = append(comments, commentOn("COLUMN "+ident(name)+"."+ident(c.Name), c.Comment))
	}
	from := "citelens_entries e"
	if s.JSON {
		from += " CROSS JOIN LATERAL (SELECT convert_from(e.value, 'UTF8')::jsonb AS j) v"
	}
	where := fmt.Sprintf("e.bucket = (SELECT t.child FROM citelens_entries t WHERE t.bucket = 0 AND t.key = '\\x%s'::bytea) AND e.value IS NOT NULL",
		hex.EncodeToString([]byte(s.Bucket)))
	if minLen > 0 {
		where += fmt.Sprintf(" AND length(e.key) >= %d", minLen)
	}
	if s.Where != "" && s.JSON {
		where += " AND v.j #> '{" + strings.ReplaceAll(s.Where, ".", ",") + "}' IS NOT NULL"
	}
	stmts := []string{
		"DROP VIEW IF EXISTS " + ident(name),
		"CREATE VIEW " + ident(name) + " AS SELECT " + strings.Join(cols, ", ") + " FROM " + from + " WHERE " + where,
		commentOn("VIEW "+ident(name), s.Comment+" (a view over the bucket "+s.Bucket+" of citelens_entries, made by citelens: see citelens_record_sets)"),
	}
	return append(stmts, comments...), nil
}

// ident quotes a name for SQL.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// commentOn is a COMMENT ON statement for what.
func commentOn(what, text string) string {
	return "COMMENT ON " + what + " IS '" + strings.ReplaceAll(text, "'", "''") + "'"
}

// Role is the connected role, current_user: the author citelens records
// for what this connection saves.
func (db *DB) Role() (string, error) {
	var role string
	if err := db.pool.QueryRow(context.Background(), "SELECT current_user").Scan(&role); err != nil {
		return "", fmt.Errorf("pgkv: %s: %w", db.where, err)
	}
	return role, nil
}
