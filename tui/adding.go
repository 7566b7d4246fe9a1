package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/tui/addfiles"
	"github.com/citelens/citelens/tui/internal/pane"
	"github.com/citelens/citelens/tui/library"
)

// Adding documents: the add dialog, and the files it (or the command
// line) names added in a goroutine that reports each file's progress on
// a channel; a folder is its files of the types citelens reads. Paths
// chosen while an add runs are added after it.

// addRun adds files to the library in the background.
type addRun struct {
	events chan tea.Msg // addExpandedMsg, addProgressMsg and addedMsg
	added  []docstore.DocID
	// failed says, for each path that could not be added, why (read
	// only by Update).
	failed []string
	// failedFull are the same with each file's whole path, for the help
	// screen's list.
	failedFull []string
	// only: the documents added make the question's scope (the files
	// citelens was started with).
	only bool
}

// addStartedMsg hands an add run started in Init (which cannot change
// the model) to Update; only says its documents make the scope.
type addStartedMsg struct {
	run   *addRun
	paths []string
	only  bool
}

// addProgressMsg reports how adding a file is going.
type addProgressMsg ingest.Progress

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

// progressEvery is the most often a file's progress is reported.
const progressEvery = 50 * time.Millisecond

func startAdd(bg *background, adder *ingest.Pipeline, paths []string) *addRun {
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
			// What a folder holds, as 'citelens add DIR' reads it.
			c, err := ingest.Folder(bg.ctx, path, ingest.MaxFolderFiles)
			found := c.Files
			if err == nil && len(found) == 0 {
				err = fmt.Errorf("it holds no files of the types citelens reads (%s)", ingest.SupportedExtensions())
			}
			if err == nil && c.More {
				err = fmt.Errorf("only its first %s files are added ('citelens add --max-files 0 DIR' adds them all)", humanize.Count(ingest.MaxFolderFiles))
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
			info, existed, err := adder.Add(bg.ctx, path, func(p ingest.Progress) {
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
// thinned out by the goroutine); nil for no run.
func (r *addRun) next() tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		msg, ok := <-r.events
		if !ok {
			return addsDoneMsg{ids: r.added}
		}
		return msg
	}
}

func (msg addStartedMsg) update(m *Model) tea.Cmd {
	return m.began(msg.run, msg.paths, msg.only)
}

func (msg addExpandedMsg) update(m *Model) tea.Cmd {
	m.lib.Expanded(msg.dir, msg.files)
	m.layout()
	return m.adding.next()
}

func (msg addProgressMsg) update(m *Model) tea.Cmd {
	m.lib.SetProgress(library.Progress{Path: msg.Path, Stage: msg.Stage, Done: msg.Done, Total: msg.Total})
	return m.adding.next()
}

func (msg addedMsg) update(m *Model) tea.Cmd {
	m.lib.DoneAdding(msg.path)
	if msg.err == nil {
		m.lib.Include(msg.info.ID) // added here: in the scope, narrowed or not
	}
	if msg.err != nil {
		m.setNotice(fmt.Sprintf("Could not add %s: %s", msg.path, msg.err), true)
		if m.adding != nil {
			m.adding.failed = append(m.adding.failed, fmt.Sprintf("%s (%s)", filepath.Base(msg.path), msg.err))
			m.adding.failedFull = append(m.adding.failedFull, fmt.Sprintf("%s: %s", msg.path, msg.err))
		}
	}
	m.layout()
	m.waitingStage()
	return tea.Batch(m.adding.next(), loadLibrary(m.opts.Library))
}

// update ends an add run: the queued paths start, or, when nothing is
// left to add, a question waiting for the documents is asked.
func (msg addsDoneMsg) update(m *Model) tea.Cmd {
	only := m.adding != nil && m.adding.only
	if m.adding != nil && len(m.adding.failedFull) > 0 {
		m.addFailures = m.adding.failedFull
	}
	if m.adding != nil && len(m.adding.failed) > 1 {
		// Each failure was said as it came, each over the last: all of
		// them, once the run is over, and where to read them again.
		f := m.adding.failed
		m.setNotice(fmt.Sprintf("%s could not be added (f1 lists them): %s", humanize.Plural(len(f), "file", "files"), strings.Join(f, "; ")), true)
	}
	m.adding = nil
	if only && len(msg.ids) > 0 {
		m.lib.SetScopeOnly(msg.ids)
		m.syncScope()
	}
	if m.waiting != nil {
		m.waiting.added = append(m.waiting.added, msg.ids...)
	}
	if len(m.queued) > 0 {
		q := m.queued
		m.queued = nil
		return tea.Batch(m.began(startAdd(m.bg, m.opts.Adder, q), nil, false), loadLibrary(m.opts.Library))
	}
	if m.waiting != nil {
		return m.askWaiting(only, msg.ids)
	}
	return nil
}

// openAddDialog opens the add dialog in the folder it was last in, at
// first Options.AddDir.
func (m *Model) openAddDialog() tea.Cmd {
	a, cmd := addfiles.New(m.opts.AddDir, m.styles)
	m.add = &a
	return cmd
}

// updateAdd gives msg to the add dialog; its outcome, paths to add or
// none, closes it.
func (m *Model) updateAdd(msg tea.Msg) tea.Cmd {
	a, cmd, act := m.add.Update(msg)
	m.add = &a
	if act == nil {
		return cmd
	}
	m.add = nil
	m.opts.AddDir = a.Dir() // where it opens next time
	if _, closed := act.(pane.Close); closed {
		return cmd
	}
	return tea.Batch(cmd, m.act(act))
}

// addPaths adds files and folders: now, or after the adding in
// progress.
func (m *Model) addPaths(paths []string) tea.Cmd {
	if len(paths) == 0 {
		return nil
	}
	if m.adding != nil {
		m.queued = append(m.queued, paths...)
		for _, p := range paths {
			m.lib.SetProgress(library.Progress{Path: p, Stage: "waiting"})
		}
		m.layout()
		return nil
	}
	return m.began(startAdd(m.bg, m.opts.Adder, paths), paths, false)
}

// began shows an add run that has started.
func (m *Model) began(run *addRun, paths []string, only bool) tea.Cmd {
	m.adding = run
	run.only = only
	for _, p := range paths {
		m.lib.SetProgress(library.Progress{Path: p, Stage: "waiting"})
	}
	m.layout()
	m.waitingStage()
	return run.next()
}
