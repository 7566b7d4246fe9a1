// Package pagerendertest gives tests one page renderer per test binary,
// with PDFium's compiled code cached where every test binary finds it.
package pagerendertest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore/pagerender"
)

var (
	once     sync.Once
	shared   *pagerender.Renderer
	startErr error
)

// CacheDir is the compilation cache the tests share: the first test
// binary on a machine compiles PDFium (about 15 s), the others load it
// (under a second). It lives under the temp folder, never in the user's
// own cache.
func CacheDir() string {
	return filepath.Join(os.TempDir(), "citelens-test-pdfium")
}

// Renderer returns the test binary's renderer, started. It is never
// closed: it lives as long as the binary. A renderer that cannot start
// fails the test.
func Renderer(t testing.TB) *pagerender.Renderer {
	t.Helper()
	once.Do(func() {
		shared = pagerender.New(pagerender.Options{CacheDir: CacheDir()})
		// A loaded machine compiling for the first time takes long;
		// two minutes is far past what a working start needs.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		startErr = shared.Start(ctx)
	})
	if startErr != nil {
		t.Fatalf("starting the page renderer: %v", startErr)
	}
	return shared
}
