// Command addprof adds files to a library as `citelens add` does, and
// profiles it: a CPU profile of the whole add, and a heap profile of what
// was live at the largest live heap seen (sampled every 2 ms, so the
// profile shows what an add's peak memory is made of), with the stage of
// the add it was in.
//
// usage: addprof [-cpu cpu.prof] [-peak peak.prof] LIBRARY.db FILE...
//
//	go tool pprof -sample_index=inuse_space -top addprof peak.prof
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
)

func main() {
	cpu := flag.String("cpu", "", "write a CPU profile of the adds to `FILE`")
	peak := flag.String("peak", "", "write a heap profile at the largest live heap to `FILE`")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: addprof [-cpu FILE] [-peak FILE] LIBRARY.db FILE...")
		os.Exit(2)
	}
	if err := run(*cpu, *peak, flag.Arg(0), flag.Args()[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "addprof:", err)
		os.Exit(1)
	}
}

func run(cpu, peak, db string, paths []string) error {
	lib, err := docstore.Open(db, nil)
	if err != nil {
		return err
	}
	defer lib.Close()
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var w *peakWatch
	if peak != "" {
		w = watchPeak(peak)
		defer w.stop()
	}
	start := time.Now()
	adder := ingest.New(lib, nil)
	for _, p := range paths {
		_, _, err := adder.Add(context.Background(), p, func(p ingest.Progress) {
			if w != nil {
				w.setStage(p.Stage)
			}
		})
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "added %d files in %v\n", len(paths), time.Since(start).Round(time.Millisecond))
	return nil
}

// A peakWatch writes a heap profile each time the live heap (as of the
// last collection) grows by a MB beyond the largest seen.
type peakWatch struct {
	path  string
	mu    sync.Mutex
	stage string
	done  chan struct{}
	wg    sync.WaitGroup
}

func watchPeak(path string) *peakWatch {
	w := &peakWatch{path: path, done: make(chan struct{})}
	w.wg.Add(1)
	go w.run()
	return w
}

func (w *peakWatch) setStage(s string) {
	w.mu.Lock()
	w.stage = s
	w.mu.Unlock()
}

func (w *peakWatch) run() {
	defer w.wg.Done()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var best uint64
	var bestStage string
	defer func() { fmt.Fprintf(os.Stderr, "largest live heap %d MB, while %s\n", best>>20, bestStage) }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > best+1<<20 {
			best = v
			w.mu.Lock()
			bestStage = w.stage
			w.mu.Unlock()
			if err := w.write(); err != nil {
				fmt.Fprintln(os.Stderr, "addprof:", err)
				return
			}
		}
	}
}

func (w *peakWatch) write() error {
	f, err := os.Create(w.path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (w *peakWatch) stop() {
	close(w.done)
	w.wg.Wait()
}
