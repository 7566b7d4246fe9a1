package tui

import (
	"context"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/testload"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
)

func TestMain(m *testing.M) {
	pgtest.Main(m) // runs the tests, then stops the PostgreSQL cluster if one was started
}

// openPG opens the library in the PostgreSQL database addr, closed when
// the test ends.
func openPG(t *testing.T, addr string) *docstore.Library {
	t.Helper()
	db, err := pgkv.Open(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := docstore.OpenStore(db, "postgres", nil)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

// TestSeesWhatAnotherHandleAdds: on a library in PostgreSQL, a document
// and an answer another handle (another process, another machine) adds
// show within a second, told by the server, with no file to look at.
func TestSeesWhatAnotherHandleAdds(t *testing.T) {
	addr := pgtest.New(t).ConnString()
	lib, other := openPG(t, addr), openPG(t, addr)
	if _, _, err := ingest.New(lib, nil).Add(t.Context(), declaration, nil); err != nil {
		t.Fatal(err)
	}
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("1/1 in scope")
	s.waitModel(func(m Model) bool { return m.loaded }, "the answers load")
	time.Sleep(100 * time.Millisecond) // the watch has begun (it reads the list again when it does)

	shown := func(text string) time.Duration {
		t.Helper()
		begun := time.Now()
		s.waitText(text)
		return time.Since(begun)
	}
	if _, _, err := ingest.New(other, nil).Add(t.Context(), enginetest.WriteFile(t, "harbour.txt", "Boats sail across the harbour. The harbour is quiet at night.\n"), nil); err != nil {
		t.Fatal(err)
	}
	took := shown("harbour.txt")
	if limit := testload.Scaled(time.Second); took > limit {
		t.Errorf("a document added elsewhere showed after %v, over %v", took, limit)
	}
	s.waitText("2/2 in scope")

	saveAnswer(t, other, answerID(7), "asked on another machine")
	took = shown("asked on another machine")
	if limit := testload.Scaled(time.Second); took > limit {
		t.Errorf("an answer saved elsewhere showed after %v, over %v", took, limit)
	}
	t.Logf("an answer saved elsewhere showed after %v", took)
	s.finish()
}
