package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/dbaddr"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "check",
		args:    "[--json]",
		summary: "check the library for damage and report what is readable",
		run:     runCheck,
	})
	register(&command{
		name:    "salvage",
		args:    "[--json] NEW.db",
		summary: "copy every readable document and answer of a damaged library into a new one",
		run:     runSalvage,
	})
}

// openDamaged opens the library for check and salvage: read-only, and
// even when it is damaged.
func (a *app) openDamaged() (*docstore.Library, error) {
	return a.openAt(a.dbPath, docstore.Options{ReadDamaged: true})
}

func runCheck(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["check"])
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if rest, err := parseFlags(a, fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		fmt.Fprintln(a.stderr, "citelens check: it takes no arguments (the library is --db)")
		fs.Usage()
		return errUsage
	}
	l, err := a.openDamaged()
	if errors.Is(err, errNoLibrary) {
		fmt.Fprintln(a.stdout, emptyLibraryMessage(a))
		return nil
	}
	if err != nil {
		// Not even bbolt can read it: nothing to salvage either.
		return fix.With(err, "The file cannot be read at all; restore it from a backup.")
	}
	defer l.Close()
	in, err := l.Inspect(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if in.Problems == nil {
			in.Problems = []docstore.Problem{}
		}
		if err := textproc.WriteSafeJSON(a.stdout, in, "  "); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%s\ndocuments      %d (%d readable)\nsaved answers  %d", in.Path, in.Documents, in.Readable, in.Answers)
		if in.BadAnswers > 0 {
			fmt.Fprintf(a.stdout, " (%d damaged)", in.BadAnswers)
		}
		fmt.Fprintln(a.stdout)
		if in.OK() {
			fmt.Fprintln(a.stdout, "No damage found.")
			return nil
		}
		fmt.Fprintf(a.stdout, "The library is damaged (problems found: %d):\n", len(in.Problems))
		for _, p := range in.Problems {
			fmt.Fprintf(a.stdout, "- %s\n", textproc.OneLine(p.String()))
		}
		fmt.Fprintf(a.stdout, "Copy what is readable into a new library with: citelens --db %s salvage NEW.db\n", dbaddr.Redact(a.dbPath))
	}
	if !in.OK() {
		return exitError{code: 1, quiet: true}
	}
	return nil
}

func runSalvage(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["salvage"])
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fmt.Fprintln(a.stderr, "citelens salvage: give the path of the new library")
		fs.Usage()
		return errUsage
	}
	dst := rest[0]
	if same, _ := samePath(dst, a.dbPath); same {
		return fmt.Errorf("the new library must be another file than %s", dbaddr.Redact(a.dbPath))
	}
	if _, err := os.Stat(dst); err == nil {
		return fix.With(fmt.Errorf("%s already exists", dst), "Give the path of a file that does not exist yet; salvage writes a new library.")
	}
	src, err := a.openDamaged()
	if errors.Is(err, errNoLibrary) {
		return fmt.Errorf("no library at %s", dbaddr.Redact(a.dbPath))
	}
	if err != nil {
		return fix.With(err, "The file cannot be read at all; restore it from a backup.")
	}
	defer src.Close()
	out, err := docstore.Open(dst, nil)
	if err != nil {
		return err
	}
	bar := newProgressBar(a.stderr, "salvaging")
	rep, err := src.Salvage(ctx, out, ingest.Split, func(done, total int) { bar.update(fmt.Sprintf("%d/%d documents", done, total), 0, 0) })
	bar.Finish()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fix.With(fmt.Errorf("salvage interrupted; %s holds the documents copied so far", dst), "Run it again with a new path to copy everything.")
		}
		return err
	}
	if *asJSON {
		for _, l := range []*[]docstore.DocInfo{&rep.Copied, &rep.Resegmented} {
			if *l == nil {
				*l = []docstore.DocInfo{}
			}
		}
		if rep.Lost == nil {
			rep.Lost = []docstore.Problem{}
		}
		return textproc.WriteSafeJSON(a.stdout, rep, "  ")
	}
	for _, d := range rep.Copied {
		fmt.Fprintf(a.stdout, "copied     %s  %s\n", d.ID, textproc.OneLine(d.Name))
	}
	for _, d := range rep.Resegmented {
		fmt.Fprintf(a.stdout, "rebuilt    %s  %s  (its sentences were split again from its text; page numbers may be lost)\n", d.ID, textproc.OneLine(d.Name))
	}
	for _, p := range rep.Lost {
		fmt.Fprintf(a.stdout, "lost       %s\n", textproc.OneLine(p.String()))
	}
	fmt.Fprintf(a.stdout, "Copied into %s: documents %d of %d, saved answers %d",
		dst, len(rep.Copied)+len(rep.Resegmented), len(rep.Copied)+len(rep.Resegmented)+len(rep.Lost), rep.Answers)
	switch {
	case rep.AnswersUnreadable:
		fmt.Fprint(a.stdout, " (the saved answers could not be read)")
	case rep.LostAnswers > 0:
		fmt.Fprintf(a.stdout, " (damaged answers lost: %d)", rep.LostAnswers)
	}
	fmt.Fprintln(a.stdout, ".")
	fmt.Fprintf(a.stdout, "Derived documents and vectors are not copied: run 'citelens derive' and 'citelens embed' on the new library if you use them.\nUse it with --db %s, or move it over the damaged one.\n", dst)
	return nil
}

// samePath reports whether a and b name the same file (or would).
func samePath(a, b string) (bool, error) {
	if sa, err := os.Stat(a); err == nil {
		if sb, err := os.Stat(b); err == nil {
			return os.SameFile(sa, sb), nil
		}
	}
	aa, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	bb, err := filepath.Abs(b)
	return aa == bb, err
}
