package docstore

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// plantedVictim is a file of the user's that a planted runtime folder
// aims at, with its content and time, to show it untouched.
type plantedVictim struct {
	path    string
	content []byte
	mtime   time.Time
}

func newVictim(t *testing.T, dir, name string) plantedVictim {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("the victim's own data\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return plantedVictim{path: p, content: []byte("the victim's own data\n"), mtime: old}
}

func (v plantedVictim) check(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(v.path)
	if err != nil || !bytes.Equal(b, v.content) {
		t.Errorf("the victim file %s was changed: %q, %v", v.path, b, err)
	}
	if fi, err := os.Stat(v.path); err != nil || !fi.ModTime().Equal(v.mtime) {
		t.Errorf("the victim file's time was changed: %v", fi.ModTime())
	}
}

// useMarkers does with m what processes sharing a library do with their
// markers: wait, hold, record a sound walk, and read them all back.
func useMarkers(m markers) fileState {
	m.touch()
	m.note(true)
	m.recordChecked(fileState{txid: 7, size: 8, mtime: 9})
	m.touch()
	_ = m.holders()
	_ = m.touchedSince(time.Minute)
	return m.checked()
}

// TestPlantedRuntimeFolderIsRefused: the runtime folder, used when the
// library's folder cannot be written, is another user's to plant when it
// lies in the shared temporary folder. A folder that is a symlink, that
// others may enter, or that is another user's is not used, and no marker
// is written through a symlink: the victim's files stay as they were,
// and a forged sidecar there vouches for nothing.
func TestPlantedRuntimeFolderIsRefused(t *testing.T) {
	const id = "feed-1"
	ours := markers{id: id}
	names := []string{ours.waitName(), ours.noteName(os.Getpid()), ours.checkedName()}
	// The library's folder is not there to write to: everything goes
	// to the runtime folder.
	unwritable := filepath.Join(t.TempDir(), "gone", "library-folder")

	plant := map[string]func(t *testing.T, rt string, victims string){
		"a symlink to the victim's folder": func(t *testing.T, rt, victims string) {
			if err := os.Symlink(victims, rt); err != nil {
				t.Fatal(err)
			}
		},
		"a folder open to everyone, its files symlinks": func(t *testing.T, rt, victims string) {
			if err := os.Mkdir(rt, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(rt, 0o777); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if err := os.Symlink(filepath.Join(victims, n), filepath.Join(rt, n)); err != nil {
					t.Fatal(err)
				}
			}
		},
		"another user's private folder, its files symlinks": func(t *testing.T, rt, victims string) {
			if os.Getuid() != 0 {
				t.Skip("making a folder another user's needs root")
			}
			if err := os.Mkdir(rt, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if err := os.Symlink(filepath.Join(victims, n), filepath.Join(rt, n)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Lchown(rt, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		},
		"this user's folder, its files symlinks": func(t *testing.T, rt, victims string) {
			if err := os.Mkdir(rt, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if err := os.Symlink(filepath.Join(victims, n), filepath.Join(rt, n)); err != nil {
					t.Fatal(err)
				}
			}
		},
	}
	for what, fn := range plant {
		t.Run(what, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_RUNTIME_DIR", xdg)
			victims := t.TempDir()
			var vs []plantedVictim
			for _, n := range names {
				vs = append(vs, newVictim(t, victims, n))
			}
			// A sidecar forged by the planter: it must vouch for nothing.
			forged := "3 4 5\n"
			for _, v := range vs[2:] {
				os.WriteFile(v.path, []byte(forged), 0o600)
				os.Chtimes(v.path, v.mtime, v.mtime)
				vs[2].content = []byte(forged)
			}
			rt := runtimeDir()
			if rt != filepath.Join(xdg, "citelens") {
				t.Fatalf("runtime folder %s", rt)
			}
			fn(t, rt, victims)
			m := markers{id: id, dirs: []string{unwritable, rt}}
			// In this user's own folder the sidecar read back is the one
			// just recorded; in a refused one, none.
			want := fileState{}
			if what == "this user's folder, its files symlinks" {
				want = fileState{txid: 7, size: 8, mtime: 9}
			}
			if got := useMarkers(m); got != want {
				t.Errorf("the sidecar reads %+v, want %+v", got, want)
			}
			for _, v := range vs {
				v.check(t)
			}
		})
	}
}

// TestMarkersAreReadSafely: a FIFO, a link to /dev/zero or a directory
// under a marker's name neither hangs the process nor fills its memory;
// the private runtime folder is made 0700 and used.
func TestMarkersAreReadSafely(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	rt := runtimeDir()
	m := markers{id: "feed-2", dirs: []string{filepath.Join(t.TempDir(), "gone", "x"), rt}}
	m.recordChecked(fileState{txid: 1, size: 2, mtime: 3})
	if got := m.checked(); got != (fileState{txid: 1, size: 2, mtime: 3}) {
		t.Fatalf("the sidecar in the private runtime folder reads %+v", got)
	}
	if fi, err := os.Lstat(rt); err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Fatalf("runtime folder %v, %v", fi.Mode(), err)
	}
	// Another process's note, a FIFO.
	fifo := filepath.Join(rt, ".citelens-feed-2.1.holder")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.Remove(filepath.Join(rt, m.checkedName()))
	if err := os.Symlink("/dev/zero", filepath.Join(rt, m.checkedName())); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(rt, m.waitName()), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan fileState, 1)
	go func() {
		_ = m.holders()
		m.touch()
		done <- m.checked()
	}()
	select {
	case got := <-done:
		if got != (fileState{}) {
			t.Errorf("a sidecar was read from /dev/zero: %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading the markers hangs on a FIFO")
	}
	if fi, err := os.Lstat(filepath.Join(rt, m.waitName())); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO under the wait marker's name was replaced: %v", err)
	}
}
