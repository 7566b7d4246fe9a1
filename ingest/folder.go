package ingest

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// MaxFolderFiles is the usual bound on the files one folder adds: a
// folder given by mistake (a home directory) is not read whole. A caller
// that means a large folder passes a larger bound to Folder.
const MaxFolderFiles = 1000

// FolderContents is what a folder holds for the library: the files of the
// types citelens reads, and what was passed over, for a summary.
type FolderContents struct {
	// Files are the files to add, in name order (each folder's files
	// before its subfolders', as filepath.WalkDir goes), at most the
	// bound given to Folder.
	Files []string
	// More is set when the folder held more readable files than the
	// bound.
	More bool
	// Unsupported counts the regular files passed over by extension
	// (".xlsx": 3; "" for files with none).
	Unsupported map[string]int
	// Hidden counts the dot files and folders passed over; Unreadable
	// the subfolders that could not be read.
	Hidden, Unreadable int
}

// Skipped is the number of entries passed over.
func (c FolderContents) Skipped() int {
	n := c.Hidden + c.Unreadable
	for _, k := range c.Unsupported {
		n += k
	}
	return n
}

// UnsupportedKinds lists the extensions passed over, most frequent first.
func (c FolderContents) UnsupportedKinds() []string {
	kinds := make([]string, 0, len(c.Unsupported))
	for k := range c.Unsupported {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c.Unsupported[a] != c.Unsupported[b] {
			return c.Unsupported[b] - c.Unsupported[a]
		}
		return strings.Compare(a, b)
	})
	return kinds
}

// Folder lists what dir holds, recursively, for adding: the files of the
// types citelens reads (hidden files and folders aside; links to files
// are followed when added, links to folders are not walked), in the
// order the terminal UI and `citelens add DIR` add them. At most max
// files are listed (More says there were more); max ≤ 0 lists them all.
func Folder(ctx context.Context, dir string, max int) (FolderContents, error) {
	c := FolderContents{Unsupported: map[string]int{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			c.Unreadable++
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			c.Hidden++
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if _, ok := FormatOf(p); !ok || !(d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
			if d.Type().IsRegular() {
				c.Unsupported[strings.ToLower(filepath.Ext(p))]++
			}
			return nil
		}
		if max > 0 && len(c.Files) == max {
			c.More = true
			return filepath.SkipAll
		}
		c.Files = append(c.Files, p)
		return nil
	})
	return c, err
}
