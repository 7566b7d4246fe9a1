package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/docstore"
)

// Pages drawn by the commands: show --image and the exports.

// pngDPI is the resolution of a page written as a PNG: sharp on a
// high-density screen and in print, a few hundred KB a page.
const pngDPI = 150

// pageSource returns a Source drawing l's documents with a page renderer
// (PDFium in WebAssembly, compiled once into the user's cache folder)
// that has not started: startRenderer starts it, with progress.
func pageSource(l *docstore.Library) (*pageimage.Source, func()) {
	r := pagerender.New(pagerender.Options{CacheDir: pagerender.DefaultCacheDir()})
	s := pageimage.New(l.Geometry(), r)
	return s, func() { s.Close(); r.Close() }
}

// startRenderer starts r, showing progress on stderr when the start is a
// compile (the first-ever use: about 15 seconds), counted on a terminal,
// one line on a pipe.
func startRenderer(ctx context.Context, r *pagerender.Renderer, stderr io.Writer) error {
	if r.Warm() {
		return r.Start(ctx)
	}
	const what = "Preparing the page renderer (first use only, about 15 s)"
	terminal := isTerminal(stderr)
	line := newLiveLine(stderr)
	if !terminal {
		fmt.Fprintln(stderr, what+"…")
	}
	start := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	for {
		select {
		case err := <-done:
			line.Finish()
			if err == nil && terminal {
				fmt.Fprintf(stderr, "Page renderer ready in %.1f s; later starts take under a second.\n", time.Since(start).Seconds())
			}
			return err
		case <-tick.C:
			if line.Due(false) {
				line.Draw(fmt.Sprintf("%s… %.0f s", what, time.Since(start).Seconds()))
			}
		}
	}
}

// writeFile writes data to path through a temporary file beside it, so a
// failed write leaves no half file.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
