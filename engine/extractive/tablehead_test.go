package extractive

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
)

// A row's cells are read under their column names, cell by cell when the
// header and the row line up.
func TestUnderHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ head, rows, want string }{
		{"Flag  Compress usage  Decompress usage", "-9    7600k           3700k", "Flag -9 · Compress usage 7600k · Decompress usage 3700k"},
		{"| Name | Value |", "| MEMORY | 512 |", "| Name | Value |:\n| MEMORY | 512 |"},
		{"Flag  Compress usage", "-9  7600k\n-8  6800k", "Flag Compress usage:\n-9  7600k\n-8  6800k"},
	} {
		if got := underHeader(tt.head, tt.rows); got != tt.want {
			t.Errorf("underHeader(%q, %q) = %q, want %q", tt.head, tt.rows, got, tt.want)
		}
	}
}

// A statement quoting a table row quotes its header above it and cites
// both, the row first.
func TestTableRowUnderItsHeader(t *testing.T) {
	t.Parallel()
	lib, _ := librarytest.TextLibrary(t, "manual.md", "Memory management\n\n"+
		"Compression is done in blocks, and larger blocks compress better.\n\n"+
		"| Flag | Compress usage | Decompress usage |\n| --- | --- | --- |\n| -1 | 1200k | 500k |\n| -2 | 2000k | 900k |\n| -3 | 2800k | 1300k |\n| -9 | 7600k | 3700k |\n\n"+
		"Decompression reads the block size from the file header.\n")
	req := engine.Request{Question: "What is the 7600k?", Options: engine.Settings("k", "1")}
	a, err := answer(t.Context(), lib, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range a.Statements {
		if !strings.Contains(st.Text, "7600k") {
			continue
		}
		if !strings.Contains(st.Text, "Compress usage") || len(st.Citations) != 2 || !strings.Contains(st.Citations[0].Text, "7600k") || !strings.Contains(st.Citations[1].Text, "Compress usage") {
			t.Errorf("statement %q citing %d spans: want the row under its header, citing the row and the header", st.Text, len(st.Citations))
		}
		return
	}
	t.Errorf("no statement quotes the row: %+v", a.Statements)
}
