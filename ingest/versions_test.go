package ingest

import (
	"os"
	"strings"
	"testing"
)

// A file added again from the same path with new content is the next
// version of the document added from there (issue 35); the same content
// again is the same document, no version.
func TestSamePathIsNextVersion(t *testing.T) {
	l := openTestLibrary(t)
	path := writeFile(t, "contract.txt", "The fee is ten pounds a month. Payment is due in thirty days.")
	var first AddResult
	if err := l.AddFiles(t.Context(), []string{path}, AddOptions{Done: func(r AddResult) { first = r }}); err != nil || first.Err != nil {
		t.Fatal(err, first.Err)
	}
	if first.Info.Previous != "" {
		t.Errorf("a first add names a previous version %s", first.Info.Previous)
	}
	if err := os.WriteFile(path, []byte("The fee is twelve pounds a month. Payment is due in thirty days."), 0o600); err != nil {
		t.Fatal(err)
	}
	var second AddResult
	if err := l.AddFiles(t.Context(), []string{path}, AddOptions{Done: func(r AddResult) { second = r }}); err != nil || second.Err != nil {
		t.Fatal(err, second.Err)
	}
	if second.Info.ID == first.Info.ID || second.Info.Previous != first.Info.ID {
		t.Errorf("second add: %s previous %q, want a new document after %s", second.Info.ID, second.Info.Previous, first.Info.ID)
	}
	vs, err := l.lib.Versions().Of(first.Info.ID)
	if err != nil || len(vs) != 2 {
		t.Errorf("versions: %v %v", vs, err)
	}
}

// A text streamed in pieces is a next version as a small one is.
func TestSamePathStreamedIsNextVersion(t *testing.T) {
	defer func(th int64, p int) { streamThreshold, streamPiece = th, p }(streamThreshold, streamPiece)
	streamThreshold, streamPiece = 4<<10, 8<<10
	text := strings.Repeat("The fee is ten pounds a month and payment is due in thirty days.\n\n", 200)
	path := writeFile(t, "big.txt", text)
	l := openTestLibrary(t)
	first, _, err := l.Add(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(text, "ten", "twelve", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	before := streamedPieces.Load()
	second, _, err := l.Add(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if streamedPieces.Load() == before {
		t.Fatal("the text was not streamed")
	}
	if second.Previous != first.ID {
		t.Errorf("streamed second add: previous %q, want %s", second.Previous, first.ID)
	}
}

// NewVersionOf makes a file from anywhere the next version of the named
// document's latest version; an unknown document is a clear error.
func TestNewVersionOf(t *testing.T) {
	l := openTestLibrary(t)
	a := writeFile(t, "signed.txt", "The fee is ten pounds a month. Payment is due in thirty days.")
	first, _, err := l.Add(t.Context(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := writeFile(t, "redline-2.txt", "The fee is eleven pounds a month. Payment is due in thirty days.")
	c := writeFile(t, "redline-3.txt", "The fee is twelve pounds a month. Payment is due in thirty days.")
	pipe := New(l.lib, &Options{NewVersionOf: first.ID})
	second, _, err := pipe.Add(t.Context(), b, nil)
	if err != nil || second.Previous != first.ID {
		t.Fatalf("second: previous %q, %v", second.Previous, err)
	}
	// Named by its first version, the third follows the second.
	third, _, err := pipe.Add(t.Context(), c, nil)
	if err != nil || third.Previous != second.ID {
		t.Fatalf("third: previous %q, want %s (%v)", third.Previous, second.ID, err)
	}
	_, _, err = New(l.lib, &Options{NewVersionOf: "0123456789abcdef"}).Add(t.Context(), writeFile(t, "x.txt", "Some other text here."), nil)
	if err == nil || !strings.Contains(err.Error(), "0123456789abcdef") {
		t.Errorf("unknown document: %v", err)
	}
}
