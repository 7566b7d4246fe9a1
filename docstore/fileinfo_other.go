//go:build !unix

package docstore

import "os"

// fileIdentity is not known here: the resolved path names the file.
func fileIdentity(os.FileInfo) (string, bool) { return "", false }

// processAlive cannot tell here: a note is taken at its word, and a
// pending write for alive until it goes stale (see abandonAfter).
func processAlive(int) bool { return true }

// ownerOf is not known here.
func ownerOf(os.FileInfo) string { return "" }
