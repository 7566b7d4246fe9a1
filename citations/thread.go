package citations

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// Thread is a conversation kept in the library: answers that follow up on
// one another, oldest first, under a name (the first question, shortened,
// until the user renames it; docstore.ThreadMeta).
type Thread struct {
	ID      string    `json:"thread_id"`
	Name    string    `json:"name"`
	Answers []*Answer `json:"answers"`
}

// Statements returns every statement of the thread's answers, in order,
// as one answer: what walks a thread's citations (its pictures, drawn
// ahead for an export) takes it as it takes an answer.
func (t *Thread) Statements() *Answer {
	all := &Answer{}
	for _, a := range t.Answers {
		all.Statements = append(all.Statements, a.Statements...)
	}
	return all
}

// ThreadOptions add to a thread's export what each answer's own export
// takes: pictures of the cited regions (HTML) and links to them
// (Markdown, numbered per answer, from 1).
type ThreadOptions struct {
	HTMLPictures func(c Span) ([]Picture, error)
	// MarkdownPictures gives the files picturing citation n of answer i
	// (both from 1).
	MarkdownPictures func(i, n int, c Span) []string
	// Provenance, when set, is added as AddProvenance adds it to one
	// answer's export: the versions the thread cites and what newer
	// versions changed of its evidence.
	Provenance *Provenance
}

// WriteThread writes t in the named format: every answer as its own
// export writes it (WriteMarkdownWith, the HTML answer template,
// WriteJSON's record), one after another under the thread's name, each
// with its evidence. LongBench-Cite's record is one answer's, so a
// thread has no such export.
func WriteThread(w io.Writer, format string, t *Thread, opts ThreadOptions) error {
	f, err := LookupFormat(format)
	if err != nil {
		return err
	}
	return writeWithProvenance(w, f.Name, opts.Provenance, func(w io.Writer) error { return writeThread(w, f, t, opts) })
}

// writeThread is WriteThread without the provenance.
func writeThread(w io.Writer, f Format, t *Thread, opts ThreadOptions) error {
	switch f.Name {
	case "json":
		var buf bytes.Buffer
		if err := textproc.WriteJSON(&buf, t, "  "); err != nil {
			return fmt.Errorf("writing the thread as JSON: %w", err)
		}
		_, err := w.Write(textproc.SafeJSON(buf.Bytes()))
		return err
	case "html":
		return writeThreadHTML(w, t, opts)
	case "md":
		return writeThreadMarkdown(w, t, opts)
	}
	return fmt.Errorf("%w %q for a thread: LongBench-Cite's record holds one answer; use md, html or json, or export each answer with 'citelens export ANSWER_ID --format longbench'", ErrUnknownFormat, f.Name)
}

// threadByline says how many answers the thread holds and when they were
// asked.
func threadByline(t *Thread) string {
	line := humanize.Plural(len(t.Answers), "answer", "answers")
	var first, last time.Time
	for _, a := range t.Answers {
		if a.Created.IsZero() {
			continue
		}
		if first.IsZero() || a.Created.Before(first) {
			first = a.Created
		}
		if a.Created.After(last) {
			last = a.Created
		}
	}
	switch {
	case first.IsZero():
	case first.Equal(last):
		line += " · asked " + first.UTC().Format("2006-01-02 15:04 UTC")
	default:
		line += " · asked " + first.UTC().Format("2006-01-02 15:04") + " to " + last.UTC().Format("2006-01-02 15:04 UTC")
	}
	return line
}

func writeThreadMarkdown(w io.Writer, t *Thread, opts ThreadOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n*%s*\n", oneLineMD(t.Name), oneLineMD(threadByline(t)))
	for i, a := range t.Answers {
		bw.WriteString("\n---\n\n")
		opt := MarkdownOptions{Depth: 1, NotePrefix: fmt.Sprintf("%d-", i+1)}
		if opts.MarkdownPictures != nil {
			opt.Pictures = func(n int, c Span) []string { return opts.MarkdownPictures(i+1, n, c) }
		}
		if err := WriteMarkdownWith(bw, a, opt); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// threadView is a thread's HTML page: its answers' views, each a section.
type threadView struct {
	Title, Byline string
	HasPictures   bool
	Answers       []htmlView
}

func writeThreadHTML(w io.Writer, t *Thread, opts ThreadOptions) error {
	v := threadView{Title: textproc.Printable(t.Name), Byline: textproc.Printable(threadByline(t))}
	for i, a := range t.Answers {
		av := answerView(a, HTMLOptions{Pictures: opts.HTMLPictures}, fmt.Sprintf("a%d-", i+1))
		av.InThread, av.ID = true, fmt.Sprintf("a%d", i+1)
		v.HasPictures = v.HasPictures || av.HasPictures
		v.Answers = append(v.Answers, av)
	}
	if err := htmlTemplates.ExecuteTemplate(w, "thread", v); err != nil {
		return fmt.Errorf("writing the thread as HTML: %w", err)
	}
	return nil
}

// MatchWords returns whether an answer holds every word of query, for a
// search of saved answers: each of query's words begins a word of the
// answer's question or of its statements, compared folded as the index
// folds them (textproc.Fold: case and accents), so "zurich" finds
// "Zürich" and "gnup", typed so far, finds "gnuplot". A query without
// words matches every answer.
func MatchWords(query string) func(a *Answer) bool {
	want := foldedWords(query)
	if len(want) == 0 {
		return func(*Answer) bool { return true }
	}
	return func(a *Answer) bool {
		have := foldedWords(a.Question)
		for _, s := range a.Statements {
			have = append(have, foldedWords(s.Text)...)
		}
	next:
		for _, q := range want {
			for _, h := range have {
				if strings.HasPrefix(h, q) {
					continue next
				}
			}
			return false
		}
		return true
	}
}

// foldedWords are text's words, folded.
func foldedWords(text string) []string {
	var out []string
	textproc.Words(text, func(s, e int) { out = append(out, textproc.Fold(text[s:e])) })
	return out
}
