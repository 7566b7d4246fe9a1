package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the sidecar that remembers a sound page walk.

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
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
// check every open makes (checkBoltQuick, boltpages.go) does not read:
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
