package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/eval"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/progress"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

func init() {
	register(&command{
		name:    "derive",
		args:    "[FILE|ID]... [--doc ID]... [--model NAME] [--jobs N] [--no-embed] [--status] [--json]",
		summary: "write the summaries and questions the raidd strategies retrieve through, and embed them if an embedding model is set (spends model tokens)",
		run:     runDerive,
	})
}

// runDerive prepares the documents for every strategy that needs work
// done on them before it answers (engine.Preparer): today, RAIDD's
// derived documents and their embeddings.
func runDerive(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["derive"])
	var refs stringList
	fs.Var(&refs, "doc", "derive for this document (`ID` prefix or file name; repeatable; default: all)")
	model := fs.String("model", "", "the `MODEL` that writes them (default: the configured model)")
	jobs := fs.Int("jobs", 1, "derive `N` documents at once (a document's chunks go in order)")
	noEmbed := fs.Bool("no-embed", false, "do not embed the derived documents (with an embedding model set, the raidd strategies embed what they need when first asked)")
	status := fs.Bool("status", false, "show what is derived and embedded and what the rest would cost; make no model calls")
	calls := fs.String("calls", "two", "ask for a chunk's summary and questions in `two` calls (the authors') or one (half the calls, its own derived documents)")
	asJSON := fs.Bool("json", false, "print a JSON summary")
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	// Documents named without --doc (`citelens derive FILE`) are the
	// scope as much as those named with it: deriving the whole library
	// instead costs a model call per chunk of every document.
	refs = append(refs, rest...)
	l, docs, err := a.openScope(*status, refs)
	if l == nil {
		return err
	}
	defer l.Close()
	env, err := a.engineEnv(l)
	if err != nil {
		return err
	}
	p := engine.Preparation{Docs: docs, Model: *model, Jobs: *jobs, NoEmbed: *noEmbed,
		Options: []engine.Setting{{Name: "derive_calls", Value: *calls}}}
	for _, prep := range preparers() {
		if *status {
			st, err := prep.Status(env, p)
			if err != nil {
				return err
			}
			if err := printPrepStatus(a, st, *asJSON); err != nil {
				return err
			}
			continue
		}
		if _, err := env.RequireLLM("derive"); err != nil {
			return fix.With(err, "Deriving needs a model endpoint: see 'citelens config show'.")
		}
		rep, err := prepareWithProgress(ctx, a, env, prep, p)
		if *asJSON {
			if jerr := writeJSON(a.stdout, newDeriveView(rep), false); jerr != nil && err == nil {
				err = jerr
			}
		} else {
			printDeriveReport(a.stdout, rep)
			printDeriveEmbedded(a.stdout, rep.Embedding)
		}
		if err != nil {
			return prepareError(err, rep, refs, *model)
		}
	}
	return nil
}

// preparers are the distinct Preparers of the registered strategies, in
// the registry's order (RAIDD's variants share one).
func preparers() []engine.Preparer {
	var out []engine.Preparer
	for _, info := range engine.Strategies() {
		if info.Preparer != nil && !slices.Contains(out, info.Preparer) {
			out = append(out, info.Preparer)
		}
	}
	return out
}

// prepareWithProgress runs prep over p's documents, first saying what the
// work will cost, with a progress bar on a terminal.
func prepareWithProgress(ctx context.Context, a *app, env *engine.Env, prep engine.Preparer, p engine.Preparation) (*engine.Prepared, error) {
	if st, err := prep.Status(env, p); err == nil && st.Missing.Units > 0 {
		fmt.Fprintf(a.stderr, "Deriving summaries and questions for %s of %s with %s: about %s calls and %s tokens.\n",
			humanize.Plural(st.Missing.Units, "chunk", "chunks"), docCount(missingDocs(st)), textproc.OneLine(st.Model),
			humanize.Count(st.Missing.Calls), humanize.Tokens(st.Missing.Tokens()))
	}
	bar := &prepareBar{Line: newLiveLine(a.stderr)}
	p.Progress = bar.update
	rep, err := prep.Prepare(ctx, env, p)
	bar.Finish()
	if rep == nil {
		rep = &engine.Prepared{}
	}
	return rep, err
}

// missingDocs counts the documents with work left.
func missingDocs(st *engine.Prepared) int {
	n := 0
	for _, d := range st.Docs {
		if d.Done+d.Failed < d.Units {
			n++
		}
	}
	return n
}

// prepareBar draws "[████░░░░] 40/120 chunks, 1.3/s, 25k tokens (…) · name"
// for both steps of a preparation.
type prepareBar struct {
	*progress.Line
	// key and base are where the current document and unit started, for
	// the rate of a step counted per document.
	key  string
	base int
	at   time.Time
}

func (b *prepareBar) update(p engine.Progress) {
	key := p.Step + p.Doc + p.Unit
	if p.Step == "deriving" {
		key = p.Step // counted over the run
	}
	if key != b.key {
		b.key, b.base, b.at = key, p.Done, time.Now()
	}
	if !b.Due(p.Done == p.Total) {
		return
	}
	rate := float64(p.Done-b.base) / max(time.Since(b.at).Seconds(), 1e-3)
	line := fmt.Sprintf("[%s] %s/%s %s, %.1f/s", progress.Bar(p.Done, p.Total, barWidth), humanize.Count(p.Done), humanize.Count(p.Total), p.Unit, rate)
	if u := p.Usage; u.LLMCalls > 0 {
		line += fmt.Sprintf(", %s tokens (%s prompt, %s completion)", humanize.Tokens(u.PromptTokens+u.CompletionTokens), humanize.Tokens(u.PromptTokens), humanize.Tokens(u.CompletionTokens))
	}
	if p.Failed > 0 {
		line += fmt.Sprintf(", %d failed", p.Failed)
	}
	b.Draw(line + " · " + textproc.OneLine(p.Doc))
}

// printDeriveEmbedded says what embedding the derived documents did.
func printDeriveEmbedded(w io.Writer, e *engine.Embedding) {
	if e == nil {
		return
	}
	if e.Embedded == 0 {
		if e.Units > 0 {
			fmt.Fprintf(w, "The derived documents are embedded with %s already.\n", textproc.OneLine(e.Model))
		}
		return
	}
	fmt.Fprintf(w, "Embedded %s with %s in %s: %s calls, %s tokens", embeddedList(e), textproc.OneLine(e.Model),
		time.Duration(e.Seconds*float64(time.Second)).Round(100*time.Millisecond), humanize.Count(e.Usage.LLMCalls), humanize.Count(e.Usage.PromptTokens))
	if e.Usage.Estimated {
		fmt.Fprint(w, " (estimated: the server reported no usage)")
	}
	fmt.Fprintln(w, ".")
}

// embeddedList names what a run embedded: "1,204 summaries, 9,632
// questions and 1,204 chunks".
func embeddedList(e *engine.Embedding) string {
	var parts []string
	for _, k := range e.Kinds {
		parts = append(parts, humanize.Count(k.N)+" "+k.What)
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// prepareError explains a preparation that stopped: what was done is
// kept, and deriving again resumes.
func prepareError(err error, rep *engine.Prepared, refs []string, model string) error {
	if rep.Embedding != nil {
		return resumeError(err, "embedding", fmt.Sprintf("The derived documents and what was embedded are kept: '%s' embeds the rest (or ask: the raidd strategies embed what they need).",
			rerunCommand("derive", refs, model)))
	}
	return resumeError(err, "derivation", fmt.Sprintf("What was derived is kept: '%s' resumes where it stopped.", rerunCommand("derive", refs, model)))
}

// printDeriveReport writes what a derivation did.
func printDeriveReport(w io.Writer, rep *engine.Prepared) {
	if rep.Done == 0 && len(rep.Failures) == 0 {
		fmt.Fprintf(w, "Nothing to derive: %s already %s summaries and questions by %s (%s chunks).\n",
			docCount(len(rep.Docs)), haveHas(len(rep.Docs)), textproc.OneLine(rep.Model), humanize.Count(rep.Resumed))
		return
	}
	fmt.Fprintf(w, "Derived %s chunks of %s with %s in %s: %s calls, %s prompt and %s completion tokens",
		humanize.Count(rep.Done), docCount(len(rep.Docs)), textproc.OneLine(rep.Model), time.Duration(rep.Seconds*float64(time.Second)).Round(100*time.Millisecond),
		humanize.Count(rep.Usage.LLMCalls), humanize.Count(rep.Usage.PromptTokens), humanize.Count(rep.Usage.CompletionTokens))
	if rep.Usage.Estimated {
		fmt.Fprint(w, " (estimated: the server reported no usage)")
	}
	fmt.Fprintln(w, ".")
	if rep.Resumed > 0 {
		fmt.Fprintf(w, "%s chunks were derived before and kept.\n", humanize.Count(rep.Resumed))
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "Chunk %d of %s (page %d): %s; the next 'citelens derive' retries it.\n", f.Unit+1, textproc.OneLine(f.Name), f.Page, f.Reason)
	}
}

// printPrepStatus prints what is derived for the documents and what
// deriving the rest would cost.
func printPrepStatus(a *app, st *engine.Prepared, asJSON bool) error {
	type docStatus struct {
		ID               docstore.DocID `json:"id"`
		Name             string         `json:"name"`
		Chunks           int            `json:"chunks"`
		Derived          int            `json:"derived"`
		Failed           int            `json:"failed"`
		Indexed          bool           `json:"indexed"`
		PromptTokens     int            `json:"prompt_tokens"`
		CompletionTokens int            `json:"completion_tokens"`
		LLMCalls         int            `json:"llm_calls"`
		// With an embedding model: the derived units (summaries, questions,
		// chunks) of an indexed derivation, and how many are embedded.
		Units    int `json:"units,omitempty"`
		Embedded int `json:"embedded,omitempty"`
	}
	var out struct {
		Model      string      `json:"model"`
		EmbedModel string      `json:"embed_model,omitempty"`
		Docs       []docStatus `json:"documents"`
		Missing    int         `json:"chunks_missing"`
		EstCalls   int         `json:"estimated_calls"`
		EstTokens  int         `json:"estimated_tokens"`
	}
	out.Model = st.Model
	if st.Embedding != nil {
		out.EmbedModel = st.Embedding.Model
	}
	out.Missing, out.EstCalls, out.EstTokens = st.Missing.Units, st.Missing.Calls, st.Missing.Tokens()
	for _, d := range st.Docs {
		out.Docs = append(out.Docs, docStatus{ID: d.ID, Name: d.Name, Chunks: d.Units, Derived: d.Done, Failed: d.Failed, Indexed: d.Complete,
			PromptTokens: d.Spent.PromptTokens, CompletionTokens: d.Spent.CompletionTokens, LLMCalls: d.Spent.LLMCalls,
			Units: d.Embeddable, Embedded: d.Embedded})
	}
	if asJSON {
		return writeJSON(a.stdout, out, false)
	}
	if st.Model == "" {
		fmt.Fprintln(a.stdout, "No model is configured: name one with --model to see its derived documents.")
		return nil
	}
	fmt.Fprintf(a.stdout, "Derived documents by %s (%d-token chunks):\n", textproc.OneLine(st.Model), st.UnitTokens)
	for _, d := range out.Docs {
		state := "complete"
		switch {
		case d.Derived+d.Failed == 0:
			state = "none"
		case d.Derived+d.Failed < d.Chunks:
			state = "partial"
		}
		fmt.Fprintf(a.stdout, "  %s  %-30s %5s/%s chunks  %-8s", d.ID, textproc.OneLine(d.Name), humanize.Count(d.Derived), humanize.Count(d.Chunks), state)
		if d.Failed > 0 {
			fmt.Fprintf(a.stdout, "  %d failed", d.Failed)
		}
		if d.LLMCalls > 0 {
			fmt.Fprintf(a.stdout, "  spent %s tokens", humanize.Tokens(d.PromptTokens+d.CompletionTokens))
		}
		if d.Units > 0 {
			fmt.Fprintf(a.stdout, "  embedded %s/%s", humanize.Count(d.Embedded), humanize.Count(d.Units))
		}
		fmt.Fprintln(a.stdout)
	}
	if st.Missing.Units > 0 {
		fmt.Fprintf(a.stdout, "Deriving the missing %s chunks takes about %s calls and %s tokens: run 'citelens derive'.\n",
			humanize.Count(st.Missing.Units), humanize.Count(st.Missing.Calls), humanize.Tokens(st.Missing.Tokens()))
	}
	if e := st.Embedding; e != nil && e.Embedded < e.Units {
		fmt.Fprintf(a.stdout, "%s of the derived summaries, questions and chunks are not embedded with %s yet: 'citelens derive' embeds them.\n",
			humanize.Count(e.Units-e.Embedded), textproc.OneLine(e.Model))
	}
	return nil
}

// deriveView is the JSON summary of a derivation.
type deriveView struct {
	Model        string          `json:"model"`
	ChunkTokens  int             `json:"chunk_tokens"`
	ChunkOverlap int             `json:"chunk_overlap"`
	Documents    []deriveDocView `json:"documents"`
	Derived      int             `json:"derived"`
	Resumed      int             `json:"resumed"`
	Failures     []deriveFailure `json:"failures"`
	llm.Usage                    // prompt_tokens, completion_tokens, llm_calls, estimated
	Seconds      float64         `json:"seconds"`
	// Embedding is what embedding the derived documents did, when an
	// embedding model is configured.
	Embedding *eval.Embedding `json:"embedding,omitempty"`
}

type deriveDocView struct {
	ID      docstore.DocID `json:"id"`
	Name    string         `json:"name"`
	Chunks  int            `json:"chunks"`
	Derived int            `json:"derived"`
	Failed  int            `json:"failed"`
}

type deriveFailure struct {
	Doc    docstore.DocID `json:"doc"`
	Chunk  int            `json:"chunk"`
	Page   int            `json:"page"`
	Reason string         `json:"reason"`
}

func newDeriveView(rep *engine.Prepared) deriveView {
	v := deriveView{Model: rep.Model, ChunkTokens: rep.UnitTokens, ChunkOverlap: rep.UnitOverlap,
		Derived: rep.Done, Resumed: rep.Resumed, Usage: rep.Usage, Seconds: rep.Seconds,
		Documents: []deriveDocView{}, Failures: []deriveFailure{}, Embedding: eval.EmbeddingOf(rep.Embedding)}
	for _, d := range rep.Docs {
		v.Documents = append(v.Documents, deriveDocView{ID: d.ID, Name: d.Name, Chunks: d.Units, Derived: d.Done, Failed: d.Failed})
	}
	for _, f := range rep.Failures {
		v.Failures = append(v.Failures, deriveFailure{Doc: f.Doc, Chunk: f.Unit, Page: f.Page, Reason: f.Reason})
	}
	return v
}

func docCount(n int) string {
	if n == 1 {
		return "1 document"
	}
	return fmt.Sprintf("%d documents", n)
}

func haveHas(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
