package pgkv

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/citelens/citelens/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Collections in relational tables (citelens_collections,
// citelens_collection_documents, schema.go), guarded by row-level
// security: a role's queries see the shared collections and its own
// private ones, and nothing here filters by owner, so what a role may
// not see it cannot reach through citelens or through psql. The queries
// run on the pool, outside the key-value transactions: a collection is
// not part of a document's write.

// Collections returns the store's collections as the connected role sees
// them.
func (db *DB) Collections() storage.Collections { return pgCollections{db} }

type pgCollections struct{ db *DB }

// find is the id of the collection name the role sees: its own first,
// then the oldest shared one of that name.
const qFindCollection = `SELECT id, owner = current_user FROM citelens_collections WHERE name = $1
	ORDER BY owner = current_user DESC, created, id LIMIT 1`

func (c pgCollections) tx(fn func(ctx context.Context, tx pgx.Tx) error) error {
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, c.db.pool, func(tx pgx.Tx) error { return fn(ctx, tx) })
	if err != nil && !errors.Is(err, storage.ErrCollectionNotFound) && !errors.Is(err, storage.ErrCollectionExists) && !errors.Is(err, storage.ErrNotOwner) {
		return fmt.Errorf("pgkv: collections (%s): %w", c.db.where, err)
	}
	return err
}

// find returns the id of the collection name, and whether the role owns
// it.
func find(ctx context.Context, tx pgx.Tx, name string) (id int64, own bool, err error) {
	err = tx.QueryRow(ctx, qFindCollection, name).Scan(&id, &own)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, fmt.Errorf("%w: %q", storage.ErrCollectionNotFound, name)
	}
	return id, own, err
}

func (c pgCollections) Create(name string, private bool, docs []string) error {
	return c.tx(func(ctx context.Context, tx pgx.Tx) error {
		if _, _, err := find(ctx, tx, name); err == nil {
			return fmt.Errorf("%w: %q", storage.ErrCollectionExists, name)
		} else if !errors.Is(err, storage.ErrCollectionNotFound) {
			return err
		}
		var id int64
		err := tx.QueryRow(ctx, "INSERT INTO citelens_collections (name, private) VALUES ($1, $2) RETURNING id", name, private).Scan(&id)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" { // made meanwhile by another process
			return fmt.Errorf("%w: %q", storage.ErrCollectionExists, name)
		}
		if err != nil {
			return err
		}
		return addDocs(ctx, tx, id, docs)
	})
}

func addDocs(ctx context.Context, tx pgx.Tx, id int64, docs []string) error {
	_, err := tx.Exec(ctx, `INSERT INTO citelens_collection_documents (collection, document)
		SELECT $1, d FROM unnest($2::text[]) d ON CONFLICT DO NOTHING`, id, docs)
	return err
}

func (c pgCollections) Add(name string, docs []string) error {
	return c.tx(func(ctx context.Context, tx pgx.Tx) error {
		id, _, err := find(ctx, tx, name)
		if err != nil {
			return err
		}
		return addDocs(ctx, tx, id, docs)
	})
}

func (c pgCollections) Remove(name string, docs []string) error {
	return c.tx(func(ctx context.Context, tx pgx.Tx) error {
		id, _, err := find(ctx, tx, name)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM citelens_collection_documents WHERE collection = $1 AND document = ANY($2::text[])", id, docs)
		return err
	})
}

func (c pgCollections) Get(name string) (storage.Collection, error) {
	var out storage.Collection
	err := c.tx(func(ctx context.Context, tx pgx.Tx) error {
		id, _, err := find(ctx, tx, name)
		if err != nil {
			return err
		}
		all, err := list(ctx, tx, id)
		if err == nil {
			out = all[0]
		}
		return err
	})
	return out, err
}

func (c pgCollections) List() ([]storage.Collection, error) {
	var out []storage.Collection
	err := c.tx(func(ctx context.Context, tx pgx.Tx) (err error) {
		out, err = list(ctx, tx, 0)
		return err
	})
	return out, err
}

// list reads the collection id (0: every one the role sees) with their
// documents, by name.
func list(ctx context.Context, tx pgx.Tx, id int64) ([]storage.Collection, error) {
	rows, err := tx.Query(ctx, `SELECT c.name, c.owner::text, c.private, c.created,
			coalesce(array_agg(d.document ORDER BY convert_to(d.document, 'UTF8')) FILTER (WHERE d.document IS NOT NULL), '{}')
		FROM citelens_collections c LEFT JOIN citelens_collection_documents d ON d.collection = c.id
		WHERE $1::bigint = 0 OR c.id = $1
		GROUP BY c.id ORDER BY c.name, c.owner, c.id`, id)
	if err != nil {
		return nil, err
	}
	var out []storage.Collection
	var col storage.Collection
	_, err = pgx.ForEachRow(rows, []any{&col.Name, &col.Owner, &col.Private, &col.Created, &col.Docs}, func() error {
		col.Docs = slices.Clip(col.Docs)
		out = append(out, col)
		col = storage.Collection{}
		return nil
	})
	if err == nil && id != 0 && len(out) == 0 {
		err = storage.ErrCollectionNotFound
	}
	return out, err
}

func (c pgCollections) Delete(name string) error {
	return c.tx(func(ctx context.Context, tx pgx.Tx) error {
		id, own, err := find(ctx, tx, name)
		if err != nil {
			return err
		}
		if !own {
			return fmt.Errorf("%w: %q is shared by another role, who may delete it", storage.ErrNotOwner, name)
		}
		_, err = tx.Exec(ctx, "DELETE FROM citelens_collections WHERE id = $1", id)
		return err
	})
}
