//go:build !linux

package docstore

import "os"

// signalWaitLock cannot signal through the file here (no
// open-file-description locks): the wait marker alone says it.
func signalWaitLock(string) *os.File { return nil }

// waitLockHeld cannot tell here (see signalWaitLock).
func waitLockHeld(string) bool { return false }
