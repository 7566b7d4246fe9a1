package teamlib

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
)

// The benchmarks' library size: 10,000 documents as the issue asks. The
// tests use tinySize, so that `go test ./...` builds no large library.
var (
	docsFlag   = flag.Int("teamlib.docs", 10000, "documents in the benchmarks' library")
	addFlag    = flag.Int("teamlib.add", 400, "documents each add benchmark adds, shared among its writers")
	cacheFlag  = flag.String("teamlib.cache", filepath.Join(os.TempDir(), "citelens-teamlib"), "`folder` the generated corpus is kept in between runs")
	topKFlag   = flag.Int("teamlib.k", 10, "hits of the index benchmark's top k")
	tinySize   = 50
	moduleRoot = "../.."
)

// The server listens on 127.0.0.1 as well as its socket: the libraries
// are reached over TCP, as a team's server would be, not over the
// socket, which would flatter PostgreSQL's round trips.
func TestMain(m *testing.M) { pgtest.MainOptions(m, pgtest.Options{TCP: true}) }

// setup is one library of n documents built on both backends, shared by
// the benchmarks of one run (building 10,000 documents takes minutes).
type setup struct {
	n         int
	corpus    *Corpus
	questions []string
	bolt      *docstore.Library
	pg        *docstore.Library
	pgStore   *pgkv.DB
	pgDB      pgtest.Database
	// buildBolt and buildPG are the builds' times: each backend is built
	// once a run, so BenchmarkBuild reports these.
	buildBolt, buildPG time.Duration

	relOnce sync.Once
	relRows int
	relErr  error

	// roundTrips and statements are an ask's, counted once a run (the
	// counts do not vary).
	countOnce              sync.Once
	roundTrips, statements float64
}

var (
	setupsMu sync.Mutex
	setups   = map[int]*setup{}
)

// libraries returns the run's setup of n documents, building it first.
func libraries(tb testing.TB, n int) *setup {
	tb.Helper()
	setupsMu.Lock()
	defer setupsMu.Unlock()
	if s := setups[n]; s != nil {
		return s
	}
	ctx := context.Background()
	c, err := MakeCorpus(moduleRoot, *cacheFlag, n, 1)
	if err != nil {
		tb.Fatal(err)
	}
	qs, err := Questions(moduleRoot)
	if err != nil {
		tb.Fatal(err)
	}
	s := &setup{n: n, corpus: c, questions: qs, pgDB: pgtest.New(tb)}
	// The file outlives a benchmark (whose TempDir goes when it ends;
	// the others use the library too): it is kept in the cache folder,
	// one a size, made afresh by each run.
	path := filepath.Join(*cacheFlag, fmt.Sprintf("bolt-n%d.db", n))
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	if s.bolt, err = OpenBolt(path); err != nil {
		tb.Fatal(err)
	}
	if s.buildBolt, err = Build(ctx, s.bolt, c.Paths, 0); err != nil {
		tb.Fatal(err)
	}
	if s.pg, s.pgStore, err = OpenPG(ctx, s.pgDB.TCPConnString()); err != nil {
		tb.Fatal(err)
	}
	if s.buildPG, err = Build(ctx, s.pg, c.Paths, 0); err != nil {
		tb.Fatal(err)
	}
	setups[n] = s
	return s
}

// relational builds the relational index beside s's PostgreSQL library,
// once.
func (s *setup) relational(tb testing.TB) int {
	s.relOnce.Do(func() {
		s.relRows, s.relErr = BuildRelational(context.Background(), s.pg, s.pgStore, s.pgDB.TCPConnString())
	})
	if s.relErr != nil {
		tb.Fatal(s.relErr)
	}
	return s.relRows
}

// backends are the two libraries of s by name, bbolt first.
func (s *setup) backends() []struct {
	name string
	lib  *docstore.Library
} {
	return []struct {
		name string
		lib  *docstore.Library
	}{{"bbolt", s.bolt}, {"postgres", s.pg}}
}

// TestTiny runs every measurement on 50 documents, checking what each
// computes: both backends hold the same documents and give the same
// answers, the listing and the first frame show them, concurrent writers
// add every document once, the relational index ranks as the segments
// do, and the counting proxy sees the round trips of an ask.
func TestTiny(t *testing.T) {
	ctx := context.Background()
	s := libraries(t, tinySize)
	for _, be := range s.backends() {
		n, err := Ls(be.lib, io.Discard)
		if err != nil || n != tinySize {
			t.Fatalf("%s: ls listed %d documents (%v), want %d", be.name, n, err, tinySize)
		}
		if _, err := FirstFrame(ctx, be.lib, "doc-0000"); err != nil {
			t.Fatalf("%s: %v", be.name, err)
		}
	}

	// The same answers, statement by statement and byte range by byte
	// range, on both backends; and some answers at all.
	ab, err := NewAsker(s.bolt)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := NewAsker(s.pg)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, q := range s.questions {
		a, err := ab.Ask(ctx, q)
		if err != nil {
			t.Fatalf("bbolt: %q: %v", q, err)
		}
		b, err := ap.Ask(ctx, q)
		if err != nil {
			t.Fatalf("postgres: %q: %v", q, err)
		}
		if Summary(a) != Summary(b) {
			t.Errorf("%q: bbolt answers\n%s\npostgres answers\n%s", q, Summary(a), Summary(b))
		}
		if len(a.Statements) > 0 {
			answered++
		}
	}
	if answered < len(s.questions)/2 {
		t.Errorf("only %d of %d questions answered: the corpus does not hold the questions' sources", answered, len(s.questions))
	}

	// The relational index ranks every question's terms as the
	// segments do.
	if rows := s.relational(t); rows == 0 {
		t.Fatal("the relational index has no postings")
	}
	c, err := pgx.Connect(ctx, s.pgDB.TCPConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	hits := 0
	for _, q := range s.questions {
		terms := QueryTerms(q)
		seg, err := TopKSegments(s.pg, terms, *topKFlag)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := TopKRelational(ctx, c, terms, *topKFlag)
		if err != nil {
			t.Fatal(err)
		}
		if err := SameHits(seg, rel); err != nil {
			t.Errorf("%q: segments and relational disagree: %v", q, err)
		}
		hits += len(seg)
	}
	if hits == 0 {
		t.Error("no question's terms are in the index")
	}

	// Four writers each add a share; every document arrives once.
	extra, err := MakeCorpus(moduleRoot, *cacheFlag, 20, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []string{"bbolt", "postgres"} {
		open := opener(t, be)
		if _, err := AddConcurrently(ctx, open, extra.Paths, 4); err != nil {
			t.Fatalf("%s: %v", be, err)
		}
		l, err := open()
		if err != nil {
			t.Fatal(err)
		}
		n, err := Ls(l, io.Discard)
		l.Close()
		if err != nil || n != len(extra.Paths) {
			t.Errorf("%s: four writers left %d documents (%v), want %d", be, n, err, len(extra.Paths))
		}
	}

	// The proxy counts an ask's round trips.
	rt, st := roundTripsPerAsk(t, s, s.questions[:3])
	if rt < 2 || st < rt {
		t.Errorf("the counting proxy saw %.1f round trips and %.1f statements an ask", rt, st)
	}
}

// opener returns a function that opens handles of one fresh library of
// backend be.
func opener(tb testing.TB, be string) func() (*docstore.Library, error) {
	if be == "bbolt" {
		path := filepath.Join(tb.TempDir(), "library.db")
		return func() (*docstore.Library, error) { return OpenBolt(path) }
	}
	d := pgtest.New(tb)
	return func() (*docstore.Library, error) {
		l, _, err := OpenPG(context.Background(), d.TCPConnString())
		return l, err
	}
}

// roundTripsPerAsk asks qs of s's PostgreSQL library through a counting
// proxy (a handle of its own, warmed by asking them once) and returns the
// round trips and statements an ask.
func roundTripsPerAsk(tb testing.TB, s *setup, qs []string) (roundTrips, statements float64) {
	ctx := context.Background()
	p, err := NewCounter(fmt.Sprintf("127.0.0.1:%d", s.pgDB.TCPPort))
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close()
	conn := strings.Replace(s.pgDB.TCPConnString(), fmt.Sprintf("port=%d", s.pgDB.TCPPort), fmt.Sprintf("port=%d", p.Port()), 1)
	l, _, err := OpenPG(ctx, conn)
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	a, err := NewAsker(l)
	if err != nil {
		tb.Fatal(err)
	}
	for _, q := range qs {
		if _, err := a.Ask(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	r0, s0, t0 := p.RoundTrips.Load(), p.Statements.Load(), p.ByText()
	for _, q := range qs {
		if _, err := a.Ask(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	n := float64(len(qs))
	// Where they go: the statements an ask sends most, by text.
	type count struct {
		text string
		n    int64
	}
	var counts []count
	for text, k := range p.ByText() {
		if k -= t0[text]; k > 0 {
			counts = append(counts, count{text, k})
		}
	}
	slices.SortFunc(counts, func(a, b count) int { return cmp.Compare(b.n, a.n) })
	for _, c := range counts[:min(len(counts), 12)] {
		tb.Logf("%8.1f an ask: %.160s", float64(c.n)/n, c.text)
	}
	return float64(p.RoundTrips.Load()-r0) / n, float64(p.Statements.Load()-s0) / n
}

// BenchmarkBuild reports the time each backend took to build the run's
// library (all of -teamlib.docs, `add`'s default of a job per core). It
// is built once a run, by whichever benchmark needs it first, so the
// figure is reported on the first count only.
func BenchmarkBuild(b *testing.B) {
	s := libraries(b, *docsFlag)
	for _, be := range []struct {
		name string
		d    time.Duration
	}{{"bbolt", s.buildBolt}, {"postgres", s.buildPG}} {
		b.Run("backend="+be.name, func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(be.d.Seconds(), "build-s")
			b.ReportMetric(float64(s.n)/be.d.Seconds(), "docs/s")
			if be.name == "postgres" {
				rows, bytes := entriesSize(b, s)
				b.ReportMetric(float64(rows), "entries-rows")
				b.ReportMetric(float64(bytes)/1e6, "entries-MB")
			}
		})
	}
}

// entriesSize is the number of rows of s's PostgreSQL library's
// key-value table and its size with its indexes and TOAST.
func entriesSize(tb testing.TB, s *setup) (rows, bytes int64) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.pgDB.TCPConnString())
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.QueryRow(ctx, "SELECT count(*), pg_total_relation_size('citelens_entries') FROM citelens_entries").Scan(&rows, &bytes); err != nil {
		tb.Fatal(err)
	}
	return rows, bytes
}

// BenchmarkAsk asks every question of the run's library once an
// iteration (warm: each asked once before the clock starts), with the
// extractive strategy, and reports the median and 90th percentile of the
// single asks.
func BenchmarkAsk(b *testing.B) {
	s := libraries(b, *docsFlag)
	ctx := context.Background()
	for _, be := range s.backends() {
		b.Run("backend="+be.name, func(b *testing.B) {
			a, err := NewAsker(be.lib)
			if err != nil {
				b.Fatal(err)
			}
			for _, q := range s.questions {
				if _, err := a.Ask(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			var times []time.Duration
			for b.Loop() {
				for _, q := range s.questions {
					t0 := time.Now()
					if _, err := a.Ask(ctx, q); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t0))
				}
			}
			b.ReportMetric(float64(Percentile(times, 50).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(Percentile(times, 90).Microseconds())/1000, "p90-ms")
		})
	}
}

// BenchmarkAskPaired is BenchmarkAsk with the backends interleaved:
// each question asked of bbolt and then of PostgreSQL, so a shared
// machine's load falls on both alike, and the ratios of the two medians
// and 90th percentiles come from the same minutes.
func BenchmarkAskPaired(b *testing.B) {
	s := libraries(b, *docsFlag)
	ctx := context.Background()
	askers := make([]*Asker, 2)
	for i, be := range s.backends() {
		a, err := NewAsker(be.lib)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range s.questions {
			if _, err := a.Ask(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		askers[i] = a
	}
	times := make([][]time.Duration, 2)
	for b.Loop() {
		for _, q := range s.questions {
			for i, a := range askers {
				t0 := time.Now()
				if _, err := a.Ask(ctx, q); err != nil {
					b.Fatal(err)
				}
				times[i] = append(times[i], time.Since(t0))
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(Percentile(times[0], 50)), "bbolt-p50-ms")
	b.ReportMetric(ms(Percentile(times[0], 90)), "bbolt-p90-ms")
	b.ReportMetric(ms(Percentile(times[1], 50)), "pg-p50-ms")
	b.ReportMetric(ms(Percentile(times[1], 90)), "pg-p90-ms")
	b.ReportMetric(ms(Percentile(times[1], 50))/ms(Percentile(times[0], 50)), "pg/bbolt-p50")
	b.ReportMetric(ms(Percentile(times[1], 90))/ms(Percentile(times[0], 90)), "pg/bbolt-p90")
}

// BenchmarkAskRoundTrips counts the round trips and statements an ask
// sends PostgreSQL (through the counting proxy), and logs the statements
// it sends most. The counts are the same every time: they are counted on
// the run's first count only, and reported again on the others.
func BenchmarkAskRoundTrips(b *testing.B) {
	s := libraries(b, *docsFlag)
	s.countOnce.Do(func() { s.roundTrips, s.statements = roundTripsPerAsk(b, s, s.questions) })
	for b.Loop() {
	}
	b.ReportMetric(s.roundTrips, "roundtrips/ask")
	b.ReportMetric(s.statements, "statements/ask")
}

// BenchmarkAdd adds -teamlib.add documents (another seed's) to a fresh
// library with 1 and 4 writers, each with a handle of its own and
// adding its share a file at a time, and reports documents a second.
func BenchmarkAdd(b *testing.B) {
	ctx := context.Background()
	extra, err := MakeCorpus(moduleRoot, *cacheFlag, *addFlag, 2)
	if err != nil {
		b.Fatal(err)
	}
	for _, be := range []string{"bbolt", "postgres"} {
		for _, w := range []int{1, 4} {
			b.Run(fmt.Sprintf("backend=%s/writers=%d", be, w), func(b *testing.B) {
				var total time.Duration
				for b.Loop() {
					b.StopTimer()
					open := opener(b, be)
					b.StartTimer()
					d, err := AddConcurrently(ctx, open, extra.Paths, w)
					if err != nil {
						b.Fatal(err)
					}
					total += d
				}
				b.ReportMetric(float64(len(extra.Paths)*b.N)/total.Seconds(), "docs/s")
			})
		}
	}
}

// BenchmarkLs lists the whole library, as `citelens ls` to a pipe.
func BenchmarkLs(b *testing.B) {
	s := libraries(b, *docsFlag)
	for _, be := range s.backends() {
		b.Run("backend="+be.name, func(b *testing.B) {
			for b.Loop() {
				if n, err := Ls(be.lib, io.Discard); err != nil || n != s.n {
					b.Fatalf("listed %d (%v)", n, err)
				}
			}
		})
	}
}

// BenchmarkTUIFirstFrame starts the terminal UI over the library, to the
// first frame that lists its documents.
func BenchmarkTUIFirstFrame(b *testing.B) {
	s := libraries(b, *docsFlag)
	for _, be := range s.backends() {
		b.Run("backend="+be.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := FirstFrame(context.Background(), be.lib, "doc-0"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndex answers every question's terms' top k with BM25 over
// the index's two layouts in PostgreSQL — citelens's segments in the
// key-value tables, and a relational postings table scored in SQL — and
// the segments in the bbolt file for reference; an iteration is every
// question once.
func BenchmarkIndex(b *testing.B) {
	s := libraries(b, *docsFlag)
	rows := s.relational(b)
	ctx := context.Background()
	terms := make([][]string, len(s.questions))
	for i, q := range s.questions {
		terms[i] = QueryTerms(q)
	}
	c, err := pgx.Connect(ctx, s.pgDB.TCPConnString())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	for _, layout := range []struct {
		name string
		topK func([]string) ([]Hit, error)
	}{
		{"segments-bbolt", func(t []string) ([]Hit, error) { return TopKSegments(s.bolt, t, *topKFlag) }},
		{"segments-postgres", func(t []string) ([]Hit, error) { return TopKSegments(s.pg, t, *topKFlag) }},
		{"relational-postgres", func(t []string) ([]Hit, error) { return TopKRelational(ctx, c, t, *topKFlag) }},
	} {
		b.Run("layout="+layout.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				for _, t := range terms {
					t0 := time.Now()
					if _, err := layout.topK(t); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t0))
				}
			}
			b.ReportMetric(float64(Percentile(times, 50).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(Percentile(times, 90).Microseconds())/1000, "p90-ms")
			b.ReportMetric(float64(rows), "postings")
			if layout.name == "relational-postgres" {
				var size int64
				if err := c.QueryRow(ctx, "SELECT pg_total_relation_size('rel_postings') + pg_total_relation_size('rel_terms')").Scan(&size); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(size)/1e6, "table-MB")
			}
		})
	}
}
