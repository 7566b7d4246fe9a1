package docstore

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/citelens/citelens/storage"
)

// Watching a library, whatever holds it: a server's store tells of every
// commit itself (storage.Watcher: PostgreSQL's LISTEN/NOTIFY), from any
// process on any machine; a library file changes on the disk at every
// commit, which is looked at a few times a second. A front end watches
// through Library.Watch and knows neither.

// fileWatchEvery is how often a library file is looked at: what another
// process commits is told within it, well within a second.
const fileWatchEvery = 250 * time.Millisecond

// Watch calls changed after the library may have changed — a commit by
// another process, on any machine for a server's store, or by this one —
// until ctx is done; commits close together may be told as one call, and
// changed may be called when nothing changed (a lost connection made
// again), so a caller reads what it shows again at each call. It returns
// once watching has started, or with the reason it cannot. changed runs
// on a goroutine of the library's, one call at a time.
func (l *Library) Watch(ctx context.Context, changed func()) error {
	if w, ok := l.backend().(storage.Watcher); ok {
		if err := w.Watch(ctx, changed); err != nil {
			return fmt.Errorf("cannot watch the library %s for changes: %w", l.path, err)
		}
		return nil
	}
	// A library file (or a store in a file that tells of no commits):
	// its size and modification time move with every commit.
	last, err := stampOf(l.path)
	if err != nil {
		return fmt.Errorf("cannot watch the library %s for changes: its store tells of none, and it is not a file that can be looked at: %w", l.path, err)
	}
	go func() {
		tick := time.NewTicker(fileWatchEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			now, err := stampOf(l.path)
			if err == nil && now != last {
				last = now
				changed()
			}
		}
	}()
	return nil
}

// fileStamp is what a look at a library file tells of its changes.
type fileStamp struct {
	size int64
	mod  time.Time
}

// stampOf looks at the file at path.
func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	if !fi.Mode().IsRegular() {
		return fileStamp{}, fmt.Errorf("%s is not a regular file", path)
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime()}, nil
}

// backend is the store behind the library, unwrapped: what OpenStore was
// given, or the file's handle, for the interfaces a store may also have
// (storage.Watcher, storage.Writers).
func (l *Library) backend() storage.DB {
	if s, ok := l.store.(*storeDB); ok {
		return s.DB
	}
	return l.store
}
