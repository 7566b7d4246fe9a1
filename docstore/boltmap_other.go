//go:build !unix

package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the page walk without a mapping.

import "os"

// mapFile does not map files here: the page check reads them.
func mapFile(*os.File, int64) ([]byte, func(), bool) { return nil, nil, false }
