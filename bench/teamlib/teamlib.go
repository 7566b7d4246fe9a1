package teamlib

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	_ "github.com/citelens/citelens/engine/extractive" // ask's default strategy, measured here
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui"
	"github.com/citelens/citelens/tui/termimage"
)

// OpenBolt opens (making it if needed) the library file at path, as
// citelens does without --db.
func OpenBolt(path string) (*docstore.Library, error) {
	return docstore.Open(path, nil)
}

// OpenPG opens (making it if needed) the library in the PostgreSQL
// database conn names, as citelens --db does. It returns the store too,
// for the index's benchmark, which reads the store's records itself.
func OpenPG(ctx context.Context, conn string) (*docstore.Library, *pgkv.DB, error) {
	db, err := pgkv.Open(ctx, conn)
	if err != nil {
		return nil, nil, err
	}
	lib, err := docstore.OpenStore(db, "postgres (benchmark)", nil)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return lib, db, nil
}

// Build adds paths to lib as `citelens add` does (jobs files read at
// once; 0: one per core) and returns how long it took.
func Build(ctx context.Context, lib *docstore.Library, paths []string, jobs int) (time.Duration, error) {
	t0 := time.Now()
	var failed error
	var mu sync.Mutex
	err := ingest.New(lib, nil).AddFiles(ctx, paths, ingest.AddOptions{Jobs: jobs, Done: func(r ingest.AddResult) {
		mu.Lock()
		defer mu.Unlock()
		if r.Err != nil && failed == nil {
			failed = fmt.Errorf("adding %s: %w", r.Path, r.Err)
		}
	}})
	if err == nil {
		err = failed
	}
	return time.Since(t0), err
}

// AddConcurrently adds paths with writers writers, each with its own
// library handle from open (its own connection pool, or its own handle
// of the file: as separate processes would) adding its share, one file
// at a time, and returns the time from the first add's start to the
// last one's end. Handles are opened before the clock starts.
func AddConcurrently(ctx context.Context, open func() (*docstore.Library, error), paths []string, writers int) (time.Duration, error) {
	libs := make([]*docstore.Library, writers)
	for i := range libs {
		l, err := open()
		if err != nil {
			return 0, err
		}
		defer l.Close()
		libs[i] = l
	}
	errs := make([]error, writers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range writers {
		var share []string
		for i := w; i < len(paths); i += writers {
			share = append(share, paths[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[w] = Build(ctx, libs[w], share, 1)
		}()
	}
	wg.Wait()
	d := time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return d, err
		}
	}
	return d, nil
}

// Asker asks questions of one library with the offline extractive
// strategy, answers not saved, as `citelens ask --no-save` does.
type Asker struct {
	env      *engine.Env
	strategy engine.Strategy
}

// NewAsker readies the extractive strategy over lib.
func NewAsker(lib *docstore.Library) (*Asker, error) {
	env := engine.NewEnv(lib, config.Config{})
	s, err := engine.New(engine.DefaultStrategy, env)
	if err != nil {
		return nil, err
	}
	return &Asker{env: env, strategy: s}, nil
}

// Ask answers q.
func (a *Asker) Ask(ctx context.Context, q string) (*engine.Answer, error) {
	return engine.Run(ctx, a.env, a.strategy, engine.Request{Question: q}, nil)
}

// Summary is an answer reduced to what must be the same on every
// backend: each statement's text and where its citations point.
func Summary(a *engine.Answer) string {
	var b strings.Builder
	for _, st := range a.Statements {
		b.WriteString(st.Text)
		for _, c := range st.Citations {
			fmt.Fprintf(&b, " [%s %d-%d %d:%d]", c.Doc, c.First, c.Last, c.Start, c.End)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Ls writes the whole listing to w as `citelens ls` does to a pipe, and
// returns how many documents it listed.
func Ls(lib *docstore.Library, w io.Writer) (int, error) {
	entries, _, err := lib.Listing(0, 0)
	if err != nil {
		return 0, err
	}
	out := bufio.NewWriterSize(w, 64<<10)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPAGES\tSENTENCES\tADDED")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", e.ID, textproc.OneLine(e.Name), e.Pages, e.Sentences, e.Added.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return 0, err
	}
	return len(entries), out.Flush()
}

// FirstFrame starts the terminal UI over lib in a window of 160×48 and
// runs its start-up commands, as the program would, until a frame shows
// want (a document's name in the library's list), and returns the time
// from making the model to that frame.
func FirstFrame(ctx context.Context, lib *docstore.Library, want string) (time.Duration, error) {
	sel, err := themes.NewSelector("dark", false)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	var m tea.Model = tui.New(tui.Options{Library: lib, Env: engine.NewEnv(lib, config.Config{}), Theme: sel,
		Graphics: termimage.Off, ExportDir: ".", AddDir: "."})
	defer func() { m.(tui.Model).Shutdown() }()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	msgs := make(chan tea.Msg, 64)
	// run runs a command as the program does, a batch's parts each on
	// its own; a command still running at the end (the watch's timer)
	// is abandoned.
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			if msg != nil {
				select {
				case msgs <- msg:
				case <-ctx.Done():
				}
			}
		}()
	}
	var cmd tea.Cmd
	m, cmd = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	run(cmd)
	run(m.Init())
	for {
		if strings.Contains(m.(tui.Model).View().Content, want) {
			return time.Since(t0), nil
		}
		select {
		case msg := <-msgs:
			m, cmd = m.Update(msg)
			run(cmd)
		case <-ctx.Done():
			return 0, fmt.Errorf("teamlib: the terminal UI showed no %q in a minute", want)
		}
	}
}

// Percentile is the p-th percentile (0–100) of ds, by the nearest rank.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
