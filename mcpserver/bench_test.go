package mcpserver

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"
)

// BenchmarkTools times each tool through the SDK (a client on an
// in-memory transport: JSON both ways, schema checks), and search done
// directly beside it (search/direct), so the ratio is what MCP costs.
// CITELENS_BENCH_DB names a library to use (the R manuals, say), opened
// read-only; the test's library otherwise. The questions are about R.
//
//	CITELENS_BENCH_DB=r.db go test ./mcpserver -run - -bench Tools -count 6 | benchstat -
func BenchmarkTools(b *testing.B) {
	var lib *docstore.Library
	if path := os.Getenv("CITELENS_BENCH_DB"); path != "" {
		l, err := docstore.Open(path, &docstore.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		lib = l
	} else {
		l, err := docstore.Open(b.TempDir()+"/library.db", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		for _, p := range []string{declaration, rintro} {
			if _, _, err := ingest.New(l, nil).Add(context.Background(), p, nil); err != nil {
				b.Fatal(err)
			}
		}
		lib = l
	}
	env := engine.NewEnv(lib, config.Default())
	srv := New(Options{Open: func() (*engine.Env, error) { return env, nil }})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	infos, err := lib.List()
	if err != nil || len(infos) == 0 {
		b.Fatal("an empty library", err)
	}
	doc := string(infos[len(infos)-1].ID) // the last added: fullrefman in the R library
	const query = "regression model formula"
	call := func(b *testing.B, name string, args map[string]any) {
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, text(res))
			}
		}
	}
	b.Run("list_documents", func(b *testing.B) { call(b, "list_documents", map[string]any{}) })
	b.Run("search", func(b *testing.B) { call(b, "search", map[string]any{"query": query}) })
	b.Run("search/direct", func(b *testing.B) {
		for b.Loop() {
			hits, err := retrieve.Search(lib, retrieve.ParseQuery(query), retrieve.SearchOptions{K: 10})
			if err != nil {
				b.Fatal(err)
			}
			for _, h := range hits {
				d, err := lib.Document(h.Doc)
				if err != nil {
					b.Fatal(err)
				}
				_ = citations.SpanOf(d, h.Index, h.Index)
			}
		}
	})
	b.Run("ask", func(b *testing.B) {
		call(b, "ask", map[string]any{"question": "How do I fit a linear regression model with a formula?"})
	})
	b.Run("read", func(b *testing.B) { call(b, "read", map[string]any{"document": doc, "page": 2}) })
	b.Run("verify", func(b *testing.B) {
		call(b, "verify", map[string]any{"claim": "A formula specifies the model.", "citation": map[string]any{"document": doc, "first_sentence": 10, "last_sentence": 12}})
	})
}
