//go:build linux

package docstore

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readLoop reads the library at path without pause, as `ask --batch`
// does (short reads, one after another, within the time the file stays
// open), printing "reading" once it holds the file, until killed.
func readLoop(path string) {
	l, err := Open(path, &Options{ReadOnly: true})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	defer l.Close()
	for i := 0; ; i++ {
		docs, err := l.List()
		if err != nil {
			fmt.Println("error", err)
			return
		}
		if _, err := l.Document(docs[i%len(docs)].ID); err != nil {
			fmt.Println("error", err)
			return
		}
		if i == 0 {
			fmt.Println("reading")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// addOne adds a document to the library at path, waiting at most 10 s,
// the default, for the file, and prints how long the add took.
func addOne(path string) {
	start := time.Now()
	l, err := Open(path, &Options{LockTimeout: DefaultLockTimeout})
	if err == nil {
		_, _, err = writeText(l, "added.txt", "A document added while another process reads. It waits its turn.")
		l.Close()
	}
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("added in", time.Since(start).Round(time.Millisecond))
}

// TestWriterGetsInWithNoFolderForTheMarker (issue 34, item 8): with
// neither the library's folder nor the temporary folder writable, the
// wait marker has nowhere to go; a writer still gets its turn from a
// process reading without pause, within the lock timeout, because it
// asks for a lock on the library file itself, which the reader sees.
// As root, for whom no folder is unwritable, both processes run as
// nobody.
func TestWriterGetsInWithNoFolderForTheMarker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes for several seconds")
	}
	var cred *syscall.Credential
	const nobody = 65534
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	base, err := os.MkdirTemp("", "citelens-waitlock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	os.Chmod(base, 0o755)
	// The test binary, where the other user may run it.
	bin := filepath.Join(base, "docstore.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	libDir, tmpDir := filepath.Join(base, "library"), filepath.Join(base, "tmp")
	for _, d := range []string{libDir, tmpDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(libDir, "library.db")
	l := openAtUnchecked(t, path)
	for i := range 3 {
		if _, _, err := writeText(l, fmt.Sprintf("r%d.txt", i), strings.Repeat(fmt.Sprintf("Report %d on rivers and courts. ", i), 200)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if cred != nil {
		if err := os.Chown(path, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	} else {
		// Neither folder writable by this user.
		os.Chmod(libDir, 0o555)
		os.Chmod(tmpDir, 0o555)
	}
	command := func(role string) *exec.Cmd {
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+role, "LIB="+path, "TMPDIR="+tmpDir, "XDG_RUNTIME_DIR=")
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return cmd
	}
	reader := command("readloop")
	out, err := reader.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := reader.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		reader.Process.Kill()
		reader.Wait()
	}()
	lines := bufio.NewReader(out)
	if line, err := lines.ReadString('\n'); err != nil || line != "reading\n" {
		t.Fatalf("the reader: %q, %v", line, err)
	}
	go io.Copy(io.Discard, lines)
	// The reader has held the file a while: no folder for the marker.
	time.Sleep(1500 * time.Millisecond)
	got, err := command("addone").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(got), "added in") {
		t.Fatalf("the add while another process reads without pause: %s, %v", got, err)
	}
	t.Logf("%s", strings.TrimSpace(string(got)))
	if reader.ProcessState != nil {
		t.Fatal("the reader stopped")
	}
}
