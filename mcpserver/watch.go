package mcpserver

import (
	"context"

	"github.com/citelens/citelens/docstore"
)

// The server watches its library (docstore.Library.Watch: a server's
// notifications, a file's changes on the disk) from the moment it opens
// it, so that a document added or removed by another process — on
// another machine, for a library in PostgreSQL — changes the resources at
// once and clients hear of it (notifications/resources/list_changed),
// not only at their next resources/list. The tools need no telling:
// each call reads the library as it is, and the library drops what it
// cached of documents another process removed or reindexed.

// watch starts watching l until Close; s.mu is held. A library that
// cannot be watched is served all the same: its resources are read again
// at each resources/list, only without a word to the clients between.
func (s *Server) watch(l *docstore.Library) {
	ctx, cancel := context.WithCancel(context.Background())
	err := l.Watch(ctx, func() {
		if ctx.Err() == nil {
			// A read that fails now is tried again at the next change
			// or resources/list.
			_ = s.syncResourcesOf(l)
		}
	})
	if err != nil {
		cancel()
		return
	}
	s.unwatch = cancel
}
