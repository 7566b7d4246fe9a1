//go:build !unix

package docstore

import (
	"fmt"
	"os"
	"time"
)

// fileIdentity is not known here: the resolved path names the file.
func fileIdentity(os.FileInfo) (string, bool) { return "", false }

// processAlive cannot tell here: a note is taken at its word, and a
// pending write for alive until it goes stale (see abandonAfter).
func processAlive(int) bool { return true }

// ownerOf is not known here.
func ownerOf(os.FileInfo) string { return "" }

// openMarker opens the marker file at path with flag, refusing anything
// but a regular file (see the unix version: here symlinks cannot be
// refused at the open).
func openMarker(path string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// touchMarker sets the times of the marker file at path to t, creating
// it if it is not there.
func touchMarker(path string, t time.Time) error {
	f, err := openMarker(path, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return err
	}
	f.Close()
	return os.Chtimes(path, t, t)
}

// checkPrivateDir returns an error unless dir is a directory, not a
// symlink to one (owners and modes are not known here).
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder of its own", dir)
	}
	return nil
}
