//go:build unix

package docstore

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fileIdentity is a file's device and inode.
func fileIdentity(fi os.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%x-%x", uint64(st.Dev), uint64(st.Ino)), true
}

// processAlive reports whether a process with that ID exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownerOf says who owns a file, when it is not this user.
func ownerOf(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Getuid() {
		return ""
	}
	return fmt.Sprintf(", owned by user %d", st.Uid)
}

// The small files processes sharing a library leave (marker.go) lie in
// folders another user may reach: beside the library, or in a runtime
// folder another user could have made first. So they are opened without
// following a symlink (one planted under a marker's name would have this
// user overwrite whatever it names), without blocking (a FIFO planted
// there would hang the open), and used only when they are regular files:
// a device, a FIFO or a directory under a marker's name is refused.

// openMarker opens the marker file at path with flag (os.O_RDONLY, or
// os.O_WRONLY|os.O_CREATE to write one), never through a symlink and
// never blocking; it refuses anything but a regular file, and for writing
// one that is another user's or has another name (a hard link planted to
// a file of this user's elsewhere).
func openMarker(path string, flag int) (*os.File, error) {
	fd, err := syscall.Open(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	write := flag&(syscall.O_WRONLY|syscall.O_RDWR) != 0
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		syscall.Close(fd)
		return nil, fmt.Errorf("%s is not a regular file", path)
	case write && (int(st.Uid) != os.Getuid() || st.Nlink != 1):
		syscall.Close(fd)
		return nil, fmt.Errorf("%s is another user's file or has another name", path)
	}
	// Back to blocking reads and writes, which on a regular file never
	// wait long.
	_ = syscall.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), path), nil
}

// touchMarker sets the times of the marker file at path to t, creating
// it if it is not there, never through a symlink.
func touchMarker(path string, t time.Time) error {
	f, err := openMarker(path, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return err
	}
	defer f.Close()
	tv := unix.NsecToTimeval(t.UnixNano())
	return unix.Futimes(int(f.Fd()), []unix.Timeval{tv, tv})
}

// checkPrivateDir returns an error unless dir is a directory (not a
// symlink to one) owned by this user that no other user may enter: the
// runtime folder, which another local user could have made first, in a
// shared temporary folder, to read or plant what is kept there.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink, not a folder of its own", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s is not this user's folder%s", dir, ownerOf(fi))
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s may be entered by other users (mode %v)", dir, fi.Mode().Perm())
	}
	return nil
}
