package tui

import (
	"context"
	"sync"
	"time"
)

// Everything that touches the disk or runs a strategy happens in
// commands and the goroutines they start, never in Update. Long work (an
// answer, adding files, preparing documents) runs in a goroutine that
// feeds a channel; a command reads the channel one message at a time and
// the handler asks for the next one.

// background is the work the program started and must let finish (saving
// a cancelled answer, say) before the library is closed.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newBackground(parent context.Context) *background {
	ctx, cancel := context.WithCancel(parent)
	return &background{ctx: ctx, cancel: cancel}
}

// stop cancels the work and waits for it, at most timeout.
func (b *background) stop(timeout time.Duration) {
	b.cancel()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}
