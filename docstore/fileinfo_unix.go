//go:build unix

package docstore

import (
	"errors"
	"fmt"
	"os"
	"syscall"
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
