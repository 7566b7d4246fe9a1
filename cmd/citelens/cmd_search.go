package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

func init() {
	register(&command{
		name:    "search",
		args:    "[--doc ID]... [--version N] [--collection NAME]... [--k N] [--chunks] [--words] [--context N] [--json [--raw]] QUERY",
		summary: "rank the library's sentences against a query: BM25, fused with meaning and reordered when an embedding or rerank model is configured, as answers rank",
		run:     runSearch,
	})
}

// searchHit is one line of `search --json`.
type searchHit struct {
	Score    float64        `json:"score"`
	Doc      docstore.DocID `json:"doc"`
	DocName  string         `json:"doc_name"`
	Sentence int            `json:"sentence,omitempty"`
	Chunk    *int           `json:"chunk,omitempty"`
	First    int            `json:"first_sentence"`
	Last     int            `json:"last_sentence"`
	Page     int            `json:"page"`
	// PageLabel is the page as the document prints it, when that
	// differs from Page.
	PageLabel string `json:"page_label,omitempty"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Heading   string `json:"heading,omitempty"`
	Text      string `json:"text"`

	pageName string // "p. 316 (PDF p. 347)"
}

func runSearch(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["search"])
	var docRefs stringList
	fs.Var(&docRefs, "doc", "search only this document (`ID` prefix or file name; repeatable)")
	var colls stringList
	fs.Var(&colls, "collection", collectionUsage)
	k := fs.Int("k", 10, "`N` hits")
	chunks := fs.Bool("chunks", false, "rank chunks (about 128 tokens) instead of sentences")
	k1 := fs.Float64("k1", retrieve.DefaultBM25.K1, "BM25 term-frequency saturation `K1`")
	b := fs.Float64("b", retrieve.DefaultBM25.B, "BM25 length normalisation `B` (0: none, 1: full)")
	words := fs.Bool("words", false, "rank by words (BM25) alone, even with an embedding or rerank model configured: no model is called")
	version := fs.Int("version", 0, versionUsage)
	asJSON := fs.Bool("json", false, "print hits as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	around := fs.Int("context", 0, contextUsage)
	given, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if *around < 0 {
		return fmt.Errorf("--context %d: give a number of sentences, 0 or more", *around)
	}
	query := strings.Join(given, " ")
	if strings.TrimSpace(query) == "" {
		fmt.Fprintln(a.stderr, "citelens search: no query given")
		fs.Usage()
		return errUsage
	}
	cfg, err := a.config()
	if err != nil {
		return err
	}
	// Dense retrieval keeps what it embeds in the library (once), so a
	// search with an embedding model writes to it; without one it only
	// reads.
	l, err := a.openLibrary(cfg.EmbedModel == "" || *words)
	if err != nil {
		return err
	}
	defer l.Close()
	ids, err := resolveDocs(l, docRefs)
	if err == nil {
		ids, err = withCollections(l, ids, colls)
	}
	if err != nil {
		return err
	}
	if len(retrieve.ParseQuery(query).Terms) == 0 {
		return fix.With(fmt.Errorf("the query %q has only stop words", query), "Search for content words.")
	}
	if ids, err = atVersion(l, ids, *version); err != nil {
		return err
	}
	env, err := a.engineEnv(l)
	if err != nil {
		return err
	}
	// The shared retrieval ranks (engine.Search): the latest versions
	// when no document is named, and the configured embedding model and
	// reranker as answers use them.
	ps, err := engine.Search(ctx, env, query, engine.SearchOptions{Docs: ids, K: *k, Chunks: *chunks,
		BM25: retrieve.BM25{K1: *k1, B: *b}, Words: *words}, &searchReporter{w: a.stderr, show: isTerminal(a.stderr)})
	if err != nil {
		return err
	}
	out := make([]searchHit, 0, len(ps))
	for _, p := range ps {
		// A view reads the hit's pieces of a large document, not all of it.
		d, err := l.View(p.Doc)
		if err != nil {
			return err
		}
		sh := searchHit{Score: p.Score, Doc: p.Doc, DocName: d.Info().Name, Sentence: p.First, First: p.First, Last: p.Last}
		if *chunks {
			idx := chunkAt(d, p.First)
			sh.Chunk, sh.Sentence = &idx, 0
		}
		sh.Start, sh.End = p.Start, p.End
		sh.Page = p.Page
		sh.PageLabel = d.Info().PrintedPage(sh.Page)
		sh.pageName = d.Info().PageName(sh.Page)
		sh.Text = p.Text
		sh.Heading = d.HeadingTrail(sh.First)
		if err := d.Err(); err != nil {
			return err
		}
		out = append(out, sh)
	}
	if *asJSON {
		return writeJSON(a.stdout, out, *raw)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "no matches")
		return nil
	}
	for i, h := range out {
		if *around > 0 && i > 0 {
			fmt.Fprintln(a.stdout, "--") // between groups, as grep -C
		}
		unit := fmt.Sprintf("s%d", h.First)
		if h.Chunk != nil {
			unit = fmt.Sprintf("c%d (s%d-%d)", *h.Chunk, h.First, h.Last)
		}
		fmt.Fprintf(a.stdout, "%6.2f  %s  %s  %s  %s\n", h.Score, shortID(h.Doc), unit, h.pageName, textproc.OneLine(h.Text))
		if h.Heading != "" {
			fmt.Fprintf(a.stdout, "        under %s\n", textproc.OneLine(h.Heading))
		}
		if *around > 0 {
			v, err := l.View(h.Doc)
			if err != nil {
				return err
			}
			if err := writeContext(a.stdout, "        ", v, h.First, h.Last, *around, terminalWidth(a.stdout)); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkAt is the index of d's chunk that starts at sentence first (the
// chunk a chunk passage is), found by halving: chunks are in order.
func chunkAt(d *docstore.View, first int) int {
	return sort.Search(d.NumChunks(), func(i int) bool { return int(d.Chunk(i).First) >= first })
}

// searchReporter shows what a search's retrieval does beyond words, on
// stderr: its stages (embedding what the library lacks, which models
// rank) on a terminal, its warnings (a model that failed) always.
type searchReporter struct {
	w    io.Writer
	show bool
}

func (r *searchReporter) Stage(s string) {
	if r.show {
		fmt.Fprintln(r.w, textproc.OneLine(s))
	}
}

func (r *searchReporter) Warn(s string) { fmt.Fprintln(r.w, "citelens: warning: "+textproc.OneLine(s)) }

// Usage is not shown: a search prints no cost line.
func (r *searchReporter) Usage(llm.Usage) {}

// shortID abbreviates a document ID for tables; any unique prefix resolves.
func shortID(id docstore.DocID) string {
	if len(id) > 8 {
		return string(id[:8])
	}
	return string(id)
}
