package ingest

import (
	"sync"

	"github.com/citelens/citelens/docstore"
)

// Pipeline adds files to one library: it reads them (Add, AddFiles) and
// rebuilds the library's documents (Reindex) with the loaders registered
// and the load options set, and stores them through the library's write
// path. It is safe for concurrent use.
type Pipeline struct {
	lib *docstore.Library
	// newVersionOf is Options.NewVersionOf.
	newVersionOf docstore.DocID
	maxFile      int64 // Options.MaxFileSize

	mu   sync.Mutex
	load LoadOptions // how Add reads files (SetLoadOptions)
}

// Options tune a Pipeline.
type Options struct {
	// MaxFileSize is the largest file Add reads (default
	// DefaultMaxFileSize); a larger one is refused before it is read.
	MaxFileSize int64
	// Load is how Add reads files (OCR), as SetLoadOptions sets it.
	Load LoadOptions
	// NewVersionOf makes what is added the next version of this
	// document (of the latest of its versions), wherever it is added
	// from; "" leaves it to the path (a file from a path the library has
	// a document of is that one's next version).
	NewVersionOf docstore.DocID
}

// New makes a pipeline that adds files to lib; opt may be nil.
func New(lib *docstore.Library, opt *Options) *Pipeline {
	if opt == nil {
		opt = &Options{}
	}
	p := &Pipeline{lib: lib, maxFile: opt.MaxFileSize, newVersionOf: opt.NewVersionOf}
	if p.maxFile <= 0 {
		p.maxFile = DefaultMaxFileSize
	}
	p.SetLoadOptions(opt.Load)
	return p
}
