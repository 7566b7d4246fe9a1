package ingest

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/citelens/citelens/docstore/docstoretest"
)

// TestAddRefusesWhatIsNotARegularFile: a FIFO named like a document, a
// symlink to /dev/zero named paper.pdf and a directory are refused before
// a byte is read, with a one-line reason.
func TestAddRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	fifo, zero := docstoretest.NotRegularFiles(t)
	l := openTestLibrary(t)
	dir := filepath.Dir(fifo)
	folder := filepath.Join(dir, "notes.txt")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	// The type is checked before anything else: a FIFO of a type with no
	// loader says so.
	odd := filepath.Join(dir, "x.exe")
	docstoretest.FIFO(t, odd)
	for path, want := range map[string]string{fifo: "named pipe", zero: "device", folder: "directory", odd: "unsupported file type"} {
		var err error
		docstoretest.Within(t, "Add("+filepath.Base(path)+")", func() { _, _, err = l.Add(t.Context(), path, nil) })
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Add(%s) = %v, want a one-line error saying %q", filepath.Base(path), err, want)
		}
		if want != "unsupported file type" && !errors.Is(err, ErrNotRegular) {
			t.Errorf("Add(%s) = %v, want ErrNotRegular", filepath.Base(path), err)
		}
	}
	if docs, _ := l.List(); len(docs) != 0 {
		t.Errorf("something was added: %+v", docs)
	}
}

func TestAddMaxFileSize(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "library.db")
	l := openAt(t, path, &Options{MaxFileSize: 1000})
	big := writeFile(t, "big.txt", strings.Repeat("A sentence of text. ", 100))
	_, _, err := l.Add(t.Context(), big, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2.0 KB, over the 1000 B limit") {
		t.Errorf("Add(2 KB) with a 1000-byte limit = %v", err)
	}
	small := writeFile(t, "small.txt", "A short file. It fits.")
	if _, _, err := l.Add(t.Context(), small, nil); err != nil {
		t.Errorf("Add(small) = %v", err)
	}
}

func TestAddCancelledBeforeReading(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := l.Add(ctx, sampleText, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Add with a cancelled context = %v", err)
	}
}

func utf16Bytes(s string, order binary.AppendByteOrder, bom bool) []byte {
	var b []byte
	if bom {
		b = order.AppendUint16(b, 0xFEFF)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

// TestTextEncodings: UTF-16 files, with or without a byte order mark,
// are stored decoded; a UTF-8 byte order mark is dropped from the text and
// the title; damaged UTF-16 gets a precise message.
func TestTextEncodings(t *testing.T) {
	t.Parallel()
	const text = "Über die Sterne 🌟\n\nThe stars are far away. They are hot."
	cases := map[string][]byte{
		"le-bom.txt":   utf16Bytes(text, binary.LittleEndian, true),
		"be-bom.txt":   utf16Bytes(text, binary.BigEndian, true),
		"le-nobom.txt": utf16Bytes(text, binary.LittleEndian, false),
		"be-nobom.md":  utf16Bytes(text, binary.BigEndian, false),
		"utf8-bom.txt": append([]byte{0xEF, 0xBB, 0xBF}, text...),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := Load(t.Context(), name, content, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != text {
				t.Errorf("text %q, want %q", d.Text, text)
			}
			if d.Title != "Über die Sterne 🌟" {
				t.Errorf("title %q", d.Title)
			}
			if got := d.SentenceText(1); got != "The stars are far away." {
				t.Errorf("sentence 1 = %q", got)
			}
		})
	}
	bad := map[string][]byte{
		"odd.txt":       utf16Bytes(text, binary.LittleEndian, true)[:21],
		"surrogate.txt": append(utf16Bytes("abc", binary.LittleEndian, true), 0x00, 0xD8, 'x', 0),
		"nul.txt":       append(utf16Bytes("abc", binary.LittleEndian, true), 0, 0),
	}
	for name, content := range bad {
		_, err := Load(t.Context(), name, content, LoadOptions{})
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line error", name, err)
		} else if !strings.Contains(err.Error(), "UTF-16") {
			t.Errorf("%s: %v does not say UTF-16", name, err)
		}
	}
}
