//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/docstoretest"
)

// nobody is the user the sharing tests run citelens as when they run as
// root, for whom no folder is unwritable.
const nobody = 65534

// shareRig is a built binary and a folder for libraries, both reachable
// by the user the commands run as.
type shareRig struct {
	t    *testing.T
	bin  string
	dir  string
	cred *syscall.Credential // nil: as the test's own user
}

func newShareRig(t *testing.T) *shareRig {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir, err := os.MkdirTemp("", "citelens-share-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	os.Chmod(dir, 0o755)
	r := &shareRig{t: t, dir: dir, bin: filepath.Join(dir, "citelens")}
	if out, err := exec.Command("go", "build", "-o", r.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, "tmp"), 0o777)
	os.Chmod(filepath.Join(dir, "tmp"), 0o777)
	if os.Geteuid() == 0 {
		r.cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	return r
}

// own gives path to the user the commands run as.
func (r *shareRig) own(path string) {
	if r.cred != nil {
		if err := os.Chown(path, nobody, nobody); err != nil {
			r.t.Fatal(err)
		}
	}
}

// command is citelens with args, as the rig's user, its temporary folder
// (and so its runtime directory) inside the rig's.
func (r *shareRig) command(args ...string) *exec.Cmd {
	cmd := exec.Command(r.bin, args...)
	cmd.Env = append(os.Environ(), "CITELENS_CONFIG="+filepath.Join(r.dir, "none.toml"), "TMPDIR="+filepath.Join(r.dir, "tmp"), "XDG_RUNTIME_DIR=", "HOME="+filepath.Join(r.dir, "tmp"))
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	return cmd
}

func (r *shareRig) ok(args ...string) string {
	r.t.Helper()
	out, err := r.command(args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("citelens %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestWriterGetsInDuringBatch: while `ask --batch` reads the library
// without pause (its questions come from a pipe kept full), an `add`
// from another process gets in — with the library reached through a
// symlink by one and its real path by the other, and with the library's
// folder unwritable, so that the wait marker cannot be beside it.
func TestWriterGetsInDuringBatch(t *testing.T) {
	r := newShareRig(t)
	for _, c := range []struct {
		name             string
		readOnlyFolder   bool
		readerVia, write string // "link" or "real": the path each uses
	}{
		{"symlink and real path", false, "link", "real"},
		{"real path and symlink", false, "real", "link"},
		{"unwritable folder", true, "real", "real"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			lib := filepath.Join(r.dir, strings.ReplaceAll(c.name, " ", "-"))
			os.Mkdir(lib, 0o755)
			r.own(lib)
			real := filepath.Join(lib, "library.db")
			link := filepath.Join(r.dir, strings.ReplaceAll(c.name, " ", "-")+".db")
			os.Symlink(real, link)
			path := map[string]string{"real": real, "link": link}
			doc := filepath.Join(r.dir, "declaration.txt")
			raw, _ := os.ReadFile(sample)
			os.WriteFile(doc, raw, 0o644)
			r.ok("--db", real, "add", doc)
			if c.readOnlyFolder {
				os.Chmod(lib, 0o555)
				defer os.Chmod(lib, 0o755)
			}

			fifo := filepath.Join(r.dir, "questions-"+strings.ReplaceAll(c.name, " ", "-"))
			docstoretest.FIFO(t, fifo)
			os.Chmod(fifo, 0o666)
			reader := r.command("--db", path[c.readerVia], "ask", "--batch", fifo, "--no-save", "--strategy", "extractive")
			var out, errb bytes.Buffer
			reader.Stdout, reader.Stderr = &out, &errb
			if err := reader.Start(); err != nil {
				t.Fatal(err)
			}
			feed, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			fed := make(chan error, 1)
			go func() { // keep the pipe full, so the reader never idles
				for i := 0; ; i++ {
					select {
					case <-stop:
						fed <- feed.Close()
						return
					default:
					}
					q, _ := json.Marshal(map[string]string{"id": fmt.Sprint(i), "question": fmt.Sprintf("What did the king refuse (%d)?", i)})
					if _, err := feed.Write(append(q, '\n')); err != nil {
						fed <- err
						return
					}
				}
			}()
			for deadline := time.Now().Add(30 * time.Second); strings.Count(out.String(), "\n") < 20; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the batch did not start: %s", errb.String())
				}
			}

			other := filepath.Join(r.dir, "other.txt")
			os.WriteFile(other, []byte("Another document. It was added while a batch was reading."), 0o644)
			start := time.Now()
			addOut, addErr := r.command("--db", path[c.write], "add", other).CombinedOutput()
			took := time.Since(start)
			answered := strings.Count(out.String(), "\n")
			close(stop)
			<-fed
			if err := reader.Wait(); err != nil {
				t.Errorf("the batch failed: %v\n%s", err, errb.String())
			}
			if addErr != nil || !strings.Contains(string(addOut), "added") {
				t.Fatalf("add while the batch read (%s): %v\n%s", took.Round(time.Millisecond), addErr, addOut)
			}
			if strings.Count(out.String(), "\n") <= answered {
				t.Errorf("the batch answered nothing after the add: it was not reading throughout")
			}
			t.Logf("the add got in after %s, with %d questions answered", took.Round(time.Millisecond), answered)
		})
	}
}

// TestLockedHintNamesTheHolder: a library held past the lock timeout is
// reported with what the citelens holding it is doing, or, when nothing
// says, as held by something that is no citelens of today.
func TestLockedHintNamesTheHolder(t *testing.T) {
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	var b bytes.Buffer
	printError(&b, &docstore.LockedError{Path: "/lib.db", Holders: []docstore.Holder{{PID: 42, Since: since, What: "citelens ask --batch q.jsonl"}}})
	if out := b.String(); !strings.Contains(out, `citelens (pid 42) has held it for reading since 03:04:05, running "citelens ask --batch q.jsonl".`) || !strings.Contains(out, "kill") {
		t.Errorf("with a holder:\n%s", out)
	}
	b.Reset()
	printError(&b, &docstore.LockedError{Path: "/lib.db"})
	if out := b.String(); !strings.Contains(out, "library is in use by another citelens process (/lib.db)") || !strings.Contains(out, "says nothing of itself") {
		t.Errorf("without one:\n%s", out)
	}
}

// TestReadOnlyLibrary: a library whose file is not writable, and one on a
// file system mounted read-only (when this machine lets the test mount
// one), serve every reading command; the writing ones say the library
// cannot be written and why — never that it is damaged — and change
// nothing.
func TestReadOnlyLibrary(t *testing.T) {
	r := newShareRig(t)
	raw, _ := os.ReadFile(sample)
	doc := filepath.Join(r.dir, "declaration.txt")
	os.WriteFile(doc, raw, 0o644)
	other := filepath.Join(r.dir, "other.txt")
	os.WriteFile(other, []byte("Another document. It cannot be added here."), 0o644)

	build := func(dir string) (db, id, answer string) {
		os.MkdirAll(dir, 0o755)
		r.own(dir)
		db = filepath.Join(dir, "library.db")
		var added []addedDoc
		json.Unmarshal([]byte(r.ok("--db", db, "add", "--json", doc)), &added)
		r.ok("--db", db, "ask", "--strategy", "extractive", "Who signed it?")
		var answers []struct {
			ID string `json:"answer_id"`
		}
		json.Unmarshal([]byte(r.ok("--db", db, "answers", "--json")), &answers)
		if len(added) != 1 || len(answers) != 1 {
			t.Fatalf("building the library: %v %v", added, answers)
		}
		return db, string(added[0].ID), answers[0].ID
	}

	check := func(t *testing.T, db, id, answer, why string) {
		before, _ := os.ReadFile(db)
		for _, args := range [][]string{
			{"ls"}, {"show", id}, {"search", "governments"}, {"answers"}, {"export", answer},
			{"check"}, {"ask", "--no-save", "--strategy", "extractive", "Who signed it?"},
		} {
			if out, err := r.command(append([]string{"--db", db}, args...)...).CombinedOutput(); err != nil {
				t.Errorf("%v on a read-only library: %v\n%s", args, err, out)
			}
		}
		for _, args := range [][]string{
			{"add", other}, {"rm", id}, {"reindex"}, {"ask", "--strategy", "extractive", "Who signed it?"},
		} {
			out, err := r.command(append([]string{"--db", db}, args...)...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), why) || !strings.Contains(string(out), "Reading still works") ||
				strings.Contains(string(out), "damaged") {
				t.Errorf("%v on a read-only library: %v\n%s", args, err, out)
			}
		}
		if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
			t.Error("the library changed")
		}
	}

	t.Run("file not writable", func(t *testing.T) {
		db, id, answer := build(filepath.Join(r.dir, "ro-file"))
		os.Chmod(db, 0o400)
		check(t, db, id, answer, "permission denied by the file (-r--------)")
	})

	t.Run("file system mounted read-only", func(t *testing.T) {
		mnt := filepath.Join(r.dir, "mnt")
		os.Mkdir(mnt, 0o755)
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a file system here: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		db, id, answer := build(filepath.Join(mnt, "lib"))
		if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot remount read-only: %v %s", err, out)
		}
		check(t, db, id, answer, "its file system is mounted read-only")
	})
}
