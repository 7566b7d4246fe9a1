package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui"
	"github.com/citelens/citelens/tui/termimage"
)

func init() {
	register(&command{
		name:    "tui",
		args:    "[--theme NAME] [--graphics NAME] [--strategy NAME] [FILE|FOLDER...]",
		summary: "open the terminal UI, adding FILEs and FOLDERs first (what citelens does with no command)",
		run:     runTUI,
	})
}

func runTUI(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["tui"])
	theme := fs.String("theme", "", "colour theme `NAME`: auto, dark, light, high-contrast or no-color (default: the config's [tui] theme, else auto: the terminal's background, or COLORFGBG where it does not say, as in tmux 3.3)")
	strategy := fs.String("strategy", a.defaultStrategy(), "the strategy `NAME` questions go to first (s in the TUI changes it)")
	graphics := fs.String("graphics", "", "how the page view draws pages, `NAME`: auto (ask the terminal), kitty, sixel, iterm2, blocks (a map of the page in characters) or off (default: the config's [tui] graphics, else auto)")
	paths, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	// Bad arguments fail here, before the screen is taken over.
	if _, ok := engine.Lookup(*strategy); !ok {
		_, err := engine.New(*strategy, nil) // the error lists the strategies
		return err
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return fix.With(fmt.Errorf("cannot add %s: %w", p, unwrapStat(err)), "Check the path; run 'citelens --help' for the commands.")
		}
		if !st.Mode().IsRegular() && !st.IsDir() {
			return fmt.Errorf("cannot add %s: not a regular file or a folder", p)
		}
	}
	name := *theme
	if name == "" {
		name = a.theme
	}
	if name == "" {
		cfg, err := a.config()
		if err != nil {
			return err
		}
		name = cfg.Theme
	}
	sel, err := themes.NewSelector(name, themes.NoColorRequested(os.Getenv))
	if err != nil {
		return err
	}
	sel = sel.WithEnv(os.Getenv) // the guess where the terminal answers no background query (tmux 3.3)
	proto, err := a.graphicsProtocol(*graphics)
	if err != nil {
		return err
	}

	// The library is opened first so that a library in use by another
	// citelens is what gets reported, whatever else is wrong.
	l, err := a.openLibrary(false)
	if err != nil {
		return err
	}
	defer l.Close()
	if !isTerminalFile(os.Stdin) || !isTerminalFile(os.Stdout) {
		return fix.With(errors.New("the terminal UI needs a terminal"),
			"Use 'citelens add FILE' and 'citelens ask QUESTION' in scripts and pipes.")
	}
	env, err := a.engineEnv(l)
	if err != nil {
		return err
	}
	adder, err := a.pipeline(l)
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		dir = os.TempDir()
	}
	// The terminal UI tells of waits for a library file itself
	// (Library.SetWaiting); a server's waits must not print over it.
	a.screenTaken.Store(true)
	defer a.screenTaken.Store(false)
	return tui.Run(ctx, tui.Options{
		Library:   l,
		Env:       env,
		Adder:     adder,
		Paths:     paths,
		Theme:     sel,
		Strategy:  *strategy,
		ExportDir: dir,
		AddDir:    dir,
		Graphics:  proto,
		PixelSize: windowPixels,
	})
}

// graphicsProtocol is --graphics (after the command, else before it),
// else the config's [tui] graphics, else auto.
func (a *app) graphicsProtocol(flagValue string) (termimage.Protocol, error) {
	name, from := flagValue, "--graphics"
	if name == "" {
		name = a.graphics
	}
	if name == "" {
		cfg, err := a.config()
		if err != nil {
			return termimage.Auto, err
		}
		name, from = cfg.Graphics, "graphics in "+cfg.Path
	}
	p, err := termimage.ParseProtocol(name)
	if err != nil {
		return termimage.Auto, fmt.Errorf("%s: %w", from, err)
	}
	return p, nil
}

func isTerminalFile(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// defaultStrategy is the strategy a command starts with: --strategy
// given before the command, else engine.DefaultStrategy.
func (a *app) defaultStrategy() string {
	if a.strategy != "" {
		return a.strategy
	}
	return engine.DefaultStrategy
}

func unwrapStat(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
