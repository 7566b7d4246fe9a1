package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// errUsage means the usage message has already been printed.
var errUsage = errors.New("usage")

// newFlags returns a flag set for a command whose usage names the command
// and its argument synopsis.
func newFlags(a *app, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.Usage = func() { printCommandUsage(fs.Output(), c, fs) }
	return fs
}

func printCommandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: citelens %s %s\n\n%s\n", c.name, c.args, c.summary)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		fs.VisitAll(func(f *flag.Flag) {
			name, use := flag.UnquoteUsage(f)
			dash := "--"
			if singleDash(c.args, f.Name) { // -o, as the usage line writes it
				dash = "-"
			}
			line := "  " + dash + f.Name
			if name != "" {
				line += " " + name
			}
			fmt.Fprintf(w, "%-24s %s", line, use)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
}

// singleDash reports whether a command's synopsis writes flag name with
// one dash ("-o FILE"): its flag list then writes it alike, and every
// other flag with two ("--k N" in both), so the two never disagree. Go's
// flag package takes either.
func singleDash(synopsis, name string) bool {
	return regexp.MustCompile(`(^|[\s\[|(])-` + regexp.QuoteMeta(name) + `\b`).MatchString(synopsis)
}

// parseFlags parses args allowing flags and positional arguments to be
// interleaved ("citelens ask 'why?' --json"), as users type them. "--" ends
// the flags. --help prints the usage to stdout and returns flag.ErrHelp.
func parseFlags(a *app, fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		fs.SetOutput(io.Discard)
		err := fs.Parse(args)
		fs.SetOutput(a.stderr)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(a.stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "citelens %s: %v\n", fs.Name(), err)
			fs.Usage()
			return nil, errUsage
		}
		rest := fs.Args()
		// flag.Parse stops at the first non-flag; take it and go on.
		consumedDashDash := len(args) > len(rest) && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"
		if len(rest) == 0 || consumedDashDash {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// stringList is a repeatable string flag (--doc A --doc B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
