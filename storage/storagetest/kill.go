package storagetest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/storage"
)

// The environment that makes a test binary a child of a kill test: which
// part to play, for which backend, on which store.
const (
	envChild   = "STORAGETEST_CHILD"
	envBackend = "STORAGETEST_BACKEND"
	envAddr    = "STORAGETEST_ADDR"
)

// The parts a child plays.
const (
	// childMid writes a large transaction and, before committing it,
	// says so and waits to be killed.
	childMid = "mid-transaction"
	// childCommits commits batch after batch, saying so after each,
	// until it is killed.
	childCommits = "commits"
)

// What a child says on stdout, a line each.
const (
	lineMid       = "storagetest: mid-transaction"
	lineCommitted = "storagetest: committed"
)

const (
	// killKeys is how many keys the mid-transaction child writes: enough
	// for a transaction of many pages.
	killKeys = 5000
	// batchKeys is how many keys each of the committing child's
	// transactions writes: few, so its time goes mostly to committing,
	// where the kill then most often lands. maxBatches is how many it
	// writes before it gives up being killed.
	batchKeys  = 200
	maxBatches = 10000
)

// Child plays a child process's part in a kill test, and exits, when this
// process is one for backend b; otherwise it returns at once. Run calls it
// first, so a backend needs it only in a TestMain that must not run in the
// child:
//
//	func TestMain(m *testing.M) {
//		storagetest.Child(backend) // returns unless this is a child
//		... start the server ...
//		os.Exit(m.Run())
//	}
//
// The child opens the store with b.Open, so b's Open must work in a fresh
// process given only the address New returned.
func Child(b Backend) {
	part := os.Getenv(envChild)
	if part == "" || os.Getenv(envBackend) != b.Name {
		return
	}
	err := child(b, part, os.Getenv(envAddr))
	fmt.Fprintf(os.Stderr, "storagetest: child %s for %s: %v\n", part, b.Name, err)
	os.Exit(3)
}

// child plays part on the store at addr. It returns only when something
// went wrong: a child ends by being killed.
func child(b Backend, part, addr string) error {
	db, err := b.Open(addr)
	if err != nil {
		return fmt.Errorf("open %s: %w", addr, err)
	}
	switch part {
	case childMid:
		err := db.Update(func(tx storage.Tx) error {
			k := tx.Bucket([]byte("kill"))
			if k == nil {
				return errors.New("no bucket kill")
			}
			for i := range killKeys {
				if err := k.Put(fmt.Appendf(nil, "mid%05d", i), bigValue(200, uint64(i))); err != nil {
					return err
				}
			}
			if err := k.Put([]byte("marker"), []byte("changed")); err != nil {
				return err
			}
			if err := k.Delete([]byte("doomed")); err != nil {
				return err
			}
			if _, err := k.NextSequence(); err != nil {
				return err
			}
			if _, err := tx.CreateBucket([]byte("made-mid")); err != nil {
				return err
			}
			if err := tx.DeleteBucket([]byte("other")); err != nil {
				return err
			}
			fmt.Println(lineMid)
			// Wait to be killed. Should the parent go first, stdin
			// ends, and so does the transaction, committing nothing.
			_, _ = io.Copy(io.Discard, os.Stdin)
			return errors.New("the parent went away without killing the child")
		})
		return err
	case childCommits:
		for n := range maxBatches {
			err := db.Update(func(tx storage.Tx) error {
				k := tx.Bucket([]byte("kill"))
				if k == nil {
					return errors.New("no bucket kill")
				}
				for i := range batchKeys {
					if err := k.Put(batchKey(n, i), batchValue(n, i)); err != nil {
						return err
					}
				}
				if _, err := k.NextSequence(); err != nil {
					return err
				}
				return k.Put([]byte("marker"), strconv.AppendInt(nil, int64(n), 10))
			})
			if err != nil {
				return err
			}
			fmt.Printf("%s %d\n", lineCommitted, n)
		}
		return fmt.Errorf("committed %d batches and was not killed", maxBatches)
	}
	return fmt.Errorf("no part %q", part)
}

func batchKey(n, i int) []byte { return fmt.Appendf(nil, "batch%05d-%04d", n, i) }

func batchValue(n, i int) []byte { return fmt.Appendf(nil, "%d.%d", n, i) }

// setupKill makes the store a kill test's child writes to, and closes it
// for the child to open.
func setupKill(t *testing.T, st *store) {
	st.update(func(tx storage.Tx) error {
		k := create(t, tx, "kill")
		put(t, k, "marker", "initial")
		put(t, k, "doomed", "still here")
		put(t, create(t, tx, "other"), "o", "p")
		return nil
	})
	st.close()
}

// killChild runs a child playing part on st's store, waits until it says
// a line starting with until, kills it with SIGKILL, and returns the line.
func (s *suite) killChild(t *testing.T, st *store, part, until string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+s.run, "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), envChild+"="+part, envBackend+"="+s.b.Name, envAddr+"="+st.addr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the child %s: %v", os.Args[0], err)
	}
	lines := bufio.NewScanner(stdout)
	var said string
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), until) {
			said = lines.Text()
			break
		}
	}
	if said == "" {
		err := cmd.Wait()
		t.Fatalf("the child (%s) ended (%v) before saying %q; it runs %s -test.run=%s, which must reach storagetest.Run or Child. Its stderr:\n%s",
			part, err, until, os.Args[0], s.run, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill the child: %v", err)
	}
	_ = cmd.Wait() // "signal: killed"; what the store holds is what counts
	if strings.Contains(stderr.String(), "storagetest: child") {
		t.Errorf("the child reported a failure before it was killed:\n%s", stderr.String())
	}
	return said
}

// usable fails the test unless the store, open again, reads every bucket
// and takes a write.
func usable(t *testing.T, st *store) {
	t.Helper()
	st.view(func(tx storage.Tx) error {
		return tx.ForEachBucket(func(name []byte) error {
			forEach(t, tx.Bucket(name))
			return nil
		})
	})
	st.update(func(tx storage.Tx) error {
		put(t, bucket(t, tx, "kill"), "z-after", "written")
		_, err := tx.CreateBucketIfNotExists([]byte("after"))
		return err
	})
	st.view(func(tx storage.Tx) error {
		if got := bucket(t, tx, "kill").Get([]byte("z-after")); string(got) != "written" {
			t.Errorf("a write after the kill reads back %q", got)
		}
		return nil
	})
}

func testKilledMidTransaction(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupKill(t, st)
	s.killChild(t, st, childMid, lineMid)
	st.open()
	st.view(func(tx storage.Tx) error {
		k := bucket(t, tx, "kill")
		sameEntries(t, "after the writer was killed before its commit", forward(k.Cursor()),
			[]entry{{k: "doomed", v: "still here"}, {k: "marker", v: "initial"}})
		if n := k.Sequence(); n != 0 {
			t.Errorf("sequence %d, want 0", n)
		}
		if tx.Bucket([]byte("made-mid")) != nil || tx.Bucket([]byte("other")) == nil {
			t.Error("the killed transaction's bucket changes were kept")
		}
		return nil
	})
	usable(t, st)
}

func testKilledWhileCommitting(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupKill(t, st)
	// Killed as soon as it has committed twice, somewhere in its next
	// transactions: before, in or after a commit.
	said := s.killChild(t, st, childCommits, lineCommitted+" 1")
	st.open()
	st.view(func(tx storage.Tx) error {
		k := bucket(t, tx, "kill")
		// Every batch there is whole, batches 0 to n-1, n at least 2.
		count := map[int]int{}
		c := k.Cursor()
		for key, v := c.Seek([]byte("batch")); key != nil && strings.HasPrefix(string(key), "batch"); key, v = c.Next() {
			var n, i int
			if _, err := fmt.Sscanf(string(key), "batch%05d-%04d", &n, &i); err != nil || !bytes.Equal(v, batchValue(n, i)) {
				t.Fatalf("key %q = %q", key, v)
			}
			count[n]++
		}
		n := len(count)
		for b := range n {
			if count[b] != batchKeys {
				t.Errorf("batch %d has %d keys of %d: a transaction was kept in part", b, count[b], batchKeys)
			}
		}
		if n < 2 {
			t.Errorf("%d batches are there; the child said %q", n, said)
		}
		if seq := k.Sequence(); seq != uint64(n) {
			t.Errorf("sequence %d with %d batches there: a transaction was kept in part", seq, n)
		}
		if got, want := string(k.Get([]byte("marker"))), strconv.Itoa(n-1); got != want {
			t.Errorf("marker %q with %d batches there, want %q: a transaction was kept in part", got, n, want)
		}
		t.Logf("killed after %q, with %d transactions committed", said, n)
		return nil
	})
	usable(t, st)
}
