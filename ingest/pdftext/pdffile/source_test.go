package pdffile

import (
	"bytes"
	"io"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
)

// A file held as Bytes is read in place, not copied, and reads as the
// same file read through any other io.ReaderAt; one whose envelope needs
// patching (here, rebuilt: its offsets are off by the wrapper) is read
// patched, and the caller's bytes are left as they were.
func TestBytesReadInPlace(t *testing.T) {
	t.Parallel()
	data := doctest.ObjStmPDF("Read in place.", "")
	f, err := Open(t.Context(), Bytes(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if c := f.content(); len(c) == 0 || &c[0] != &data[0] {
		t.Error("the file was copied")
	}
	if !f.flat {
		t.Error("the file was not flattened")
	}
	pages, err := f.Pages()
	if err != nil || len(pages) != 1 {
		t.Fatalf("pages %d, %v", len(pages), err)
	}
	if content, err := ReadStream(pages[0].V.Key("Contents"), 1<<20); err != nil || !bytes.Contains(content, []byte("(Read in place.)")) {
		t.Errorf("content %q, %v", content, err)
	}

	wrapped := append([]byte("From: a mail wrapper\n"), data...)
	g, err := Rebuild(t.Context(), Bytes(wrapped), int64(len(wrapped)))
	if err != nil {
		t.Fatal(err)
	}
	if c := g.content(); !bytes.HasPrefix(c, []byte("%PDF-1.7\n")) {
		t.Errorf("the wrapped file reads from %q", c[:min(len(c), 20)])
	}
	if pages, err := g.Pages(); err != nil || len(pages) != 1 {
		t.Errorf("wrapped: pages %d, %v", len(pages), err)
	}
	if !bytes.HasPrefix(wrapped, []byte("From: ")) {
		t.Error("the caller's bytes were changed")
	}
}

// Bytes.ReadAt reads as bytes.Reader.ReadAt does.
func TestBytesReadAt(t *testing.T) {
	t.Parallel()
	data := []byte("0123456789")
	for _, c := range []struct {
		off int64
		n   int
	}{{0, 4}, {6, 4}, {8, 4}, {10, 1}, {12, 1}, {-1, 1}, {3, 0}} {
		want := make([]byte, c.n)
		wn, werr := bytes.NewReader(data).ReadAt(want, c.off)
		got := make([]byte, c.n)
		gn, gerr := Bytes(data).ReadAt(got, c.off)
		if gn != wn || !bytes.Equal(got, want) || (gerr == nil) != (werr == nil) || (werr == io.EOF) != (gerr == io.EOF) {
			t.Errorf("ReadAt(%d bytes, %d) = %d %q %v; bytes.Reader: %d %q %v", c.n, c.off, gn, got, gerr, wn, want, werr)
		}
	}
}
