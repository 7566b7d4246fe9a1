// Package pagerendertest gives tests one page renderer per test binary,
// with PDFium's compiled code cached where every test binary finds it.
package pagerendertest

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/citations/pagerender"
)

var (
	once     sync.Once
	shared   *pagerender.Renderer
	startErr error
)

// CacheHome is the cache folder the tests use for XDG_CACHE_HOME, under
// the temp folder: never the user's own.
func CacheHome() string {
	return filepath.Join(os.TempDir(), "citelens-test-cache")
}

// CacheDir is the compilation cache the tests share: the first test
// binary on a machine compiles PDFium (about 15 s), the others load it
// (under a second). It is where pagerender.DefaultCacheDir points with
// XDG_CACHE_HOME set to CacheHome, so a test of a command that makes its
// own renderer shares it too.
func CacheDir() string {
	return filepath.Join(CacheHome(), "citelens", "pdfium")
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

// IsMarker reports whether c is paper under the highlight
// (pagerender.Marker burned into white: about 255, 231, 95), as tests
// look for the highlight in a picture or a screenshot of one.
func IsMarker(c color.RGBA) bool {
	return c.R > 240 && c.G > 215 && c.G < 245 && c.B > 70 && c.B < 120
}

// CountMarked counts the pixels of img inside r that IsMarker.
func CountMarked(img *image.RGBA, r image.Rectangle) int {
	r = r.Intersect(img.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if IsMarker(img.RGBAAt(x, y)) {
				n++
			}
		}
	}
	return n
}
