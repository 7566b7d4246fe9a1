package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/textproc"
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

// libraryMsg is the library's document list, and how the file looked
// just before it was read (changes after that are noticed).
type libraryMsg struct {
	docs  []docstore.DocInfo
	err   error
	stamp libraryStamp
}

// loadLibrary reads the library's compact listing (a 100,000-document
// library in tens of milliseconds); a document's full metadata is read
// when it is opened.
func loadLibrary(lib *docstore.Library) tea.Cmd {
	return func() tea.Msg {
		stamp := stampOf(lib.Path())
		entries, _, err := lib.Listing(0, 0)
		docs := make([]docstore.DocInfo, len(entries))
		for i, e := range entries {
			docs[i] = e.Info()
		}
		return libraryMsg{docs: docs, err: err, stamp: stamp}
	}
}

// stampOf looks at the library file; the zero stamp when it cannot.
func stampOf(path string) libraryStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return libraryStamp{}
	}
	return libraryStamp{size: fi.Size(), mod: fi.ModTime()}
}

// answersMsg is a page of saved answers, newest first: the latest at
// start, older ones as the reader scrolls back.
type answersMsg struct {
	page engine.Page
	err  error
}

// answerPage is how many saved answers are read at a time: a start
// reads only the latest (one record can be megabytes).
const answerPage = 20

func loadAnswers(lib *docstore.Library, before string) tea.Cmd {
	return func() tea.Msg {
		p, err := engine.Recent(lib, before, answerPage)
		return answersMsg{page: p, err: err}
	}
}

// newAnswersMsg carries answers saved since the newest shown (by
// another citelens, say).
type newAnswersMsg struct{ answers []*engine.Answer }

func loadNewAnswers(lib *docstore.Library, after string) tea.Cmd {
	return func() tea.Msg {
		ids, err := lib.NewerAnswers(after, answerPage)
		if err != nil {
			return nil
		}
		var out []*engine.Answer
		for _, id := range ids {
			if a, err := engine.Load(lib, id); err == nil {
				out = append(out, a)
			}
		}
		return newAnswersMsg{answers: out}
	}
}

// answerDeletedMsg reports a saved answer deleted, or why not.
type answerDeletedMsg struct {
	id  string
	err error
}

func deleteAnswer(lib *docstore.Library, id string) tea.Cmd {
	return func() tea.Msg { return answerDeletedMsg{id: id, err: lib.DeleteAnswer(id)} }
}

// removedMsg reports a document removed, or why not.
type removedMsg struct {
	doc docstore.DocInfo
	err error
}

func removeDocument(lib *docstore.Library, d docstore.DocInfo) tea.Cmd {
	return func() tea.Msg { return removedMsg{doc: d, err: lib.Remove(d.ID)} }
}

// libraryStamp is what a look at the library file tells of changes.
type libraryStamp struct {
	size int64
	mod  time.Time
}

// libraryChangedMsg says the library file changed since last looked at
// (another citelens added or answered); libraryTickMsg that it did not.
type (
	libraryChangedMsg struct{ stamp libraryStamp }
	libraryTickMsg    struct{ stamp libraryStamp }
)

// libraryWaitMsg says a transaction waits for another process's write.
type libraryWaitMsg struct{}

// watchEvery is how often the library file is looked at: what another
// process adds shows within a second.
const watchEvery = 500 * time.Millisecond

// watchLibrary looks at the library file after watchEvery and reports
// whether it changed from last.
func watchLibrary(path string, last libraryStamp) tea.Cmd {
	return tea.Tick(watchEvery, func(time.Time) tea.Msg {
		now := stampOf(path)
		if now == (libraryStamp{}) || last == (libraryStamp{}) {
			return libraryTickMsg{} // no list read yet to compare with
		}
		if now != last {
			return libraryChangedMsg{stamp: now}
		}
		return libraryTickMsg{stamp: last}
	})
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
	id       int
	events   chan engine.Event
	cancel   context.CancelFunc
	strategy string
	docs     []docstore.DocID

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
// saved, with the strategy and scope it was asked with.
type askDoneMsg struct {
	id       int
	ans      *engine.Answer
	err      error
	saveErr  error
	strategy string
	docs     []docstore.DocID
}

// startAsk runs strategy on req in the background and returns the run;
// its next command delivers the first events.
func startAsk(bg *background, id int, env *engine.Env, strategy string, req engine.Request) *askRun {
	ctx, cancel := context.WithCancel(bg.ctx)
	r := &askRun{id: id, events: make(chan engine.Event, 256), cancel: cancel, strategy: strategy, docs: req.Docs}
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
			return askDoneMsg{id: r.id, ans: r.ans, err: r.err, saveErr: r.saveErr, strategy: r.strategy, docs: r.docs}
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
	events chan tea.Msg // addExpandedMsg, addProgressMsg and addedMsg
	added  []docstore.DocID
	// only: the documents added make the question's scope (the files
	// citelens was started with).
	only bool
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

// addExpandedMsg reports the files a folder holds, to be added in its
// place.
type addExpandedMsg struct {
	dir   string
	files []string
}

// maxFolderFiles bounds the files one folder adds.
const maxFolderFiles = 1000

// folderFiles lists the files of the types citelens reads under dir
// (hidden files and folders aside), in name order, at most
// maxFolderFiles, and whether there were more.
func folderFiles(ctx context.Context, dir string) (files []string, more bool, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable subfolder: skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := docstore.FormatOf(p); ok && d.Type().IsRegular() {
			if len(files) == maxFolderFiles {
				more = true
				return filepath.SkipAll
			}
			files = append(files, p)
		}
		return nil
	})
	return files, more, err
}

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
		var files []string
		for _, path := range paths {
			st, err := os.Stat(path)
			if err != nil || !st.IsDir() {
				files = append(files, path) // Add says what is wrong with it
				continue
			}
			found, more, err := folderFiles(bg.ctx, path)
			if err == nil && len(found) == 0 {
				err = fmt.Errorf("it holds no files of the types citelens reads (%s)", docstore.SupportedExtensions())
			}
			if err == nil && more {
				err = fmt.Errorf("only its first %d files are added", maxFolderFiles)
			}
			if !send(addExpandedMsg{dir: path, files: found}) {
				return
			}
			if err != nil && !send(addedMsg{path: path, err: err}) {
				return
			}
			files = append(files, found...)
		}
		for _, path := range files {
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
