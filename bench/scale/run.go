package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/citelens/citelens/internal/synthetic"
)

// bench runs the measurements with one citelens binary.
type bench struct {
	bin       string
	work      string
	questions int
	seed      uint64
	jobs      int
	shrink    int // libraries this large or larger are of documents a tenth the size
}

// results is everything a run measured.
type results struct {
	Machine   machine   `json:"machine"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	LoadAfter string    `json:"load_after"`
	Args      string    `json:"args"`
	Questions int       `json:"questions"`
	Shrink    int       `json:"shrink,omitempty"`
	Seed      uint64    `json:"seed"`
	Libraries []library `json:"libraries"`
	Big       *bigText  `json:"big,omitempty"`
}

// library is one size's measurements.
type library struct {
	Docs          int     `json:"documents"`
	TextBytes     int64   `json:"text_bytes"`
	AddSeconds    float64 `json:"add_seconds"`
	AddCPUSeconds float64 `json:"add_cpu_seconds"`
	AddDocsPerSec float64 `json:"add_docs_per_second"`
	AddMBPerSec   float64 `json:"add_mb_per_second"`
	AddPeakBytes  int64   `json:"add_peak_bytes"`
	LibraryBytes  int64   `json:"library_bytes"`
	Ask           latency `json:"ask"`
	Search        latency `json:"search"`
	LsMs          float64 `json:"ls_ms"`
	TUIFirstFrame float64 `json:"tui_first_frame_ms"`
}

// bigText is the large text's measurements.
type bigText struct {
	Bytes         int64   `json:"bytes"`
	AddSeconds    float64 `json:"add_seconds"`
	AddCPUSeconds float64 `json:"add_cpu_seconds"`
	AddMBPerSec   float64 `json:"add_mb_per_second"`
	AddPeakBytes  int64   `json:"add_peak_bytes"`
	LibraryBytes  int64   `json:"library_bytes"`
	Ask           latency `json:"ask"`
	Search        latency `json:"search"`
}

// latency summarises whole-process times of one command over the
// questions, and the peak memory of the largest.
type latency struct {
	P50       float64 `json:"p50_ms"`
	P99       float64 `json:"p99_ms"`
	Mean      float64 `json:"mean_ms"`
	PeakBytes int64   `json:"peak_bytes"`
	Runs      int     `json:"runs"`
}

// run is one finished process.
type run struct {
	wall, cpu time.Duration
	peak      int64 // bytes, the process's maximum resident set
	out       []byte
}

// exec runs citelens with args on library db, isolated from the user's
// configuration.
func (b *bench) exec(db string, args ...string) (run, error) {
	cmd := exec.Command(b.bin, append([]string{"--db", db}, args...)...)
	cmd.Env = b.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := run{wall: time.Since(start), out: out.Bytes()}
	if st := cmd.ProcessState; st != nil {
		r.cpu = st.UserTime() + st.SystemTime()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			r.peak = ru.Maxrss * 1024 // kilobytes on Linux
		}
	}
	if err != nil {
		return r, fmt.Errorf("citelens %s: %w\n%s", strings.Join(args, " "), err, lastLines(errb.String(), 5))
	}
	return r, nil
}

// env is the environment citelens runs in: no configuration file, no
// model, the C locale.
func (b *bench) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CITELENS_") {
			env = append(env, kv)
		}
	}
	return append(env, "CITELENS_CONFIG="+filepath.Join(b.work, "no-config.toml"))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// corpus generates (once) the folder of n documents and returns it.
func (b *bench) corpus(n int) (string, int64, error) {
	scale, tag := 1.0, ""
	if b.shrink > 0 && n >= b.shrink {
		scale, tag = 0.1, "-small"
	}
	dir := filepath.Join(b.work, fmt.Sprintf("docs-%d-seed%d%s", n, b.seed, tag))
	done := filepath.Join(dir, ".complete")
	if st, err := os.ReadFile(done); err == nil {
		var size int64
		fmt.Sscan(string(st), &size)
		return dir, size, nil
	}
	log("generating %d documents in %s", n, dir)
	os.RemoveAll(dir)
	size, err := genDocs(dir, n, b.seed, scale)
	if err != nil {
		return "", 0, err
	}
	return dir, size, os.WriteFile(done, []byte(fmt.Sprint(size)), 0o644)
}

// library builds the library of n documents and measures it.
func (b *bench) library(n int) (library, error) {
	r := library{Docs: n}
	dir, size, err := b.corpus(n)
	if err != nil {
		return r, err
	}
	r.TextBytes = size
	paths, err := filepath.Glob(filepath.Join(dir, "doc-*.txt"))
	if err != nil {
		return r, err
	}
	list := filepath.Join(b.work, fmt.Sprintf("paths-%d.txt", n))
	if err := os.WriteFile(list, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		return r, err
	}
	db := filepath.Join(b.work, fmt.Sprintf("library-%d.db", n))
	os.Remove(db)
	log("adding %d documents (%s)", n, mb(size))
	args := []string{"add", "--from", list}
	if b.jobs > 0 {
		args = append(args, "--jobs", fmt.Sprint(b.jobs))
	}
	add, err := b.exec(db, args...)
	if err != nil {
		return r, err
	}
	r.AddSeconds, r.AddCPUSeconds, r.AddPeakBytes = add.wall.Seconds(), add.cpu.Seconds(), add.peak
	r.AddDocsPerSec = float64(n) / add.wall.Seconds()
	r.AddMBPerSec = float64(size) / (1 << 20) / add.wall.Seconds()
	if st, err := os.Stat(db); err == nil {
		r.LibraryBytes = st.Size()
	}
	qs, err := b.questionsAbout(paths, n)
	if err != nil {
		return r, err
	}
	log("asking %d questions of %d documents", len(qs), n)
	if r.Ask, err = b.latency(db, qs, "ask", "--no-save", "--strategy", "extractive", "--k", "5"); err != nil {
		return r, err
	}
	if r.Search, err = b.latency(db, qs, "search", "--k", "10"); err != nil {
		return r, err
	}
	var ls []float64
	for range 7 {
		run, err := b.exec(db, "ls", "--page", "1")
		if err != nil {
			return r, err
		}
		ls = append(ls, ms(run.wall))
	}
	r.LsMs = percentile(ls, 50)
	name := filepath.Base(paths[0])
	var frames []float64
	for range 5 {
		d, err := firstFrame(b.bin, db, b.env(), name)
		if err != nil {
			log("TUI start: %v", err)
			break
		}
		frames = append(frames, ms(d))
	}
	if len(frames) > 0 {
		r.TUIFirstFrame = percentile(frames, 50)
	}
	return r, nil
}

// questionsAbout makes the bench's questions: each about a sentence of
// a document of the library, drawn with the seed.
func (b *bench) questionsAbout(paths []string, n int) ([]string, error) {
	c := synthetic.New(b.seed+uint64(n), 20_000)
	rng := rand.New(rand.NewPCG(b.seed, uint64(n)))
	var qs []string
	for len(qs) < b.questions {
		text, err := os.ReadFile(paths[rng.IntN(len(paths))])
		if err != nil {
			return nil, err
		}
		if q := c.QuestionAbout(string(text)); q != "" {
			qs = append(qs, q)
		}
	}
	return qs, nil
}

// latency runs a command once per question (after one to warm the page
// cache) and summarises the times.
func (b *bench) latency(db string, qs []string, args ...string) (latency, error) {
	var l latency
	var times []float64
	for i, q := range append([]string{qs[0]}, qs...) {
		r, err := b.exec(db, append(slices.Clone(args), q)...)
		if err != nil {
			return l, err
		}
		if i == 0 {
			continue // warm-up
		}
		times = append(times, ms(r.wall))
		l.PeakBytes = max(l.PeakBytes, r.peak)
	}
	l.P50, l.P99, l.Runs = percentile(times, 50), percentile(times, 99), len(times)
	for _, t := range times {
		l.Mean += t / float64(len(times))
	}
	return l, nil
}

// bigText adds the large text to a library of its own and measures it.
func (b *bench) bigText(size int64) (bigText, error) {
	r := bigText{}
	path := filepath.Join(b.work, fmt.Sprintf("big-%d-seed%d.txt", size, b.seed))
	if st, err := os.Stat(path); err != nil || st.Size() < size {
		log("generating a %s text", mb(size))
		if err := genBig(path, size, b.seed); err != nil {
			return r, err
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return r, err
	}
	r.Bytes = st.Size()
	db := filepath.Join(b.work, "library-big.db")
	os.Remove(db)
	log("adding the %s text", mb(r.Bytes))
	add, err := b.exec(db, "add", path)
	if err != nil {
		return r, err
	}
	r.AddSeconds, r.AddCPUSeconds, r.AddPeakBytes = add.wall.Seconds(), add.cpu.Seconds(), add.peak
	r.AddMBPerSec = float64(r.Bytes) / (1 << 20) / add.wall.Seconds()
	if st, err := os.Stat(db); err == nil {
		r.LibraryBytes = st.Size()
	}
	qs, err := b.questionsOfText(path)
	if err != nil {
		return r, err
	}
	log("asking %d questions of the large text", len(qs))
	if r.Ask, err = b.latency(db, qs, "ask", "--no-save", "--strategy", "extractive", "--k", "5"); err != nil {
		return r, err
	}
	r.Search, err = b.latency(db, qs, "search", "--k", "10")
	return r, err
}

// questionsOfText makes questions about paragraphs drawn from a large
// text, reading it at random offsets rather than whole.
func (b *bench) questionsOfText(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c := synthetic.New(b.seed+7, 20_000)
	rng := rand.New(rand.NewPCG(b.seed, 7))
	var qs []string
	buf := make([]byte, 8<<10)
	for len(qs) < b.questions {
		off := rng.Int64N(max(st.Size()-int64(len(buf)), 1))
		n, _ := f.ReadAt(buf, off)
		sc := bufio.NewScanner(bytes.NewReader(buf[:n]))
		sc.Scan() // a partial line
		for sc.Scan() {
			if line := sc.Text(); len(line) > 200 {
				if q := c.QuestionAbout(line); q != "" {
					qs = append(qs, q)
				}
				break
			}
		}
	}
	return qs, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile is the p-th percentile of xs (nearest rank).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// machine describes where a run ran.
type machine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Memory string `json:"memory"`
	Kernel string `json:"kernel"`
	Go     string `json:"go"`
	Load   string `json:"load_at_start"`
}

func describeMachine() machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Load: loadAverage()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "MemTotal:") {
				m.Memory = strings.Join(strings.Fields(line)[1:], " ")
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
