package teamlib

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// The index's two layouts in a database, compared (issue 30, item 2):
//
//   - segments: citelens's own index, its segments' blocks stored as rows
//     of the key-value tables (pgkv), read through docstore's IndexReader:
//     a query reads each of its terms' blocks (1 KiB of varint postings a
//     row) and scores in the client.
//   - relational: a postings table (term, doc, unit, tf, len) with a terms
//     table (term, df), made from the same index, queried with SQL: the
//     server finds the terms' rows and scores them, returning the top k.
//
// Both score sentences with the same BM25 (retrieve's IDF, k1 1.2, b
// 0.75) over every posting of the query's terms, with no pruning, so the
// comparison is of where the postings are read and scored, not of
// retrieve's MaxScore (which the segments path would add on top).

// bm25 are the parameters both layouts score with.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Hit is a scored sentence.
type Hit struct {
	Doc   docstore.DocID
	Unit  int
	Score float64
}

// QueryTerms are a question's index terms, as the index holds them.
func QueryTerms(q string) []string {
	ts := retrieveTerms(q)
	slices.Sort(ts)
	return slices.Compact(ts)
}

// retrieveTerms are q's index terms without stop words, which a query
// does not look up.
func retrieveTerms(q string) []string {
	var out []string
	for _, t := range textproc.Terms(q) {
		if !textproc.IsStopWord(t) {
			out = append(out, t)
		}
	}
	return out
}

// TopKSegments scores the sentences holding terms with BM25 through the
// library's own index (segments in its store) and returns the k best.
func TopKSegments(lib *docstore.Library, terms []string, k int) ([]Hit, error) {
	var hits []Hit
	err := lib.Index().Read(nil, docstore.FieldSentences, terms, func(r *docstore.IndexReader) error {
		st, err := r.Stats()
		if err != nil {
			return err
		}
		type key struct {
			doc  docstore.DocNum
			unit int
		}
		scores := map[key]float64{}
		for t := range terms {
			if st.DF[t] == 0 {
				continue
			}
			idf := retrieve.IDF(float64(st.Units), float64(st.DF[t]))
			p := r.Postings(t)
			for p.Next() {
				d := p.Doc()
				if err := p.Each(func(unit, tf, length int) {
					scores[key{d, unit}] += bm25(idf, tf, length, st.AvgLen)
				}); err != nil {
					return err
				}
			}
			if err := p.Err(); err != nil {
				return err
			}
		}
		top := &hitHeap{}
		for kk, s := range scores {
			pushTop(top, scored{num: int64(kk.doc), unit: kk.unit, score: s}, k)
		}
		for _, h := range top.sorted() {
			id, err := r.DocID(docstore.DocNum(h.num))
			if err != nil {
				return err
			}
			hits = append(hits, Hit{Doc: id, Unit: h.unit, Score: h.score})
		}
		return nil
	})
	return hits, err
}

func bm25(idf float64, tf, length int, avg float64) float64 {
	f := float64(tf)
	return idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(length)/avg))
}

// relationalSchema is the relational index: one row a posting, the
// terms' document frequencies (units holding them), the documents'
// numbers, and the field's totals.
const relationalSchema = `
CREATE TABLE rel_postings (term text NOT NULL, doc int NOT NULL, unit int NOT NULL, tf int NOT NULL, len int NOT NULL,
	PRIMARY KEY (term, doc, unit));
CREATE TABLE rel_terms (term text PRIMARY KEY, df int NOT NULL);
CREATE TABLE rel_docs (doc int PRIMARY KEY, id text NOT NULL);
CREATE TABLE rel_totals (units float8 NOT NULL, avglen float8 NOT NULL);`

// BuildRelational makes the relational index in the database conn names
// from lib's sentence index (whose store is db, for the list of its
// terms), and returns how many postings it wrote.
func BuildRelational(ctx context.Context, lib *docstore.Library, db storage.DB, conn string) (int, error) {
	terms, err := indexTerms(db)
	if err != nil {
		return 0, err
	}
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS rel_postings, rel_terms, rel_docs, rel_totals"); err != nil {
		return 0, err
	}
	if _, err := c.Exec(ctx, relationalSchema); err != nil {
		return 0, err
	}
	var rows, termRows [][]any
	docs := map[docstore.DocNum]docstore.DocID{}
	var totals docstore.FieldStats
	const batch = 2000
	for start := 0; start < len(terms); start += batch {
		part := terms[start:min(start+batch, len(terms))]
		err := lib.Index().Read(nil, docstore.FieldSentences, part, func(r *docstore.IndexReader) error {
			st, err := r.Stats()
			if err != nil {
				return err
			}
			totals = st
			for t, term := range part {
				termRows = append(termRows, []any{term, st.DF[t]})
				p := r.Postings(t)
				for p.Next() {
					d := p.Doc()
					if _, ok := docs[d]; !ok {
						id, err := r.DocID(d)
						if err != nil {
							return err
						}
						docs[d] = id
					}
					if err := p.Each(func(unit, tf, length int) {
						rows = append(rows, []any{term, int32(d), int32(unit), int32(tf), int32(length)})
					}); err != nil {
						return err
					}
				}
				if err := p.Err(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	var docRows [][]any
	for n, id := range docs {
		docRows = append(docRows, []any{int32(n), string(id)})
	}
	for _, cp := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"rel_postings", []string{"term", "doc", "unit", "tf", "len"}, rows},
		{"rel_terms", []string{"term", "df"}, termRows},
		{"rel_docs", []string{"doc", "id"}, docRows},
	} {
		if _, err := c.CopyFrom(ctx, pgx.Identifier{cp.table}, cp.cols, pgx.CopyFromRows(cp.rows)); err != nil {
			return 0, fmt.Errorf("teamlib: filling %s: %w", cp.table, err)
		}
	}
	if _, err := c.Exec(ctx, "INSERT INTO rel_totals VALUES ($1, $2)", float64(totals.Units), totals.AvgLen); err != nil {
		return 0, err
	}
	if _, err := c.Exec(ctx, "VACUUM ANALYZE rel_postings, rel_terms, rel_docs, rel_totals"); err != nil {
		return 0, err
	}
	return len(rows), nil
}

// topKSQL is BM25 over the relational index, in one statement: the
// query's terms' rows found by the primary key, scored and cut to the
// top $2 by the server. The IDF is retrieve's:
// ln(1 + (N − df + 0.5) / (df + 0.5)).
const topKSQL = `
SELECT d.id, s.unit, s.score FROM (
	SELECT p.doc, p.unit,
		sum(ln(1 + (tot.units - t.df + 0.5) / (t.df + 0.5)) * p.tf * (1.2 + 1) /
			(p.tf + 1.2 * (1 - 0.75 + 0.75 * p.len / tot.avglen))) AS score
	FROM rel_terms t JOIN rel_postings p ON p.term = t.term, rel_totals tot
	WHERE t.term = ANY($1)
	GROUP BY p.doc, p.unit
	ORDER BY score DESC, p.doc, p.unit
	LIMIT $2) s JOIN rel_docs d ON d.doc = s.doc
ORDER BY s.score DESC, s.doc, s.unit`

// TopKRelational is TopKSegments over the relational index, through c.
func TopKRelational(ctx context.Context, c *pgx.Conn, terms []string, k int) ([]Hit, error) {
	rows, err := c.Query(ctx, topKSQL, terms, k)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	for rows.Next() {
		var h Hit
		var id string
		if err := rows.Scan(&id, &h.Unit, &h.Score); err != nil {
			return nil, err
		}
		h.Doc = docstore.DocID(id)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// SameHits reports whether two rankings agree: the same sentences in the
// same order, scores equal to a float's rounding (the server and Go sum
// in different orders). Ties may come in either order.
func SameHits(a, b []Hit) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d hits against %d", len(a), len(b))
	}
	for i := range a {
		if math.Abs(a[i].Score-b[i].Score) > 1e-9*math.Max(1, math.Abs(a[i].Score)) {
			return fmt.Errorf("hit %d: score %.12g against %.12g", i, a[i].Score, b[i].Score)
		}
		if a[i].Doc != b[i].Doc || a[i].Unit != b[i].Unit {
			// A tie may be broken either way: the same score at i must
			// name the same sentence somewhere among the tied.
			if !slices.ContainsFunc(b, func(h Hit) bool {
				return h.Doc == a[i].Doc && h.Unit == a[i].Unit && math.Abs(h.Score-a[i].Score) <= 1e-9*math.Max(1, h.Score)
			}) {
				return fmt.Errorf("hit %d: %s/%d against %s/%d", i, a[i].Doc, a[i].Unit, b[i].Doc, b[i].Unit)
			}
		}
	}
	return nil
}

// indexTerms lists the terms of the sentence index of the library in db,
// from its segments' block keys (term 0x00 DocNum unit, docstore's
// FORMAT.md), each once.
func indexTerms(db storage.DB) ([]string, error) {
	seen := map[string]bool{}
	err := db.View(func(tx storage.Tx) error {
		ix := tx.Bucket([]byte("index"))
		if ix == nil {
			return fmt.Errorf("teamlib: the library has no index bucket")
		}
		return ix.ForEach(func(seg, v []byte) error {
			if v != nil {
				return nil
			}
			s := ix.Bucket(seg).Bucket([]byte("s"))
			if s == nil {
				return nil
			}
			return s.ForEach(func(k, _ []byte) error {
				if i := bytes.IndexByte(k, 0); i > 0 {
					seen[string(k[:i])] = true
				}
				return nil
			})
		})
	})
	terms := make([]string, 0, len(seen))
	for t := range seen {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	return terms, err
}

// scored is a candidate of the top k.
type scored struct {
	num   int64
	unit  int
	score float64
}

// better orders hits: higher score first, then lower document and unit
// (the SQL's order).
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.num != b.num {
		return a.num < b.num
	}
	return a.unit < b.unit
}

// hitHeap keeps the k best, the worst on top.
type hitHeap []scored

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func pushTop(h *hitHeap, s scored, k int) {
	if h.Len() < k {
		heap.Push(h, s)
	} else if better(s, (*h)[0]) {
		(*h)[0] = s
		heap.Fix(h, 0)
	}
}

func (h *hitHeap) sorted() []scored {
	out := slices.Clone(*h)
	slices.SortFunc(out, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	return out
}
