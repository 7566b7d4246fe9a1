package doctest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/textbuild"
)

// CheckResult fails t unless an extraction holds what every loader's
// must: valid UTF-8 with no control character but newlines, pages in
// order inside the text, and headings and table rows as spans inside it,
// each row one line.
func CheckResult(t testing.TB, res *textbuild.Result) {
	t.Helper()
	if !utf8.ValidString(res.Text) {
		t.Fatalf("invalid UTF-8 in %q", res.Text)
	}
	for i, r := range res.Text {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("control character %U at %d", r, i)
		}
	}
	for i, s := range res.PageStarts {
		if s < 0 || int(s) > len(res.Text) || i > 0 && s < res.PageStarts[i-1] {
			t.Fatalf("page starts %v", res.PageStarts)
		}
	}
	for _, h := range res.Headings {
		if !h.Span.Valid(len(res.Text)) || h.Level < 0 {
			t.Fatalf("heading %+v outside the text of %d bytes", h, len(res.Text))
		}
	}
	for _, tb := range res.Tables {
		for _, s := range append(append([]structure.Span{}, tb.Header...), tb.Rows...) {
			if !s.Valid(len(res.Text)) || strings.Contains(res.Text[s.Start:s.End], "\n") {
				t.Fatalf("table row %+v is not one line of the text", s)
			}
		}
	}
}

// Rezip returns a copy of a zip archive (a DOCX, an EPUB) with parts
// replaced or added, or removed where parts maps them to nil.
func Rezip(archive []byte, parts map[string][]byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		panic(err) // the archives edited are the package's own
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name string, content []byte) {
		w, err := zw.Create(name)
		if err != nil {
			panic(err)
		}
		w.Write(content)
	}
	for _, f := range zr.File {
		content, replaced := parts[f.Name]
		switch {
		case replaced && content == nil:
			continue
		case !replaced:
			rc, err := f.Open()
			if err != nil {
				panic(err)
			}
			content, _ = io.ReadAll(rc)
			rc.Close()
		}
		put(f.Name, content)
	}
	for name, content := range parts {
		if _, err := zr.Open(name); err != nil && content != nil {
			put(name, content)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Fuzz fuzzes an extractor: whatever the input, it must return an error
// or a result that passes CheckResult, and never panic.
func Fuzz(f *testing.F, extract func([]byte) (*textbuild.Result, error)) {
	f.Fuzz(func(t *testing.T, input []byte) {
		if res, err := extract(input); err == nil {
			CheckResult(t, res)
		}
	})
}

// Outline writes a result's headings as "level text", joined by " | ",
// for tests to compare.
func Outline(res *textbuild.Result) string {
	var heads []string
	for _, h := range res.Headings {
		heads = append(heads, fmt.Sprintf("%d %s", h.Level, res.Text[h.Span.Start:h.Span.End]))
	}
	return strings.Join(heads, " | ")
}

// TinyZip is a zip of the given parts (name, content), stored without
// compression: a fuzzing seed of a zip-packaged format as small as it can
// be, whose every byte a mutation reaches. A fuzzer minimizes each input
// that finds something new, byte by byte, and on a seed of kilobytes that
// took the whole of a run.
func TinyZip(parts ...[2]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p[0], Method: zip.Store})
		if err != nil {
			panic(err) // writing to memory cannot fail
		}
		w.Write([]byte(p[1]))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
