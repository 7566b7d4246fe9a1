package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"
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

// TestChangesReachClients: a document another handle adds to the
// library — another process's, another machine's for a library in
// PostgreSQL — is a resource clients are told of within a second
// (notifications/resources/list_changed) and is there for the next tool
// call; its removal is told too. In every backend the server is watched
// through: a library file's changes on the disk, PostgreSQL's
// notifications.
func TestChangesReachClients(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"file", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var lib, other *docstore.Library
			if kind == "postgres" {
				addr := pgtest.New(t).ConnString()
				lib, other = openPG(t, addr), openPG(t, addr)
				if _, _, err := ingest.New(lib, nil).Add(t.Context(), declaration, nil); err != nil {
					t.Fatal(err)
				}
			} else {
				// Handles of their own: the server closes its own, and
				// the test's library is checked when the test ends.
				base, _ := enginetest.Library(t, declaration)
				var err error
				if lib, err = docstore.Open(base.Path(), nil); err != nil {
					t.Fatal(err)
				}
				if other, err = docstore.Open(base.Path(), nil); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { other.Close() })
			}
			testChangesReachClients(t, lib, other)
		})
	}
}

func testChangesReachClients(t *testing.T, lib, other *docstore.Library) {
	env := engine.NewEnv(lib, config.Default())
	srv := New(Options{Open: func() (*engine.Env, error) { return env, nil }})
	t.Cleanup(func() { srv.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	told := make(chan struct{}, 100)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { told <- struct{}{} },
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.ListChanged {
		t.Fatalf("the server does not say its resources change: %+v", caps.Resources)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 1 {
		t.Fatalf("resources at start: %+v %v", list, err)
	}
	time.Sleep(50 * time.Millisecond)
	for len(told) > 0 {
		<-told
	}

	info, _, err := ingest.New(other, nil).Add(t.Context(), enginetest.WriteFile(t, "harbour.txt", "Boats sail across the harbour. The harbour is quiet at night.\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	added := time.Now()
	select {
	case <-told:
		t.Logf("a document added elsewhere was told after %v", time.Since(added))
	case <-time.After(testload.Scaled(time.Second)):
		t.Fatal("the clients were not told of a document added elsewhere within a second")
	}
	list, err = cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 2 {
		t.Fatalf("resources after an add elsewhere: %+v %v", list, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "harbour"}})
	if err != nil || res.IsError || !contains(res, "harbour.txt") {
		t.Fatalf("search after an add elsewhere: %v %+v", err, res)
	}

	if err := other.Remove(info.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-told:
	case <-time.After(testload.Scaled(time.Second)):
		t.Fatal("the clients were not told of a document removed elsewhere within a second")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_documents", Arguments: map[string]any{}})
	if err != nil || res.IsError || contains(res, "harbour.txt") {
		t.Fatalf("list_documents after a removal elsewhere: %v %+v", err, res)
	}
}

// contains reports whether a tool's text content holds s.
func contains(res *mcp.CallToolResult, s string) bool {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && strings.Contains(tc.Text, s) {
			return true
		}
	}
	return false
}
