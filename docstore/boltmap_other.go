//go:build !unix

package docstore

import "os"

// mapFile does not map files here: the page check reads them.
func mapFile(*os.File, int64) ([]byte, func(), bool) { return nil, nil, false }
