package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stuckLoader is a loader stuck where no context reaches it (a loop
// inside a library) until release is closed, when it reports progress and
// returns a document.
func stuckLoader(release <-chan struct{}) Loader {
	return LoaderFunc(func(_ context.Context, _ []byte, opt LoadOptions) (*Loaded, error) {
		<-release
		if opt.Progress != nil {
			opt.Progress(StageExtracting, 1, 1)
		}
		return &Loaded{Text: "Too late to matter."}, nil
	})
}

// registerForTest registers f for the test's duration.
func registerForTest(t *testing.T, f Format) {
	Register(f)
	t.Cleanup(func() {
		formatsMu.Lock()
		defer formatsMu.Unlock()
		for _, e := range f.Extensions {
			delete(byExt, e)
		}
		formats = slices.DeleteFunc(formats, func(g Format) bool { return g.Kind == f.Kind })
	})
}

// TestCancelAbandonsAStuckLoader: Add returns within a second of its
// context being cancelled even though the loader ignores the context,
// writes nothing, and the abandoned loader's progress never reaches the
// caller.
func TestCancelAbandonsAStuckLoader(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	registerForTest(t, Format{Kind: "test-stuck", Extensions: []string{".stuck-test"}, Loader: stuckLoader(release)})
	l := openTestLibrary(t)
	path := filepath.Join(t.TempDir(), "file.stuck-test")
	if err := os.WriteFile(path, []byte("anything"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var lateProgress atomic.Int32
	progress := func(p Progress) {
		if p.Stage == StageExtracting {
			lateProgress.Add(1)
		}
	}
	errc := make(chan error, 1)
	go func() {
		_, _, err := l.Add(ctx, path, progress)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond) // the loader is running now
	start := time.Now()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Add = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Add returned %s after the cancel", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Add did not return within 5 s of the cancel")
	}
	if n := abandonedLoaders.Load(); n != 1 {
		t.Errorf("%d loaders abandoned, want 1", n)
	}
	close(release)
	for deadline := time.Now().Add(5 * time.Second); abandonedLoaders.Load() != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := abandonedLoaders.Load(); n != 0 {
		t.Errorf("the released loader is still counted: %d", n)
	}
	if n := lateProgress.Load(); n != 0 {
		t.Errorf("the abandoned loader's progress reached the caller %d times", n)
	}
	if docs, _ := l.List(); len(docs) != 0 {
		t.Errorf("the abandoned loader's document was written: %+v", docs)
	}
}

// TestLoaderPanicIsAnError: a loader's panic, on the goroutine it runs on,
// is an error naming the file rather than a crash.
func TestLoaderPanicIsAnError(t *testing.T) {
	t.Parallel()
	registerForTest(t, Format{Kind: "test-panic", Extensions: []string{".panic-test"}, Loader: LoaderFunc(func(context.Context, []byte, LoadOptions) (*Loaded, error) {
		var pages []int
		_ = pages[len(pages)] // an index out of range: a panic a library could make
		return nil, nil
	})})
	l := openTestLibrary(t)
	path := filepath.Join(t.TempDir(), "file.panic-test")
	if err := os.WriteFile(path, []byte("anything"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := l.Add(t.Context(), path, nil)
	if err == nil || !strings.Contains(err.Error(), "file.panic-test") || !strings.Contains(err.Error(), "cannot read this file") {
		t.Errorf("Add of a file whose loader panics = %v", err)
	}
}
