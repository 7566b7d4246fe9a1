package docstore

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Mutation trials run in a child process (the test binary run again with
// these set): a loop in bbolt over a page cycle, or an allocation sized by
// a damaged length, then fails one seed with the trials' log instead of
// hanging the test or exhausting the machine's memory.
const (
	envMutationSeed   = "CITELENS_MUTATION_SEED"
	envMutationTrials = "CITELENS_MUTATION_TRIALS"
	envMutationBase   = "CITELENS_MUTATION_BASE"
)

const (
	// mutationMemory is the child's address-space limit, and
	// mutationAlloc what one trial may allocate; the library is 600 KB
	// and a trial allocates a few MB.
	mutationMemory = 2 << 30
	mutationAlloc  = 256 << 20
	// mutationDeadline is how long one seed's child may run; it takes a
	// few seconds.
	mutationDeadline = 3 * time.Minute
)

// TestMutatedLibrariesAreNeverWritten damages a library's bytes at random
// — a page header, bytes of a record, an element table, a page's id or
// type, a whole page, a meta page — and for each damaged copy checks what
// every command relies on: inspecting and salvaging it neither panics nor
// loops nor grows without bound; a library Inspect calls damaged keeps
// every byte through an open for writing, reads, an add, a saved answer
// and a removal; and no document salvage recovered before is lost after
// (but the one removed). Each seed runs in a child process with a memory
// limit and a deadline.
//
// The reads touch every kind of record before the writes, as the damage a
// read finds is what turns a process read-only: the page walk at open
// covers what a write relies on (pages, free list, record tables), not
// the bytes inside a value, which a write never rewrites but copies as
// they are.
//
// A seed does not reproduce a failure on another run: the base library
// holds the same records every run, but not on the same pages (bbolt
// spills a transaction's buckets in map order). A failing trial says what
// it damaged and keeps the damaged file.
func TestMutatedLibrariesAreNeverWritten(t *testing.T) {
	if seed := os.Getenv(envMutationSeed); seed != "" {
		runMutationTrials(t, seed)
		return
	}
	trials := 120
	if testing.Short() {
		trials = 30
	}
	base := filepath.Join(t.TempDir(), "base.db")
	if err := os.WriteFile(base, mutationBase(t), 0o600); err != nil {
		t.Fatal(err)
	}
	for seed := range 6 {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), mutationDeadline)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMutatedLibrariesAreNeverWritten$", "-test.v")
			cmd.Env = append(os.Environ(), envMutationSeed+"="+strconv.Itoa(seed),
				envMutationTrials+"="+strconv.Itoa(trials), envMutationBase+"="+base)
			out, err := cmd.CombinedOutput()
			for line := range strings.Lines(string(out)) {
				if strings.Contains(line, "mutation trials:") {
					t.Log(strings.TrimSpace(line))
				}
			}
			if err != nil {
				t.Errorf("seed %d: %v:\n%s", seed, err, childFailure(string(out)))
			}
		})
	}
}

// childFailure picks from a failed child's output the trial it was in and
// the start of what failed (a crash's goroutine dump runs on for pages).
func childFailure(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var trial string
	for i, line := range lines {
		if strings.Contains(line, ": trial ") && !strings.Contains(line, "(kept: ") {
			trial = line
			continue
		}
		if strings.HasPrefix(line, "fatal error") || strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "runtime:") ||
			strings.Contains(line, "(kept: ") {
			return trial + "\n" + strings.Join(lines[i:min(len(lines), i+30)], "\n")
		}
		if strings.HasPrefix(line, "--- FAIL") { // what failed is above
			return strings.Join(lines[max(0, i-10):min(len(lines), i+5)], "\n")
		}
	}
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// mutationBase builds the library the trials damage: eight documents, one
// of them removed (so the file has a free list), five saved answers; its
// documents are dated and placed so that its records are the same every
// run.
func mutationBase(t *testing.T) []byte {
	path := filepath.Join(t.TempDir(), "base.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.file.opts.NoSync, l.file.opts.NoGrowSync = true, true
	added := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var first DocID
	for i := range 8 {
		body := strings.Repeat(fmt.Sprintf("Document %d talks about rivers and courts number %d. ", i, i), 200+i*50)
		name := fmt.Sprintf("d%d.txt", i)
		d := fixture(name, body)
		d.Added, d.Path = added, "/library/"+name
		if err := l.put(d); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = d.ID
		}
	}
	for i := range 5 {
		if err := l.Answers().Save(fmt.Sprintf("a%d", i), answerRecord(fmt.Sprintf("a%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Remove(first); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func answerRecord(id string) []byte {
	return fmt.Appendf(nil, `{"answer_id":%q,"question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`, id)
}

// mutationCounts are what the trials of one seed found.
type mutationCounts struct {
	trials, damaged, refused, panics, written, lost int
}

// runMutationTrials is the child's part: the trials of one seed.
func runMutationTrials(t *testing.T, seedText string) {
	seed, err := strconv.ParseInt(seedText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	trials, err := strconv.Atoi(os.Getenv(envMutationTrials))
	if err != nil {
		t.Fatal(err)
	}
	if err := limitMemory(mutationMemory); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(os.Getenv(envMutationBase))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const newDoc = "A new document. It has two sentences."
	m, err := currentBoltMeta(bytes.NewReader(orig), "the base library")
	if err != nil {
		t.Fatal(err)
	}
	// Salvage copies into a new library each time: a copy of an empty
	// one, so that no time goes on creating it.
	empty := filepath.Join(dir, "empty.db")
	l, err := Open(empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	s := salvager{dir: dir, empty: mustReadBytes(t, empty)}
	rng := rand.New(rand.NewSource(seed))
	var c mutationCounts
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocated := ms.TotalAlloc
	for trial := range trials {
		b, what := mutate(rng, orig, int(m.pageSize), int(m.hw))
		path := filepath.Join(dir, fmt.Sprintf("lib%d.db", trial))
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		// Should the child die in this trial, its last lines say which
		// and where the damaged file is (a crash leaves it there).
		t.Logf("trial %d: %s: %s", trial, what, path)
		keep := func() string { return keepDamaged(t, b, seed, trial) }
		c.trials++
		before, in := s.salvage(t, path)
		if !bytes.Equal(mustReadBytes(t, path), b) {
			t.Fatalf("trial %d (%s): inspecting and salvaging wrote the library (kept: %s)", trial, what, keep())
		}
		damaged := in == nil || !in.OK()
		if damaged {
			c.damaged++
		}
		removed, refused, panicked := useLibrary(t, path, newDoc)
		if refused {
			c.refused++
		}
		if panicked != nil {
			c.panics++
			t.Errorf("trial %d (%s): panicked: %v (kept: %s)", trial, what, panicked, keep())
		}
		runtime.ReadMemStats(&ms)
		if alloc := ms.TotalAlloc - allocated; alloc > mutationAlloc {
			t.Fatalf("trial %d (%s): it allocated %d MB (kept: %s)", trial, what, alloc>>20, keep())
		}
		allocated = ms.TotalAlloc
		after := mustReadBytes(t, path)
		if bytes.Equal(after, b) {
			_ = os.Remove(path)
			continue
		}
		if damaged {
			c.written++
			t.Errorf("trial %d (%s): written although Inspect found %v (kept: %s)", trial, what, problems(in), keep())
		}
		now, _ := s.salvage(t, path)
		for id := range before {
			if !now[id] && id != removed {
				c.lost++
				t.Errorf("trial %d (%s): document %s could be salvaged before the commands, not after (kept: %s)", trial, what, id, keep())
			}
		}
		_ = os.Remove(path)
	}
	t.Logf("mutation trials: seed %d: %d trials, %d damaged per check, %d refused at open, %d panics, %d written while damaged, %d documents lost",
		seed, c.trials, c.damaged, c.refused, c.panics, c.written, c.lost)
}

// mutate returns a copy of the library file orig (of pages in use, each
// pageSize bytes) with random damage, and what the damage is.
func mutate(rng *rand.Rand, orig []byte, pageSize, pages int) ([]byte, string) {
	b := bytes.Clone(orig)
	p := 2 + rng.Intn(pages-2) // a page past the meta pages
	switch rng.Intn(6) {
	case 0:
		off := p*pageSize + rng.Intn(16)
		b[off] ^= byte(1 << rng.Intn(8))
		return b, fmt.Sprintf("a bit flipped in page %d's header at %d", p, off)
	case 1:
		n := 1 + rng.Intn(8)
		for range n {
			b[p*pageSize+rng.Intn(pageSize)] = byte(rng.Intn(256))
		}
		return b, fmt.Sprintf("%d bytes of page %d", n, p)
	case 2:
		off := p*pageSize + 16 + rng.Intn(64)
		b[off] ^= byte(1 << rng.Intn(8))
		return b, fmt.Sprintf("a bit flipped in page %d's element table at %d", p, off)
	case 3:
		off := p*pageSize + rng.Intn(12)
		b[off] = byte(rng.Intn(256))
		return b, fmt.Sprintf("page %d's id or type at %d", p, off)
	case 4:
		clear(b[p*pageSize : (p+1)*pageSize])
		return b, fmt.Sprintf("page %d zeroed", p)
	default:
		off := rng.Intn(2)*pageSize + 16 + rng.Intn(64)
		b[off] ^= byte(1 << rng.Intn(8))
		return b, fmt.Sprintf("a bit flipped in a meta page at %d", off)
	}
}

// salvager inspects and salvages damaged libraries into a scratch folder.
type salvager struct {
	dir   string
	empty []byte // an empty library's file
}

// salvage inspects the library at path as 'citelens check' does and
// salvages it into a new library, returning the documents salvage
// recovered and the inspection (nil when it failed).
func (s salvager) salvage(t *testing.T, path string) (map[DocID]bool, *Inspection) {
	got := map[DocID]bool{}
	l, err := Open(path, &Options{ReadDamaged: true})
	if err != nil {
		return got, nil
	}
	defer l.Close()
	in, err := l.Inspect(t.Context())
	if err != nil {
		in = nil
	}
	dstPath := filepath.Join(s.dir, "salvaged.db")
	if err := os.WriteFile(dstPath, s.empty, 0o600); err != nil {
		t.Fatal(err)
	}
	dst, err := Open(dstPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst.file.opts.NoSync, dst.file.opts.NoGrowSync = true, true // a copy to count documents, not to keep
	defer dst.Close()
	rep, err := l.Salvage(t.Context(), dst, fixtureSplit, nil)
	if err != nil {
		t.Fatalf("salvage of %s: %v", path, err)
	}
	for _, d := range append(rep.Copied, rep.Resegmented...) {
		got[d.ID] = true
	}
	return got, in
}

// useLibrary runs what commands do with the library at path, opened for
// writing: list, read every document and saved answer, search, write a
// new document of the text newDoc, save an answer and remove a document. It returns the document it removed, whether Open
// refused the library, and a panic, if one escaped.
func useLibrary(t *testing.T, path, newDoc string) (removed DocID, refused bool, panicked any) {
	defer func() { panicked = recover() }()
	l, err := Open(path, nil)
	if err != nil {
		return "", true, nil
	}
	defer l.Close()
	l.file.opts.NoSync, l.file.opts.NoGrowSync = true, true
	docs, _ := l.List()
	for _, d := range docs {
		_, _ = l.Document(d.ID)
	}
	_, _ = l.Answers().List()
	_ = l.Index().Read(nil, FieldSentences, []string{"river", "court"}, func(r *IndexReader) error {
		for i := range r.Terms() {
			for p := r.Postings(i); p.Next(); {
				_ = p.Each(func(int, int, int) {})
			}
		}
		return nil
	})
	_, _, _ = writeText(l, "new.txt", newDoc)
	_ = l.Answers().Save("new", answerRecord("new"))
	if len(docs) > 1 {
		// A removal stands once its transaction commits, even when the
		// index's tidying after it stops on damage (Remove says so).
		if err := l.Remove(docs[1].ID); err == nil || strings.Contains(err.Error(), "but tidying the index") {
			removed = docs[1].ID
		}
	}
	return removed, false, nil
}

// keepDamaged writes the damaged library of a failed trial where the
// test's clean-up leaves it, and returns its path.
func keepDamaged(t *testing.T, b []byte, seed int64, trial int) string {
	f, err := os.CreateTemp("", fmt.Sprintf("citelens-mutation-seed%d-trial%d-*.db", seed, trial))
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return err.Error()
	}
	return f.Name()
}

// problems is what an inspection found, for messages.
func problems(in *Inspection) string {
	if in == nil {
		return "it could not inspect it"
	}
	return fmt.Sprint(in.Problems)
}

func mustReadBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
