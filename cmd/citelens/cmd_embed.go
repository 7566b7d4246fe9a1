package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/progress"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

func init() {
	register(&command{
		name:    "embed",
		args:    "[--doc ID]... [--level sentence|chunk|all] [--status] [--json]",
		summary: "embed documents' sentences and chunks for dense retrieval (spends embedding tokens; strategies also do it when first needed)",
		run:     runEmbed,
	})
}

// embedView is embed's JSON output.
type embedView struct {
	Model    string         `json:"model"`
	Embedded int            `json:"embedded"`
	Usage    llm.Usage      `json:"usage"`
	Seconds  float64        `json:"seconds"`
	Sets     []embedSetView `json:"sets"`
}

// embedSetView is one stored set of vectors.
type embedSetView struct {
	Doc    docstore.DocID `json:"doc"`
	Name   string         `json:"name"`
	Level  string         `json:"level"`
	Dim    int            `json:"dim"`
	Stored int            `json:"stored"`
	Units  int            `json:"units"`
	Bytes  int            `json:"bytes"`
}

func runEmbed(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["embed"])
	var refs stringList
	fs.Var(&refs, "doc", "embed this document (`ID` prefix or file name; repeatable; default: all)")
	level := fs.String("level", "all", "what to embed: `LEVEL` sentence, chunk or all")
	status := fs.Bool("status", false, "show what is embedded with the configured model; make no model calls")
	asJSON := fs.Bool("json", false, "print a JSON summary")
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	levels, err := embedLevels(*level)
	if err != nil {
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
	model := env.Config.EmbedModel
	if model == "" {
		return fix.With(fmt.Errorf("%w: nothing to embed with", llm.ErrNoEmbedModel),
			"Set %s (or embed_model in %s) to an embedding model the server serves; 'citelens doctor' lists them.", config.EnvEmbedModel, env.Config.Path)
	}
	view := embedView{Model: model}
	if !*status {
		client, err := env.RequireLLM("embed")
		if err != nil {
			return fix.With(err, "Embedding needs a model endpoint: see 'citelens config show'.")
		}
		s, err := dense.New(l, client)
		if err != nil {
			return err
		}
		start := time.Now()
		bar := &embedBar{Line: newLiveLine(a.stderr)}
		var usage llm.Usage
		usage, view.Embedded, err = embedAll(ctx, s, docs, levels, bar.update)
		bar.Finish()
		view.Usage, view.Seconds = usage, time.Since(start).Seconds()
		if err != nil {
			if !*asJSON {
				printEmbedDone(a.stdout, view)
			}
			return embedError(err, refs)
		}
	}
	for _, id := range docs {
		sets, err := l.Vectors().Sets(id)
		if err != nil {
			return err
		}
		info, _ := l.Info(id)
		for _, set := range sets {
			if set.Model != model {
				continue
			}
			view.Sets = append(view.Sets, embedSetView{Doc: id, Name: info.Name, Level: levelName(set.Level), Dim: set.Dim,
				Stored: set.Stored, Units: set.Units, Bytes: set.Bytes})
		}
	}
	if *asJSON {
		return writeJSON(a.stdout, view, false)
	}
	if !*status {
		printEmbedDone(a.stdout, view)
	}
	printEmbedSets(a.stdout, view, len(docs))
	return nil
}

func embedLevels(s string) ([]docstore.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "all", "both", "":
		return dense.Levels, nil
	case "sentence", "sentences", "s":
		return []docstore.Level{docstore.SentenceLevel}, nil
	case "chunk", "chunks", "c":
		return []docstore.Level{docstore.ChunkLevel}, nil
	}
	return nil, fmt.Errorf("--level %q: give sentence, chunk or all", s)
}

func levelName(lv docstore.Level) string {
	if lv == docstore.ChunkLevel {
		return "chunk"
	}
	return "sentence"
}

// embedAll embeds what is missing, document by document, and counts the
// units it embedded.
func embedAll(ctx context.Context, s *dense.Scorer, docs []docstore.DocID, levels []docstore.Level, progress func(dense.Progress)) (llm.Usage, int, error) {
	var total llm.Usage
	embedded := 0
	for _, id := range docs {
		// Each level of the document reports first what it already had.
		first, last := map[docstore.Level]int{}, map[docstore.Level]int{}
		u, err := s.Ensure(ctx, []docstore.DocID{id}, levels, func(p dense.Progress) {
			if _, ok := first[p.Level]; !ok {
				first[p.Level] = p.Done
			}
			last[p.Level] = p.Done
			progress(p)
		})
		total.Add(u)
		for lv, n := range last {
			embedded += n - first[lv]
		}
		if err != nil {
			return total, embedded, err
		}
	}
	return total, embedded, nil
}

// embedBar draws "[████░░░░] 12,000/150,000 sentences, 850/s · manual.pdf".
type embedBar struct {
	*progress.Line
	// base is where the current document level started, for the rate.
	key  string
	base int
	at   time.Time
}

func (b *embedBar) update(p dense.Progress) {
	key := string(p.Doc) + p.Unit()
	if key != b.key {
		b.key, b.base, b.at = key, p.Done, time.Now()
	}
	if !b.Due(p.Done == p.Total) {
		return
	}
	rate := float64(p.Done-b.base) / max(time.Since(b.at).Seconds(), 1e-3)
	b.Draw(fmt.Sprintf("[%s] %s/%s %s, %.0f/s · %s", progress.Bar(p.Done, p.Total, barWidth),
		humanize.Count(p.Done), humanize.Count(p.Total), p.Unit(), rate, textproc.OneLine(p.Name)))
}

func printEmbedDone(w io.Writer, v embedView) {
	if v.Usage.LLMCalls == 0 {
		fmt.Fprintf(w, "Nothing to embed: everything asked for is embedded with %s.\n", textproc.OneLine(v.Model))
		return
	}
	fmt.Fprintf(w, "Embedded %s sentences and chunks with %s in %s: %s calls, %s tokens", humanize.Count(v.Embedded), textproc.OneLine(v.Model),
		time.Duration(v.Seconds*float64(time.Second)).Round(100*time.Millisecond), humanize.Count(v.Usage.LLMCalls), humanize.Count(v.Usage.PromptTokens))
	if v.Usage.Estimated {
		fmt.Fprint(w, " (estimated: the server reported no usage)")
	}
	fmt.Fprintln(w, ".")
}

func printEmbedSets(w io.Writer, v embedView, docs int) {
	if len(v.Sets) == 0 {
		fmt.Fprintf(w, "Nothing of %s is embedded with %s yet: run 'citelens embed'.\n", docCount(docs), textproc.OneLine(v.Model))
		return
	}
	fmt.Fprintf(w, "Stored vectors (%s, int8 with a scale per vector):\n", textproc.OneLine(v.Model))
	total := 0
	for _, s := range v.Sets {
		state := "complete"
		if s.Stored < s.Units {
			state = "partial"
		}
		fmt.Fprintf(w, "  %s  %-30s %8s/%s %ss  %-8s %4d dims  %s\n", s.Doc, textproc.OneLine(s.Name), humanize.Count(s.Stored), humanize.Count(s.Units),
			s.Level, state, s.Dim, humanize.Bytes(int64(s.Bytes)))
		total += s.Bytes
	}
	fmt.Fprintf(w, "  %s in all\n", humanize.Bytes(int64(total)))
}

// embedError explains an embedding run that stopped, and that running
// again resumes.
func embedError(err error, refs []string) error {
	return resumeError(err, "embedding", fmt.Sprintf("What was embedded is kept: '%s' resumes where it stopped.", rerunCommand("embed", refs, "")))
}
