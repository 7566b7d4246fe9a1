package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "show",
		args:    "[--version N] [--versions | --text [--raw] | --sentences [A-B] | --outline | --page N [--raw] | --page N --image FILE.png [--sentences A-B] | --json [--raw]] ID",
		summary: "show a document's metadata, text, sentences, headings or one page (as text, or as a picture with sentences highlighted)",
		run:     runShow,
	})
}

func runShow(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["show"])
	text := fs.Bool("text", false, "print the stored text, control characters made visible")
	raw := fs.Bool("raw", false, "with --text or --page: print the stored bytes exactly, control characters and all (for a file, not a terminal); "+rawJSONUsage)
	var sentFlag sentenceRange
	fs.Var(&sentFlag, "sentences", "print index<TAB>page<TAB>start<TAB>end<TAB>text per sentence; `A-B`: print the text of sentences A to B, one a line (with --image: the sentences to highlight)")
	outline := fs.Bool("outline", false, "print the section headings found, indented by level, with their sentence and page")
	page := fs.Int("page", 0, "print the text of page `N`")
	asJSON := fs.Bool("json", false, "print the metadata as JSON")
	listVersions := fs.Bool("versions", false, "list the document's versions, oldest first, with when each was added")
	version := fs.Int("version", 0, versionUsage)
	image := fs.String("image", "", "with --page: write the page as a PNG picture to `FILE` (a PDF's page as printed)")
	dpi := fs.Float64("dpi", pngDPI, "with --image: the picture's resolution in `DPI` (dots per inch)")
	refs, err := parseFlags(a, fs, joinSentenceRange(args))
	if err != nil {
		return err
	}
	sents := &sentFlag.list
	pageGiven := false
	fs.Visit(func(f *flag.Flag) { pageGiven = pageGiven || f.Name == "page" })
	if pageGiven && *page < 1 {
		return fix.With(fmt.Errorf("--page %d: pages are numbered from 1", *page), "Give a page of the document: 'citelens show ID' says how many it has.")
	}
	if *image != "" && !pageGiven {
		return fix.With(errors.New("--image needs --page N: the page to draw"), "Add --page N, and --sentences A-B to highlight sentences on it.")
	}
	if !(*dpi >= 10 && *dpi <= 1200) {
		return fmt.Errorf("--dpi %v: give a resolution from 10 to 1200", *dpi)
	}
	if len(refs) != 1 {
		fmt.Fprintln(a.stderr, "citelens show: give one document (an ID prefix or file name)")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(true)
	if err != nil {
		return err
	}
	defer l.Close()
	ids, err := resolveDocs(l, refs)
	if err == nil {
		ids, err = atVersion(l, ids, *version)
	}
	if err != nil {
		return err
	}
	d, err := l.Document(ids[0])
	if err != nil {
		return err
	}
	// Control characters are neutralised on every output, pipes too: a
	// pipe often ends on a terminal (show --text | head), where an escape
	// sequence in a document would set the title or the clipboard. --raw
	// asks for the exact bytes, to a file.
	out := textproc.Printable
	if *raw {
		out = func(s string) string { return s }
	}
	switch {
	case *listVersions:
		vs, err := l.Versions().Of(d.ID)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(a.stdout, vs, *raw)
		}
		return writeVersionList(a.stdout, vs, d.ID)
	case *text:
		_, err := io.WriteString(a.stdout, out(d.Text))
		return err
	case *sents:
		for i, s := range d.Sentences {
			fmt.Fprintf(a.stdout, "%d\t%d\t%d\t%d\t%s\n", i, s.Page, s.Start, s.End, textproc.OneLine(d.SentenceText(i)))
		}
		return nil
	case *outline:
		if len(d.Sections) == 0 {
			fmt.Fprintln(a.stdout, "no headings found")
			return nil
		}
		for _, sec := range d.Sections {
			at, pg := "", 0
			if i := int(sec.Sentence); i >= 0 && i < len(d.Sentences) {
				at, pg = fmt.Sprintf("s%d", i), int(d.Sentences[i].Page)
			} else {
				pg = d.PageOf(int(sec.Heading.Start))
			}
			title := ""
			if sec.Heading.Valid(len(d.Text)) {
				title = textproc.OneLine(d.Text[sec.Heading.Start:sec.Heading.End])
			}
			fmt.Fprintf(a.stdout, "%s%s  (%s p.%d)\n", indent(sec.Level), title, at, pg)
		}
		return nil
	case sentFlag.given && *image == "":
		if sentFlag.last >= len(d.Sentences) {
			return fix.With(fmt.Errorf("--sentences %d-%d: %s has sentences 0 to %d", sentFlag.first, sentFlag.last, textproc.OneLine(d.DisplayName()), len(d.Sentences)-1),
				"'citelens show --sentences ID' lists them with their pages.")
		}
		// The text a citation "sentences A-B" quotes, to read it again;
		// one sentence a line, as the listing has them.
		for i := sentFlag.first; i <= sentFlag.last; i++ {
			if _, err := fmt.Fprintln(a.stdout, textproc.OneLine(out(d.SentenceText(i)))); err != nil {
				return err
			}
		}
		return nil
	case *image != "":
		return a.writePagePicture(ctx, l, d, *page, sentFlag, *image, *dpi)
	case *page > 0:
		start, end, err := d.PageSpan(*page)
		if err != nil {
			return err
		}
		_, err = io.WriteString(a.stdout, out(d.Text[start:end]))
		return err
	case *asJSON:
		return writeJSON(a.stdout, d.DocInfo, *raw)
	}
	i := d.DocInfo
	fmt.Fprintf(a.stdout, "id         %s\nname       %s\npath       %s\nkind       %s\n", i.ID, textproc.OneLine(i.Name), textproc.OneLine(i.Path), i.Kind)
	if i.Title != "" {
		fmt.Fprintf(a.stdout, "title      %s\n", textproc.OneLine(i.Title))
	}
	fmt.Fprintf(a.stdout, "pages      %d\nsentences  %d\nchunks     %d\nbytes      %d\nadded      %s\n",
		i.Pages, i.NumSents, i.NumChunks, i.Bytes, i.Added.Local().Format("2006-01-02 15:04:05"))
	if len(i.OCRPages) > 0 {
		fmt.Fprintf(a.stdout, "ocr pages  %s (read from their image; may hold recognition errors)\n", engine.Ranges(i.OCRPages))
	}
	for _, w := range i.Warnings {
		fmt.Fprintf(a.stdout, "warning    %s\n", textproc.OneLine(w))
	}
	return nil
}

// indent is two spaces per level below the first.
func indent(level int) string {
	n := max(0, min(level, 12)-1)
	b := make([]byte, 2*n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// sentenceRange is --sentences: alone, list the sentences; "A-B" (or
// "A"), with --image, the sentences to highlight, as indices that
// --sentences lists.
type sentenceRange struct {
	list        bool
	given       bool
	first, last int
}

var rangeArg = regexp.MustCompile(`^(\d+)(?:-(\d+))?$`)

func (r *sentenceRange) String() string {
	if r == nil || !r.given {
		return ""
	}
	return fmt.Sprintf("%d-%d", r.first, r.last)
}

// IsBoolFlag lets --sentences stand alone.
func (r *sentenceRange) IsBoolFlag() bool { return true }

func (r *sentenceRange) Set(s string) error {
	switch s {
	case "true":
		r.list = true
		return nil
	case "false":
		r.list = false
		return nil
	}
	m := rangeArg.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q: give sentences as A-B (indices as --sentences lists them)", s)
	}
	r.first, _ = strconv.Atoi(m[1])
	r.last = r.first
	if m[2] != "" {
		r.last, _ = strconv.Atoi(m[2])
	}
	if r.last < r.first {
		return fmt.Errorf("%q: the first sentence comes after the last", s)
	}
	r.given = true
	return nil
}

// joinSentenceRange turns "--sentences A-B" into "--sentences=A-B": a
// flag that may stand alone takes a value only after "=". A number after
// --sentences is the range when a document is named besides it (or
// --image is given); alone, it is the document ("show --sentences 42":
// list the sentences of the document whose ID starts 42).
func joinSentenceRange(args []string) []string {
	image, positional := false, 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional += len(args) - i - 1
			break
		}
		image = image || a == "--image" || a == "-image" || strings.HasPrefix(a, "--image=") || strings.HasPrefix(a, "-image=")
		switch {
		case showValueFlags[strings.TrimLeft(a, "-")] && strings.HasPrefix(a, "-"):
			i++ // its value is no document
		case !strings.HasPrefix(a, "-"):
			positional++
		}
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			out = append(out, args[i:]...)
			break
		}
		if (args[i] == "--sentences" || args[i] == "-sentences") && i+1 < len(args) && rangeArg.MatchString(args[i+1]) && (image || positional > 1) {
			out = append(out, "--sentences="+args[i+1])
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// showValueFlags are show's flags that take a value after a space.
var showValueFlags = map[string]bool{"page": true, "image": true, "dpi": true}

// writePagePicture writes page n of d as a PNG at dpi, the sentences of
// r highlighted when given.
func (a *app) writePagePicture(ctx context.Context, l *docstore.Library, d *docstore.Document, n int, r sentenceRange, path string, dpi float64) error {
	if err := pageimage.Available(d); err != nil {
		return err
	}
	if n > d.Pages {
		return fmt.Errorf("%s has pages 1 to %d, not %d", textproc.OneLine(d.DisplayName()), d.Pages, n)
	}
	if r.given && r.last >= len(d.Sentences) {
		return fix.With(fmt.Errorf("--sentences %d-%d: %s has sentences 0 to %d", r.first, r.last, textproc.OneLine(d.DisplayName()), len(d.Sentences)-1),
			"'citelens show --sentences ID' lists them with their pages.")
	}
	src, done := pageSource(l)
	defer done()
	var marks []pagerender.Rect
	if r.given {
		start, end := int(d.Sentences[r.first].Start), int(d.Sentences[r.last].End)
		pages, rects, err := src.Marks(d.ID, start, end)
		if err != nil {
			return err
		}
		marks = rects[n]
		if len(marks) == 0 {
			return fix.With(fmt.Errorf("sentences %d-%d are not on page %d", r.first, r.last, n),
				"They stand on %s: give --page %d.", pageList(pages), firstOr(pages, n))
		}
	}
	if err := startRenderer(ctx, src.Renderer(), a.stderr); err != nil {
		return err
	}
	pic, err := src.Page(ctx, d, n, marks, dpi)
	if err != nil {
		return err
	}
	if err := writeFile(path, pageimage.PNG(pic)); err != nil {
		return err
	}
	b := pic.Image.Bounds()
	fmt.Fprintf(a.stderr, "wrote %s (page %d, %d×%d pixels)\n", path, n, b.Dx(), b.Dy())
	return nil
}

func pageList(pages []int) string {
	if len(pages) == 0 {
		return "no page (they are blank lines)"
	}
	s := make([]string, len(pages))
	for i, p := range pages {
		s[i] = strconv.Itoa(p)
	}
	if len(s) == 1 {
		return "page " + s[0]
	}
	return "pages " + strings.Join(s, ", ")
}

func firstOr(pages []int, n int) int {
	if len(pages) > 0 {
		return pages[0]
	}
	return n
}
