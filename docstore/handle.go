package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the file handle: opened per transaction, waited for under flock,
// yielded to waiting processes, and the library's storage.DB when it is a
// file.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// One library, many processes. bbolt locks the whole file for as long as
// it is open — shared for readers, exclusive for a writer — so a process
// that kept it open would shut every other out: the terminal UI, open all
// day, would stop `citelens ls` in another terminal, and an `add` would
// hold everyone off while it extracted a 2,400-page PDF.
//
// So a Library holds the file only while it uses it. The handle below
// opens it for the transaction at hand (read-only for reads, for writing
// for a write) and closes it again once the library has been idle for
// linger, which lets a burst of reads (a retrieval's, say) share one open.
// Everything slow — extracting and indexing a file, a model's answer —
// happens outside any transaction. A reader waits only for another
// process's write transaction, which is short; a writer that finds the
// file in use waits too, saying so (Options.Waiting), and gives up with
// ErrLocked after Options.LockTimeout.

// linger is how long the file stays open after its last use.
const linger = 100 * time.Millisecond

// A process that uses the library without pause would hold the file (a
// reader's shared lock) for good, and another process's write would
// never get in: bbolt's lock is flock, which has no queue. So a process
// that has waited tryEvery for the file says so, by touching a wait
// marker (marker.go: named by the file's identity, so every path to the
// file finds it, and beside it or in the runtime directory), and tries
// again; a handle that has held the file for maxHold looks at the marker
// between two transactions, and when it is fresh closes the file and
// keeps it closed for yield, longer than bbolt's 50 ms between tries, so
// the waiting process gets its turn. Without contention nothing yields.
// A process holding the file leaves a note of what it is doing, which a
// waiter that gives up reports (LockedError).
const (
	tryEvery = 500 * time.Millisecond
	maxHold  = time.Second
	yield    = 75 * time.Millisecond
	// fresh is how long a touch of the marker says someone waits.
	fresh = 2 * tryEvery
)

// signalWaiting touches the wait marker: this process waits for the file.
func (h *handle) signalWaiting() {
	if m, ok := markersFor(h.path); ok {
		m.touch()
	}
}

// othersWait reports whether another process touched the marker lately,
// or holds the wait lock on the file (waitlock_linux.go): where no folder
// takes the marker, the file itself says someone waits.
func (h *handle) othersWait() bool {
	m, ok := markersFor(h.path)
	return ok && m.touchedSince(fresh) || waitLockHeld(h.path)
}

// handle is a library file opened on demand. It is safe for concurrent use.
type handle struct {
	path     string
	readOnly bool                             // never opened for writing
	timeout  time.Duration                    // for another process's lock
	waiting  atomic.Pointer[func(write bool)] // told of a wait for another process
	opts     bolt.Options
	// opened is called with each fresh open, in a read transaction of
	// it: the library drops what it cached if another process changed
	// the documents meanwhile.
	opened func(storage.Tx) error

	mu       sync.Mutex
	cond     *sync.Cond
	db       *bolt.DB
	writable bool      // db is open for writing
	since    time.Time // when db was opened (or first opened, if reopened for writing at once)
	// reopenedSince is since of a file closed to be reopened at once
	// (for writing, or after unmap); open carries it over, so a hold is
	// counted from when the process took the file.
	reopenedSince time.Time
	users         int // transactions in progress
	timer         *time.Timer
	closed        bool
	// resume is when the file may be opened again after a yield.
	resume time.Time
	// pages is what checkPages found, and for which transaction, so
	// that opens between which nobody wrote do not check again.
	pages *checkedPages
	// damage is the first damage found in the file: from then on the
	// handle refuses to write (see noteDamage).
	damage error
	// noted is where this process's holder note is while the file is open.
	noted markers
}

// newHandle is the library file at path, not yet opened.
func newHandle(path string, readOnly bool, timeout time.Duration) *handle {
	// The hash-map freelist allocates in constant time: merges and large
	// documents free and take many pages, which the default array
	// freelist scans for each allocation.
	opts := bolt.Options{FreelistType: bolt.FreelistMapType}
	h := &handle{path: path, readOnly: readOnly, timeout: timeout, opts: opts}
	h.cond = sync.NewCond(&h.mu)
	return h
}

// errClosed is the error of a library used after Close.
var errClosed = errors.New("the library is closed")

// acquire returns the file open for a transaction, for writing when
// write is set, and the function that gives it back. Readers share a
// file open for writing; a writer that finds it open for reading waits
// for the readers in progress (a read inside a read goes ahead, so
// nesting never deadlocks) and reopens it.
func (h *handle) acquire(write bool) (*bolt.DB, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		switch {
		case h.closed:
			return nil, nil, errClosed
		case write && h.damage != nil:
			return nil, nil, h.damage
		case h.db != nil && h.users == 0 && time.Since(h.since) > maxHold && h.othersWait():
			h.closeFile() // held long enough, and someone waits: their turn
			h.resume = time.Now().Add(yield)
			continue
		case h.db != nil && (h.writable || !write):
			h.users++
			h.stopTimer()
			return h.db, h.release, nil
		case h.db != nil && h.users == 0:
			// Open for reading, wanted for writing: reopened at once, so
			// the process has held the file all along. Its hold keeps
			// counting, or a process that reads and then writes, again
			// and again (an add after an add), would never reach maxHold
			// and never let a waiting process in.
			held := h.since
			h.closeFile()
			h.reopenedSince = held
			continue
		case h.db == nil:
			if wait := time.Until(h.resume); wait > 0 {
				h.mu.Unlock()
				time.Sleep(wait)
				h.mu.Lock()
				continue
			}
			if err := h.open(write); err != nil {
				return nil, nil, err
			}
			continue
		}
		h.cond.Wait()
	}
}

// release gives the file back after a transaction; the last user starts
// the idle timer.
func (h *handle) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.users--
	if h.users == 0 {
		h.cond.Broadcast()
		if h.db != nil && h.timer == nil {
			h.timer = time.AfterFunc(linger, h.idle)
		}
	}
}

// idle closes the file when nobody has used it for linger.
func (h *handle) idle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.timer = nil
	if h.users == 0 && h.db != nil {
		// reopened by the next transaction at once: the hold goes on
		// (see acquire)
		held := h.since
		h.closeFile()
		h.reopenedSince = held
	}
}

func (h *handle) stopTimer() {
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

// open opens the file, for writing when write is set; h.mu is held. A
// lock held by another process is waited for, up to h.timeout, with
// h.waiting told after waitNotice.
func (h *handle) open(write bool) error {
	if write && h.readOnly {
		return bolterrors.ErrDatabaseReadOnly
	}
	opts := h.opts
	opts.ReadOnly = !write
	deadline := time.Now().Add(h.timeout)
	var db *bolt.DB
	var err error
	signalled := false
	var waitLock *os.File // held while this process waits (waitlock_linux.go)
	defer func() {
		if waitLock != nil {
			waitLock.Close()
		}
	}()
	for told := false; ; {
		opts.Timeout = min(tryEvery, max(time.Until(deadline), time.Millisecond))
		db, err = openBolt(h.path, &opts)
		if !errors.Is(err, bolterrors.ErrTimeout) || time.Now().After(deadline) {
			break
		}
		// Someone holds the file: ask them to yield, and say we wait.
		h.signalWaiting()
		if waitLock == nil {
			waitLock = signalWaitLock(h.path)
		}
		signalled = true
		if w := h.waiting.Load(); !told && w != nil && *w != nil {
			(*w)(write)
			told = true
		}
	}
	m, marked := markersFor(h.path)
	if signalled && err == nil && marked {
		m.remove(m.waitName()) // another still waiting touches it again
	}
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		le := &LockedError{Path: h.path}
		if marked {
			le.Holders = m.holders()
		}
		return le
	case errors.Is(err, ErrCorrupt):
		return fmt.Errorf("%s: %w", h.path, err)
	case errors.Is(err, syscall.EROFS):
		return errorf(ErrReadOnly, "cannot write to the library %s: its file system is mounted read-only", h.path)
	case errors.Is(err, os.ErrPermission):
		return permissionError(h.path, write)
	case err != nil:
		return fmt.Errorf("cannot open library %s: %w", h.path, err)
	}
	h.checkPages(write)
	if write && h.damage != nil {
		db.Close()
		return h.damage
	}
	if h.opened != nil && h.pages.unsafe == nil {
		if err := (guardedDB{db}).View(func(tx *bolt.Tx) error { return h.opened(boltkv.WrapTx(tx)) }); err != nil {
			db.Close()
			h.noteDamageLocked(err)
			return err
		}
	}
	h.db, h.writable, h.since = db, write, time.Now()
	if !h.reopenedSince.IsZero() {
		h.since, h.reopenedSince = h.reopenedSince, time.Time{}
	}
	if marked {
		m.note(write)
		h.noted = m
	}
	return nil
}

// A damaged file must not be written: bbolt trusts its free list and its
// pages, and a write to a file whose free list names a page in use puts
// new data over it, losing what salvage could have recovered. Nor may
// bbolt read every damaged file: a page reached twice is a loop its
// cursors follow for ever (boltpages.go). So a handle checks the pages
// (checkPages) each time it opens a file another process may have
// changed, under the lock of that open, and any damage found there or by
// any transaction (noteDamage) turns the handle read-only for good:
// reads go on, each write fails with the damage, and the file keeps every
// byte. When the damage is of the kind bbolt must not read, reads fail
// too, but for check's and salvage's (viewAround), which go around it.
//
// The walk costs in proportion to the file (about 0.25 ms a MB), so its
// verdict outlives the process: a sound walk leaves a sidecar beside the
// wait marker (sidecar.go) naming the transaction, size and modification
// time it found sound, and a process that opens the file unchanged since
// trusts it and does not walk. A commit of this process's own on pages it
// found sound moves the sidecar on (bbolt's copy-on-write commit of a
// sound file leaves it sound), so the read after a write pays nothing.
// But damage can leave all three as they were, and a sidecar can be
// forged, so the sidecar vouches only for what the quick check does not
// read (checkBoltQuick: both meta pages, the free list, every branch
// page and bucket root), which every writing open makes, and every open
// that would take the sidecar's word: what a write relies on, and every
// page a read could loop in, is checked each time.

// checkedPages is what checkPages found in the file at a transaction.
type checkedPages struct {
	txid   uint64
	unsafe *pageDamage // what bbolt must not read; nil: anything
}

// checkPages checks the pages of the file, opened for writing when
// write is set, noting their damage and leaving h.pages set; h.mu is
// held and the file is open, so locked against writers. Every writing
// open, and every open that would trust the sidecar, makes the quick
// check of what a write relies on and what a read could loop in
// (checkBoltQuick); the full walk (checkBoltPages) follows unless the
// quick check passed and the file is as this handle or the sidecar last
// found it sound.
func (h *handle) checkPages(write bool) {
	f, err := os.Open(h.path)
	if err != nil {
		// bbolt has it open, so this is a passing failure (descriptors
		// run out): check on the next open.
		h.pages = &checkedPages{txid: ^uint64(0)}
		return
	}
	defer f.Close()
	m, err := currentBoltMeta(f, h.path)
	st, serr := f.Stat()
	if err == nil && serr != nil {
		h.pages = &checkedPages{txid: ^uint64(0)}
		return
	}
	mark, marked := markersFor(h.path)
	seen := fileState{txid: m.txid, size: st.Size(), mtime: st.ModTime().UnixNano()}
	if marked && err == nil && h.damage == nil {
		if known := mark.knownDamage(seen); known != nil {
			h.damage = known // found by another process: no write
		}
	}
	if err == nil && h.pages != nil && h.pages.txid == m.txid && h.pages.unsafe != nil {
		return // known damaged: the walk would find the same
	}
	own := h.pages != nil && h.pages.txid == m.txid
	if err == nil && own && !write {
		// A read of the file this handle found sound at this
		// transaction: the quick check is for writes and for the
		// sidecar's word, and costs in proportion to the file's trees
		// (a tenth of a second for 1.5 GB), which a reader reopening
		// after each pause would pay again and again.
		return
	}
	if err == nil {
		quickChecks.Add(1)
		if checkBoltQuick(f, st.Size(), h.path) == nil && (own || marked && mark.checked() == seen) {
			h.pages = &checkedPages{txid: m.txid}
			return
		}
	}
	var unsafe *pageDamage
	if err == nil {
		pageWalks.Add(1)
		unsafe, err = checkBoltPages(f, st.Size(), h.path)
	} else {
		unsafe = &pageDamage{err: err, broken: map[string]bool{"": true}}
	}
	h.pages = &checkedPages{txid: m.txid, unsafe: unsafe}
	if marked && err == nil {
		mark.recordChecked(seen)
	}
	h.noteDamageLocked(err)
}

// unsafe returns what of the open file bbolt must not read (nil if
// nothing); h.mu is not held.
func (h *handle) unsafe() *pageDamage {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pages == nil {
		return nil
	}
	return h.pages.unsafe
}

// noteDamage records err when it reports damage (ErrCorrupt), turning the
// handle read-only.
func (h *handle) noteDamage(err error) {
	if errors.Is(err, ErrCorrupt) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.noteDamageLocked(err)
	}
}

func (h *handle) noteDamageLocked(err error) {
	if errors.Is(err, ErrCorrupt) && h.damage == nil {
		h.damage = err
		if m, ok := markersFor(h.path); ok {
			m.remove(m.checkedName()) // the next process walks again
			if s, ok := h.fileState(); ok {
				m.recordDamage(s, err) // and refuses to write (sidecar.go)
			}
		}
	}
}

// fileState returns the file's state as the sidecar and the damage
// record name it, false when it cannot be read.
func (h *handle) fileState() (fileState, bool) {
	f, err := os.Open(h.path)
	if err != nil {
		return fileState{}, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fileState{}, false
	}
	m, err := currentBoltMeta(f, h.path)
	if err != nil {
		return fileState{}, false
	}
	return fileState{txid: m.txid, size: st.Size(), mtime: st.ModTime().UnixNano()}, true
}

// refusal is the error a write gets now: the damage found, if any.
func (h *handle) refusal() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.damage
}

// permissionError explains a library this user may not open as asked:
// for writing, an ErrReadOnly error (reading may still work); for
// reading, the permission error itself.
func permissionError(path string, write bool) error {
	what := "the file"
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		what = "its folder " + filepath.Dir(path) // a new library cannot be created
	} else if err == nil {
		what = fmt.Sprintf("the file (%v%s)", fi.Mode().Perm(), ownerOf(fi))
	}
	if write {
		return errorf(ErrReadOnly, "cannot write to the library %s: permission denied by %s", path, what)
	}
	return fmt.Errorf("cannot read the library %s: permission denied by %s: %w", path, what, os.ErrPermission)
}

// closeFile closes the file, releasing its lock; h.mu is held and nobody
// uses it.
func (h *handle) closeFile() {
	h.stopTimer()
	if h.db != nil {
		_ = h.db.Close()
		h.db = nil
		if h.noted.id != "" {
			h.noted.remove(h.noted.noteName(os.Getpid()))
			h.noted = markers{}
		}
	}
	h.cond.Broadcast()
}

// The handle is the library's store when it is a file: a storage.DB
// whose transactions are bbolt's (boltkv.WrapTx) on the file opened for
// them, with every guard above.
var _ storage.DB = (*handle)(nil)

// View runs fn in a read transaction, containing damage. It refuses a
// file with damage bbolt must not read (see checkPages).
func (h *handle) View(fn func(storage.Tx) error) error {
	return h.viewAround(func(tx *bolt.Tx, unsafe *pageDamage) error {
		if unsafe != nil {
			return fmt.Errorf("%w; reading it could loop for ever or run past its pages, so nothing is read from it", unsafe.err)
		}
		return fn(boltkv.WrapTx(tx))
	})
}

// viewAroundKV is viewAround for reads through the seam that go around
// the damage themselves (Library.viewAround: check's and salvage's).
func (h *handle) viewAroundKV(fn func(storage.Tx) error) error {
	return h.viewAround(func(tx *bolt.Tx, _ *pageDamage) error { return fn(boltkv.WrapTx(tx)) })
}

// viewAround runs fn in a read transaction, containing damage, however
// damaged the file: fn is given what of it bbolt must not read (nil if
// nothing), and reads around that.
func (h *handle) viewAround(fn func(*bolt.Tx, *pageDamage) error) error {
	db, release, err := h.acquire(false)
	if err != nil {
		return err
	}
	defer release()
	unsafe := h.unsafe()
	err = guardedDB{db}.View(func(tx *bolt.Tx) error { return fn(tx, unsafe) })
	h.noteDamage(err)
	return err
}

// Update runs fn in a write transaction, containing damage.
func (h *handle) Update(fn func(storage.Tx) error) error {
	db, release, err := h.acquire(true)
	if err != nil {
		return err
	}
	defer release()
	var txid uint64
	err = guardedDB{db}.Update(func(tx *bolt.Tx) error {
		txid = uint64(tx.ID())
		return fn(boltkv.WrapTx(tx))
	})
	h.noteDamage(err)
	if err == nil {
		// The commit was this handle's own, on pages found sound: they
		// still are.
		h.mu.Lock()
		if h.pages != nil && h.pages.unsafe == nil && h.pages.txid == txid-1 && h.damage == nil {
			h.pages.txid = txid
			h.recordSound(txid)
		}
		h.mu.Unlock()
	}
	return err
}

// Close closes the file once the transactions in progress are done; the
// library cannot be used after.
func (h *handle) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for h.users > 0 {
		h.cond.Wait()
	}
	h.closeFile()
	return nil
}

// unmap closes the file if no transaction uses it, so that a long run of
// transactions (a large add, merges) does not keep every page it read
// mapped, and counted in the process's memory; the next transaction
// opens the file again.
func (h *handle) unmap() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.users == 0 && h.db != nil {
		// reopened by the next transaction at once: the hold goes on
		// (see acquire)
		held := h.since
		h.closeFile()
		h.reopenedSince = held
	}
}

// isNew reports whether the file is not there yet, or empty: a new
// library, which bbolt makes on its first write.
func (h *handle) isNew() bool {
	fi, err := os.Stat(h.path)
	return err != nil || fi.Size() == 0
}

// held reports whether the file is open (and so locked) now.
func (h *handle) held() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.db != nil
}

// stats returns bbolt's statistics and page size, for tests of the
// file's growth: with the file open for writing, as only then does bbolt
// read its free pages.
func (h *handle) stats() (bolt.Stats, int, error) {
	db, release, err := h.acquire(!h.readOnly)
	if err != nil {
		return bolt.Stats{}, 0, err
	}
	defer release()
	return db.Stats(), db.Info().PageSize, nil
}
