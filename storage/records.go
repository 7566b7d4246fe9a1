package storage

import (
	"errors"
	"time"
)

// Optional interfaces a store may implement, beyond DB, for a library that
// many people share on a server: who is writing (Identity), tables a
// database administrator can read over the library's records (Tabulator),
// and collections kept and guarded by the server itself (CollectionStore).
// The library asks for each with a type assertion and does without it
// where a store has none (a library file: one person, no administrator).

// Identity is a store that knows who is connected: a server's database
// role. The library records it as the author of what it saves, beside the
// operating-system user, since one role is often shared by a team.
type Identity interface {
	// Role is the name the server knows this connection's user by
	// (PostgreSQL's current_user).
	Role() (string, error)
}

// Tabulator is a store that can show some of the library's records as
// read-only tables, so that a database administrator reads documents and
// answers with SQL rather than decoding keys and JSON. The library says
// what its records are (RecordSet); the store makes and keeps the tables
// (views) that decode them. Tabulate is cheap when the sets have not
// changed since the last call, so the library calls it at every open
// that may write.
type Tabulator interface {
	Tabulate(sets []RecordSet) error
}

// RecordSet describes the records of one top-level bucket as a table: one
// row per key that holds a value (nested buckets are not rows), its
// columns read from the key (KeyParts) and from the value (Columns).
type RecordSet struct {
	// Name is the table's name without the store's prefix: "documents".
	Name string
	// Comment says what a row is, for the administrator.
	Comment string
	// Bucket is the top-level bucket the records are in.
	Bucket string
	// KeyParts read the key, left to right; a key shorter than their
	// fixed lengths is not a row.
	KeyParts []KeyPart
	// Columns read the value. With JSON set every column is a field of
	// the value, a JSON object; without it the one column (Path empty)
	// is the value's bytes.
	JSON    bool
	Columns []Column
	// Where, when set, keeps only the rows whose value has this JSON
	// field (a dotted path, as Column.Path).
	Where string
}

// KeyPart is a part of a key, shown as a column.
type KeyPart struct {
	Name    string
	Comment string
	// Kind is how the part reads: KeyText (UTF-8 text), KeyHex (bytes as
	// lowercase hex) or KeyUint32 (a big-endian uint32).
	Kind KeyKind
	// Len is the part's length in bytes; 0 for the rest of the key (the
	// last part only).
	Len int
}

// KeyKind is how a KeyPart reads.
type KeyKind int

// The kinds of key part.
const (
	KeyText KeyKind = iota
	KeyHex
	KeyUint32
)

// Column is a column read from a record's value.
type Column struct {
	Name    string
	Comment string
	// Path is the JSON field, dotted for nested objects ("file.sha256"),
	// or "" for the whole value (JSON: as jsonb; raw: as bytes).
	Path string
	// Type is the column's type: ColText, ColInteger, ColTime, ColJSON,
	// ColBool or ColBytes (the whole raw value).
	Type ColumnType
}

// ColumnType is a Column's type.
type ColumnType int

// The types of column.
const (
	ColText ColumnType = iota
	ColInteger
	ColTime
	ColJSON
	ColBool
	ColBytes
)

// CollectionStore is a store that keeps the library's collections
// itself, where the server enforces who sees a private one (PostgreSQL's
// row-level security), rather than as records the library reads and
// could show to anyone. A store without it holds them in a bucket.
type CollectionStore interface {
	// Collections returns the store's collections as the connected role
	// sees them.
	Collections() Collections
}

// Collections are named sets of document IDs, shared with everyone or
// private to their owner. A private collection of another owner is not
// there at all: Get and List do not see it, and changing it fails with
// ErrCollectionNotFound.
type Collections interface {
	// Create makes the collection name, owned by the caller, holding
	// docs; ErrCollectionExists when the caller already has one of that
	// name, or sees another's shared one.
	Create(name string, private bool, docs []string) error
	// Add puts docs into the collection name (ones there already are no
	// error); Remove takes them out (ones not there are no error).
	Add(name string, docs []string) error
	Remove(name string, docs []string) error
	// Get returns the collection name.
	Get(name string) (Collection, error)
	// List returns every collection the caller sees, by name.
	List() ([]Collection, error)
	// Delete removes the collection name (never its documents); only
	// its owner may.
	Delete(name string) error
}

// Collection is a named set of documents.
type Collection struct {
	Name string `json:"name"`
	// Owner is who made it: the database role, or on a library file the
	// operating-system user.
	Owner   string    `json:"owner"`
	Private bool      `json:"private"`
	Created time.Time `json:"created"`
	// Docs are the IDs of its documents, in byte order.
	Docs []string `json:"docs"`
}

// The errors of Collections (errors.Is).
var (
	ErrCollectionNotFound = errors.New("no such collection")
	ErrCollectionExists   = errors.New("a collection of that name exists")
	ErrNotOwner           = errors.New("only the collection's owner may do that")
)
