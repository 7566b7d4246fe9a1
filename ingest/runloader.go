package ingest

import (
	"context"
	"fmt"
	"sync/atomic"
)

// A loader reads a file that may be hostile, often through a library
// (the PDF reader, the HTML parser) that checks no context and may loop
// or recurse for minutes on a crafted file. Ctrl-C must still stop an add
// within a second, so runLoader runs every loader on a goroutine of its
// own and, when the context is done first, returns the context's error at
// once and abandons it: the loader's result is thrown away when it
// finishes, and its progress reports stop reaching the caller. Go cannot
// kill a goroutine, so an abandoned loader runs on until it returns or
// the process exits — fine for a command, which exits on Ctrl-C, and the
// reason every loader still bounds its own work (budgets, depth limits,
// visited sets) rather than relying on this.
//
// A panic in a loader, which the caller's recover could not catch on
// another goroutine, is turned into an error here.

// abandonedLoaders counts the loaders abandoned and still running, for
// tests and diagnostics.
var abandonedLoaders atomic.Int64

// runLoader runs ld on content, returning when it does or as soon as ctx
// is done, whichever is first.
func runLoader(ctx context.Context, ld Loader, content []byte, opt LoadOptions) (*Loaded, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// state goes from running to finished (the loader returned first) or
	// to abandoned (the context was done first), never both.
	const running, finished, abandoned = 0, 1, 2
	var state atomic.Int32
	if report := opt.Progress; report != nil {
		opt.Progress = func(stage string, done, total int) {
			if state.Load() != abandoned {
				report(stage, done, total)
			}
		}
	}
	type result struct {
		ld  *Loaded
		err error
	}
	out := make(chan result, 1) // buffered: an abandoned loader never blocks on it
	go func() {
		var r result
		defer func() {
			if x := recover(); x != nil {
				r = result{err: fmt.Errorf("cannot read this file: the reader failed (%v)", x)}
			}
			if !state.CompareAndSwap(running, finished) {
				abandonedLoaders.Add(-1)
			}
			out <- r
		}()
		r.ld, r.err = ld.Load(ctx, content, opt)
	}()
	select {
	case r := <-out:
		return r.ld, r.err
	case <-ctx.Done():
		if !state.CompareAndSwap(running, abandoned) {
			r := <-out // it finished at the same moment: keep its result
			return r.ld, r.err
		}
		abandonedLoaders.Add(1)
		return nil, ctx.Err()
	}
}
