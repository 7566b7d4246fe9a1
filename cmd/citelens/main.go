// Command citelens is a terminal reader for long documents that answers
// questions with sentence-level citations.
//
// This package only parses flags and wires packages together; the work is
// done in docstore, engine, citations and tui.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/didyoumean"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// command is one subcommand. Each lives in its own cmd_<name>.go file and
// registers itself in init, so adding one touches no other file.
type command struct {
	name    string
	args    string // argument synopsis for usage, e.g. "[--json] PATH..."
	summary string // one line for the command list
	// run executes the command; args are what follows the command name.
	run func(ctx context.Context, a *app, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// app carries what every command needs: the global options and the streams.
type app struct {
	dbPath string
	// dbExplicit is set when the user chose the library (--db or
	// CITELENS_DB) rather than taking the default.
	dbExplicit bool
	stdout     io.Writer
	stderr     io.Writer
	stdin      io.Reader
	// theme is --theme given before the command, for the terminal UI
	// ("citelens --theme light FILE").
	theme string
	// graphics is --graphics given before the command, for the terminal
	// UI's page view ("citelens --graphics sixel FILE").
	graphics string
	// strategy is --strategy given before the command: the terminal UI's
	// first strategy and ask's ("citelens --strategy rag FILE").
	strategy string
	// cfg is the configuration, loaded on first use by config().
	cfg *config.Config
	// maxFileSize is add's --max-size (0: ingest's default).
	maxFileSize int64
	// screenTaken is set while the terminal UI has the screen, where
	// nothing else may print.
	screenTaken atomic.Bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the exit, so tests can drive the whole command.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, stdin: stdin}
	global := flag.NewFlagSet("citelens", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	global.StringVar(&a.dbPath, "db", "", "the library: a file or a PostgreSQL address (env CITELENS_DB)")
	global.StringVar(&a.theme, "theme", "", "the terminal UI's colours")
	global.StringVar(&a.graphics, "graphics", "", "how the terminal UI draws pages")
	global.StringVar(&a.strategy, "strategy", "", "the strategy questions go to")
	showVersion := global.Bool("version", false, "print the version")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "citelens: %v\n", err)
		usage(stderr)
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "citelens", version)
		return 0
	}
	a.dbExplicit = a.dbPath != "" || os.Getenv("CITELENS_DB") != ""
	if a.dbPath == "" {
		a.dbPath = defaultDBPath()
		// The config file's db, when there is one: a broken file is
		// for the commands that read it to report.
		if cfg, err := a.config(); err == nil && cfg.DB != "" {
			a.dbPath, a.dbExplicit = cfg.DB, true
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C (or SIGTERM) cancels the command, which stops
	// cleanly; should anything not stop, a second one ends the process,
	// as the default handler is back.
	go func() {
		<-ctx.Done()
		stop()
	}()

	rest := global.Args()
	name := "tui"
	if len(rest) > 0 {
		if _, ok := commands[rest[0]]; ok {
			name, rest = rest[0], rest[1:]
		} else if rest[0] == "help" {
			if len(rest) > 1 {
				if c, ok := commands[rest[1]]; ok {
					return runCommand(ctx, a, c, []string{"--help"})
				}
			}
			usage(stdout)
			return 0
		} else if !looksLikePath(rest[0]) {
			names := make([]string, 0, len(commands)+1)
			for n := range commands {
				names = append(names, n)
			}
			fmt.Fprintf(stderr, "citelens: unknown command %q%s\n", rest[0], didyoumean.Hint(rest[0], append(names, "help")))
			usage(stderr)
			return 2
		}
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintln(stderr, "citelens: this build has no terminal UI; see citelens --help")
		return 2
	}
	return runCommand(ctx, a, c, rest)
}

// looksLikePath tells `citelens FILE` (open the TUI on it) from a mistyped
// command: anything with a dot or a slash, or that exists, is a path.
func looksLikePath(s string) bool {
	if strings.ContainsAny(s, "./"+string(filepath.Separator)) {
		return true
	}
	_, err := os.Stat(s)
	return err == nil
}

func runCommand(ctx context.Context, a *app, c *command, args []string) int {
	err := c.run(ctx, a, args)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	var quiet exitError
	if errors.As(err, &quiet) && quiet.quiet {
		return quiet.code
	}
	printError(a.stderr, err)
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}

func usage(w io.Writer) {
	fmt.Fprint(w, `citelens: read long documents and get answers with sentence-level citations.

Usage:
  citelens [--db PATH] [PATH...]        open the terminal UI (adding files and folders first)
  citelens [--db PATH] COMMAND [ARGS]   run a command

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, `
Global flags:
  --db ADDRESS     the library: a file, or a PostgreSQL database (postgres:///team,
                   host=/run/postgresql dbname=team; docs/TEAM.md) (env CITELENS_DB,
                   or the config file's db; default %s)
  --theme NAME     the terminal UI's colours: auto, dark, light, high-contrast, no-color
  --graphics NAME  how the terminal UI draws pages: auto, kitty, sixel, iterm2, blocks, off
  --strategy NAME  the strategy questions go to (the terminal UI's first, and ask's)
  --version        print the version

Run 'citelens COMMAND --help' for a command's flags.
`, defaultDBPath())
}

// defaultDBPath is $CITELENS_DB, else $XDG_DATA_HOME/citelens/library.db,
// else ~/.local/share/citelens/library.db.
func defaultDBPath() string {
	if p := os.Getenv("CITELENS_DB"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "citelens", "library.db")
}
