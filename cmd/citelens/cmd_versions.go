package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Versions of a document and answers whose evidence changed with them
// (issue 35): recheck, answers --stale, show --versions and the version
// notes of add, ls and export.

func init() {
	register(&command{
		name:    "recheck",
		args:    "[--json [--raw]] ANSWER_ID",
		summary: "carry a saved answer's citations to the latest versions of their documents and say what changed (the answer itself stays as it was)",
		run:     runRecheck,
	})
}

// versions is what a command knows of the library's versions: read once
// (every document's metadata, as List reads it), with the alignments of
// cited versions to their latest, made once a pair.
type versions struct {
	l      *docstore.Library
	infos  []docstore.DocInfo
	byID   map[docstore.DocID]docstore.DocInfo
	latest map[docstore.DocID][]docstore.DocInfo // a document's line, oldest first
	// newer carries a citation to its document's latest version.
	newer reanchor.Newer
	docs  map[docstore.DocID]*docstore.Document // latest versions read for their text
}

func readVersions(l *docstore.Library) (*versions, error) {
	infos, err := l.List()
	if err != nil {
		return nil, err
	}
	return newVersions(l, infos), nil
}

// readVersionLinks is readVersions from the compact listing (Links):
// what numbering versions needs, for ls, without every metadata record.
func readVersionLinks(l *docstore.Library) (*versions, error) {
	infos, err := l.Versions().Links()
	if err != nil {
		return nil, err
	}
	return newVersions(l, infos), nil
}

// newVersions is the versions of the documents infos.
func newVersions(l *docstore.Library, infos []docstore.DocInfo) *versions {
	v := &versions{l: l, infos: infos, byID: map[docstore.DocID]docstore.DocInfo{},
		latest: map[docstore.DocID][]docstore.DocInfo{},
		newer:  reanchor.InLibrary(l, infos, reanchor.NewAligner(64)),
		docs:   map[docstore.DocID]*docstore.Document{}}
	for _, d := range infos {
		v.byID[d.ID] = d
	}
	return v
}

// line returns the versions of id's document, oldest first.
func (v *versions) line(id docstore.DocID) []docstore.DocInfo {
	if vs, ok := v.latest[id]; ok {
		return vs
	}
	vs := docstore.Lineage(v.infos, id)
	for _, d := range vs {
		v.latest[d.ID] = vs
	}
	v.latest[id] = vs
	return vs
}

// number returns id's version number (1 for the first) and how many
// versions its document has.
func (v *versions) number(id docstore.DocID) (n, of int) {
	vs := v.line(id)
	for i, d := range vs {
		if d.ID == id {
			return i + 1, len(vs)
		}
	}
	return 1, 1
}

// staleAnswer is an answer with what became of its citations, as
// answers --stale --json and recheck --json print it.
type staleAnswer struct {
	ID       string            `json:"answer_id"`
	Question string            `json:"question"`
	Stale    bool              `json:"stale"`
	Changes  []reanchor.Change `json:"changes"`
	// Support is, for each changed citation (same order as Changes), the
	// offline support check of its statement against the old and the new
	// text.
	Support []supportChange `json:"support,omitempty"`
}

// supportChange is a changed citation's statement checked against its
// old and its new text.
type supportChange struct {
	Statement int               `json:"statement"`
	Citation  int               `json:"citation"`
	Old       citations.Verdict `json:"old"`
	New       citations.Verdict `json:"new"`
	// Model is the model judge's rating of the statement against the new
	// text (recheck, with a model configured): LongCite's support rating,
	// "Fully supported", "Partially supported" or "No support".
	Model string `json:"model_rating,omitempty"`
}

func recheckAnswer(v *versions, ans *engine.Answer) (staleAnswer, error) {
	changes, err := reanchor.Answer(ans, v.newer)
	if err != nil {
		return staleAnswer{}, err
	}
	out := staleAnswer{ID: ans.ID, Question: ans.Question, Stale: reanchor.Stale(changes), Changes: changes}
	if out.Changes == nil {
		out.Changes = []reanchor.Change{}
	}
	for _, c := range changes {
		if c.Class != reanchor.Changed && c.Class != reanchor.Gone {
			continue
		}
		st := ans.Statements[c.Statement].Text
		out.Support = append(out.Support, supportChange{Statement: c.Statement, Citation: c.Citation,
			Old: citations.Support(st, c.OldText), New: citations.Support(st, c.NewText)})
	}
	return out, nil
}

func runRecheck(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["recheck"])
	asJSON := fs.Bool("json", false, "print what became of each citation as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	l, ans, err := a.openAnswer("recheck", fs, refs)
	if err != nil {
		return err
	}
	defer l.Close()
	v, err := readVersions(l)
	if err != nil {
		return err
	}
	r, err := recheckAnswer(v, ans)
	if err != nil {
		return err
	}
	if err := a.judgeChanges(ctx, ans, &r); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, r, *raw)
	}
	if len(r.Changes) == 0 {
		fmt.Fprintf(a.stdout, "%s cites only the latest versions of its documents: nothing to recheck.\n", ans.ID)
		return nil
	}
	writeChanges(a.stdout, v, ans, r)
	return nil
}

// writeChanges prints what became of an answer's citations, the old and
// the new text of each changed one with its difference marked [-struck-]
// {+added+}.
func writeChanges(w io.Writer, v *versions, ans *engine.Answer, r staleAnswer) {
	verdict := map[[2]int]supportChange{}
	for _, s := range r.Support {
		verdict[[2]int{s.Statement, s.Citation}] = s
	}
	verb := "still stands on its evidence"
	if r.Stale {
		verb = "cites evidence that changed"
	}
	fmt.Fprintf(w, "%s  %s\n  %s\n", r.ID, textproc.OneLine(textproc.Clip(ans.Question, 100)), verb)
	for _, c := range r.Changes {
		from, _ := v.number(c.From)
		to, of := v.number(c.To)
		name := textproc.OneLine(v.byID[c.From].DisplayName())
		fmt.Fprintf(w, "  statement %d, citation %d: %s (%s, version %d → %d of %d)\n", c.Statement+1, c.Citation+1, c.Class, name, from, to, of)
		switch c.Class {
		case reanchor.Unchanged, reanchor.Moved:
			fmt.Fprintf(w, "    now sentences %d-%d, p. %d\n", c.First, c.Last, c.Page)
		case reanchor.Changed:
			fmt.Fprintf(w, "    old: %s\n    new: %s\n    diff: %s\n", textproc.OneLine(c.OldText), textproc.OneLine(c.NewText), reanchor.DiffLine(c.Diff))
			if s, ok := verdict[[2]int{c.Statement, c.Citation}]; ok {
				fmt.Fprintf(w, "    support (offline): %s → %s\n", s.Old.Level, s.New.Level)
				if s.Model != "" {
					fmt.Fprintf(w, "    support (model, of the new text): %s\n", textproc.OneLine(s.Model))
				}
			}
		case reanchor.Gone:
			fmt.Fprintf(w, "    old: %s\n", textproc.OneLine(c.OldText))
			if len(c.Candidates) == 0 {
				fmt.Fprintln(w, "    no sentence of the new version is like it")
			}
			for _, cand := range c.Candidates {
				fmt.Fprintf(w, "    nearest (%.0f%% alike, sentence %d, p. %d): %s\n", 100*cand.Similarity, cand.First, cand.Page,
					textproc.OneLine(textproc.Clip(v.sentence(c.To, cand.Start, cand.End), 160)))
			}
		}
	}
}

// sentence returns bytes start..end of the latest version id, aligned
// with (newer), "" if out of its text.
func (v *versions) sentence(id docstore.DocID, start, end int) string {
	d, ok := v.docs[id]
	if !ok {
		d, _ = v.l.Document(id) // nil on error: the text is left out
		v.docs[id] = d
	}
	if d == nil || start < 0 || end > len(d.Text) || start > end {
		return ""
	}
	return d.Text[start:end]
}

// answersStale prints the saved answers whose evidence changed with a
// new version of a document they cite, newest first.
func answersStale(a *app, l *docstore.Library, list []docstore.AnswerMeta, asJSON, raw bool) error {
	v, err := readVersions(l)
	if err != nil {
		return err
	}
	var out []staleAnswer
	var answers []*engine.Answer
	for _, m := range list {
		ans, err := engine.Load(l, m.ID)
		if err != nil {
			return err
		}
		r, err := recheckAnswer(v, ans)
		if err != nil {
			return err
		}
		if r.Stale {
			out = append(out, r)
			answers = append(answers, ans)
		}
	}
	if asJSON {
		if out == nil {
			out = []staleAnswer{}
		}
		return writeJSON(a.stdout, out, raw)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "No saved answer cites evidence that changed.")
		return nil
	}
	for i, r := range out {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		writeChanges(a.stdout, v, answers[i], r)
	}
	return nil
}

// writeVersionList prints a document's versions, oldest first, marking
// the one asked about.
func writeVersionList(w io.Writer, vs []docstore.DocInfo, id docstore.DocID) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tID\tNAME\tPAGES\tADDED\t")
	for i, d := range vs {
		mark := ""
		if d.ID == id {
			mark = "←"
		}
		if i == len(vs)-1 {
			mark = strings.TrimSpace(mark + " latest")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", i+1, d.ID, textproc.OneLine(d.Name), d.Pages, d.Added.Local().Format("2006-01-02 15:04:05"), mark)
	}
	return tw.Flush()
}

// versionNote is what add says of a new version: "; version 2 of 2, after
// ID" ("" for a first version).
func versionNote(l *docstore.Library, info docstore.DocInfo) string {
	if info.Previous == "" {
		return ""
	}
	vs, err := l.Versions().Of(info.ID)
	if err != nil || len(vs) < 2 {
		return fmt.Sprintf("; the next version of %s", info.Previous)
	}
	return fmt.Sprintf("; version %d, after %s ('citelens answers --stale' says which saved answers it changes)", len(vs), info.Previous)
}

// versionsToRemove makes the removal of a version explicit: a document
// with other versions is removed with --this-version (that version only)
// or --all-versions (every one); without either, rm refuses and says so.
func versionsToRemove(l *docstore.Library, ids []docstore.DocID, this, all bool) ([]docstore.DocID, error) {
	var out []docstore.DocID
	seen := map[docstore.DocID]bool{}
	for _, id := range ids {
		vs, err := l.Versions().Of(id)
		if err != nil {
			return nil, err
		}
		if len(vs) > 1 && !this && !all {
			return nil, fix.With(fmt.Errorf("%s is one of %d versions of %s", id, len(vs), textproc.OneLine(vs[len(vs)-1].DisplayName())),
				"Say which: 'citelens rm --this-version ID' removes this version only, 'citelens rm --all-versions ID' every one ('citelens show ID --versions' lists them).")
		}
		// A version links to the one before it only: removing one in the
		// middle would cut the line in two.
		if this && len(vs) > 2 && vs[0].ID != id && vs[len(vs)-1].ID != id {
			return nil, fix.With(fmt.Errorf("%s is a middle version (of %d) of %s: removing it alone would cut the versions before it off from those after", id, len(vs), textproc.OneLine(vs[len(vs)-1].DisplayName())),
				"Remove the oldest or the latest version alone, or every one with --all-versions.")
		}
		take := []docstore.DocInfo{{ID: id}}
		if all {
			take = vs
		}
		for _, d := range take {
			if !seen[d.ID] {
				seen[d.ID] = true
				out = append(out, d.ID)
			}
		}
	}
	return out, nil
}

// withVersions adds to an export the versions it cites and, when a newer
// version changed its evidence, the changes (citations.AddProvenance).
func withVersions(l *docstore.Library, format string, ans *engine.Answer, doc []byte) ([]byte, error) {
	if format != "md" && format != "html" && format != "json" {
		return doc, nil
	}
	p, err := reanchor.ProvenanceIn(l, reanchor.NewAligner(64), ans)
	if err != nil {
		return nil, err
	}
	return citations.AddProvenance(format, doc, p)
}

// judgeChanges has the model judge (as verify's, judge_model else the
// answering model) rate each changed citation's statement against its new
// text, when a model is configured; without one the offline check stands.
// The answer is judged as a copy: what the user saw is not rewritten.
func (a *app) judgeChanges(ctx context.Context, ans *engine.Answer, r *staleAnswer) error {
	if len(r.Support) == 0 {
		return nil
	}
	cfg, err := a.config()
	if err != nil {
		return err
	}
	jc := cfg.JudgeConfig()
	if jc.Configured() != nil {
		return nil
	}
	c, err := llm.New(jc)
	if err != nil {
		return err
	}
	j := judge.New(c, judge.Options{})
	byKey := map[[2]int]reanchor.Change{}
	for _, ch := range r.Changes {
		byKey[[2]int{ch.Statement, ch.Citation}] = ch
	}
	for i, s := range r.Support {
		ch := byKey[[2]int{s.Statement, s.Citation}]
		if ch.Class != reanchor.Changed {
			continue // gone: no new text to judge
		}
		span := citations.Span{Doc: ch.To, First: ch.First, Last: ch.Last, Start: ch.Start, End: ch.End, Page: ch.Page, Text: ch.NewText}
		res, err := j.Score(ctx, &citations.Answer{Question: ans.Question,
			Statements: []citations.Statement{{Text: ans.Statements[s.Statement].Text, Citations: []citations.Span{span}}}})
		if err != nil {
			return fmt.Errorf("the model judge failed on statement %d: %w", s.Statement+1, err)
		}
		r.Support[i].Model = res.Statements[0].Rating
	}
	return nil
}
