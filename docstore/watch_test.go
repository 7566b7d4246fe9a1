package docstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/testload"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestWatch: a document another handle adds is told within a second, in
// every backend: a library file by its changes on the disk, PostgreSQL
// by its notifications.
func TestWatch(t *testing.T) {
	t.Parallel()
	forBackends(t, func(t *testing.T, bk backend) {
		if bk.name == "boltkv" {
			t.Skip("a bbolt file opened by boltkv is locked by its one process: no other handle can add")
		}
		addr := bk.new(t)
		l := bk.openChecked(t, addr)
		other := bk.openChecked(t, addr)
		calls := make(chan struct{}, 100)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := l.Watch(ctx, func() { calls <- struct{}{} }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // a file's stamp moves within its clock's step
		if _, _, err := writeText(other, "other.txt", "Another handle adds a document. It is told."); err != nil {
			t.Fatal(err)
		}
		select {
		case <-calls:
		case <-time.After(testload.Scaled(time.Second)):
			t.Fatal("a document added by another handle was not told within a second")
		}
		if n, err := l.Count(); err != nil || n != 1 {
			t.Errorf("after the change was told, the library counts %d documents (%v)", n, err)
		}
		cancel()
		time.Sleep(testload.Scaled(300 * time.Millisecond))
		for len(calls) > 0 {
			<-calls
		}
		if _, _, err := writeText(other, "later.txt", "Nobody watches any more."); err != nil {
			t.Fatal(err)
		}
		select {
		case <-calls:
			t.Error("a change was told after the watch's context was cancelled")
		case <-time.After(600 * time.Millisecond):
		}
	})
}

// openPG opens the library in the PostgreSQL database addr, as one more
// process (or machine) would: a pool and a writer session of its own.
func openPG(t *testing.T, addr string, opts pgkv.Options) *Library {
	t.Helper()
	db, err := pgkv.OpenOptions(context.Background(), addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenStore(db, "postgres", nil)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// leftovers counts what a library holds of unfinished writes: building
// segments, pending records and text pieces.
func leftovers(t *testing.T, l *Library) (building, pending, textPieces int) {
	t.Helper()
	err := l.store.View(func(tx storage.Tx) error {
		segs, err := readSegments(tx, segBuilding)
		building = len(segs)
		pending = tx.Bucket(bucketPending).KeyCount()
		textPieces = tx.Bucket(bucketText).KeyCount()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return
}

// killSession ends a library's writer session on the server, as a cut
// connection or an administrator would, and waits until the server has
// let its lock go.
func killSession(t *testing.T, l *Library, addr string) {
	t.Helper()
	ws := l.backend().(storage.Writers)
	id, err := ws.WriterID()
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscanf(id, "pg:%d:", &pid); err != nil {
		t.Fatalf("writer identity %q: %v", id, err)
	}
	conn, err := pgx.Connect(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testload.Scaled(5 * time.Second))
	for {
		alive, err := ws.WriterAlive(id)
		if err != nil {
			t.Fatal(err)
		}
		if !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed writer %s is still alive", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCollectsADeadWritersPieces: on a PostgreSQL library shared by two
// handles of one process (as by two machines: the process ID tells
// nothing), a writer whose session is gone mid-add leaves no document, and
// the next write by the other handle collects its pieces; the writer,
// should it come back, is refused rather than publishing a document
// without its first pieces. Judged by process ID, the dead writer looked
// alive, and its pieces were kept forever.
func TestCollectsADeadWritersPieces(t *testing.T) {
	t.Parallel()
	addr := pgtest.New(t).ConnString()
	a, b := openPG(t, addr, pgkv.Options{}), openPG(t, addr, pgkv.Options{})
	text := markedText(200)
	id := IDFor([]byte(text))
	ps := pieces(text, 4<<10)
	pw, err := a.NewPieceWriter(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps[:3] {
		if err := pw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if building, pending, _ := leftovers(t, b); building != 3 || pending != 1 {
		t.Fatalf("mid-add: %d building segments, %d pending records", building, pending)
	}
	killSession(t, a, addr)
	if n, _ := b.Count(); n != 0 || len(holders(t, b, textproc.Terms("harbour")[0])) != 0 {
		t.Fatal("a dead writer's pieces are seen")
	}
	if _, _, err := writeText(b, "small.txt", "A small text about the harbour."); err != nil {
		t.Fatal(err)
	}
	if building, pending, textPieces := leftovers(t, b); building != 0 || pending != 0 || textPieces != 1 {
		t.Errorf("after the next write: %d building segments, %d pending records, %d text pieces (want the small document's one)", building, pending, textPieces)
	}
	// The writer comes back (a new session): its work is gone, and it
	// says so.
	err = pw.Write(ps[3])
	if err == nil || !strings.Contains(err.Error(), "took the pieces written so far for abandoned") {
		t.Fatalf("a collected writer's next piece: %v", err)
	}
	_, _, err = pw.Publish(&Document{DocInfo: DocInfo{ID: id, Name: "big.txt", Kind: "text", Pages: 1, Added: fixtureAdded}, PageStarts: []int32{0}})
	if err == nil {
		t.Fatal("a collected writer published its document")
	}
	if n, _ := b.Count(); n != 1 {
		t.Errorf("%d documents, want the small one", n)
	}
}

// TestKeepsALiveWritersPieces: a writer at work on another handle (another
// machine's, for all the library knows) keeps its pieces while others
// write, collect and merge, and publishes its document whole.
func TestKeepsALiveWritersPieces(t *testing.T) {
	t.Parallel()
	addr := pgtest.New(t).ConnString()
	a, b := openPG(t, addr, pgkv.Options{}), openPG(t, addr, pgkv.Options{})
	text := markedText(200)
	id := IDFor([]byte(text))
	ps := pieces(text, 4<<10)
	pw, err := a.NewPieceWriter(id)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if err := pw.Write(p); err != nil {
			t.Fatal(err)
		}
		// Another handle writes between the pieces: each write collects
		// and merges.
		if _, _, err := writeText(b, fmt.Sprintf("small%d.txt", i), fmt.Sprintf("Small text %d about the harbour.", i)); err != nil {
			t.Fatal(err)
		}
		if err := b.Tidy(); err != nil {
			t.Fatal(err)
		}
	}
	if building, pending, _ := leftovers(t, b); building != len(ps) || pending != 1 {
		t.Fatalf("a live writer's work was collected: %d building segments of %d pieces, %d pending records", building, len(ps), pending)
	}
	if _, existed, err := pw.Publish(&Document{DocInfo: DocInfo{ID: id, Name: "big.txt", Kind: "text", Pages: 1, Added: fixtureAdded}, PageStarts: []int32{0}}); err != nil || existed {
		t.Fatalf("Publish: %v (existed %v)", err, existed)
	}
	d, err := b.Document(id)
	if err != nil || d.Text != text {
		t.Fatalf("the published document is not whole (%v)", err)
	}
	if building, pending, _ := leftovers(t, b); building != 0 || pending != 0 {
		t.Errorf("after publishing: %d building segments, %d pending records", building, pending)
	}
}

// TestKilledWriterOnPostgres: a process killed (SIGKILL) while it writes
// a large text in pieces into a PostgreSQL library leaves no document,
// and the next write collects its pieces.
func TestKilledWriterOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	t.Parallel()
	addr := pgtest.New(t).ConnString()
	l := openPG(t, addr, pgkv.Options{})
	cmd, lines := helper(t, "stream", "LIB="+addr, "SRC="+sampleText)
	pieces := 0
	for lines.Scan() {
		switch f := strings.Fields(lines.Text()); f[0] {
		case "error", "published":
			t.Fatalf("helper: %s (before the kill)", lines.Text())
		case "piece":
			pieces++
		}
		if pieces == 3 {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	cmd.Wait()
	if building, pending, _ := leftovers(t, l); building < 3 || pending != 1 {
		t.Fatalf("the killed writer left %d building segments, %d pending records: not killed mid-add", building, pending)
	}
	if n, _ := l.Count(); n != 0 || len(holders(t, l, textproc.Terms("unalienable")[0])) != 0 {
		t.Fatal("a killed writer's pieces are seen")
	}
	// The server notices the dead client's socket close at once; its
	// session lock goes with it.
	deadline := time.Now().Add(testload.Scaled(5 * time.Second))
	for {
		if _, _, err := writeText(l, "small.txt", "A small text about rights."); err != nil {
			t.Fatal(err)
		}
		building, pending, textPieces := leftovers(t, l)
		if building == 0 && pending == 0 && textPieces == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a killed writer's leftovers stay: %d building segments, %d pending records, %d text pieces", building, pending, textPieces)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReadersDoNotWaitOnPostgres: while one handle's write holds the
// writer lock, another handle's reads (the listing, a document, a
// search) finish, and its write waits, saying so.
func TestReadersDoNotWaitOnPostgres(t *testing.T) {
	t.Parallel()
	addr := pgtest.New(t).ConnString()
	var waited atomic.Int32
	a := openPG(t, addr, pgkv.Options{})
	b := openPG(t, addr, pgkv.Options{Waiting: func() { waited.Add(1) }})
	info, _, err := writeText(a, "first.txt", "The harbour is calm. Boats rest.")
	if err != nil {
		t.Fatal(err)
	}
	holding, release, written := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		written <- a.store.Update(func(tx storage.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	read := make(chan error, 1)
	go func() {
		entries, _, err := b.Listing(0, 0)
		if err == nil && len(entries) != 1 {
			err = fmt.Errorf("%d documents listed", len(entries))
		}
		if err == nil {
			_, err = b.Document(info.ID)
		}
		if err == nil && len(holders(t, b, textproc.Terms("harbour")[0])) != 1 {
			err = errors.New("the search found nothing")
		}
		read <- err
	}()
	select {
	case err := <-read:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testload.Scaled(5 * time.Second)):
		t.Fatal("a reader waited for a writer")
	}
	wrote := make(chan error, 1)
	go func() {
		_, _, err := writeText(b, "second.txt", "A second text waits its turn.")
		wrote <- err
	}()
	deadline := time.After(testload.Scaled(10 * time.Second))
	for waited.Load() == 0 {
		select {
		case err := <-wrote:
			t.Fatalf("a writer finished while another held the lock (%v)", err)
		case <-deadline:
			t.Fatal("a writer behind another did not say it waits")
		case <-time.After(5 * time.Millisecond):
		}
	}
	close(release)
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Count(); n != 2 {
		t.Errorf("%d documents after both writes", n)
	}
}

// openHelperLibrary opens the library a helper process is given: a
// PostgreSQL connection string, or a library file's path.
func openHelperLibrary(addr string) (*Library, error) {
	if !strings.HasPrefix(addr, "host=") {
		return Open(addr, nil)
	}
	db, err := pgkv.Open(context.Background(), addr)
	if err != nil {
		return nil, err
	}
	l, err := OpenStore(db, "postgres", nil)
	if err != nil {
		db.Close()
	}
	return l, err
}

// TestAbandoned: how a pending add's writer is judged, store identities
// aside: a process of this machine by its ID and start (an ID used again
// by a later process does not keep a dead writer's work), one of another
// machine by its last piece.
func TestAbandoned(t *testing.T) {
	t.Parallel()
	now := time.Now()
	lv := liveness{now: now, dead: map[string]bool{"pg:1:dead": true, "pg:2:alive": false}}
	parent := os.Getppid()
	type judged struct {
		name string
		p    pendingRecord
		want bool
	}
	cases := []judged{
		{"a store's dead writer", pendingRecord{Writer: "pg:1:dead", PID: os.Getpid(), Start: thisStart}, true},
		{"a store's live writer, whatever its process", pendingRecord{Writer: "pg:2:alive", PID: 1 << 30, Touched: now.Add(-24 * time.Hour)}, false},
		{"a store's writer not judged yet", pendingRecord{Writer: "pg:3:new"}, false},
		{"this process", pendingRecord{PID: os.Getpid(), Start: thisStart, Host: thisHost, Touched: now}, false},
		{"another machine's, recent", pendingRecord{PID: parent, Host: thisHost + "-other", Touched: now.Add(-time.Minute)}, false},
		{"another machine's, an hour silent", pendingRecord{PID: parent, Host: thisHost + "-other", Touched: now.Add(-2 * time.Hour)}, true},
		{"a live process of this machine", pendingRecord{PID: parent, Start: processStart(parent), Host: thisHost, Touched: now}, false},
		{"a process gone", pendingRecord{PID: 1 << 30, Host: thisHost, Touched: now}, true},
	}
	if thisStart != 0 {
		cases = append(cases,
			judged{"an earlier process with this one's ID", pendingRecord{PID: os.Getpid(), Start: thisStart - 1, Host: thisHost, Touched: now}, true},
			judged{"a live process's ID, taken by a later process", pendingRecord{PID: parent, Start: processStart(parent) + 1, Host: thisHost, Touched: now}, true})
	}
	for _, c := range cases {
		c.p.State = stateAdding
		if got := lv.abandoned(c.p); got != c.want {
			t.Errorf("%s: abandoned %v, want %v", c.name, got, c.want)
		}
	}
	if lv.abandoned(pendingRecord{State: stateRemoving, PID: 1 << 30}) {
		t.Error("a removal is taken for an abandoned add")
	}
}
