// Command scale measures how citelens's costs grow with its library: it
// generates seeded libraries of 1,000, 10,000 and 100,000 documents and a
// 1 GB text (internal/synthetic: realistic sizes and vocabulary), adds
// each with the citelens binary under test, and measures, each as a whole
// process the way a user runs it: add throughput, the library's size on
// disk, peak memory, `ask` (extractive) and `search` latency (p50 and p99
// over generated questions), `ls`, and the terminal UI's start to its
// first frame. It writes results.md (the table, with the machine),
// results.json and cost.svg (cost against library size, drawn here) to
// -out.
//
// `go run ./bench/scale` builds citelens from this module and measures
// 1,000 and 10,000 documents and a 64 MB text, a few minutes' work. The
// full run is
//
//	go run ./bench/scale -sizes 1000,10000,100000 -big 1G
//
// and on a machine too slow or too busy for it (results.md says what ran)
//
//	go run ./bench/scale -sizes 1000,10000,100000 -shrink 100000 -big 500M
//
// Latencies are wall-clock times of whole processes on a shared machine:
// compare runs made together, and read the growth between sizes (the
// ratios), not the absolute figures.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	citelens := flag.String("citelens", "", "the citelens `binary` to measure (default: build one from this module)")
	work := flag.String("work", filepath.Join(os.TempDir(), "citelens-scale"), "`DIR` for the generated documents and libraries (kept between runs: generating is slow)")
	sizes := flag.String("sizes", "1000,10000", "library sizes in `documents`, comma-separated")
	big := flag.String("big", "64M", "size of the large text (K, M, G; 0 for none)")
	questions := flag.Int("questions", 30, "questions asked of each library (`N`)")
	seed := flag.Uint64("seed", 1, "corpus seed")
	out := flag.String("out", "bench/scale", "write results.md, results.json and cost.svg to `DIR`")
	jobs := flag.Int("jobs", 0, "add --jobs (0: citelens's default, one per core)")
	shrink := flag.Int("shrink", 0, "make libraries of `N` documents or more of documents a tenth the usual size, for a machine too slow for the full run (0: never)")
	gen := flag.Int("gen", 0, "only generate `N` documents into -dir and exit")
	dir := flag.String("dir", "", "with -gen: the folder")
	genBigTo := flag.String("genbig", "", "only generate the large text (-big) into `FILE` and exit")
	flag.Parse()
	if *gen > 0 {
		if _, err := genDocs(*dir, *gen, *seed, 1); err != nil {
			fail(err)
		}
		return
	}
	if *genBigTo != "" {
		size, err := parseSize(*big)
		if err == nil {
			err = genBig(*genBigTo, size, *seed)
		}
		if err != nil {
			fail(err)
		}
		return
	}
	if *citelens == "" {
		bin, cleanup, err := buildCitelens()
		if err != nil {
			fail(err)
		}
		atExit = cleanup
		*citelens = bin
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("-sizes: %q is not a number of documents", s))
		}
		ns = append(ns, n)
	}
	bigBytes, err := parseSize(*big)
	if err != nil {
		fail(fmt.Errorf("-big: %w", err))
	}
	b := &bench{bin: *citelens, work: *work, questions: *questions, seed: *seed, jobs: *jobs, shrink: *shrink}
	res := results{Machine: describeMachine(), Started: time.Now().UTC(), Args: strings.Join(os.Args[1:], " "), Questions: *questions, Seed: *seed, Shrink: *shrink}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		fail(err)
	}
	for _, n := range ns {
		r, err := b.library(n)
		if err != nil {
			fail(fmt.Errorf("%d documents: %w", n, err))
		}
		res.Libraries = append(res.Libraries, r)
		log("%d documents: add %.0f docs/s, %s, ask p50 %.0f ms", n, r.AddDocsPerSec, mb(r.LibraryBytes), r.Ask.P50)
	}
	if bigBytes > 0 {
		r, err := b.bigText(bigBytes)
		if err != nil {
			fail(fmt.Errorf("the %s text: %w", *big, err))
		}
		res.Big = &r
	}
	res.Finished = time.Now().UTC()
	res.LoadAfter = loadAverage()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	js, _ := json.MarshalIndent(res, "", "  ")
	for name, content := range map[string][]byte{
		"results.json": append(js, '\n'),
		"results.md":   []byte(res.markdown()),
		"cost.svg":     []byte(res.svg()),
	} {
		if err := os.WriteFile(filepath.Join(*out, name), content, 0o644); err != nil {
			fail(err)
		}
	}
	log("wrote %s", filepath.Join(*out, "results.md"))
	atExit()
}

// atExit removes the binary the run built.
var atExit = func() {}

// buildCitelens builds the citelens command of this module into a
// temporary folder.
func buildCitelens() (string, func(), error) {
	dir, err := os.MkdirTemp("", "citelens-scale-bin")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "citelens")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/citelens/citelens/cmd/citelens")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building citelens: %w", err)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scale:", err)
	atExit()
	os.Exit(1)
}

func log(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "scale: "+format+"\n", args...)
}

// parseSize reads 1G, 500M, 64K or bytes.
func parseSize(s string) (int64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	if n := len(s); n > 0 {
		if i := strings.IndexByte("KMG", s[n-1]); i >= 0 {
			mult, s = int64(1)<<(10*(i+1)), s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	return int64(v * float64(mult)), nil
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
