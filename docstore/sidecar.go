package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the sidecar that remembers a sound page walk.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// The page walk (boltpages.go) guards every open of a file another
// process may have changed, and costs in proportion to the file. What it
// found sound is kept in a sidecar, one small file named by the library
// file's identity and kept where its wait marker is (marker.go), holding
// the state of the file the walk (or a commit on pages found sound)
// vouches for: the bbolt transaction, the size and the modification time.
// A process that finds the file in that state does not walk it again.
//
// What the sidecar cannot see is damage that leaves all three as they
// were: bits that rot on the disk, or a writer that puts the time back;
// and a sidecar can be forged. So it is trusted only for what the quick
// check (checkBoltQuick, boltpages.go), made by every writing open and
// every open that would take the sidecar's word, does not read:
// the meta pages, the free list, the branch pages and the buckets' roots
// are read each time, and their damage brings on the full walk. Damage
// in a leaf of records that keeps all three is what `citelens check`
// finds.

// pageWalks counts the page walks this process has made, for tests;
// quickChecks the quick checks (checkBoltQuick).
var pageWalks, quickChecks atomic.Int64

// fileState is a library file's state as far as the sidecar tells.
type fileState struct {
	txid  uint64
	size  int64
	mtime int64 // nanoseconds since 1970
}

func (m markers) checkedName() string { return ".citelens-" + m.id + ".checked" }

// Damage found by one process is known to the next. The page walk finds
// the damage of pages again at each open, but damage inside a record (a
// layout that does not fit its text, an answer that does not decode) is
// found only by the read that decodes it — `check`, or a command that
// showed the document — and a later process writing elsewhere in the
// file would never see it. So whoever finds damage records it beside the
// sidecar, with the file's state (transaction, size, time) it was found
// in, and every open of the file in that state refuses to write with it,
// as the process that found it does. A write by anything else moves the
// state and ends the record's word: the next read finds the damage
// again, if it is still there.

func (m markers) damagedName() string { return ".citelens-" + m.id + ".damaged" }

// maxDamageNote bounds the message a damage record keeps.
const maxDamageNote = 1000

// recordDamage records err, damage found in the file in state s.
func (m markers) recordDamage(s fileState, err error) {
	msg := strings.Join(strings.Fields(trimDamaged(err.Error())), " ")
	if len(msg) > maxDamageNote {
		msg = strings.ToValidUTF8(msg[:maxDamageNote], "") + "…"
	}
	m.remove(m.damagedName())
	m.create(m.damagedName(), fmt.Appendf(nil, "%d %d %d\n%s\n", s.txid, s.size, s.mtime, msg))
}

// knownDamage returns the damage recorded for the file in state s, nil
// if none.
func (m markers) knownDamage(s fileState) error {
	for i := range m.dirs {
		dir, ok := m.dir(i, false)
		if !ok {
			continue
		}
		b, err := readMarker(filepath.Join(dir, m.damagedName()))
		if err != nil {
			continue
		}
		head, msg, _ := strings.Cut(string(b), "\n")
		var r fileState
		if n, err := fmt.Sscanf(head, "%d %d %d", &r.txid, &r.size, &r.mtime); err != nil || n != 3 || r != s {
			continue
		}
		msg = strings.TrimSpace(msg)
		if msg == "" || !utf8.ValidString(msg) {
			msg = "damage was found in it before"
		}
		return damaged("%s (found earlier; the file has not changed since)", msg)
	}
	return nil
}

// checked returns the state the sidecar found sound, zero if there is
// none (or it does not parse).
func (m markers) checked() fileState {
	for i := range m.dirs {
		dir, ok := m.dir(i, false)
		if !ok {
			continue
		}
		b, err := readMarker(filepath.Join(dir, m.checkedName()))
		if err != nil || len(b) > 100 {
			continue
		}
		var s fileState
		if n, err := fmt.Sscanf(string(b), "%d %d %d\n", &s.txid, &s.size, &s.mtime); err == nil && n == 3 {
			return s
		}
	}
	return fileState{}
}

// recordChecked records s as found sound, replacing what any directory
// held: one sidecar, in the first place that takes it.
func (m markers) recordChecked(s fileState) {
	m.remove(m.checkedName())
	m.create(m.checkedName(), fmt.Appendf(nil, "%d %d %d\n", s.txid, s.size, s.mtime))
}

// recordSound records the file, just committed at txid by this handle on
// pages it found sound, as sound; h.mu is held and the write lock too.
func (h *handle) recordSound(txid uint64) {
	m, ok := markersFor(h.path)
	if !ok {
		return
	}
	st, err := os.Stat(h.path)
	if err != nil {
		m.remove(m.checkedName())
		return
	}
	m.recordChecked(fileState{txid: txid, size: st.Size(), mtime: st.ModTime().UnixNano()})
}
