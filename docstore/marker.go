package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the wait markers and holder notes of processes sharing a file.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Processes sharing a library talk through small files (handle.go): a
// process that waits for the file touches a wait marker, and one that
// holds it leaves a note saying who it is and what it does, for a waiter
// that gives up to show. Both are named by the library file's identity
// (its device and inode, or its resolved path where there are none), so
// that a symlink, a relative path and the real path meet at the same
// files, and kept beside the file when its folder is writable, else in
// the user's runtime directory. A process looks in both places, since
// one that can write the folder and one that cannot may share the file.

// markers names the wait marker and holder notes of one library file.
type markers struct {
	id   string   // the file's identity
	dirs []string // where they may be: beside the file, the runtime directory
}

// markersFor returns the markers of the library at path, or false when
// the file is not there (nobody can hold it then).
func markersFor(path string) (markers, bool) {
	fi, err := os.Stat(path) // the file a symlink names
	if err != nil {
		return markers{}, false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	id, ok := fileIdentity(fi)
	if !ok {
		sum := sha256.Sum256([]byte(real))
		id = hex.EncodeToString(sum[:8])
	}
	m := markers{id: id, dirs: []string{filepath.Dir(real)}}
	if rt := runtimeDir(); rt != "" {
		m.dirs = append(m.dirs, rt)
	}
	return m, true
}

// runtimeDir is the user's directory for small runtime files:
// $XDG_RUNTIME_DIR/citelens, else citelens-UID in the temporary folder.
// Another local user can make the latter first (the temporary folder is
// everyone's), so it is used only when it is a folder of this user's
// that nobody else may enter (privateDir).
func runtimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "citelens")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("citelens-%d", os.Getuid()))
}

// maxMarker bounds what is read of a marker: a note is a line, and a
// file grown past this was not written by citelens.
const maxMarker = 4096

// dir returns the i-th place of m's files, or false when it must not be
// used: the runtime directory (i > 0) when it is not private to this
// user (checkPrivateDir) — planted by another user, a symlink, open to
// others. With mk set, a runtime directory not there yet is made,
// private.
func (m markers) dir(i int, mk bool) (string, bool) {
	d := m.dirs[i]
	if i == 0 {
		return d, true
	}
	if mk {
		_ = os.MkdirAll(filepath.Dir(d), 0o700)
		_ = os.Mkdir(d, 0o700)
	}
	return d, checkPrivateDir(d) == nil
}

// readMarker reads the marker file at path, never through a symlink nor
// from anything but a regular file, and at most maxMarker bytes.
func readMarker(path string) ([]byte, error) {
	f, err := openMarker(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMarker+1))
	if err == nil && len(b) > maxMarker {
		err = fmt.Errorf("%s is too long to be a marker", path)
	}
	return b, err
}

func (m markers) waitName() string { return ".citelens-" + m.id + ".waiting" }

func (m markers) noteName(pid int) string {
	return ".citelens-" + m.id + "." + strconv.Itoa(pid) + ".holder"
}

// create creates (or truncates) the file name in the first place that
// takes it, with content, never writing through a symlink (openMarker).
func (m markers) create(name string, content []byte) {
	for i := range m.dirs {
		dir, ok := m.dir(i, true)
		if !ok {
			continue
		}
		f, err := openMarker(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE)
		if err != nil {
			continue
		}
		err = f.Truncate(0)
		if err == nil {
			_, err = f.Write(content)
		}
		if f.Close() == nil && err == nil {
			return
		}
	}
}

// remove removes the file name wherever it is (a symlink is removed,
// not what it names).
func (m markers) remove(name string) {
	for i := range m.dirs {
		if dir, ok := m.dir(i, false); ok {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}

// touch sets the wait marker's time to now, creating it if need be, in
// the first place that takes it.
func (m markers) touch() {
	now := time.Now()
	for i := range m.dirs {
		if dir, ok := m.dir(i, true); ok && touchMarker(filepath.Join(dir, m.waitName()), now) == nil {
			return
		}
	}
}

// touchedSince reports whether a process touched the wait marker within d.
func (m markers) touchedSince(d time.Duration) bool {
	for i := range m.dirs {
		dir, ok := m.dir(i, false)
		if !ok {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, m.waitName())); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) < d {
			return true
		}
	}
	return false
}

// Holder is a citelens process that has the library file open, as its
// note says.
type Holder struct {
	PID   int
	Write bool      // open for writing (else for reading)
	Since time.Time // when it opened the file
	What  string    // its command line
}

func (h Holder) String() string {
	mode := "reading"
	if h.Write {
		mode = "writing"
	}
	return fmt.Sprintf("citelens (pid %d) has held it for %s since %s, running %q",
		h.PID, mode, h.Since.Local().Format("15:04:05"), h.What)
}

// note leaves this process's note: it holds the file, for writing or not.
func (m markers) note(write bool) {
	mode := "r"
	if write {
		mode = "w"
	}
	m.create(m.noteName(os.Getpid()), fmt.Appendf(nil, "%s %d %s\n", mode, time.Now().Unix(), commandLine()))
}

// holders reads the notes of the live processes that hold the file,
// dropping those of processes that ended without removing theirs.
func (m markers) holders() []Holder {
	var out []Holder
	for i := range m.dirs {
		dir, ok := m.dir(i, false)
		if !ok {
			continue
		}
		paths, _ := filepath.Glob(filepath.Join(dir, ".citelens-"+m.id+".*.holder"))
		for _, p := range paths {
			pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), ".citelens-"+m.id+"."), ".holder"))
			if err != nil || pid == os.Getpid() {
				continue
			}
			if !processAlive(pid) {
				_ = os.Remove(p)
				continue
			}
			b, err := readMarker(p)
			if err != nil {
				continue
			}
			mode, rest, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
			ts, what, _ := strings.Cut(rest, " ")
			sec, _ := strconv.ParseInt(ts, 10, 64)
			out = append(out, Holder{PID: pid, Write: mode == "w", Since: time.Unix(sec, 0), What: what})
		}
	}
	return out
}

// commandLine is this process's command line for a holder note, on one
// line and cut short.
func commandLine() string {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	s := strings.Join(strings.Fields(strings.Join(args, " ")), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
