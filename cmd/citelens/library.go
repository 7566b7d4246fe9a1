package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/dbaddr"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/storage/pgkv"

	"github.com/charmbracelet/x/term"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
)

// openLibrary opens the library for a command. Read-only commands share the
// file with other readers; a library that does not exist yet reads as empty
// for them instead of being created.
func (a *app) openLibrary(readOnly bool) (*docstore.Library, error) {
	return a.openAt(a.dbPath, docstore.Options{ReadOnly: readOnly})
}

// openAt opens the library at addr, a file or a PostgreSQL database
// (internal/dbaddr decides): every command opens its library here, so
// the two backends are the same to all of them. A library opened for
// reading (ReadOnly, ReadDamaged) that does not exist yet is
// errNoLibrary, and nothing is made: no file, no tables.
func (a *app) openAt(addr string, opt docstore.Options) (*docstore.Library, error) {
	kind, err := dbaddr.Parse(addr)
	if err != nil {
		return nil, fix.With(err, "Give --db (or CITELENS_DB, or the config file's db) a file's path or a PostgreSQL address\n"+
			"(postgres://HOST/DB, postgres:///DB for the local socket, or host=/run/postgresql dbname=DB).")
	}
	readOnly := opt.ReadOnly || opt.ReadDamaged
	var l *docstore.Library
	if kind == dbaddr.Postgres {
		l, err = a.openPostgres(addr, opt)
	} else {
		if readOnly {
			if _, err := os.Stat(addr); errors.Is(err, os.ErrNotExist) {
				return nil, errNoLibrary
			}
		}
		opt.Waiting = a.waitingForLibrary
		l, err = docstore.Open(addr, &opt)
	}
	switch {
	case errors.Is(err, errNoLibrary):
		return nil, err
	case errors.Is(err, docstore.ErrLocked):
		return nil, err // printError gives it its hint
	case errors.Is(err, docstore.ErrNewerSchema), errors.Is(err, docstore.ErrOlderSchema), errors.Is(err, docstore.ErrCorrupt):
		return nil, err // printError gives a damaged library its hint
	case err != nil && fix.Of(err) != "":
		return nil, err // the server's refusals say what to do
	case err != nil:
		return nil, fix.With(err, "Check the address given by --db or CITELENS_DB.")
	}
	return l, nil
}

// openPostgres opens the library in the PostgreSQL database addr names.
// Messages name it without its password; a writer that must wait for
// another says so, as for a file.
func (a *app) openPostgres(addr string, opt docstore.Options) (*docstore.Library, error) {
	readOnly := opt.ReadOnly || opt.ReadDamaged
	db, err := pgkv.OpenOptions(context.Background(), addr, pgkv.Options{
		Waiting:  a.waitingForServer(),
		Existing: readOnly,
	})
	if errors.Is(err, pgkv.ErrNoStore) {
		return nil, errNoLibrary
	}
	if err != nil {
		return nil, err
	}
	l, err := docstore.OpenStore(db, dbaddr.Redact(addr), &opt)
	if err != nil {
		db.Close()
		if readOnly && errors.Is(err, docstore.ErrNotFound) {
			return nil, errNoLibrary // the tables, but no library in them yet
		}
		return nil, err
	}
	return l, nil
}

// waitingForServer is what a library in PostgreSQL tells when a write
// must wait for another writer's: waitingForLibrary's message, once in
// a while. The server tells of every transaction that waits, and an add
// beside another writes many.
func (a *app) waitingForServer() func() {
	var mu sync.Mutex
	var last time.Time
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < serverWaitEvery {
			return
		}
		last = time.Now()
		a.waitingForLibrary(true)
	}
}

// serverWaitEvery is how often waitingForServer says it waits, at most.
const serverWaitEvery = 10 * time.Second

// waitingForLibrary says, on stderr, that the command waits for another
// process's write to the library (citelens holds it only while it
// writes, so this is brief). Not while the terminal UI has the screen:
// it says so itself.
func (a *app) waitingForLibrary(write bool) {
	if a.screenTaken.Load() {
		return
	}
	what := "read"
	if write {
		what = "write to"
	}
	fmt.Fprintf(a.stderr, "citelens: another process is writing to the library; waiting to %s it…\n", what)
}

// errNoLibrary reports a read of a library that was never created.
var errNoLibrary = errors.New("the library is empty")

// resolveDocs turns user references (ID prefixes, file names, paths) into
// document IDs, failing on the first that matches nothing.
func resolveDocs(l *docstore.Library, refs []string) ([]docstore.DocID, error) {
	ids, err := l.ResolveAll(refs)
	if errors.Is(err, docstore.ErrNotFound) {
		return nil, fix.With(err, "List the library with 'citelens ls'.")
	}
	return ids, err
}

// openScope opens the library and turns --doc references into the
// documents to work on: those named, or every document when none is. When
// there is nothing to work on l is nil, and err says why, or is nil when
// the library is missing or empty, which openScope has told the user.
func (a *app) openScope(readOnly bool, refs []string) (l *docstore.Library, docs []docstore.DocID, err error) {
	l, err = a.openLibrary(readOnly)
	if errors.Is(err, errNoLibrary) {
		fmt.Fprintln(a.stdout, emptyLibraryMessage(a))
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	docs, err = resolveDocs(l, refs)
	if err == nil && len(docs) == 0 {
		// The latest versions only (issue 35); nil when that is all.
		if docs, err = l.Versions().Scope(); err == nil && docs == nil {
			docs, err = l.IDs()
		}
	}
	switch {
	case err != nil:
		l.Close()
		return nil, nil, err
	case len(docs) == 0:
		l.Close()
		fmt.Fprintln(a.stdout, emptyLibraryMessage(a))
		return nil, nil, nil
	}
	return l, docs, nil
}

// isTerminal reports whether w is a terminal, where text from documents
// must be sanitised and progress can be drawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// noColor reports whether the user asked for no colour or other text
// attributes (https://no-color.org: NO_COLOR set and not empty).
func noColor() bool { return os.Getenv("NO_COLOR") != "" }

// emptyLibraryMessage is what read commands print for a library that does
// not exist yet.
func emptyLibraryMessage(a *app) string {
	return fmt.Sprintf("The library is empty (%s). Add documents with 'citelens add FILE...'.", dbaddr.Redact(a.dbPath))
}

// engineEnv builds the strategies' environment: the library and the model
// configuration. A broken config file is an error (the user meant
// something by it); an absent one is not.
func (a *app) engineEnv(l *docstore.Library) (*engine.Env, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return engine.NewEnv(l, cfg), nil
}

// pipeline is the add pipeline over l for files added on the way (ask
// --doc PATH, the TUI): read as the config says (OCR). A broken config
// file is an error, as for engineEnv.
func (a *app) pipeline(l *docstore.Library) (*ingest.Pipeline, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return ingest.New(l, &ingest.Options{MaxFileSize: a.maxFileSize, Load: ingest.LoadOptionsFor(cfg)}), nil
}

// config loads the configuration (file and environment) once per run.
func (a *app) config() (config.Config, error) {
	if a.cfg == nil {
		cfg, err := config.Load()
		if err != nil {
			return cfg, fix.With(err, "Fix the file or run 'citelens config show'.")
		}
		a.cfg = &cfg
	}
	return *a.cfg, nil
}

// listNothing answers a listing asked of a library that does not exist
// yet: none is an empty list, as JSON (empty, a typed empty slice, so a
// script reads "[]") or as the sentence text says it with.
func (a *app) listNothing(asJSON, raw bool, empty any, text string) error {
	if asJSON {
		return writeJSON(a.stdout, empty, raw)
	}
	fmt.Fprintln(a.stdout, text)
	return nil
}
