package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "ask",
		args:    "[--doc ID|PATH]... [--version N] [--collection NAME]... [--strategy NAME] [--k N] [--context N] [--json [--raw]] QUESTION | --batch FILE",
		summary: "answer a question with sentence-level citations",
		run:     runAsk,
	})
}

type askFlags struct {
	docs     stringList
	colls    stringList // --collection
	strategy string
	k        int
	opts     stringList
	asJSON   bool
	raw      bool // --json and --batch: strings exactly as stored
	batch    string
	noSave   bool
	context  int // --context: sentences shown around each cited one
	version  int // --version: that version of the --doc documents
}

func runAsk(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["ask"])
	var f askFlags
	fs.Var(&f.docs, "doc", "ask of this document (`ID` prefix, file name, or a PATH to add first; repeatable; default: all)")
	fs.Var(&f.colls, "collection", collectionUsage)
	fs.IntVar(&f.version, "version", 0, versionUsage)
	fs.StringVar(&f.strategy, "strategy", a.defaultStrategy(), "answering strategy `NAME` (see 'citelens strategies')")
	fs.IntVar(&f.k, "k", 0, "at most `N` statements (extractive) or retrieved units (retrieval strategies)")
	fs.Var(&f.opts, "opt", "strategy option `name=value` (repeatable; 'citelens strategies NAME' lists them)")
	fs.BoolVar(&f.asJSON, "json", false, "print the answer as one JSON object")
	fs.BoolVar(&f.raw, "raw", false, rawJSONUsage+"; also with --batch")
	fs.StringVar(&f.batch, "batch", "", "answer every question of a questions.jsonl `FILE`, one JSON object per line (--doc: the scope of questions that name none)")
	fs.BoolVar(&f.noSave, "no-save", false, "do not save the answer in the library")
	fs.IntVar(&f.context, "context", 0, contextUsage)
	words, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if f.context < 0 {
		return fmt.Errorf("--context %d: give a number of sentences, 0 or more", f.context)
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" && f.batch == "" {
		fmt.Fprintln(a.stderr, "citelens ask: no question given")
		fs.Usage()
		return errUsage
	}
	options, err := parseOptions(f.opts, f.k)
	if err != nil {
		return err
	}
	l, err := a.openLibrary(false)
	if err != nil {
		return err
	}
	defer l.Close()
	env, err := a.engineEnv(l)
	if err != nil {
		return err
	}
	strategy, err := engine.New(f.strategy, env)
	if err != nil {
		return err
	}
	docs, err := scopeDocs(ctx, a, l, f.docs)
	if err == nil {
		docs, err = atVersion(l, docs, f.version)
	}
	if err == nil {
		docs, err = withCollections(l, docs, f.colls)
	}
	if err == nil && len(docs) == 0 {
		// The whole library is the latest version of each document (nil
		// when no document has an older one: every document).
		docs, err = l.Versions().Scope()
	}
	if err != nil {
		return err
	}
	if f.batch != "" {
		return askBatch(ctx, a, env, strategy, f, options, docs)
	}
	req := engine.Request{Question: question, Docs: docs, Options: options}
	var emit func(engine.Event)
	var printer *statementPrinter
	if !f.asJSON {
		printer = &statementPrinter{w: a.stdout, stageW: a.stderr, showStages: isTerminal(a.stderr), plainStages: noColor(),
			width: terminalWidth(a.stdout)}
		// A terminal that moves its cursor shows the stages on one
		// status line, cleared as the answer comes: "retrieving…" is
		// news while it happens, and clutter after.
		printer.transient = printer.showStages && os.Getenv("TERM") != "dumb"
		if hyperlinks(a.stdout) {
			printer.link = func(c citations.Span) string { return sourceLink(l, c) }
		}
		if f.context > 0 {
			printer.context = func(c citations.Span) error {
				v, err := l.View(c.Doc)
				if err != nil {
					return err
				}
				return writeContext(printer.w, "    ", v, c.First, c.Last, f.context, printer.width)
			}
		}
		emit = printer.event
	}
	ans, runErr := engine.Run(ctx, env, strategy, req, emit)
	if ans == nil {
		return runErr
	}
	var saveErr error
	if !f.noSave {
		saveErr = engine.Save(l, ans)
	}
	if f.asJSON {
		if err := writeJSON(a.stdout, newAnswerView(ans, ""), f.raw); err != nil {
			return err
		}
	} else {
		printer.finish(ans)
	}
	if saveErr != nil {
		// The answer is shown all the same: only keeping it failed
		// (a read-only or damaged library).
		return fmt.Errorf("the answer was not saved: %w", saveErr)
	}
	return runErr
}

// parseOptions turns --opt key=value pairs (and --k, last) into strategy
// options, in the order given: the strategy reads them in that order, so
// the first it cannot use is the one reported.
func parseOptions(pairs []string, k int) ([]engine.Setting, error) {
	var opts []engine.Setting
	for _, p := range pairs {
		key, val, ok := strings.Cut(p, "=")
		if !ok || key == "" {
			return nil, fix.With(fmt.Errorf("--opt %q is not key=value", p), "Give each option as --opt name=value.")
		}
		opts = append(opts, engine.Setting{Name: key, Value: val})
	}
	if k > 0 {
		opts = append(opts, engine.Setting{Name: "k", Value: strconv.Itoa(k)})
	}
	return opts, nil
}

// scopeDocs resolves --doc references; one that names a file not in the
// library is added first.
func scopeDocs(ctx context.Context, a *app, l *docstore.Library, refs []string) ([]docstore.DocID, error) {
	var ids []docstore.DocID
	for _, ref := range refs {
		info, err := l.Resolve(ref)
		if errors.Is(err, docstore.ErrNotFound) {
			if st, serr := os.Stat(ref); serr == nil && st.Mode().IsRegular() {
				var adder *ingest.Pipeline
				if adder, err = a.pipeline(l); err != nil {
					return nil, err
				}
				bar := newProgressBar(a.stderr, ref)
				info, _, err = adder.Add(ctx, ref, func(p ingest.Progress) { bar.update(p.Stage, p.Done, p.Total) })
				bar.Finish()
			}
		}
		if err != nil {
			if errors.Is(err, docstore.ErrNotFound) {
				return nil, fix.With(err, "Give an ID prefix or file name from 'citelens ls', or the path of a file to add.")
			}
			return nil, err
		}
		ids = append(ids, info.ID)
	}
	return ids, nil
}

// statementPrinter streams an answer in plain text: each statement as it
// arrives with [n] markers for its citations, then the sources.
type statementPrinter struct {
	w, stageW  io.Writer
	showStages bool
	// plainStages writes the stages without dimming them: NO_COLOR is set.
	plainStages bool
	n           int // citations numbered so far
	printed     int
	reasoning   bool // the model's reasoning has been mentioned
	// link, when set, gives a citation's source a link to open: its
	// file, at its page ("" for none).
	link func(c citations.Span) string
	// width, when not 0, is the terminal's: lines are wrapped to it,
	// continuations indented as their first line.
	width int
	// transient shows each stage on one status line of stageW, which the
	// next stage replaces and the answer's first line clears.
	transient bool
	status    bool // a status line is showing
	// context, when set (--context N), prints a citation's sentences
	// with those around them, in place of its quote.
	context func(c citations.Span) error
}

func (p *statementPrinter) event(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.Stage:
		p.stage(string(ev))
	case engine.Warning:
		p.stage(string(ev))
	case engine.PlanEvent:
		if line := ev.Plan.Line(); line != "" {
			p.stage("plan: " + line)
		}
	case engine.Statement:
		p.printStatement(&ev.Statement)
	case engine.Reasoning:
		// The reasoning is not the answer: it is kept apart (ask --json
		// has it as "reasoning"), and only its arrival is shown.
		if !p.reasoning {
			p.reasoning = true
			p.stage("the model is reasoning before it answers (ask --json keeps its reasoning apart, as \"reasoning\")")
		}
	}
}

// stage shows what the answer is doing, dimmed, on a terminal.
func (p *statementPrinter) stage(s string) {
	if p.transient {
		line := textproc.OneLine(s)
		if p.width > 1 {
			line = ansi.Truncate(line, p.width-1, "…") // one line, or \r cannot clear it
		}
		if !p.plainStages {
			line = "\x1b[2m" + line + "\x1b[0m"
		}
		fmt.Fprint(p.stageW, clearLine+line)
		p.status = true
		return
	}
	if p.showStages {
		p.clearStatus()
		if p.plainStages {
			fmt.Fprintln(p.stageW, textproc.OneLine(s))
			return
		}
		fmt.Fprintf(p.stageW, "\x1b[2m%s\x1b[0m\n", textproc.OneLine(s))
	}
}

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\x1b[2K"

// clearStatus erases the status line, before the answer writes a line.
func (p *statementPrinter) clearStatus() {
	if p.status {
		fmt.Fprint(p.stageW, clearLine)
		p.status = false
	}
}

// println writes s (one line) wrapped to the terminal's width, its
// continuation lines under indent.
func (p *statementPrinter) println(s, indent string) {
	p.clearStatus()
	if p.width > len(indent)+10 {
		s = strings.ReplaceAll(ansi.Wrap(s, p.width-len(indent), ""), "\n", "\n"+indent)
	}
	fmt.Fprintln(p.w, s)
}

func (p *statementPrinter) printStatement(s *citations.Statement) {
	var b strings.Builder
	b.WriteString(textproc.OneLine(strings.TrimSpace(s.Text)))
	for range s.Citations {
		p.n++
		fmt.Fprintf(&b, " [%d]", p.n)
	}
	p.println(b.String(), "")
	// Why a citation was dropped or cut (outside the numbered context, too
	// many): the reader must know the statement lost its evidence.
	for _, w := range s.Warnings {
		p.println("    ! "+textproc.OneLine(w), "      ")
	}
	p.printed++
}

// finish prints what the stream did not: statements a strategy returned
// without emitting, the sources, and whether the answer is partial.
func (p *statementPrinter) finish(ans *engine.Answer) {
	p.clearStatus()
	for i := p.printed; i < len(ans.Statements); i++ {
		p.printStatement(&ans.Statements[i])
	}
	if len(ans.Statements) == 0 && !ans.Partial {
		p.println("No supporting sentences found.", "")
	}
	if p.n > 0 {
		fmt.Fprintln(p.w, "\nSources")
	}
	n := 0
	for i := range ans.Statements {
		s := &ans.Statements[i]
		for j, c := range s.Citations {
			n++
			// A quote's question words, or the check of a model's
			// statement: the words the TUI and the exports use.
			verdict := ""
			if mk := citations.CitationMark(s, j); mk.Kind != citations.NoMark {
				verdict = " · " + mk.String()
			}
			sents := fmt.Sprintf("sentence %d", c.First)
			if c.Last != c.First {
				sents = fmt.Sprintf("sentences %d-%d", c.First, c.Last)
			}
			under := ""
			if c.Heading != "" {
				under = "under " + textproc.OneLine(c.Heading)
			}
			where := textproc.OneLine(c.DocName) + ", " + textproc.OneLine(c.PageLabel())
			if p.link != nil {
				if u := p.link(c); u != "" {
					where = ansi.SetHyperlink(u) + where + ansi.ResetHyperlink()
				}
			}
			p.println(fmt.Sprintf("[%d] %s, %s%s", n, where, sents, verdict), "    ")
			if under != "" {
				p.println("    "+under, "      ")
			}
			if p.context != nil {
				if err := p.context(c); err == nil {
					continue
				}
				// A document removed or damaged since: the quote, which
				// the answer holds, still stands.
			}
			p.println(fmt.Sprintf("    %q", textproc.OneLine(c.Text)), "     ")
		}
	}
	if len(ans.Warnings) > 0 {
		fmt.Fprintln(p.w, "\nWarnings")
		for _, w := range ans.Warnings {
			p.println("- "+textproc.OneLine(w), "  ")
		}
	}
	if ans.Partial && len(ans.Statements) > 0 {
		// The error itself, with what to do, is the command's own.
		fmt.Fprintln(p.w)
		p.println("(partial answer: "+textproc.OneLine(ans.Error)+")", " ")
	}
}

// batchQuestion is one line of a questions.jsonl file (docs/EVAL.md).
type batchQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Docs     []string `json:"docs"`
}

// askBatch answers every question of f.batch; a question that names no
// documents is asked of scope (--doc), or of every document when that is
// empty too.
func askBatch(ctx context.Context, a *app, env *engine.Env, strategy engine.Strategy, f askFlags, options []engine.Setting, scope []docstore.DocID) error {
	in, err := os.Open(f.batch)
	if err != nil {
		return err
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q batchQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return fmt.Errorf("%s:%d: not a question object: %v", f.batch, line, err)
		}
		docs, err := resolveDocs(env.Library, q.Docs)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", f.batch, line, err)
		}
		if len(q.Docs) == 0 {
			docs = scope
		}
		ans, err := engine.Run(ctx, env, strategy, engine.Request{Question: q.Question, Docs: docs, Options: options}, nil)
		if ans == nil {
			return fmt.Errorf("%s:%d: %w", f.batch, line, err)
		}
		if !f.noSave {
			if err := engine.Save(env.Library, ans); err != nil {
				return err
			}
		}
		write := textproc.WriteSafeJSON
		if f.raw {
			write = textproc.WriteJSON
		}
		if err := write(a.stdout, newAnswerView(ans, q.ID), ""); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return sc.Err()
}
