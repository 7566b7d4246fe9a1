package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "search",
		args:    "[--doc ID]... [--collection NAME]... [--k N] [--chunks] [--context N] [--json [--raw]] QUERY",
		summary: "rank the library's sentences against a query with BM25",
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
	asJSON := fs.Bool("json", false, "print hits as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	around := fs.Int("context", 0, contextUsage)
	words, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if *around < 0 {
		return fmt.Errorf("--context %d: give a number of sentences, 0 or more", *around)
	}
	query := strings.Join(words, " ")
	if strings.TrimSpace(query) == "" {
		fmt.Fprintln(a.stderr, "citelens search: no query given")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(true)
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
	q := retrieve.ParseQuery(query)
	if len(q.Terms) == 0 {
		return fix.With(fmt.Errorf("the query %q has only stop words", query), "Search for content words.")
	}
	opt := retrieve.SearchOptions{Docs: ids, K: *k, BM25: retrieve.BM25{K1: *k1, B: *b}}
	if *chunks {
		opt.Field = docstore.FieldChunks
	}
	hits, err := retrieve.Search(l, q, opt)
	if err != nil {
		return err
	}
	out := make([]searchHit, 0, len(hits))
	for _, h := range hits {
		// A view reads the hit's pieces of a large document, not all of it.
		d, err := l.View(h.Doc)
		if err != nil {
			return err
		}
		sh := searchHit{Score: h.Score, Doc: h.Doc, DocName: d.Info().Name, Sentence: h.Index, First: h.Index, Last: h.Index}
		if *chunks {
			c := d.Chunk(h.Index)
			idx := h.Index
			sh.Chunk, sh.Sentence, sh.First, sh.Last = &idx, 0, int(c.First), int(c.Last)
		}
		first := d.Sentence(sh.First)
		sh.Start, sh.End = int(first.Start), int(d.Sentence(sh.Last).End)
		sh.Page = int(first.Page)
		sh.PageLabel = d.Info().PrintedPage(sh.Page)
		sh.pageName = d.Info().PageName(sh.Page)
		sh.Text = d.Slice(sh.Start, sh.End)
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

// shortID abbreviates a document ID for tables; any unique prefix resolves.
func shortID(id docstore.DocID) string {
	if len(id) > 8 {
		return string(id[:8])
	}
	return string(id)
}
