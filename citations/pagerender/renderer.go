package pagerender

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// DefaultTimeout bounds one call into PDFium when Options.Timeout is 0:
// long enough for the heaviest page of a real manual, short enough that
// a page built to loop does not hang the program.
const DefaultTimeout = 20 * time.Second

// Options configure a Renderer.
type Options struct {
	// CacheDir keeps PDFium's compiled code between runs, so that only
	// the first start compiles (see DefaultCacheDir). "" keeps nothing:
	// every start compiles.
	CacheDir string
	// Timeout bounds one call into PDFium (DefaultTimeout when 0).
	Timeout time.Duration
}

// DefaultCacheDir is where a program keeps PDFium's compiled code: a
// folder of the user's cache directory ($XDG_CACHE_HOME/citelens/pdfium
// on Linux), or "" when the system names none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "citelens", "pdfium")
}

// Renderer renders PDF pages with one PDFium instance. Its methods are
// safe for concurrent use; calls into PDFium run one at a time. The zero
// value is not usable: call New.
type Renderer struct {
	opts Options

	startOnce sync.Once
	started   chan struct{} // closed when the start has finished
	startErr  error
	cache     wazero.CompilationCache
	pool      pdfium.Pool

	// closing is closed when Close begins: a call under way stops at
	// once rather than holding Close (and a program quitting) until the
	// page is drawn.
	closing   chan struct{}
	closeOnce sync.Once

	mu     sync.Mutex // serialises PDFium calls; guards inst, gen and closed
	inst   pdfium.Pdfium
	gen    int // counts instances, so a document knows its instance was replaced
	closed bool
}

// New returns a Renderer that has not started: nothing is compiled or
// allocated until the first Start, Open or Render.
func New(opts Options) *Renderer {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Renderer{opts: opts, started: make(chan struct{}), closing: make(chan struct{})}
}

// Warm reports whether a start will be quick: the compiled code is in
// the cache folder, or the renderer has started already. A caller shows
// progress when it is not ("preparing the page renderer, once").
func (r *Renderer) Warm() bool {
	select {
	case <-r.started:
		return true
	default:
	}
	if r.opts.CacheDir == "" {
		return false
	}
	_, err := os.Stat(r.marker())
	return err == nil
}

// marker names the file written after the cache has been filled: its
// name carries the versions of PDFium's module and of the runtime, since
// a new version of either compiles anew.
func (r *Renderer) marker() string {
	return filepath.Join(r.opts.CacheDir, "compiled-"+moduleVersions())
}

// moduleVersions names the versions of go-pdfium and wazero this program
// was built with ("dev" where the build carries no module information).
func moduleVersions() string {
	pdfiumV, wazeroV := "dev", "dev"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/klippa-app/go-pdfium":
				pdfiumV = d.Version
			case "github.com/tetratelabs/wazero":
				wazeroV = d.Version
			}
		}
	}
	return "pdfium-" + pdfiumV + "-wazero-" + wazeroV
}

// Start compiles (or loads from the cache) and starts PDFium. It returns
// when the renderer is ready, when the start failed, or when ctx is done;
// in that last case the start goes on in the background, and a later
// call waits for it. Calling Start again after it has finished returns
// the first start's result at once.
func (r *Renderer) Start(ctx context.Context) error {
	r.startOnce.Do(func() { go r.start() })
	select {
	case <-r.started:
		return r.startErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Renderer) start() {
	defer close(r.started)
	defer func() {
		if p := recover(); p != nil {
			r.startErr = fmt.Errorf("%w: starting PDFium: %v", ErrRenderer, p)
		}
	}()
	rc := wazero.NewRuntimeConfig().
		// The bundled PDFium lowers setjmp/longjmp to WebAssembly
		// exceptions: without this feature the module does not load.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		// A call whose context is cancelled stops at once: the
		// watchdog's way out of a page that loops.
		WithCloseOnContextDone(true).
		// A page built to exhaust memory fails at the limit instead of
		// taking the machine's (see MemoryLimit).
		WithMemoryLimitPages(memoryLimitPages)
	if r.opts.CacheDir != "" {
		if err := os.MkdirAll(r.opts.CacheDir, 0o700); err == nil {
			if c, err := wazero.NewCompilationCacheWithDir(r.opts.CacheDir); err == nil {
				r.cache = c
				rc = rc.WithCompilationCache(c)
			}
		}
		// A cache that cannot be made costs time, not pictures: go on.
	}
	pool, err := webassembly.Init(webassembly.Config{
		// Every instance's memory is reserved once, never copied.
		Context: experimental.WithMemoryAllocator(context.Background(), allocateReserved),
		MinIdle: 1, MaxIdle: 1, MaxTotal: 1,
		// PDFium sees no file system: documents come as bytes.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		// PDFium's own messages would land in the middle of a TUI.
		Stdout:       io.Discard,
		Stderr:       io.Discard,
		ReuseWorkers: true,
	})
	if err != nil {
		r.startErr = fmt.Errorf("%w: starting PDFium: %v", ErrRenderer, err)
		return
	}
	r.pool = pool
	if r.cache != nil {
		// Best effort: a marker that cannot be written only means the
		// next start is announced as slow.
		_ = os.WriteFile(r.marker(), nil, 0o600)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.startErr = r.newInstance()
}

// newInstance replaces the PDFium instance. r.mu is held.
func (r *Renderer) newInstance() error {
	inst, err := r.pool.GetInstance(r.opts.Timeout)
	if err != nil {
		return fmt.Errorf("%w: starting a PDFium instance: %v", ErrRenderer, err)
	}
	r.inst = inst
	r.gen++
	return nil
}

// Close releases PDFium and the cache. Documents opened from r are
// unusable after.
func (r *Renderer) Close() error {
	r.closeOnce.Do(func() { close(r.closing) })
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	// A renderer never started is marked as closed; a start under way
	// finishes first, since tearing down half-made state is worse.
	r.startOnce.Do(func() {
		r.startErr = ErrClosed
		close(r.started)
	})
	<-r.started
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if r.pool != nil {
		errs = append(errs, r.pool.Close())
		r.pool, r.inst = nil, nil
	}
	if r.cache != nil {
		errs = append(errs, r.cache.Close(context.Background()))
		r.cache = nil
	}
	return errors.Join(errs...)
}

// call runs fn with the PDFium instance, one call at a time, under the
// watchdog: a call that outlives the timeout has its instance killed and
// replaced, and fails with ErrTimeout. A panic inside is an error too.
// ctx is checked before the call starts.
func (r *Renderer) call(ctx context.Context, fn func(inst pdfium.Pdfium, gen int) error) (err error) {
	if err := r.Start(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.inst == nil {
		if err := r.newInstance(); err != nil {
			return err
		}
	}
	inst, gen := r.inst, r.gen
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("%w: PDFium failed: %v", ErrRenderer, p)
			}
		}()
		done <- fn(inst, gen)
	}()
	timer := time.NewTimer(r.opts.Timeout)
	defer timer.Stop()
	// A cancelled ctx stops the call under way, as a timeout does: the
	// person who pressed ctrl+c waits for nothing, and the next call
	// pays for a new instance (every open document is read again).
	select {
	case err = <-done:
		if err != nil && trapped(err) {
			// A trap (memory refused at MemoryLimit, an abort) leaves
			// PDFium's state half-written: start afresh next time.
			_ = inst.Kill()
			r.inst = nil
			return fmt.Errorf("%w: PDFium stopped (%s)", ErrTooLarge, trapReason(err))
		}
		return err
	case <-ctx.Done():
		err = ctx.Err()
	case <-r.closing:
		err = ErrClosed
	case <-timer.C:
		err = fmt.Errorf("%w after %s", ErrTimeout, r.opts.Timeout)
	}
	// Kill cancels the instance's context, which stops the WebAssembly
	// (WithCloseOnContextDone); wait for the call to return before the
	// next one starts, then start afresh on the next call.
	_ = inst.Kill()
	<-done
	r.inst = nil
	return err
}

// trapReason is the first line of wazero's trap, without the stack
// trace and the wrapping of the call that saw it.
func trapReason(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.Index(msg, "wasm error:"); i >= 0 {
		msg = msg[i:]
	}
	return strings.TrimSpace(msg)
}

// trapped reports whether err is the module trapping or exiting rather
// than an answer of PDFium's: wazero's runtime errors and exits.
func trapped(err error) bool {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "wasm error:") || strings.Contains(msg, "module closed")
}
