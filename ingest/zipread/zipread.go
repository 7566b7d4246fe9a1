// Package zipread reads the parts of a zip-packaged document (a DOCX, an
// EPUB) with limits, so a zip bomb — a small file that unpacks to
// gigabytes — is refused with a clear error instead of exhausting memory.
package zipread

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits on what an archive may unpack to. A 1,000-page Word document or
// e-book unpacks to tens of megabytes.
const (
	// MaxEntries is the most files an archive may list.
	MaxEntries = 50000
	// MaxPartBytes is the most one part may unpack to.
	MaxPartBytes = 128 << 20
	// MaxTotalBytes is the most all the parts read may unpack to.
	MaxTotalBytes = 512 << 20
)

// ErrTooLarge means a part, or the parts together, unpack to more than the
// limits allow.
var ErrTooLarge = errors.New("unpacks to more than citelens reads (a zip bomb?)")

// Archive is an open zip archive.
type Archive struct {
	kind  string // "DOCX", "EPUB": for messages
	files map[string]*zip.File
	lower map[string]*zip.File // by lower-case name, for case-insensitive lookups
	read  int64                // bytes unpacked so far
}

// Open opens content as a zip archive. kind names the format in errors
// ("not a DOCX file: …").
func Open(content []byte, kind string) (*Archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, fmt.Errorf("not %s %s file: it is not a readable zip archive (%v)", article(kind), kind, err)
	}
	if len(zr.File) > MaxEntries {
		return nil, fmt.Errorf("the %s lists %d files, over the %d citelens reads", kind, len(zr.File), MaxEntries)
	}
	a := &Archive{kind: kind, files: make(map[string]*zip.File, len(zr.File)), lower: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, "/")
		if _, dup := a.files[name]; !dup {
			a.files[name] = f
		}
		if _, dup := a.lower[strings.ToLower(name)]; !dup {
			a.lower[strings.ToLower(name)] = f
		}
	}
	return a, nil
}

// Has reports whether the archive holds a part of that name.
func (a *Archive) Has(name string) bool { return a.file(name) != nil }

// Names lists the archive's parts, in no particular order.
func (a *Archive) Names() []string {
	names := make([]string, 0, len(a.files))
	for n := range a.files {
		names = append(names, n)
	}
	return names
}

func (a *Archive) file(name string) *zip.File {
	name = strings.TrimPrefix(name, "/")
	if f := a.files[name]; f != nil {
		return f
	}
	return a.lower[strings.ToLower(name)]
}

// Size returns the size the part called name says it unpacks to (the
// zip directory's, which Read does not trust), or false if there is no
// such part.
func (a *Archive) Size(name string) (uint64, bool) {
	f := a.file(name)
	if f == nil {
		return 0, false
	}
	return f.UncompressedSize64, true
}

// Read unpacks the part called name (matched exactly, else ignoring
// case). A missing part is an error naming it (use Has for optional
// parts); one over the limits wraps ErrTooLarge.
func (a *Archive) Read(name string) ([]byte, error) {
	f := a.file(name)
	if f == nil {
		return nil, fmt.Errorf("the %s has no %s", a.kind, name)
	}
	budget := min(int64(MaxPartBytes), MaxTotalBytes-a.read)
	if f.UncompressedSize64 > uint64(budget) {
		return nil, fmt.Errorf("the %s's %s %w", a.kind, name, ErrTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("the %s's %s cannot be unpacked (%v)", a.kind, name, err)
	}
	defer rc.Close()
	// The sizes in the directory may lie: read one byte past the budget
	// to tell.
	data, err := io.ReadAll(io.LimitReader(rc, budget+1))
	a.read += int64(len(data))
	if int64(len(data)) > budget {
		return nil, fmt.Errorf("the %s's %s %w", a.kind, name, ErrTooLarge)
	}
	if err != nil {
		return nil, fmt.Errorf("the %s's %s is damaged (%v)", a.kind, name, err)
	}
	return data, nil
}

// article is "an" before a kind read with a vowel sound (EPUB), else "a".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an"
	}
	return "a"
}
