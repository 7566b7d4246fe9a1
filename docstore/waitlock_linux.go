package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the wait signalled through the library file itself.

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// A process that waits for the file says so by touching a wait marker
// (marker.go), which needs a folder it can write: beside the library, or
// its runtime folder. Where neither is writable (a library in a shared
// read-only folder, a temporary folder of another user's), the marker
// has nowhere to go, and a process that reads without pause would keep
// every writer out. So a waiting process also asks for a lock on a byte
// of the library file itself, far past its end, which every process that
// holds the file can see: an open-file-description lock (fcntl
// F_OFD_SETLK), which bbolt's lock (flock) neither takes nor meets, and
// which, unlike a plain fcntl lock, the waiter's own opens and closes of
// the file (each try of bbolt's) do not drop. A read lock, so that a
// process that may only read the file can wait too; a holder asks
// whether a write lock there would conflict (F_OFD_GETLK).

// waitLockOffset is the byte the wait is signalled on: past the end of
// any library, so no lock of bbolt's or anyone's on its data meets it.
const waitLockOffset = 1 << 62

// signalWaitLock takes the wait lock on the library file at path and
// returns the file it is held through (closing it ends the signal), or
// nil when it cannot be taken.
func signalWaitLock(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil
	}
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: 0, Start: waitLockOffset, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		f.Close()
		return nil
	}
	return f
}

// waitLockHeld reports whether another open of the library file at path
// holds the wait lock: a process waits for the file.
func waitLockHeld(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: waitLockOffset, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}
