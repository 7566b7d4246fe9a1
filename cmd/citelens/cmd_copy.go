package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/dbaddr"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/storecopy"
)

func init() {
	register(&command{
		name:    "copy",
		args:    "[--force] [--json] DEST",
		summary: "copy the whole library (documents, files, index, vectors, answers) to DEST, a file or a PostgreSQL database",
		run:     runCopy,
	})
}

// metaBucket is the library's meta bucket (docstore/FORMAT.md): a
// store holds a library once it is there, so the copy writes it last.
var metaBucket = []byte("meta")

// copySummary is copy's --json output.
type copySummary struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Documents int     `json:"documents"`
	Buckets   int64   `json:"buckets"`
	Keys      int64   `json:"keys"`
	Bytes     int64   `json:"bytes"`
	Batches   int64   `json:"transactions"`
	Seconds   float64 `json:"seconds"`
	Replaced  bool    `json:"replaced,omitempty"`
}

func runCopy(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["copy"])
	force := fs.Bool("force", false, "replace what DEST holds (the library there is lost)")
	asJSON := fs.Bool("json", false, "print a summary as JSON")
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fmt.Fprintln(a.stderr, "citelens copy: give the one library to copy to: a file or a PostgreSQL address")
		fs.Usage()
		return errUsage
	}
	dest := rest[0]
	from, to := dbaddr.Redact(a.dbPath), dbaddr.Redact(dest)
	destKind, err := dbaddr.Parse(dest)
	if err != nil {
		return fix.With(err, "Give copy a file's path or a PostgreSQL address (postgres:///team).")
	}
	if dest == a.dbPath {
		return fmt.Errorf("the library is copied from %s to itself: give another DEST", from)
	}
	if destKind == dbaddr.File {
		if same, _ := samePath(dest, a.dbPath); same {
			return fmt.Errorf("the library is copied from %s to itself: give another DEST", from)
		}
	}
	start := time.Now()

	src, err := a.openStoreFor(a.dbPath, false)
	if errors.Is(err, errNoLibrary) {
		return fix.With(fmt.Errorf("no library at %s to copy", from), "Point --db at the library to copy.")
	}
	if err != nil {
		return err
	}
	defer src.Close()

	created := false
	if destKind == dbaddr.File {
		if _, err := os.Stat(dest); errors.Is(err, os.ErrNotExist) {
			created = true
		}
	}
	dst, err := a.openStoreFor(dest, true)
	if err != nil {
		return err
	}
	dstOpen := true
	closeDst := func() {
		if dstOpen {
			dst.Close()
			dstOpen = false
		}
	}
	defer closeDst()

	bar := newProgressBar(a.stderr, "copying")
	st, err := storecopy.Copy(ctx, dst, src, storecopy.Options{
		Replace: *force,
		Last:    [][]byte{metaBucket},
		Progress: func(s storecopy.Stats) {
			bar.update(fmt.Sprintf("%s keys, %s", humanize.Count(int(s.Keys)), humanize.Bytes(s.Bytes)), 0, 0)
		},
	})
	bar.Finish()
	if errors.Is(err, storecopy.ErrNotEmpty) {
		return fix.With(fmt.Errorf("%s is not empty: copy writes only into an empty library", to),
			"Give a new file or an empty database, or add --force to replace what %s holds (it is lost).", to)
	}
	if err != nil {
		closeDst()
		if created {
			os.Remove(dest) // a file made for the copy goes with it
		}
		return fmt.Errorf("copying %s to %s: %w", from, to, err)
	}
	closeDst()

	// The copy must open as a library: count its documents through it.
	l, err := a.openAt(dest, docstore.Options{ReadOnly: true})
	if err != nil && !errors.Is(err, errNoLibrary) {
		return fmt.Errorf("the copy at %s does not open: %w", to, err)
	}
	docs := 0
	if l != nil {
		infos, err := l.List()
		l.Close()
		if err != nil {
			return fmt.Errorf("the copy at %s does not read: %w", to, err)
		}
		docs = len(infos)
	}
	sum := copySummary{From: from, To: to, Documents: docs, Buckets: st.Buckets, Keys: st.Keys, Bytes: st.Bytes,
		Batches: st.Batches, Seconds: time.Since(start).Seconds(), Replaced: *force}
	if *asJSON {
		return writeJSON(a.stdout, sum, false)
	}
	fmt.Fprintf(a.stdout, "Copied %s (%s keys, %s) from %s to %s.\n", humanize.Plural(docs, "document", "documents"),
		humanize.Count(int(st.Keys)), humanize.Bytes(st.Bytes), from, to)
	return nil
}

// openStoreFor opens the store at addr for copy: the source (dest
// false) must hold a library this citelens reads, checked through
// docstore before the raw store is walked; the destination is made
// when it is not there.
func (a *app) openStoreFor(addr string, dest bool) (storage.DB, error) {
	kind, err := dbaddr.Parse(addr)
	if err != nil {
		return nil, fix.With(err, "Give --db a file's path or a PostgreSQL address (postgres:///team).")
	}
	var db storage.DB
	if kind == dbaddr.Postgres {
		p, err := pgkv.OpenOptions(context.Background(), addr, pgkv.Options{
			Waiting:  a.waitingForServer(),
			Existing: !dest,
		})
		if errors.Is(err, pgkv.ErrNoStore) {
			return nil, errNoLibrary
		}
		if err != nil {
			return nil, err
		}
		db = p
	} else {
		if !dest {
			if _, err := os.Stat(addr); errors.Is(err, os.ErrNotExist) {
				return nil, errNoLibrary
			}
		} else if err := os.MkdirAll(filepath.Dir(addr), 0o700); err != nil {
			return nil, fmt.Errorf("cannot create the folder of %s: %w", addr, err)
		}
		// A reader shares the file with other readers; another
		// citelens holds it only while it writes.
		b, err := boltkv.Open(addr, &boltkv.Options{ReadOnly: !dest, Timeout: docstore.DefaultLockTimeout})
		if err != nil {
			return nil, fix.With(err, "Another citelens may be using %s: try again when it is done.", addr)
		}
		db = b
	}
	if dest {
		return db, nil
	}
	// The source must be a library this citelens reads (not damaged,
	// not of a newer or older schema): docstore checks it.
	l, err := docstore.OpenStore(keepOpen{db}, dbaddr.Redact(addr), &docstore.Options{ReadOnly: true})
	if err != nil {
		db.Close()
		if errors.Is(err, docstore.ErrNotFound) {
			return nil, errNoLibrary
		}
		return nil, err
	}
	l.Close()
	return db, nil
}

// keepOpen is a store whose Close leaves it open, for a library opened
// over it only to check it.
type keepOpen struct{ storage.DB }

// Close does nothing: the store is its owner's to close.
func (keepOpen) Close() error { return nil }
