package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/engine/raidd"
)

func init() {
	register(&command{
		name:    "derive",
		args:    "[--doc ID]... [--model NAME] [--jobs N] [--no-embed] [--status] [--json]",
		summary: "write the summaries and questions the raidd strategies retrieve through, and embed them if an embedding model is set (spends model tokens)",
		run:     runDerive,
	})
}

func runDerive(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["derive"])
	var refs stringList
	fs.Var(&refs, "doc", "derive for this document (`ID` prefix or file name; repeatable; default: all)")
	model := fs.String("model", "", "the model that writes them (default: the configured model)")
	jobs := fs.Int("jobs", 1, "derive `N` documents at once (a document's chunks go in order)")
	noEmbed := fs.Bool("no-embed", false, "do not embed the derived documents (with an embedding model set, the raidd strategies embed what they need when first asked)")
	status := fs.Bool("status", false, "show what is derived and embedded and what the rest would cost; make no model calls")
	asJSON := fs.Bool("json", false, "print a JSON summary")
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	l, docs, err := a.openScope(*status, refs)
	if l == nil {
		return err
	}
	defer l.Close()
	env, err := a.engineEnv(l)
	if err != nil {
		return err
	}
	if *status {
		m := *model
		if m == "" {
			m = env.Config.Model
		}
		return deriveStatus(a, l, raidd.SetFor(m), docs, env.Config.EmbedModel, *asJSON)
	}
	client, err := env.RequireLLM("derive")
	if err != nil {
		return withHint(err, "Deriving needs a model endpoint: see 'citelens config show'.")
	}
	dv := &raidd.Deriver{Library: l, Client: client, Model: *model, Jobs: *jobs}
	rep, err := deriveWithProgress(ctx, a, dv, docs)
	// Then the derived documents of every complete document are embedded,
	// once, so that no question pays for it.
	var emb *dense.DerivedReport
	var eerr error
	if err == nil && !*noEmbed && dense.Enabled(env) {
		var r dense.DerivedReport
		r, eerr = embedDerived(ctx, a, l, client, dv.Set(), completeDocs(rep), dense.DerivedKinds)
		emb = &r
	}
	if *asJSON {
		view := newDeriveView(rep)
		view.Embedding = newDeriveEmbedView(emb)
		if jerr := writeJSON(a.stdout, view); jerr != nil && err == nil {
			err = jerr
		}
	} else {
		printDeriveReport(a.stdout, rep)
		printDeriveEmbedded(a.stdout, emb)
	}
	if err != nil {
		return deriveError(err, dv, docs, refs)
	}
	return embedDerivedError(eerr, dv, refs)
}

// completeDocs are the documents of a derivation with every chunk derived
// (some perhaps failed): those whose derived documents are indexed.
func completeDocs(rep raidd.Report) []docstore.DocID {
	var out []docstore.DocID
	for _, d := range rep.Docs {
		if d.Chunks > 0 && d.Done+d.Failed == d.Chunks {
			out = append(out, d.ID)
		}
	}
	return out
}

// embedDerived embeds the units of kinds of set's derivation of docs that
// are not embedded yet, with a progress bar on a terminal.
func embedDerived(ctx context.Context, a *app, l *docstore.Library, client *llm.Client, set docstore.DerivedSet, docs []docstore.DocID, kinds []docstore.DerivedKind) (dense.DerivedReport, error) {
	s, err := dense.New(l, client)
	if err != nil {
		return dense.DerivedReport{}, err
	}
	bar := &embedBar{liveLine: newLiveLine(a.stderr)}
	rep, err := s.EnsureDerived(ctx, docs, set, kinds, bar.update)
	bar.finish()
	return rep, err
}

// printDeriveEmbedded says what embedding the derived documents did.
func printDeriveEmbedded(w io.Writer, rep *dense.DerivedReport) {
	if rep == nil {
		return
	}
	if rep.EmbeddedTotal() == 0 {
		if len(rep.Units) > 0 {
			fmt.Fprintf(w, "The derived documents are embedded with %s already.\n", textproc.OneLine(rep.Model))
		}
		return
	}
	fmt.Fprintf(w, "Embedded %s with %s in %s: %s calls, %s tokens", embeddedList(rep), textproc.OneLine(rep.Model),
		time.Duration(rep.Seconds*float64(time.Second)).Round(100*time.Millisecond), engine.Thousands(rep.Usage.LLMCalls), engine.Thousands(rep.Usage.PromptTokens))
	if rep.Usage.Estimated {
		fmt.Fprint(w, " (estimated: the server reported no usage)")
	}
	fmt.Fprintln(w, ".")
}

// embeddedList names what a run embedded: "1,204 summaries, 9,632
// questions and 1,204 chunks".
func embeddedList(rep *dense.DerivedReport) string {
	names := map[docstore.DerivedKind]string{docstore.DerivedSummary: "summaries", docstore.DerivedQuestion: "questions", docstore.DerivedRaw: "chunks"}
	var parts []string
	for _, k := range dense.DerivedKinds {
		if n := rep.Embedded[k]; n > 0 {
			parts = append(parts, engine.Thousands(n)+" "+names[k])
		}
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// embedDerivedError explains an embedding of derived documents that
// stopped: the derivation is kept, and deriving again embeds the rest.
func embedDerivedError(err error, dv *raidd.Deriver, refs []string) error {
	if err == nil {
		return nil
	}
	return resumeError(err, "embedding", fmt.Sprintf("The derived documents and what was embedded are kept: '%s' embeds the rest (or ask: the raidd strategies embed what they need).",
		rerunCommand("derive", refs, dv.Model)))
}

// deriveWithProgress runs dv over docs with a progress bar on a terminal:
// chunks done of the total, the rate, and the tokens spent so far.
func deriveWithProgress(ctx context.Context, a *app, dv *raidd.Deriver, docs []docstore.DocID) (raidd.Report, error) {
	est, err := raidd.Missing(dv.Library, dv.Set(), docs)
	if err != nil {
		return raidd.Report{Set: dv.Set()}, err
	}
	if est.Chunks > 0 {
		fmt.Fprintf(a.stderr, "Deriving summaries and questions for %s chunks of %s with %s: about %s calls and %s tokens.\n",
			engine.Thousands(est.Chunks), docCount(len(est.Docs)), textproc.OneLine(est.Set.Model), engine.Thousands(est.Calls), engine.ApproxTokens(est.Tokens()))
	}
	bar := &deriveBar{newLiveLine(a.stderr)}
	rep, err := dv.Derive(ctx, docs, bar.update)
	bar.finish()
	return rep, err
}

// deriveBar draws "[████░░░░] 40/120 chunks, 1.3/s, 25k tokens (name)".
type deriveBar struct{ liveLine }

func (b *deriveBar) update(p raidd.Progress) {
	if !b.due(p.Done == p.Total) {
		return
	}
	rate := float64(p.Done) / max(p.Elapsed.Seconds(), 1e-3)
	line := fmt.Sprintf("[%s] %s/%s chunks, %.1f/s, %s tokens (%s prompt, %s completion)",
		barCells(p.Done, p.Total), engine.Thousands(p.Done), engine.Thousands(p.Total), rate,
		engine.ApproxTokens(p.Usage.PromptTokens+p.Usage.CompletionTokens), engine.ApproxTokens(p.Usage.PromptTokens), engine.ApproxTokens(p.Usage.CompletionTokens))
	if p.Failed > 0 {
		line += fmt.Sprintf(", %d failed", p.Failed)
	}
	b.draw(line + " · " + textproc.OneLine(p.Name))
}

// printDeriveReport writes what a derivation did.
func printDeriveReport(w io.Writer, rep raidd.Report) {
	if rep.Derived == 0 && len(rep.Failures) == 0 {
		fmt.Fprintf(w, "Nothing to derive: %s already %s summaries and questions by %s (%s chunks).\n",
			docCount(len(rep.Docs)), haveHas(len(rep.Docs)), textproc.OneLine(rep.Set.Model), engine.Thousands(rep.Resumed))
		return
	}
	fmt.Fprintf(w, "Derived %s chunks of %s with %s in %s: %s calls, %s prompt and %s completion tokens",
		engine.Thousands(rep.Derived), docCount(len(rep.Docs)), textproc.OneLine(rep.Set.Model), time.Duration(rep.Seconds*float64(time.Second)).Round(100*time.Millisecond),
		engine.Thousands(rep.Usage.LLMCalls), engine.Thousands(rep.Usage.PromptTokens), engine.Thousands(rep.Usage.CompletionTokens))
	if rep.Usage.Estimated {
		fmt.Fprint(w, " (estimated: the server reported no usage)")
	}
	fmt.Fprintln(w, ".")
	if rep.Resumed > 0 {
		fmt.Fprintf(w, "%s chunks were derived before and kept.\n", engine.Thousands(rep.Resumed))
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "Chunk %d of %s (page %d): %s; the next 'citelens derive' retries it.\n", f.Chunk+1, textproc.OneLine(f.Name), f.Page, f.Reason)
	}
}

// deriveError explains a derivation that stopped: what to do, and that
// running again resumes.
func deriveError(err error, dv *raidd.Deriver, docs []docstore.DocID, refs []string) error {
	if err == nil {
		return nil
	}
	return resumeError(err, "derivation", fmt.Sprintf("What was derived is kept: '%s' resumes where it stopped.", rerunCommand("derive", refs, dv.Model)))
}

// deriveStatus prints what is derived for docs and what deriving the rest
// would cost.
func deriveStatus(a *app, l *docstore.Library, set docstore.DerivedSet, docs []docstore.DocID, embedModel string, asJSON bool) error {
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
	out.Model, out.EmbedModel = set.Model, embedModel
	est, err := raidd.Missing(l, set, docs)
	if err != nil {
		return err
	}
	out.Missing, out.EstCalls, out.EstTokens = est.Chunks, est.Calls, est.Tokens()
	for _, id := range docs {
		d, err := l.Document(id)
		if err != nil {
			return err
		}
		st, err := l.DerivedStatus(id, set)
		if err != nil {
			return err
		}
		chunks, err := raidd.Chunks(d)
		if err != nil {
			return err
		}
		ds := docStatus{ID: id, Name: d.Name, Chunks: len(chunks), Derived: st.Done - st.Failed, Failed: st.Failed,
			Indexed: st.Indexed, PromptTokens: st.PromptTokens, CompletionTokens: st.CompletionTokens, LLMCalls: st.Calls}
		if embedModel != "" && st.Indexed {
			for _, k := range dense.DerivedKinds {
				gaps, n, err := l.VectorGaps(docstore.DerivedVectorKey(id, embedModel, set, k))
				if err != nil {
					return err
				}
				ds.Units += n
				ds.Embedded += n
				for _, g := range gaps {
					ds.Embedded -= g.Last - g.First + 1
				}
			}
		}
		out.Docs = append(out.Docs, ds)
	}
	if asJSON {
		return writeJSON(a.stdout, out)
	}
	if set.Model == "" {
		fmt.Fprintln(a.stdout, "No model is configured: name one with --model to see its derived documents.")
		return nil
	}
	fmt.Fprintf(a.stdout, "Derived documents by %s (%d-token chunks):\n", textproc.OneLine(set.Model), set.Tokens)
	for _, d := range out.Docs {
		state := "complete"
		switch {
		case d.Derived+d.Failed == 0:
			state = "none"
		case d.Derived+d.Failed < d.Chunks:
			state = "partial"
		}
		fmt.Fprintf(a.stdout, "  %s  %-30s %5s/%s chunks  %-8s", d.ID, textproc.OneLine(d.Name), engine.Thousands(d.Derived), engine.Thousands(d.Chunks), state)
		if d.Failed > 0 {
			fmt.Fprintf(a.stdout, "  %d failed", d.Failed)
		}
		if d.LLMCalls > 0 {
			fmt.Fprintf(a.stdout, "  spent %s tokens", engine.ApproxTokens(d.PromptTokens+d.CompletionTokens))
		}
		if d.Units > 0 {
			fmt.Fprintf(a.stdout, "  embedded %s/%s", engine.Thousands(d.Embedded), engine.Thousands(d.Units))
		}
		fmt.Fprintln(a.stdout)
	}
	if est.Chunks > 0 {
		fmt.Fprintf(a.stdout, "Deriving the missing %s chunks takes about %s calls and %s tokens: run 'citelens derive'.\n",
			engine.Thousands(est.Chunks), engine.Thousands(est.Calls), engine.ApproxTokens(est.Tokens()))
	}
	if embedModel != "" {
		units, embedded := 0, 0
		for _, d := range out.Docs {
			units, embedded = units+d.Units, embedded+d.Embedded
		}
		if embedded < units {
			fmt.Fprintf(a.stdout, "%s of the derived summaries, questions and chunks are not embedded with %s yet: 'citelens derive' embeds them.\n",
				engine.Thousands(units-embedded), textproc.OneLine(embedModel))
		}
	}
	return nil
}

// deriveView is the JSON summary of a derivation.
type deriveView struct {
	Model           string          `json:"model"`
	ChunkTokens     int             `json:"chunk_tokens"`
	ChunkOverlap    int             `json:"chunk_overlap"`
	Documents       []deriveDocView `json:"documents"`
	Derived         int             `json:"derived"`
	Resumed         int             `json:"resumed"`
	Failures        []deriveFailure `json:"failures"`
	citations.Usage                 // prompt_tokens, completion_tokens, llm_calls, estimated
	Seconds         float64         `json:"seconds"`
	// Embedding is what embedding the derived documents did, when an
	// embedding model is configured.
	Embedding *deriveEmbedView `json:"embedding,omitempty"`
}

// deriveEmbedView is what embedding the derived documents did.
type deriveEmbedView struct {
	Model string `json:"model"`
	// Units counts the derived units (summaries, questions, chunks) of the
	// complete documents; Embedded those this run embedded.
	Units    int             `json:"units"`
	Embedded int             `json:"embedded"`
	Usage    citations.Usage `json:"usage"`
	Seconds  float64         `json:"seconds"`
}

func newDeriveEmbedView(rep *dense.DerivedReport) *deriveEmbedView {
	if rep == nil {
		return nil
	}
	v := &deriveEmbedView{Model: rep.Model, Embedded: rep.EmbeddedTotal(), Usage: rep.Usage, Seconds: rep.Seconds}
	for _, n := range rep.Units {
		v.Units += n
	}
	return v
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

func newDeriveView(rep raidd.Report) deriveView {
	v := deriveView{Model: rep.Set.Model, ChunkTokens: rep.Set.Tokens, ChunkOverlap: rep.Set.Overlap,
		Derived: rep.Derived, Resumed: rep.Resumed, Usage: rep.Usage, Seconds: rep.Seconds,
		Documents: []deriveDocView{}, Failures: []deriveFailure{}}
	for _, d := range rep.Docs {
		v.Documents = append(v.Documents, deriveDocView{ID: d.ID, Name: d.Name, Chunks: d.Chunks, Derived: d.Done, Failed: d.Failed})
	}
	for _, f := range rep.Failures {
		v.Failures = append(v.Failures, deriveFailure{Doc: f.Doc, Chunk: f.Chunk, Page: f.Page, Reason: f.Reason})
	}
	return v
}

// evalDerive is the derive step of an evaluation, reported apart from the
// answers' own cost.
type evalDerive struct {
	Chunks  int     `json:"chunks"`
	Resumed int     `json:"resumed"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
	citations.Usage
	// Embedding is what embedding the strategy's derived units did, with
	// an embedding model configured.
	Embedding *deriveEmbedView `json:"embedding,omitempty"`
}

// String is the derive cost for the summary line.
func (d *evalDerive) String() string {
	if d == nil {
		return ""
	}
	s := fmt.Sprintf("; derive step: %s chunks, %s calls, %s prompt and %s completion tokens",
		engine.Thousands(d.Chunks), engine.Thousands(d.LLMCalls), engine.Thousands(d.PromptTokens), engine.Thousands(d.CompletionTokens))
	if e := d.Embedding; e != nil && e.Embedded > 0 {
		s += fmt.Sprintf(", then %s derived units embedded in %s calls, %s tokens", engine.Thousands(e.Embedded), engine.Thousands(e.Usage.LLMCalls), engine.Thousands(e.Usage.PromptTokens))
	}
	return s
}

// prepareEval derives, before an evaluation of a RAIDD strategy, what the
// questions' documents lack, so the answers' usage is the answering alone
// and the derivation's is reported on its own. Other strategies need
// nothing (nil).
func prepareEval(ctx context.Context, a *app, env *engine.Env, s engine.Strategy, golds []citations.Gold, options map[string]string) (*evalDerive, error) {
	rs, ok := s.(*raidd.Strategy)
	if !ok {
		return nil, nil
	}
	opt, err := raidd.ParseOptions(rs.Name(), options)
	if err != nil {
		return nil, err
	}
	seen := map[docstore.DocID]bool{}
	var docs []docstore.DocID
	for _, g := range golds {
		ids, err := resolveDocs(env.Library, g.Docs)
		if err != nil {
			return nil, fmt.Errorf("question %s: %w", g.ID, err)
		}
		if len(g.Docs) == 0 {
			infos, err := env.Library.List()
			if err != nil {
				return nil, err
			}
			for _, in := range infos {
				ids = append(ids, in.ID)
			}
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				docs = append(docs, id)
			}
		}
	}
	dv := &raidd.Deriver{Library: env.Library, Client: rs.Client(), Model: opt.DeriveModel}
	rep, err := deriveWithProgress(ctx, a, dv, docs)
	if err != nil {
		return nil, deriveError(err, dv, nil, nil)
	}
	out := &evalDerive{Chunks: rep.Derived, Resumed: rep.Resumed, Failed: len(rep.Failures), Seconds: rep.Seconds, Usage: rep.Usage}
	if dense.Enabled(env) {
		// The strategy's own kinds, as it would embed them at its first
		// question.
		emb, err := embedDerived(ctx, a, env.Library, rs.Client(), dv.Set(), completeDocs(rep), rs.Variant().Kinds)
		if err != nil {
			return nil, embedDerivedError(err, dv, nil)
		}
		out.Embedding = newDeriveEmbedView(&emb)
	}
	return out, nil
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
