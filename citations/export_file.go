package citations

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/citelens/citelens/internal/textproc"
)

// FileName is a readable name for a's export in format f: the day it was
// asked and the first words of its question, "2026-11-27-what-did-the-
// colonists-object-to.md" ("….longbench.json" for LongBench-Cite).
func FileName(a *Answer, f Format) string {
	ext := f.Ext
	if f.Name != f.Ext {
		ext = f.Name + "." + f.Ext
	}
	name := slug(a.Question, 48)
	if name == "" {
		name = "answer"
	}
	if !a.Created.IsZero() {
		name = a.Created.Local().Format("2006-01-02") + "-" + name
	}
	return name + "." + ext
}

// slug is the words of s folded to lower-case letters and digits, joined
// by hyphens, at most max bytes, cut at a word's end.
func slug(s string, max int) string {
	var b strings.Builder
	full := false
	textproc.Words(s, func(start, end int) {
		if full {
			return
		}
		var w strings.Builder
		for _, r := range textproc.Fold(s[start:end]) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				w.WriteRune(r)
			}
		}
		word := w.String()
		if word == "" {
			return
		}
		if b.Len() > 0 && b.Len()+1+len(word) > max || b.Len() == 0 && len(word) > max {
			full = true
			return
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(word)
	})
	return b.String()
}

// WriteFile writes a's export in format f into dir under FileName, never
// over an existing file: when the name is taken it tries "-2", "-3"… before
// the extension. The export is written beside and linked into place, so a
// failure leaves no half-written file. It returns the path written.
func WriteFile(dir string, a *Answer, f Format, docs DocLookup) (string, error) {
	return WriteFileWith(dir, a, f, docs, FileOptions{})
}

// FileOptions are what an export written by WriteFileWith may carry
// besides the answer.
type FileOptions struct {
	// HTML are the HTML export's options (its pictures), for format html.
	HTML HTMLOptions
	// Provenance, when set, is added as AddProvenance adds it: the
	// versions cited and what a newer version changed.
	Provenance *Provenance
}

// WriteFileWith is WriteFile with opts.
func WriteFileWith(dir string, a *Answer, f Format, docs DocLookup, opts FileOptions) (string, error) {
	return writeFileAs(dir, FileName(a, f), func(w io.Writer) error {
		return writeWithProvenance(w, f.Name, opts.Provenance, func(w io.Writer) error {
			if f.Name == "html" {
				return WriteHTMLWith(w, a, opts.HTML)
			}
			return Export(w, f.Name, a, docs)
		})
	})
}

// WriteThreadFile writes t's export in format f (WriteThread) into dir,
// as WriteFile writes an answer's: named for the day its first answer
// was asked and the thread's name, never over an existing file.
func WriteThreadFile(dir string, t *Thread, f Format, opts ThreadOptions) (string, error) {
	named := &Answer{Question: t.Name}
	if len(t.Answers) > 0 {
		named.Created = t.Answers[0].Created
	}
	return writeFileAs(dir, "thread-"+FileName(named, f), func(w io.Writer) error { return WriteThread(w, f.Name, t, opts) })
}

// writeFileAs writes what write writes into dir under name, never over
// an existing file: when the name is taken it tries "-2", "-3"… before
// the extension. The export is written beside and linked into place, so
// a failure leaves no half-written file. It returns the path written.
func writeFileAs(dir, name string, write func(w io.Writer) error) (string, error) {
	tmp, err := os.CreateTemp(dir, ".citelens-export-*")
	if err != nil {
		return "", fmt.Errorf("cannot write the export in %s: %w", dir, pathError(err))
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return "", err
	}
	base, ext, _ := strings.Cut(name, ".")
	for n := 1; n < 1000; n++ {
		path := filepath.Join(dir, name)
		if n > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.%s", base, n, ext))
		}
		// A hard link fails when the name exists: no check-then-write race
		// with another export of the same answer.
		err := os.Link(tmp.Name(), path)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("cannot write %s: %w", path, pathError(err))
		}
	}
	return "", fmt.Errorf("cannot write the export in %s: %s and 998 numbered names beside it are taken", dir, name)
}

// pathError is err without the path os wraps it in, for a message that
// names the path itself.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
