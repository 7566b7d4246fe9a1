// Package tui is citelens's terminal UI: a bubbletea program with three
// panes — the library, the conversation and the source — and two dialogs
// laid over them — the add dialog and a picker — each its own model with
// its own keys (tui/library, tui/conversation, tui/source, tui/addfiles,
// tui/picker), and a root model (Model) that lays them out, routes
// messages to them and does the work they ask for.
//
// Every pane keeps one contract (tui/internal/pane): Update returns the
// pane, a command and an action — what the pane asks of the rest of the
// program, carried out at once by the root — and View draws it in the
// cells the root gives it. The root's own work is in one file per
// feature, each with its messages, commands and handlers: library.go
// (the list, watching the library, the scope), answers.go (saved answers),
// ask.go, adding.go, citation.go (the source pane), export.go,
// strategy.go (pickers), prepare.go; keys.go, layout.go and help.go are
// the keys, the screen and the help.
//
// The root model never does I/O or heavy work in Update: asking runs the
// strategy in a goroutine whose events a command reads one batch at a
// time; adding files, loading documents and exporting run in commands.
package tui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/termimage"
)

// Options configure the program.
type Options struct {
	// Library is the open library; the program does not close it.
	Library *docstore.Library
	// Env builds the strategies (engine.NewEnv over Library).
	Env *engine.Env
	// Adder adds files to Library (Paths, the add dialog) as the
	// configuration says (OCR); nil adds them with the default options.
	Adder *ingest.Pipeline
	// Paths are files to add before asking; the question's scope starts
	// as exactly these files.
	Paths []string
	// Theme chooses the styles, possibly from the terminal's background.
	Theme themes.Selector
	// Strategy is the strategy questions go to first (default
	// engine.DefaultStrategy).
	Strategy string
	// ExportDir is where exports are written (default: the working
	// directory).
	ExportDir string
	// AddDir is the folder the add dialog opens in (default: the working
	// directory).
	AddDir string
	// Now is the clock an answer's waiting time is counted by (default
	// time.Now); tests fix it.
	Now func() time.Time
	// Graphics is how the page view draws pages (termimage.Auto: ask the
	// terminal).
	Graphics termimage.Protocol
	// PixelSize, when set, tells the terminal window's size in pixels
	// (the kernel's record of it), for the page view's cell size where
	// the terminal answers no query for it.
	PixelSize func() (w, h int)
	// ConfigPath is where choosing a model server on this machine writes
	// the configuration (default: config.Path(), as 'config init').
	ConfigPath string
	// LocalPorts are the ports a model server is looked for on when none
	// is configured (default llm.LocalPorts; empty, not nil: nowhere).
	LocalPorts []llm.LocalPort
	// Pages draws the pages (default: a renderer over Library, its code
	// compiled into the user's cache folder); tests share one.
	Pages *pageimage.Source
}

// shutdownWait bounds how long quitting waits for background work (a
// cancelled answer being saved) before the library is closed.
const shutdownWait = 5 * time.Second

// Run runs the program on the terminal until the user quits or ctx is
// done, then cancels and waits for the work it started. Program options
// (input, output, size) are passed to tea.NewProgram.
func Run(ctx context.Context, opts Options, progOpts ...tea.ProgramOption) error {
	m := New(opts)
	defer m.Shutdown()
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, progOpts...)...)
	// Another process writing to the library makes a transaction wait a
	// moment: said on the status line, not on the terminal under it.
	opts.Library.SetWaiting(func(bool) { go p.Send(libraryWaitMsg{}) })
	defer opts.Library.SetWaiting(nil)
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted by a signal: an ordinary way to leave
	}
	return err
}

// Shutdown cancels the work the program started (an answer being
// written is saved as partial) and waits for it, for a few seconds at
// most. Call it before closing the library.
func (m Model) Shutdown() {
	m.bg.stop(shutdownWait)
	if m.renderer != nil {
		// The renderer first: it stops a page being drawn at once, which
		// closing the pages' documents would otherwise wait for.
		m.renderer.Close()
		m.pages.Close()
	}
}
