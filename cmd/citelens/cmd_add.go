package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/ingest/ocr"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "add",
		args:    "[--json [--raw]] [--ocr] [--ocr-lang LANGS] [--jobs N] [--from FILE] PATH...",
		summary: "add PDFs (scans too), web pages, Word files, e-books, text and Markdown to the library; a folder adds the files it holds, recursively",
		run:     runAdd,
	})
}

// addedDoc is one line of `add --json`.
type addedDoc struct {
	ID        docstore.DocID `json:"id"`
	Name      string         `json:"name"`
	Path      string         `json:"path"`
	Kind      string         `json:"kind"`
	Pages     int            `json:"pages"`
	Sentences int            `json:"sentences"`
	Chunks    int            `json:"chunks"`
	Bytes     int            `json:"bytes"`
	Existed   bool           `json:"existed"`
	Seconds   float64        `json:"seconds"`
	Warnings  []string       `json:"warnings,omitempty"`
	OCRPages  []int          `json:"ocr_pages,omitempty"`
	// Previous is the version this one follows, when it is a new
	// version of a document.
	Previous docstore.DocID `json:"previous,omitempty"`
	Error    string         `json:"error,omitempty"`
}

func runAdd(ctx context.Context, a *app, args []string) error {
	c := commands["add"]
	fs := newFlags(a, c)
	fs.Usage = func() { printCommandUsage(fs.Output(), c, fs); fmt.Fprint(fs.Output(), fileTypes()) }
	asJSON := fs.Bool("json", false, "print the added documents as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	useOCR := fs.Bool("ocr", false, "read PDF pages that have no text layer (scans) with Tesseract (default: the config's ocr)")
	ocrLang := fs.String("ocr-lang", "", "Tesseract `LANGS` for --ocr, joined by + (default: the config's ocr_lang, else eng)")
	maxSize := fs.String("max-size", "1G", "refuse files larger than `SIZE` (bytes, or with K, M, G)")
	jobs := fs.Int("jobs", runtime.NumCPU(), "read and index up to `N` files at once")
	maxFiles := fs.Int("max-files", ingest.MaxFolderFiles, "add at most `N` files from each folder given (0: every file it holds)")
	newVersionOf := fs.String("new-version-of", "", "add the file as the next version of the document `ID` (its latest version), wherever the file is")
	from := fs.String("from", "", "also add the files listed in `FILE`, one path a line ('-': standard input), for more files than a command line holds")
	paths, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if *from != "" {
		listed, err := readPathList(a, *from)
		if err != nil {
			return err
		}
		paths = append(paths, listed...)
	}
	if a.maxFileSize, err = parseSize(*maxSize); err != nil {
		fmt.Fprintf(a.stderr, "citelens add: --max-size: %v\n", err)
		return errUsage
	}
	if *maxFiles < 0 {
		fmt.Fprintf(a.stderr, "citelens add: --max-files is %d: give 0 (no bound) or more\n", *maxFiles)
		return errUsage
	}
	if len(paths) == 0 {
		fmt.Fprintln(a.stderr, "citelens add: no files given")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(false)
	if err != nil {
		return err
	}
	defer l.Close()
	var previous docstore.DocID
	if *newVersionOf != "" {
		if len(paths) != 1 {
			fmt.Fprintln(a.stderr, "citelens add: --new-version-of takes one file: the new version")
			return errUsage
		}
		ids, err := resolveDocs(l, []string{*newVersionOf})
		if err != nil {
			return err
		}
		previous = ids[0]
	}
	adder := ingest.New(l, &ingest.Options{MaxFileSize: a.maxFileSize, Load: a.addLoadOptions(fs, *useOCR, *ocrLang), NewVersionOf: previous})

	paths, err = expandFolders(ctx, a.stderr, paths, *maxFiles)
	if err != nil {
		return err
	}
	var results []addedDoc
	failed := 0
	// One file shows its own progress; many show how many are done and
	// how the one last heard of goes.
	bar := newProgressBar(a.stderr, paths[0])
	var files *filesProgress
	if len(paths) > 1 {
		files = newFilesProgress(a.stderr, len(paths))
	}
	done := 0
	interrupted := "" // the first file an interruption stopped
	// reportAdded prints (or keeps, for --json) one file's result.
	reportAdded := func(res ingest.AddResult) {
		done++
		info := res.Info
		r := addedDoc{ID: info.ID, Name: info.Name, Path: info.Path, Kind: info.Kind, Pages: info.Pages,
			Sentences: info.NumSents, Chunks: info.NumChunks, Bytes: info.Bytes, Existed: res.Existed, Warnings: info.Warnings, OCRPages: info.OCRPages,
			Seconds: res.Seconds, Previous: info.Previous}
		if res.Err != nil {
			failed++
			r = addedDoc{Path: res.Path, Name: filepath.Base(res.Path), Error: res.Err.Error(), Seconds: res.Seconds}
			if !*asJSON {
				printError(a.stderr, res.Err)
			}
		} else if !*asJSON {
			name := textproc.OneLine(info.Name)
			if res.Existed {
				fmt.Fprintf(a.stdout, "%s  %s  already in the library (same content)\n", info.ID, name)
			} else {
				fmt.Fprintf(a.stdout, "%s  %s  added: %s%s, %s, %s in %.1fs%s\n",
					info.ID, name, humanize.Plural(info.Pages, "page", "pages"), ocrNote(info), humanize.Plural(info.NumSents, "sentence", "sentences"),
					humanize.Plural(info.NumChunks, "chunk", "chunks"), r.Seconds, versionNote(l, info))
			}
			for _, w := range info.Warnings {
				fmt.Fprintf(a.stderr, "citelens: warning: %s: %s\n", name, textproc.OneLine(w))
			}
		}
		results = append(results, r)
	}
	err = adder.AddFiles(ctx, paths, ingest.AddOptions{
		Jobs: *jobs,
		Progress: func(p ingest.Progress) {
			if files != nil {
				files.file(p)
				return
			}
			bar.unit = p.Unit
			bar.update(p.Stage, p.Done, p.Total)
		},
		Done: func(res ingest.AddResult) {
			if errors.Is(res.Err, context.Canceled) && ctx.Err() != nil {
				if interrupted == "" {
					interrupted = res.Path
				}
				return // said once, below
			}
			if files == nil {
				bar.Finish()
				reportAdded(res)
				return
			}
			files.added(func() { reportAdded(res) })
		},
	})
	bar.Finish()
	if files != nil {
		files.finish()
	}
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) && done < len(paths) {
		if interrupted == "" {
			interrupted = paths[done]
		}
		rest := ""
		if n := len(paths) - done - 1; n > 0 {
			rest = fmt.Sprintf(", nor of the %s not yet done", humanize.Plural(n, "other file", "other files"))
		}
		return fmt.Errorf("interrupted while adding %s; nothing of it was written%s", interrupted, rest)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(a.stdout, results, *raw); err != nil {
			return err
		}
	}
	if failed > 0 {
		return exitError{code: 1, quiet: true}
	}
	return nil
}

// readPathList reads the paths listed in file (standard input for "-"),
// one a line; blank lines are skipped.
func readPathList(a *app, file string) ([]string, error) {
	r := a.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("--from: %w", err)
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if p := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--from %s: %w", file, err)
	}
	return out, nil
}

// expandFolders puts in place of each folder among paths the files it
// holds that citelens reads, recursively, as the terminal UI does, and
// says on w what each folder held and what was passed over.
func expandFolders(ctx context.Context, w io.Writer, paths []string, maxFiles int) ([]string, error) {
	var out []string
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			out = append(out, p) // Add says what is wrong with it
			continue
		}
		c, err := ingest.Folder(ctx, p, maxFiles)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fix.With(fmt.Errorf("cannot read the folder %s: %w", textproc.OneLine(p), err), "Check that it exists and that you may read it.")
		}
		fmt.Fprintf(w, "%s: %s to add%s\n", textproc.OneLine(p), humanize.Plural(len(c.Files), "file", "files"), folderSkips(c))
		if c.More {
			fmt.Fprintf(w, "citelens: warning: %s holds more than %s citelens reads; only the first %s are added (--max-files 0 adds them all)\n",
				textproc.OneLine(p), humanize.Plural(maxFiles, "file", "files"), humanize.Count(maxFiles))
		}
		out = append(out, c.Files...)
	}
	return out, nil
}

// folderSkips says what a folder held that is not added: "; passed over
// 3 .xlsx, 1 without an extension, 2 hidden".
func folderSkips(c ingest.FolderContents) string {
	var parts []string
	for _, ext := range c.UnsupportedKinds() {
		n := c.Unsupported[ext]
		if ext == "" {
			parts = append(parts, humanize.Plural(n, "file", "files")+" without an extension")
			continue
		}
		parts = append(parts, humanize.Count(n)+" "+textproc.OneLine(ext))
	}
	if c.Hidden > 0 {
		parts = append(parts, humanize.Count(c.Hidden)+" hidden")
	}
	if c.Unreadable > 0 {
		parts = append(parts, humanize.Plural(c.Unreadable, "unreadable folder", "unreadable folders"))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; passed over " + strings.Join(parts, ", ") + " (citelens add --help lists the types it reads)"
}

// parseSize reads a size such as 1048576, 640K, 50M or 2G (powers of
// 1024, a trailing "B" allowed).
func parseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult, t = int64(1)<<(10*(i+1)), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	// Written so that NaN, which no comparison holds for, fails.
	if err != nil || !(v > 0 && v*float64(mult) <= 1<<50) {
		return 0, fmt.Errorf("%q is not a size (write 500M or 2G)", s)
	}
	return int64(v * float64(mult)), nil
}

// writeJSON writes v indented, as every --json output is: its strings
// Printable (textproc.WriteSafeJSON), or exactly as stored when exact is
// set (--raw), control characters written as \u escapes.
func writeJSON(w io.Writer, v any, exact bool) error {
	if exact {
		return textproc.WriteJSON(w, v, "  ")
	}
	return textproc.WriteSafeJSON(w, v, "  ")
}

// rawJSONUsage is the help of the --raw flag of commands with --json.
const rawJSONUsage = "with --json: strings exactly as stored, control characters as \\u escapes (for a program; 'jq -r' would decode them)"

// exitError ends a command with a status; quiet means the reasons were
// already printed.
type exitError struct {
	code  int
	quiet bool
}

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
func (e exitError) ExitCode() int { return e.code }

// fileTypes lists the file types citelens reads, for add --help.
func fileTypes() string {
	var b strings.Builder
	b.WriteString("\nFile types:\n")
	for _, f := range ingest.Formats() {
		fmt.Fprintf(&b, "  %-22s %s\n", strings.Join(f.Extensions, " "), f.Description)
	}
	return b.String()
}

// addLoadOptions decides how add reads scanned pages: --ocr and
// --ocr-lang when given, else the config's ocr and ocr_lang. A config
// that cannot be read only costs its OCR settings, with a warning: add
// needs nothing else from it.
func (a *app) addLoadOptions(fs *flag.FlagSet, useOCR bool, lang string) ingest.LoadOptions {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["ocr"] || !set["ocr-lang"] {
		cfg, err := a.config()
		if err != nil {
			fmt.Fprintf(a.stderr, "citelens: warning: the config's OCR settings are ignored: %s\n", textproc.OneLine(err.Error()))
		} else {
			if !set["ocr"] {
				useOCR = cfg.OCREnabled()
			}
			if !set["ocr-lang"] {
				lang = cfg.OCRLang
			}
		}
	}
	return loadOptions(useOCR, lang)
}

// loadOptions are the pipeline's load options for an OCR choice.
func loadOptions(useOCR bool, lang string) ingest.LoadOptions {
	if !useOCR {
		return ingest.LoadOptions{}
	}
	return ingest.LoadOptions{OCR: &ocr.Options{Languages: lang}}
}

// ocrNote says how many of a document's pages were read by OCR.
func ocrNote(info docstore.DocInfo) string {
	if len(info.OCRPages) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d by OCR)", len(info.OCRPages))
}
