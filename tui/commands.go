package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine"
)

// Everything that touches the disk or runs a strategy happens here, in
// commands and the goroutines they start, never in Update. Long work (an
// answer, adding files) runs in a goroutine that feeds a channel; a
// command reads the channel one message at a time and Update asks for the
// next one, as charmbracelet/mods streams completions.

// background is the work the program started and must let finish (saving
// a cancelled answer, say) before the library is closed.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newBackground(parent context.Context) *background {
	ctx, cancel := context.WithCancel(parent)
	return &background{ctx: ctx, cancel: cancel}
}

// stop cancels the work and waits for it, at most timeout.
func (b *background) stop(timeout time.Duration) {
	b.cancel()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

// libraryMsg is the library's document list.
type libraryMsg struct {
	docs []docstore.DocInfo
	err  error
}

func loadLibrary(lib *docstore.Library) tea.Cmd {
	return func() tea.Msg {
		docs, err := lib.List()
		return libraryMsg{docs: docs, err: err}
	}
}

// answersMsg is the answers saved in the library, oldest first.
type answersMsg struct {
	answers []*engine.Answer
	skipped int // records that could not be read
	err     error
}

func loadAnswers(lib *docstore.Library) tea.Cmd {
	return func() tea.Msg {
		metas, err := lib.Answers()
		if err != nil {
			return answersMsg{err: err}
		}
		var msg answersMsg
		for _, meta := range metas {
			a, err := engine.Load(lib, meta.ID)
			if err != nil {
				msg.skipped++
				continue
			}
			msg.answers = append(msg.answers, a)
		}
		return msg
	}
}

// docMsg is a document loaded for the source pane.
type docMsg struct {
	id  docstore.DocID
	doc *docstore.Document
	err error
}

func loadDocument(lib *docstore.Library, id docstore.DocID) tea.Cmd {
	return func() tea.Msg {
		d, err := lib.Document(id)
		return docMsg{id: id, doc: d, err: err}
	}
}

// exportedMsg reports an export written, or why not.
type exportedMsg struct {
	path string
	err  error
}

// exportFileName is where an answer is exported in dir: the answer's ID
// names it, so exporting again rewrites the same file.
func exportFileName(dir string, f citations.Format, ans *engine.Answer) string {
	ext := f.Ext
	if f.Name != f.Ext {
		ext = f.Name + "." + f.Ext // citelens-answer-ID.longbench.json
	}
	return filepath.Join(dir, "citelens-answer-"+ans.ID+"."+ext)
}

func exportAnswer(lib *docstore.Library, dir, format string, ans *engine.Answer) tea.Cmd {
	return func() tea.Msg {
		f, err := citations.LookupFormat(format)
		if err != nil {
			return exportedMsg{err: err}
		}
		path := exportFileName(dir, f, ans)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		// Written beside and renamed, so a failed export leaves no
		// half-written file where the last good one was.
		tmp, err := os.CreateTemp(filepath.Dir(path), ".citelens-export-*")
		if err != nil {
			return exportedMsg{err: fmt.Errorf("cannot write the export in %s: %w", filepath.Dir(path), unwrapPath(err))}
		}
		err = citations.Export(tmp, f.Name, ans, lib.Document)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			_ = os.Chmod(tmp.Name(), 0o644)
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return exportedMsg{err: err}
		}
		return exportedMsg{path: path}
	}
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// askRun is an answer being written: engine.Run in a goroutine, its
// events on a channel.
type askRun struct {
	id     int
	events chan engine.Event
	cancel context.CancelFunc

	// Set by the goroutine before it closes events.
	ans     *engine.Answer
	err     error
	saveErr error
}

// askEventsMsg carries the events that were waiting, in order.
type askEventsMsg struct {
	id     int
	events []engine.Event
}

// askDoneMsg reports the answer finished (or cancelled, or failed) and
// saved.
type askDoneMsg struct {
	id      int
	ans     *engine.Answer
	err     error
	saveErr error
}

// startAsk runs strategy on req in the background and returns the run;
// its next command delivers the first events.
func startAsk(bg *background, id int, env *engine.Env, strategy string, req engine.Request) *askRun {
	ctx, cancel := context.WithCancel(bg.ctx)
	r := &askRun{id: id, events: make(chan engine.Event, 256), cancel: cancel}
	bg.wg.Add(1)
	go func() {
		defer bg.wg.Done()
		defer close(r.events)
		defer cancel()
		s, err := engine.New(strategy, env)
		if err != nil {
			r.err = err
			return
		}
		r.ans, r.err = engine.Run(ctx, env, s, req, func(ev engine.Event) {
			select {
			case r.events <- ev:
			case <-ctx.Done():
				// The statements are in the answer Run returns; the
				// display only misses them until then.
			}
		})
		if r.ans != nil {
			r.saveErr = engine.Save(env.Library, r.ans)
		}
	}()
	return r
}

// maxBatch bounds the events delivered in one message, so a flood of
// deltas still lets frames through.
const maxBatch = 256

// next returns the command that waits for the run's next events: the
// first that comes and any already queued behind it.
func (r *askRun) next() tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-r.events
		if !ok {
			return askDoneMsg{id: r.id, ans: r.ans, err: r.err, saveErr: r.saveErr}
		}
		evs := []engine.Event{ev}
		for len(evs) < maxBatch {
			select {
			case ev, ok := <-r.events:
				if !ok {
					return askEventsMsg{id: r.id, events: evs} // done comes next
				}
				evs = append(evs, ev)
				continue
			default:
			}
			break
		}
		return askEventsMsg{id: r.id, events: evs}
	}
}

// addRun adds files to the library in the background.
type addRun struct {
	events chan tea.Msg // addProgressMsg and addedMsg
	added  []docstore.DocID
}

// addProgressMsg reports how adding a file is going.
type addProgressMsg docstore.Progress

// addedMsg reports a file added (or already there), or why not.
type addedMsg struct {
	path    string
	info    docstore.DocInfo
	existed bool
	err     error
}

// addsDoneMsg reports every file handled; ids are the documents added or
// found, in order.
type addsDoneMsg struct{ ids []docstore.DocID }

// progressEvery is the most often a file's progress is reported.
const progressEvery = 50 * time.Millisecond

func startAdd(bg *background, lib *docstore.Library, paths []string) *addRun {
	r := &addRun{events: make(chan tea.Msg, 16)}
	send := func(msg tea.Msg) bool {
		select {
		case r.events <- msg:
			return true
		case <-bg.ctx.Done():
			return false
		}
	}
	bg.wg.Add(1)
	go func() {
		defer bg.wg.Done()
		defer close(r.events)
		for _, path := range paths {
			var last time.Time
			var lastStage string
			info, existed, err := lib.Add(bg.ctx, path, func(p docstore.Progress) {
				now := time.Now()
				if p.Stage == lastStage && now.Sub(last) < progressEvery && p.Done != p.Total {
					return
				}
				last, lastStage = now, p.Stage
				send(addProgressMsg(p))
			})
			if err == nil {
				r.added = append(r.added, info.ID)
			}
			if !send(addedMsg{path: path, info: info, existed: existed, err: err}) {
				return
			}
		}
	}()
	return r
}

// next waits for the next message of the adds (progress is already
// thinned out by the goroutine).
func (r *addRun) next() tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-r.events
		if !ok {
			return addsDoneMsg{ids: r.added}
		}
		return msg
	}
}

// clipboardText is a quote as copied: exact, except for control
// characters (escape sequences among them), which a paste into a
// terminal would act on, and bidi overrides, which would make the pasted
// text read differently from what it holds (textproc.Pasteable).
func clipboardText(s string) string { return textproc.Pasteable(s) }
